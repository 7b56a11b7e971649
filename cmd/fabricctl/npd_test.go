package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/action/checklocal/nhc"
	"github.com/fabricctl/fabricctl/action/launch/k8s"
)

// npdStatus is node-problem-detector's custom plugin status (pkg/custompluginmonitor/types).
type npdStatus int

const (
	npdOK      npdStatus = 0
	npdNonOK   npdStatus = 1
	npdUnknown npdStatus = 2
)

// runLikeNPD runs a plugin the way NPD's custom plugin monitor does (pkg/custompluginmonitor/
// plugin/plugin.go, func run, at commit 6632ca6 of github.com/kubernetes/node-problem-detector):
// killed at the rule's timeout, at most 4 KiB of stdout read, the output trimmed and cut at
// max_output_length, exit 0 OK, 1 NonOK, anything else Unknown.
func runLikeNPD(t *testing.T, rule k8s.NPDRule, maxOut int, env []string) (npdStatus, string, time.Duration) {
	t.Helper()
	timeout, err := time.ParseDuration(rule.Timeout)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, rule.Path, rule.Args...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(io.LimitReader(stdout, 4*1024))
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	took := time.Since(t0)
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		t.Fatalf("waiting for the plugin: %v", werr)
	}
	msg := strings.TrimSpace(string(out))
	if ctx.Err() != nil {
		msg = "Timeout when running plugin " + rule.Path
	}
	if len(msg) > maxOut {
		msg = msg[:maxOut]
	}
	t.Logf("NPD would see: status %d, message %q (%s; stderr %q)", cmd.ProcessState.Sys().(syscall.WaitStatus).ExitStatus(), msg, took, stderr.String())
	switch cmd.ProcessState.Sys().(syscall.WaitStatus).ExitStatus() {
	case 0:
		return npdOK, msg, took
	case 1:
		return npdNonOK, msg, took
	}
	return npdUnknown, msg, took
}

// hasRDMA reports whether this machine has an RDMA device.
func hasRDMA() bool {
	es, _ := os.ReadDir("/sys/class/infiniband")
	return len(es) > 0
}

// TestNPDPluginContract runs the real binary with the rule `fabricctl k8s render` writes into
// NPD's configuration, as NPD runs it: here (no RDMA device) it must answer NonOK with the one
// ERROR line, within NPD's timeout; a node the fabric does not know is Unknown; a check that
// cannot finish within its budget is Unknown before NPD's timeout kills it.
func TestNPDPluginContract(t *testing.T) {
	bin := fabricctlBinary(t)
	cfg := k8s.MonitorConfig(k8s.Options{})
	rule := cfg.Rules[0]
	rule.Path = bin
	host, _ := os.Hostname()
	fab := filepath.Join(t.TempDir(), "fabric.yaml")
	if err := os.WriteFile(fab, []byte(strings.Replace(npdFabric, "NODENAME", host, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, a := range rule.Args {
		if a == k8s.FabricPath {
			rule.Args[i] = fab
		}
	}
	maxOut := *cfg.PluginConfig.MaxOutputLength
	budget, _ := time.ParseDuration(rule.Args[5])
	timeout, _ := time.ParseDuration(rule.Timeout)

	st, msg, took := runLikeNPD(t, rule, maxOut, []string{"NODE_NAME=" + host})
	if hasRDMA() {
		t.Logf("this machine has RDMA devices: the NonOK case is not asserted")
	} else if st != npdNonOK || !strings.HasPrefix(msg, nhc.Prefix+"preflight/rdma-device ") || strings.Contains(msg, "\n") || took > budget {
		t.Errorf("no RDMA device: status %d %q after %s, want NonOK and one ERROR line within the %s budget", st, msg, took, budget)
	}

	st, msg, _ = runLikeNPD(t, rule, maxOut, []string{"NODE_NAME=not-in-the-fabric"})
	if st != npdUnknown || !strings.Contains(msg, "no host of the fabric is this machine") {
		t.Errorf("unknown node: status %d %q, want Unknown naming the problem", st, msg)
	}

	// A budget no check can meet: 1 ns. (1 ms was met on a quiet machine: with no RDMA device
	// the preflight gathers in under 0.9 ms, and a verdict within the budget is a right answer.)
	tight := rule
	tight.Args = append([]string{}, rule.Args...)
	tight.Args[5] = "1ns"
	st, msg, took = runLikeNPD(t, tight, maxOut, []string{"NODE_NAME=" + host})
	if st != npdUnknown || !strings.Contains(msg, "budget") || took >= timeout {
		t.Errorf("1 ns budget: status %d %q after %s, want Unknown (budget spent) before NPD's %s timeout", st, msg, took, timeout)
	}
}

// npdFabric names this machine (through NODE_NAME, as the DaemonSet sets it) as a host whose
// RoCE netdev is every netdev with an RDMA device.
const npdFabric = `apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata: {name: npd}
spec:
  profiles:
    - apiVersion: fabricctl.io/v1alpha1
      kind: Profile
      metadata: {name: plain}
      spec:
        ethernet:
          mtu: 1500
          classes:
            - {name: default, priority: 0, dscp: rest, ets: {bandwidthPercent: 100}}
  hosts:
    - {name: this-node, address: 127.0.0.1, profile: plain, labels: {fabricctl.io/k8s-node: NODENAME}}
`

// TestNHCHealthyFixtureHost: on a healthy host (the rxe fixture, in-process) -o nhc prints
// nothing and exits 0.
func TestNHCHealthyFixtureHost(t *testing.T) {
	fixtureHost(t, "rxe")
	code, out, errs := runCLI(t, "check", "--local", "-o", "nhc")
	if code != 0 || out != "" {
		t.Errorf("healthy host: exit %d stdout %q (stderr %q), want 0 and nothing", code, out, errs)
	}
}
