package lab

import (
	"bytes"
	"strings"
	"testing"
)

func TestPrintTables(t *testing.T) {
	s, err := Plan(DefaultTopology(), Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	s.WriteTable(&b)
	out := b.String()
	for _, want := range []string{"HOST", "lab-h1", "10.99.0.14", "netns " + s.Netns, "known_hosts " + s.KnownHosts} {
		if !strings.Contains(out, want) {
			t.Errorf("state table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "switch password") || strings.Contains(out, "slurm:") {
		t.Errorf("state table names switches or Slurm the lab does not run:\n%s", out)
	}

	b.Reset()
	WriteStatusTable(&b, []HostStatus{{Name: "lab-h1", Address: "10.99.0.11", Pid: 7, Running: true, SSH: true},
		{Name: "lab-h2", Address: "10.99.0.12", Error: "no route"}})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "running") || !strings.Contains(lines[1], "ok") ||
		!strings.Contains(lines[2], "stopped") || !strings.Contains(lines[2], "no route") {
		t.Errorf("status table:\n%s", b.String())
	}

	b.Reset()
	r := &Result{Scenario: "perftest", Passed: false, DurationMS: 1500, Checks: []Check{{Name: "bw", Passed: true}, {Name: "lat", Detail: "too slow"}}}
	r.WriteTable(&b, "/x/results/perftest.json")
	if got := b.String(); !strings.Contains(got, "PASS  bw") || !strings.Contains(got, "FAIL  lat  too slow") ||
		!strings.HasSuffix(got, "scenario perftest: FAILED in 1.5s (/x/results/perftest.json)\n") {
		t.Errorf("result table:\n%s", got)
	}
	if h := ScenarioHelp(); !strings.Contains(h, Scenarios()[0].Name) {
		t.Errorf("scenario help lacks %s:\n%s", Scenarios()[0].Name, h)
	}
}
