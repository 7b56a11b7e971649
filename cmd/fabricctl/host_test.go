package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fabricctl/fabricctl/action/view"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// fixtureHost makes the host commands work on a fixture host (fake DCB
// kernel, fake netlink and ethtool, private sysfs/configfs/debugfs trees).
func fixtureHost(t *testing.T, name string) *hostcfgtest.Fixture {
	t.Helper()
	f := hostcfgtest.Load(t, filepath.Join(testutil.RepoRoot(t), "hostcfg", "testdata", "hosts", name))
	t.Setenv("HOME", t.TempDir()) // the apply journal's default directory is under it
	saved := openHost
	openHost = func(context.Context, hostcfg.Options) (*hostcfg.Host, error) { return f.Host, nil }
	t.Cleanup(func() { openHost = saved })
	return f
}

func desiredFile(t *testing.T, name string) string {
	return filepath.Join(testutil.RepoRoot(t), "hostcfg", "testdata", "desired", name+".json")
}

func TestHostPlanApplyExitCodes(t *testing.T) {
	f := fixtureHost(t, "mlx5-upstream")
	d := desiredFile(t, "mlx5-upstream")

	code, out, errs := runCLI(t, "host", "plan", "--desired", d)
	if code != exitChanges {
		t.Fatalf("plan: exit %d, want 2 (changes); stderr %s", code, errs)
	}
	for _, want := range []string{"pfc.enable", "DISRUPTIVE: changing pfc_en flaps the link on mlx5", "unsupported:", "dcbnl-app-mlx5"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan table lacks %q:\n%s", want, out)
		}
	}

	code, _, errs = runCLI(t, "host", "apply", "--desired", d)
	if code != exitError || !strings.Contains(errs, "--yes") || !strings.Contains(errs, "pfc.enable") {
		t.Fatalf("apply without --yes: exit %d, stderr %q", code, errs)
	}
	if n := len(f.Kernel.Writes()); n != 0 {
		t.Fatalf("a refused apply sent %d DCB writes", n)
	}
	code, out, _ = runCLI(t, "host", "apply", "--desired", d, "--dry-run", "-o", "json")
	var dry view.ApplyReport
	if code != 0 || json.Unmarshal([]byte(out), &dry) != nil || !dry.DryRun || dry.Result != nil || len(dry.Plan.Changes) == 0 {
		t.Fatalf("dry run: exit %d, %s", code, out)
	}

	code, out, errs = runCLI(t, "host", "apply", "--desired", d, "--yes", "-o", "json")
	var res view.ApplyReport
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Result == nil || len(res.Remaining) != 0 {
		t.Fatalf("apply --yes: exit %d, stderr %q, out %s", code, errs, out)
	}
	if len(res.Result.Applied) == 0 || len(res.Result.Undo.Changes) != len(res.Result.Applied) {
		t.Errorf("apply result: %d applied, undo %d", len(res.Result.Applied), len(res.Result.Undo.Changes))
	}
	code, out, _ = runCLI(t, "host", "plan", "--desired", d)
	if code != 0 || !strings.Contains(out, "no changes on gpu-02") {
		t.Errorf("plan after apply: exit %d, %s", code, out)
	}
	f.Kernel.ClearRequests()
	if code, _, _ := runCLI(t, "host", "apply", "--desired", d); code != 0 || len(f.Kernel.Writes()) != 0 {
		t.Errorf("second apply: exit %d, %d DCB writes", code, len(f.Kernel.Writes()))
	}
}

