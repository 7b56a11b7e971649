package main

import (
	"strings"
	"testing"
)

// complete runs cobra's hidden __complete command and returns the
// completions, the directive line left out.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: exit %d, stderr %s", args, code, errs)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != "" && !strings.HasPrefix(l, ":") {
			name, _, _ := strings.Cut(l, "\t")
			got = append(got, name)
		}
	}
	return got
}

func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"plan", "-f", labFabric, "--target", ""}, []string{"lab-h1", "lab-h4", "leaf-01"}, nil},
		{[]string{"apply", "-f", labFabric, "--target", "lab-h1,"}, []string{"lab-h1,lab-h2", "lab-h1,leaf-01"}, []string{"lab-h1,lab-h1"}},
		{[]string{"render", "-o", "json", "-f", labFabric, "--target", ""}, []string{"lab-h2", "leaf-01"}, nil},
		{[]string{"check", "-f", labFabric, "--target", ""}, []string{"lab-h3"}, []string{"leaf-01"}},
		{[]string{"host", "plan", "-f", labFabric, "--host", ""}, []string{"lab-h1"}, []string{"leaf-01"}},
		{[]string{"plan", "-f", "testdata/missing.yaml", "--target", ""}, nil, []string{"lab-h1"}},
		{[]string{"plan", "--target", ""}, nil, []string{"lab-h1"}},
		{[]string{"switch", "parse", "--platform", ""}, []string{"arista-eos", "cumulus-nvue", "sonic", "opensm"}, nil},
		{[]string{"init", "--platform", ""}, []string{"arista-eos", "junos"}, []string{"opensm"}},
		{[]string{"check", "--suite", "preflight,"}, []string{"preflight,loopback", "preflight,nccl"}, []string{"preflight,preflight"}},
		{[]string{"drift", "-o", ""}, []string{"table", "json", "yaml", "prometheus"}, []string{"junit"}},
		{[]string{"check", "-o", ""}, []string{"junit", "html", "json"}, []string{"yaml"}},
		{[]string{"plan", "-o", ""}, []string{"table", "json", "yaml"}, []string{"prometheus"}},
		{[]string{"schema", "--output-kind", ""}, []string{"Plan", "ApplyResult", "CheckReport"}, nil},
		{[]string{"check", "--launcher", ""}, []string{"ssh", "slurm"}, nil},
	} {
		got := complete(t, c.args...)
		joined := " " + strings.Join(got, " ") + " "
		for _, w := range c.want {
			if !strings.Contains(joined, " "+w+" ") {
				t.Errorf("%v: %v lacks %q", c.args, got, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(joined, " "+n+" ") {
				t.Errorf("%v: %v holds %q", c.args, got, n)
			}
		}
	}
}
