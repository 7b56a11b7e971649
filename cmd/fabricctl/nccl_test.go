package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// Logs written by the tests themselves, shaped like NCCL_DEBUG=INFO output.
const (
	ncclCleanLog = `gpu-01:100:100 [0] NCCL INFO Bootstrap : Using ens1f0np0:10.0.1.11<0>
NCCL version 2.21.5+cuda12.4
gpu-02:200:200 [0] NCCL INFO Bootstrap : Using ens1f0np0:10.0.1.12<0>
NCCL version 2.21.5+cuda12.4
gpu-01:100:120 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB ens1f0np0:10.0.1.11<0>
gpu-01:100:120 [0] NCCL INFO Using network IB
gpu-02:200:220 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB ens1f0np0:10.0.1.12<0>
gpu-02:200:220 [0] NCCL INFO Using network IB
gpu-01:100:130 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA
gpu-02:200:230 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/IB/0/GDRDMA
gpu-02:200:230 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [receive] via NET/IB/0/GDRDMA
gpu-01:100:130 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA
`
	ncclSocketLog = `[1,0]<stdout>:gpu-03:300:300 [0] NCCL INFO Bootstrap : Using eth0:192.168.1.3<0>
[1,0]<stdout>:NCCL version 2.19.3+cuda12.3
[1,0]<stdout>:gpu-03:300:320 [0] NCCL INFO NET/Socket : Using [0]eth0:192.168.1.3<0>
[1,0]<stdout>:gpu-03:300:320 [0] NCCL INFO Using network Socket
[1,0]<stdout>:gpu-03:300:320 [0] NCCL INFO comm 0x5581 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0
`
)

func writeLogs(t *testing.T, logs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range logs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestNCCLAnalyzeExitCodes(t *testing.T) {
	dir := writeLogs(t, map[string]string{"clean.log": ncclCleanLog, "socket.log": ncclSocketLog, "train.log": "epoch 1 loss 0.31\n"})
	clean, socket := filepath.Join(dir, "clean.log"), filepath.Join(dir, "socket.log")

	code, out, errs := runCLI(t, "nccl", "analyze", clean)
	if code != 0 || !strings.Contains(out, "gpu-01") || !strings.Contains(out, "mlx5_0:1/RoCE") || !strings.Contains(out, "no findings") || errs != "" {
		t.Errorf("clean log: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	code, out, _ = runCLI(t, "nccl", "analyze", clean, socket)
	if code != 2 {
		t.Errorf("socket fallback and version skew: exit %d, want 2\n%s", code, out)
	}
	for _, want := range []string{"FAIL    socket-fallback", "FAIL    version-skew", socket + ":4"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = runCLI(t, "nccl", "analyze", "--allow-socket", socket)
	if code != 0 {
		t.Errorf("--allow-socket on a socket-only log: exit %d\n%s", code, out)
	}

	for name, args := range map[string][]string{
		"no logs":      {"nccl", "analyze"},
		"missing file": {"nccl", "analyze", filepath.Join(dir, "nope.log")},
		"not NCCL":     {"nccl", "analyze", filepath.Join(dir, "train.log")},
		"bad format":   {"nccl", "analyze", "-o", "xml", clean},
	} {
		code, out, errs := runCLI(t, args...)
		if code != 1 || out != "" || errs == "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1, nothing on stdout, the error on stderr", name, code, out, errs)
		}
	}
	_, _, errs = runCLI(t, "nccl", "analyze", filepath.Join(dir, "train.log"))
	if !strings.Contains(errs, "no NCCL output found") {
		t.Errorf("stderr %q", errs)
	}
}

func TestNCCLAnalyzeJSONAndYAML(t *testing.T) {
	dir := writeLogs(t, map[string]string{"clean.log": ncclCleanLog, "socket.log": ncclSocketLog})
	code, out, _ := runCLI(t, "nccl", "analyze", "-o", "json", filepath.Join(dir, "socket.log"), filepath.Join(dir, "clean.log"))
	if code != 2 {
		t.Fatalf("exit %d", code)
	}
	var rep struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Clean      bool   `json:"clean"`
		Hosts      []struct {
			Name     string   `json:"name"`
			Versions []string `json:"versions"`
		} `json:"hosts"`
		Findings []struct {
			Kind, Host, Status string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.APIVersion != "fabricctl.io/v1alpha1" || rep.Kind != "NCCLAnalysis" || rep.Clean || len(rep.Hosts) != 3 {
		t.Errorf("report %+v", rep)
	}
	for i, h := range rep.Hosts {
		if want := []string{"gpu-01", "gpu-02", "gpu-03"}[i]; h.Name != want {
			t.Errorf("hosts not sorted: %d is %s, want %s", i, h.Name, want)
		}
	}
	if len(rep.Findings) != 2 || rep.Findings[0].Kind != "version-skew" || rep.Findings[1].Host != "gpu-03" {
		t.Errorf("findings %+v", rep.Findings)
	}

	var g bytes.Buffer
	gl := &globals{stdin: strings.NewReader(ncclCleanLog), stdout: &g, stderr: &bytes.Buffer{}}
	if code := execute(context.Background(), gl, []string{"nccl", "analyze", "-o", "yaml", "-"}); code != 0 {
		t.Fatalf("stdin yaml: exit %d", code)
	}
	var y map[string]any
	if err := yaml.Unmarshal(g.Bytes(), &y); err != nil || y["apiVersion"] != "fabricctl.io/v1alpha1" || y["clean"] != true {
		t.Errorf("yaml %v %v\n%s", err, y, g.String())
	}
}

// TestNCCLAnalyzeOneBadLogAmongGood: a log without NCCL output (or one that
// cannot be opened) never aborts the analysis of the others: they are
// printed, the bad ones named on stderr, and the exit code says error.
func TestNCCLAnalyzeOneBadLogAmongGood(t *testing.T) {
	dir := writeLogs(t, map[string]string{"clean.log": ncclCleanLog, "nccl_lib_locations.txt": "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3\n"})
	code, out, errs := runCLI(t, "nccl", "analyze", filepath.Join(dir, "nccl_lib_locations.txt"), filepath.Join(dir, "clean.log"), filepath.Join(dir, "gone.log"))
	if code != 1 || !strings.Contains(out, "gpu-01") || !strings.Contains(errs, "nccl_lib_locations.txt") || !strings.Contains(errs, "gone.log") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
