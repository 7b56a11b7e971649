package nccl

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/output"
)

func TestRanksCollapsesRuns(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{{nil, "-"}, {[]int{3}, "3"}, {[]int{0, 1, 2, 5}, "0-2,5"}, {[]int{0, 2, 3, 4, 7, 8}, "0,2-4,7-8"}} {
		if got := ranks(c.in); got != c.want {
			t.Errorf("ranks(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAnalyzeFilesListsUnopenedLogs(t *testing.T) {
	log := "gpu-01:1234:1234 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\ngpu-01:1234:1234 [0] NCCL INFO Using network Socket\n"
	a, err := AnalyzeFiles(context.Background(), strings.NewReader(log), Options{}, []string{"-", "/nonexistent/nccl.log"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Errors) != 1 || a.Errors[0].Source != "/nonexistent/nccl.log" || !strings.Contains(a.Errors[0].Message, "no such file or directory") {
		t.Errorf("errors = %+v, want the unopened log", a.Errors)
	}
	var b bytes.Buffer
	tw := output.NewTable(&b)
	a.Table(tw)
	tw.Flush()
	if !strings.Contains(b.String(), "socket-fallback") || !strings.Contains(b.String(), "gpu-01") {
		t.Errorf("table lacks the host or the finding:\n%s", b.String())
	}
	if _, err := AnalyzeFiles(context.Background(), nil, Options{}, []string{"/nonexistent/a.log"}); err == nil || !strings.Contains(err.Error(), "/nonexistent/a.log") {
		t.Errorf("no log opened: err = %v, want the log named", err)
	}
}
