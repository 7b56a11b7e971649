package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestAnalyzeCommand(t *testing.T) {
	dir := writeLogs(t, map[string]string{"clean.log": ncclCleanLog, "socket.log": ncclSocketLog, "nccl_lib_locations.txt": "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3\n"})
	code, out, _ := runCLI(t, "analyze", filepath.Join(dir, "clean.log"))
	if code != 0 || !strings.Contains(out, "nccl-log") || !strings.Contains(out, "PASS") {
		t.Errorf("clean: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "analyze", "-o", "json", filepath.Join(dir, "socket.log"), filepath.Join(dir, "nccl_lib_locations.txt"))
	var rep struct {
		APIVersion string `json:"apiVersion"`
		Files      []struct {
			File     string `json:"file"`
			Kind     string `json:"kind"`
			Findings []struct {
				ID, Status, Summary string
			} `json:"findings"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != 2 || rep.APIVersion == "" || len(rep.Files) != 2 || rep.Files[0].Kind != "nccl-log" || rep.Files[1].Kind != "unknown" || rep.Files[1].Findings[0].Status != "skip" {
		t.Errorf("exit %d %+v", code, rep)
	}
	code, out, _ = runCLI(t, "analyze", filepath.Join(dir, "gone.txt"), filepath.Join(dir, "clean.log"))
	if code != 1 || !strings.Contains(out, "gone.txt") || !strings.Contains(out, "nccl-log") {
		t.Errorf("unreadable among good: exit %d\n%s", code, out)
	}
}

// TestAnalyzeYardsticks: a perftest figure is a skip without a floor, a
// pass or a failure against --expect or the fabric's portRate; a bad
// --expect is refused, naming the flag.
func TestAnalyzeYardsticks(t *testing.T) {
	perf := filepath.Join("..", "..", "checks", "perftest", "testdata", "text", "write_bw_client_roce_2qp_gbits.txt")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"analyze", perf}, 0, "no yardstick"},
		{[]string{"analyze", "--expect", "bw=90Gb/s", perf}, 0, "at least the expected 90 Gb/s"},
		{[]string{"analyze", "--expect", "bw=200", perf}, 2, "below the expected 200 Gb/s"},
		{[]string{"analyze", "-f", filepath.Join("..", "..", "profiles", "lab", "fabric.yaml"), perf}, 0, "at least the expected 0.001 Gb/s"},
		{[]string{"analyze", "--expect", "speed=3", perf}, 1, "--expect"},
	} {
		code, out, errOut := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(out+errOut, c.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", c.args, code, c.code, c.want, out, errOut)
		}
	}
}
