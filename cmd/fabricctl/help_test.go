package main

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/spf13/cobra"
)

// tree is the command tree as fabricctl builds it.
func tree() *cobra.Command {
	var out bytes.Buffer
	return newRootCmd(&globals{stdin: strings.NewReader(""), stdout: &out, stderr: &out})
}

// hiddenAbove reports whether c or a command above it is hidden.
func hiddenAbove(c *cobra.Command) bool {
	for ; c != nil; c = c.Parent() {
		if c.Hidden {
			return true
		}
	}
	return false
}

// Every command people run shows examples in its help; every example and
// every internal command named in help.go exists (no stale entries), and
// each example line runs fabricctl.
func TestHelpExamples(t *testing.T) {
	root := tree()
	paths := map[string]*cobra.Command{}
	var missing []string
	walk(root, func(c *cobra.Command) {
		paths[c.CommandPath()] = c
		if c.Runnable() && !hiddenAbove(c) && strings.TrimSpace(c.Example) == "" {
			missing = append(missing, c.CommandPath())
		}
		for _, line := range strings.Split(c.Example, "\n") {
			if c.Example != "" && !strings.Contains(line, "fabricctl ") {
				t.Errorf("%s: example line %q does not run fabricctl", c.CommandPath(), line)
			}
		}
	})
	sort.Strings(missing)
	for _, p := range missing {
		t.Errorf("%s has no Example: add one to examples in help.go", p)
	}
	for p := range examples {
		if paths[p] == nil {
			t.Errorf("help.go has examples of %q, which is not a command", p)
		}
	}
	for p := range internalCommands {
		if c := paths[p]; c == nil || !c.Hidden {
			t.Errorf("internal command %q: missing or not hidden", p)
		}
	}
}

// commandsListed are the command names `fabricctl --help` lists.
func commandsListed(help string) []string {
	_, list, _ := strings.Cut(help, "Available Commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	var names []string
	for _, l := range strings.Split(list, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}

// The top-level help lists what people run, init among it, and none of
// the internal commands; those still run and still have their own help.
func TestInternalCommandsHidden(t *testing.T) {
	code, out, errs := runCLI(t, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d, %s", code, errs)
	}
	listed := commandsListed(out)
	internal := []string{"agent", "task", "switch-sim"} // at least these
	for p := range internalCommands {
		internal = append(internal, strings.TrimPrefix(p, "fabricctl "))
	}
	for _, name := range listed {
		for _, in := range internal {
			if name == in {
				t.Errorf("fabricctl --help lists the internal command %s:\n%s", name, out)
			}
		}
	}
	for _, want := range []string{"init", "validate", "render", "plan", "apply", "check"} {
		if !strings.Contains(" "+strings.Join(listed, " ")+" ", " "+want+" ") {
			t.Errorf("fabricctl --help does not list %s: %v", want, listed)
		}
	}
	for _, in := range internal {
		code, out, _ := runCLI(t, append(strings.Fields(in), "--help")...)
		if code != 0 || !strings.Contains(out, "Usage:\n  fabricctl "+in) {
			t.Errorf("fabricctl %s --help: exit %d, %q", in, code, out)
		}
	}
	// Hidden, the agent still serves the controller.
	code, replies, errs := runAgent(t, request(t, agent.Request{Op: agent.OpHello, ID: "h1"}))
	if code != 0 || len(replies) != 1 || !replies[0].OK {
		t.Errorf("agent: exit %d, replies %+v, stderr %s", code, replies, errs)
	}
}

// `fabricctl init` writes a starter that `fabricctl validate` and `render`
// take as it is, refuses to overwrite it, and reports in JSON.
func TestInitThenValidate(t *testing.T) {
	dir := t.TempDir() + "/my-fabric"
	code, out, errs := runCLI(t, "init", "--out", dir)
	if code != 0 {
		t.Fatalf("init: exit %d, stderr %s", code, errs)
	}
	fab := dir + "/fabric.yaml"
	if out != fab+"\n"+dir+"/roce-lossless.yaml\n" {
		t.Errorf("stdout %q: want the two files written", out)
	}
	if !strings.Contains(errs, "fabricctl validate -f "+fab) {
		t.Errorf("stderr %q: want the next step", errs)
	}
	if code, out, errs := runCLI(t, "validate", "-f", fab); code != 0 || !strings.Contains(out, "valid") {
		t.Errorf("validate of the starter: exit %d, %s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "render", "-f", fab, "--target", "leaf-01"); code != 0 || !strings.Contains(out, "nv set") {
		t.Errorf("render --target leaf-01 of the starter: exit %d, %.300s%s", code, out, errs)
	}
	code, out, errs = runCLI(t, "init", "--out", dir)
	if code != 1 || out != "" || !strings.Contains(errs, "--force") {
		t.Errorf("init over existing files: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runCLI(t, "init", "--out", dir, "--force", "--platform", "sonic", "--hosts", "3", "-o", "json")
	if code != 0 || !strings.Contains(out, `"kind": "InitResult"`) || !strings.Contains(out, `"fabric": "`+fab+`"`) {
		t.Errorf("init --force -o json: exit %d, %s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "validate", "-f", fab, "-o", "json"); code != 0 || !regexp.MustCompile(`"hosts": 3\b`).MatchString(out) {
		t.Errorf("validate of the forced starter: exit %d, %s%s", code, out, errs)
	}
}

// --out - prints one file (the profile inline) and nothing else on stdout.
func TestInitStdout(t *testing.T) {
	code, out, errs := runCLI(t, "init", "--out", "-", "--platform", "junos")
	if code != 0 || !strings.HasPrefix(out, "# A starter fabric") || !strings.Contains(out, "  profiles:\n") || !strings.Contains(out, "platform: junos") {
		t.Fatalf("init --out -: exit %d, %.200s, stderr %s", code, out, errs)
	}
	if errs != "" {
		t.Errorf("stderr %q: want nothing", errs)
	}
	if code, _, errs := runCLI(t, "init", "--out", "-", "-o", "json"); code != 1 || !strings.Contains(errs, "-o json does not apply") {
		t.Errorf("init --out - -o json: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "init", "--out", "-", "--hosts", "0"); code != 1 || !strings.Contains(errs, "--hosts 0 is outside 1..200") {
		t.Errorf("init --hosts 0: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "init", "--out", "-", "--platform", "arista"); code != 1 || !strings.Contains(errs, `did you mean`) && !strings.Contains(errs, "arista-eos") {
		t.Errorf("init --platform arista: exit %d, %s", code, errs)
	}
}

// Every line of every command's help fits a terminal of 120 columns:
// command lists, descriptions, examples and flags (wrapped by help.go).
func TestHelpFits120Columns(t *testing.T) {
	walk(tree(), func(c *cobra.Command) {
		if hiddenAbove(c) {
			return
		}
		args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "fabricctl")), "--help")
		code, out, _ := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "Usage:") {
			t.Fatalf("%s --help: exit %d, %q", c.CommandPath(), code, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if n := len([]rune(l)); n > helpColumns {
				t.Errorf("%s --help: a line of %d columns:\n%s", c.CommandPath(), n, l)
			}
		}
	})
}

func TestWrapLines(t *testing.T) {
	in := "short line\n  smoke     every VM-host has rxe0 on eth0, ports ACTIVE\n" + strings.Repeat("x", 30)
	want := "short line\n  smoke     every VM-host has\n            rxe0 on eth0,\n            ports ACTIVE\n" + strings.Repeat("x", 30)
	if got := wrapLines(in, 30); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