func TestHostApplyFailureExitsOne(t *testing.T) {
	f := fixtureHost(t, "mlx5-upstream")
	f.Kernel.SetUnprivileged(true)
	code, out, errs := runCLI(t, "host", "apply", "--desired", desiredFile(t, "mlx5-upstream"), "--yes")
	if code != exitError {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(errs, "writing dcbx on ens3f0np0 via dcbnl") || !strings.Contains(errs, "operation not permitted") {
		t.Errorf("stderr does not locate the failure: %q", errs)
	}
	if !regexp.MustCompile(`(?m)^rolled-back +ens3f0np0 +mtu +9000 +1500 +netlink`).MatchString(out) {
		t.Errorf("table does not show the MTU rollback:\n%s", out)
	}
}

func TestHostShow(t *testing.T) {
	f := fixtureHost(t, "rxe")
	code, out, errs := runCLI(t, "host", "show")
	if code != 0 {
		t.Fatalf("show: exit %d, %s", code, errs)
	}
	testutil.Golden(t, "host-show-rxe.golden", []byte(strings.ReplaceAll(out, f.Dir, "<fixture>")))
	code, out, _ = runCLI(t, "host", "show", "-o", "yaml")
	var obs map[string]any
	if code != 0 || yaml.Unmarshal([]byte(out), &obs) != nil || obs["apiVersion"] != "fabricctl.io/v1alpha1" {
		t.Errorf("show -o yaml: exit %d, %s", code, out)
	}
	code, _, errs = runCLI(t, "host", "show", "eth7")
	if code != exitError || !strings.Contains(errs, "probing eth7") {
		t.Errorf("show of a missing netdev: exit %d, stderr %q", code, errs)
	}
}

func TestHostDesiredErrors(t *testing.T) {
	fixtureHost(t, "rxe")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"apiVersion\": \"fabricctl.io/v1alpha1\",\n  \"host\": \"x\",\n  \"colour\": 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	typo := filepath.Join(dir, "typo.json")
	if err := os.WriteFile(typo, []byte("{\"apiVersion\": \"fabricctl.io/v1alpha1\",\n \"interfaces\": [{\"name\": \"eth0\", \"mtu\": \"9000\"}]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte(`{"apiVersion": "fabricctl.io/v0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"host", "plan"}, "no desired state"},
		{[]string{"host", "plan", "--desired", bad}, `unknown field "colour"`},
		{[]string{"host", "plan", "--desired", typo}, typo + ":2:47: decoding desired state"},
		{[]string{"host", "plan", "--desired", old}, `apiVersion "fabricctl.io/v0"`},
		{[]string{"host", "plan", "--desired", bad, "-f", "x.yaml"}, "not both"},
		{[]string{"host", "plan", "-f", "../../profiles/lab/fabric.yaml"}, "needs --host"},
		{[]string{"host", "plan", "-f", "../../profiles/lab/fabric.yaml", "--host", "gpu-99"}, "lab-h1, lab-h2, lab-h3, lab-h4"},
		{[]string{"host", "plan", "--desired", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"host", "show", "-o", "xml"}, "unknown output format"},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != exitError || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// TestHostPlanFromFabric resolves the lab fabric's lab-h1 (interface eth0)
// on the rxe fixture host, whose netdev is enp0s3: the plan names the
// missing interface and exits 1.
func TestHostPlanFromFabric(t *testing.T) {
	fixtureHost(t, "rxe")
	code, out, errs := runCLI(t, "host", "plan", "-f", "../../profiles/lab/fabric.yaml", "--host", "lab-h1", "-o", "json")
	var p hostcfg.Plan
	if code != exitError || json.Unmarshal([]byte(out), &p) != nil || p.Host != "lab-h1" {
		t.Fatalf("exit %d, stdout %s, stderr %s", code, out, errs)
	}
	if len(p.Errors()) != 1 || p.Errors()[0].Interface != "eth0" || errs != "fabricctl: probing eth0: no such interface\n" {
		t.Errorf("issues %+v, stderr %q", p.Issues, errs)
	}
}

func TestHostCommandsAreListed(t *testing.T) {
	var out bytes.Buffer
	g := &globals{stdin: strings.NewReader(""), stdout: &out, stderr: &out}
	if code := execute(context.Background(), g, []string{"host", "--help"}); code != 0 {
		t.Fatal(code)
	}
	for _, c := range []string{"show", "plan", "apply"} {
		if !strings.Contains(out.String(), c) {
			t.Errorf("host --help lacks %s", c)
		}
	}
}

// TestHostApplyFailureRollsBackEveryInterface: when one interface fails,
// local host apply restores every interface it already changed, not only
// the failing one, and says so.
func TestHostApplyFailureRollsBackEveryInterface(t *testing.T) {
	f := fixtureHost(t, "mlx5-ofed")
	d := desiredFile(t, "mlx5-ofed")
	_, before, _ := runCLI(t, "host", "plan", "--desired", d, "-o", "json")
	f.Kernel.FailNext("ens1f1np1", dcbnl.AttrIEEEPFC, syscall.EIO)
	code, out, errs := runCLI(t, "host", "apply", "--desired", d, "--yes")
	if code != exitError || !strings.Contains(errs, "ens1f1np1") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !regexp.MustCompile(`(?m)^rolled-back +ens1f0np0 +mtu +9000 +1500`).MatchString(out) {
		t.Errorf("the table does not show the first interface rolled back:\n%s", out)
	}
	if _, after, _ := runCLI(t, "host", "plan", "--desired", d, "-o", "json"); after != before {
		t.Fatalf("a failed apply left the host changed:\nbefore %s\nafter  %s", before, after)
	}
}

// interruptedApply leaves a journal as an apply killed after the first
// interface would: that interface written, the journal "applying".
func interruptedApply(t *testing.T, f *hostcfgtest.Fixture, desired, stateDir string) {
	t.Helper()
	d := hostcfgtest.Desired(t, desired)
	obs, _ := f.Host.Observe(context.Background(), d)
	p := hostcfg.Diff(d, obs)
	var first []hostcfg.Change
	for _, c := range p.Changes {
		if c.Interface == p.Changes[0].Interface {
			first = append(first, c)
		}
	}
	p.Changes = first
	dir, _ := journal.Open(stateDir)
	txn, err := dir.Begin(d.Host, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Host.ApplyRecorded(context.Background(), p, txn); err != nil {
		t.Fatal(err)
	}
	txn.Close() // killed: no Finish
}

// TestHostRecover: `host recover` rolls back an interrupted apply's journal;
// `host plan` reports one; `host apply` rolls one back before planning.
func TestHostRecover(t *testing.T) {
	f := fixtureHost(t, "mlx5-ofed")
	d := desiredFile(t, "mlx5-ofed")
	state := t.TempDir()
	_, before, _ := runCLI(t, "host", "plan", "--desired", d, "-o", "json")
	if code, out, _ := runCLI(t, "host", "recover", "--state-dir", state); code != 0 || !strings.Contains(out, "nothing to recover") {
		t.Fatalf("recover with nothing pending: exit %d, %s", code, out)
	}
	interruptedApply(t, f, d, state)
	if code, _, errs := runCLI(t, "host", "plan", "--desired", d, "--state-dir", state); code != exitChanges || !strings.Contains(errs, "interrupted") {
		t.Fatalf("plan over an interrupted apply: exit %d, stderr %q", code, errs)
	}
	code, out, errs := runCLI(t, "host", "recover", "--state-dir", state)
	if code != 0 || !regexp.MustCompile(`(?m)^restored +ens1f0np0 +mtu +9000 +1500`).MatchString(out) {
		t.Fatalf("recover: exit %d, stderr %q\n%s", code, errs, out)
	}
	if _, after, _ := runCLI(t, "host", "plan", "--desired", d, "-o", "json"); after != before {
		t.Fatalf("recover left the host changed:\nbefore %s\nafter  %s", before, after)
	}

	interruptedApply(t, f, d, state)
	code, _, errs = runCLI(t, "host", "apply", "--desired", d, "--yes", "--state-dir", state)
	if code != 0 || !strings.Contains(errs, "rolled back an interrupted apply") {
		t.Fatalf("apply over an interrupted apply: exit %d, stderr %q", code, errs)
	}
	if entries, _ := os.ReadDir(state); len(entries) != 1 || !strings.HasSuffix(entries[0].Name(), ".lock") {
		t.Errorf("a settled apply must leave no journal: %v", entries)
	}
}
