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
