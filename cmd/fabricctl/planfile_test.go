package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/action/planfile"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
	"golang.org/x/crypto/ssh"
)

// simFabric serves a Cumulus simulator on a loopback port and writes a
// fabric with that one switch (profile e2eProfile); it returns the
// fabric's path and the simulator.
func simFabric(t *testing.T) (string, *sim.Server) {
	t.Helper()
	const password = "Pl4n-f1le-pw"
	t.Setenv("PLANFILE_SWITCH_PASSWORD", password)
	srv, err := sim.New(sim.Options{Platform: "cumulus-nvue", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	dir := t.TempDir()
	known := filepath.Join(dir, "known_hosts")
	os.WriteFile(known, []byte(fmt.Sprintf("[127.0.0.1]:%d %s", port, ssh.MarshalAuthorizedKey(srv.HostKey()))), 0o600)
	os.WriteFile(filepath.Join(dir, "roce.yaml"), []byte(e2eProfile), 0o644)
	fab := filepath.Join(dir, "fabric.yaml")
	os.WriteFile(fab, []byte(fmt.Sprintf(`apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata: {name: saved}
spec:
  include: [roce.yaml]
  switches:
    - {name: leaf-01, platform: cumulus-nvue, address: 127.0.0.1, profile: roce, ports: [swp1-4],
       ssh: {user: cumulus, port: %d, passwordEnv: PLANFILE_SWITCH_PASSWORD, knownHostsFile: %s}}
`, port, known)), 0o644)
	return fab, srv
}

// TestSavedPlanAppliesOnlyWhatWasPlanned is issue 30's saved plan end to
// end against a switch simulator: plan -out saves, apply PLANFILE refuses
// another fabric file, other targets, a drifted switch and a changed
// fabric file, and applies an unchanged plan without asking.
func TestSavedPlanAppliesOnlyWhatWasPlanned(t *testing.T) {
	fab, srv := simFabric(t)
	dir := filepath.Dir(fab)
	if code, _, errs := runCLI(t, "apply", "--yes", "-f", fab); code != 0 {
		t.Fatalf("converging: exit %d\n%s", code, errs)
	}
	edit := func(bytes string) {
		t.Helper()
		if err := srv.Apply("nv set qos congestion-control default-global traffic-class 3 min-threshold " + bytes); err != nil {
			t.Fatalf("editing the simulator: %v", err)
		}
	}
	edit("300000")
	saved := filepath.Join(dir, "leaf.plan")
	code, out, errs := runCLI(t, "plan", "-f", fab, "--out", saved)
	if code != 2 || !strings.Contains(out, "ecn.minBytes") || !strings.Contains(errs, "fabricctl apply "+saved) {
		t.Fatalf("plan -out: exit %d\n%s%s", code, out, errs)
	}
	pf, err := planfile.Read(saved)
	if err != nil {
		t.Fatal(err)
	}
	if pf.Fabric.Path != fab || len(pf.Plan.Targets) != 1 || len(pf.Plan.Targets[0].Changes) != 1 {
		t.Fatalf("saved plan %+v", pf)
	}

	other := filepath.Join(dir, "other.yaml")
	b, _ := os.ReadFile(fab)
	os.WriteFile(other, b, 0o644)
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"-f names another file": {[]string{"-f", other}, "the plan was saved for another fabric file: it was planned from " + fab},
		"other targets":         {[]string{"--target", "leaf-02"}, "it was planned for every target, not leaf-02"},
	} {
		code, _, errs := runCLI(t, append([]string{"apply", saved}, c.args...)...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, want 1 saying %q:\n%s", name, code, c.want, errs)
		}
	}

	// The switch moves on after the plan: nothing is applied.
	edit("600000")
	code, _, errs = runCLI(t, "apply", saved)
	if code != 1 || !strings.Contains(errs, "the fabric drifted since the plan was saved") ||
		!strings.Contains(errs, "leaf-01 classes[roce] ecn.minBytes: saved plan 300000 → 150000; now 600000 → 150000") {
		t.Fatalf("apply of a drifted plan: exit %d\n%s", code, errs)
	}
	if code, _, _ := runCLI(t, "drift", "-f", fab); code != 2 {
		t.Fatalf("the refused apply changed the switch: drift exit %d", code)
	}

	// Planned again: the same plan applies without asking (stdin is empty).
	if code, _, errs := runCLI(t, "plan", "-f", fab, "--out", saved); code != 2 {
		t.Fatalf("plan -out again: exit %d\n%s", code, errs)
	}
	code, out, errs = runCLI(t, "apply", saved, "-f", fab)
	if code != 0 || !strings.Contains(errs, "applying 1 change(s) to 1 target(s): 0 disruptive, 0 link(s) will flap") || !strings.Contains(out, "changed") {
		t.Fatalf("apply of an unchanged plan: exit %d\n%s%s", code, out, errs)
	}
	if code, _, _ := runCLI(t, "drift", "-f", fab); code != 0 {
		t.Fatalf("drift after applying the saved plan: exit %d", code)
	}

	// The fabric file changes after the plan: refused before connecting.
	edit("300000")
	if code, _, errs := runCLI(t, "plan", "-f", fab, "--out", saved); code != 2 {
		t.Fatalf("plan -out: exit %d\n%s", code, errs)
	}
	os.WriteFile(fab, append(b, "# edited\n"...), 0o644)
	code, _, errs = runCLI(t, "apply", saved)
	if code != 1 || !strings.Contains(errs, "the fabric file changed since the plan was saved") {
		t.Errorf("apply after the fabric file changed: exit %d\n%s", code, errs)
	}
}

// TestPlanNativeAndPrompt: plan --native shows the switch's native diff
// (table and JSON), and apply's question counts changes, disruptive ones
// and links that will flap.
func TestPlanNativeAndPrompt(t *testing.T) {
	fab, _ := simFabric(t)
	code, out, errs := runCLI(t, "plan", "-f", fab, "--native")
	if code != 2 || !strings.Contains(out, "leaf-01 (cumulus-nvue): what a push changes, native") ||
		!strings.Contains(out, "+nv set qos pfc default-global switch-priority 3") {
		t.Fatalf("plan --native: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runCLI(t, "plan", "-f", fab, "--native", "-o", "json")
	var doc struct {
		Targets []struct {
			Target string
			Native *struct{ Platform, Format, Diff string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 2 {
		t.Fatalf("plan --native -o json: exit %d, %v\n%s", code, err, out)
	}
	if len(doc.Targets) != 1 || doc.Targets[0].Native == nil || doc.Targets[0].Native.Platform != "cumulus-nvue" ||
		!strings.Contains(doc.Targets[0].Native.Diff, "+nv set qos") {
		t.Errorf("JSON native diff: %+v", doc.Targets)
	}
	if _, out, _ = runCLI(t, "plan", "-f", fab, "-o", "json"); strings.Contains(out, `"native"`) {
		t.Errorf("plan without --native carries a native diff")
	}

	var stdout, stderr bytes.Buffer
	g := &globals{stdin: strings.NewReader("n\n"), stdout: &stdout, stderr: &stderr}
	if code := execute(context.Background(), g, []string{"apply", "-f", fab}); code != 1 {
		t.Fatalf("apply answered no: exit %d\n%s", code, stderr.String())
	}
	q := stderr.String()
	if !strings.Contains(q, "to 1 target(s): ") || !strings.Contains(q, "disruptive, 0 link(s) will flap? [y/N]") || !strings.Contains(q, "not applied") {
		t.Errorf("apply's question:\n%s", q)
	}
	if strings.Contains(q, ": 0 disruptive") {
		t.Errorf("a switch without QoS gets its MTU, trust and PFC: some changes are disruptive:\n%s", q)
	}
}
