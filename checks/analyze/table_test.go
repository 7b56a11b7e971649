package analyze

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/output"
)

func TestReportTableAndWorst(t *testing.T) {
	r := &Report{Files: []File{
		{File: "a.txt", Kind: "ibstat", Findings: []Finding{{ID: "ibstat/port-state", Status: checks.StatusPass, Subject: "mlx5_0/1", Summary: "Active"}}},
		{File: "b.log", Kind: "nccl", Findings: []Finding{{ID: "nccl/socket-fallback", Status: checks.StatusFail, Summary: "socket"}}},
	}}
	if w := r.Worst(); w != checks.StatusFail {
		t.Errorf("worst %s, want fail", w)
	}
	var b bytes.Buffer
	tw := output.NewTable(&b)
	r.Table(tw)
	tw.Flush()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "PASS") || !strings.Contains(lines[1], "mlx5_0/1") ||
		!strings.Contains(lines[2], "FAIL") || !strings.Contains(lines[2], " - ") {
		t.Errorf("table:\n%s", b.String())
	}
	if w := (&Report{}).Worst(); w == checks.StatusFail || w == checks.StatusError {
		t.Errorf("no files: worst %s", w)
	}
}
