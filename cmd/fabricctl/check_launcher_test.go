package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/action/launch/task"
	"github.com/fabricctl/fabricctl/checks/collective"
)

func TestLauncherFlagErrors(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		code int
		want string
	}{
		"unknown launcher":     {[]string{"check", "-f", labFabric, "--launcher", "pbs"}, 1, `--launcher "pbs": want ssh or slurm`},
		"drain without nhc":    {[]string{"check", "--local", "--drain"}, 1, "--drain with --local needs -o nhc"},
		"nhc without a fabric": {[]string{"check", "--local", "-o", "nhc", "-f", "missing.yaml"}, 2, ""},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs+out, c.want) {
			t.Errorf("%s: exit %d stdout %q stderr %q, want %d and %q", name, code, out, errs, c.code, c.want)
		}
		if c.code == 2 && (!strings.HasPrefix(out, "ERROR: fabricctl: could not check: ") || strings.Count(out, "\n") != 1) {
			t.Errorf("%s: -o nhc must answer one ERROR line, got %q", name, out)
		}
	}
}

// TestTaskBadSpec: a task that cannot read its spec still answers, framed, naming its node.
func TestTaskBadSpec(t *testing.T) {
	code, out, _ := runCLI(t, "task", "--node", "gpu07", "not-a-spec")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	c := task.Collect(strings.NewReader(out), nil)
	r, ok := c.Results["gpu07"]
	if !ok || !strings.Contains(r.Error, "invalid task spec") {
		t.Errorf("framed result %+v %v from %q", r, c.Errors, out)
	}
}

// TestTaskNCCLProbe: `fabricctl task` answers an NCCL probe step (what srun runs on every node
// under check --launcher slurm --suite nccl) with this host's probe: its GPUs, or why none.
func TestTaskNCCLProbe(t *testing.T) {
	args, err := task.EncodeArgs(task.NCCLProbeSpec([]string{"h7"}, func(string) string { return "gpu07" }, collective.ProbeArgs{}))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, append([]string{"task", "--node", "gpu07"}, args...)...)
	c := task.Collect(strings.NewReader(out), nil)
	r, ok := c.Results["gpu07"]
	if code != 0 || !ok || r.Error != "" || r.NCCLProbe == nil || r.NCCLProbe.Hostname == "" ||
		(len(r.NCCLProbe.GPUs) == 0) == (r.NCCLProbe.GPUError == "") {
		t.Errorf("exit %d, framed result %+v %v from %q (stderr %q)", code, r, c.Errors, out, errs)
	}
}

// TestNHCInvalidFabric: an invalid fabric is a health check that could not check (exit 2), and
// its one ERROR line says where the fabric is wrong, not "exit status 1"; stderr keeps every
// located error.
func TestNHCInvalidFabric(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "fabric.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata:\n  name: x\nspec:\n  hosts:\n  - name: a\n    bogus: 1\n  switches: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "check", "--local", "-o", "nhc", "-f", bad, "--host", "a")
	want := "ERROR: fabricctl: could not check: " + bad + ": 4 error(s), the first " + bad + ":7:5: spec.hosts[0].address: required"
	if code != 2 || !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 1 {
		t.Errorf("exit %d stdout %q, want 2 and one line starting %q", code, out, want)
	}
	if !strings.Contains(errs, bad+":9:13: spec.switches") {
		t.Errorf("stderr %q: want every located error", errs)
	}
}
