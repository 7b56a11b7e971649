package checklocal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks/ibfabric"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
)

// ibTools puts stand-ins for the diags on PATH, printing the IB lab's
// faulty captures (leaf-02 port 1 over its error thresholds).
func ibTools(t *testing.T) {
	t.Helper()
	bin := t.TempDir()
	for name, capture := range map[string]string{"sminfo": "healthy-sminfo.txt", "ibnetdiscover": "healthy-ibnetdiscover-p.txt",
		"iblinkinfo": "healthy-iblinkinfo.txt", "ibqueryerrors": "faulty-ibqueryerrors.txt"} {
		p, err := filepath.Abs(filepath.Join("..", "..", "checks", "ibdiag", "testdata", "lab", capture))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n/bin/cat '"+p+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
}

// TestIBSuite: the ib suite alone needs no gatherer and no fabric host;
// with another suite its error counters are read before and after.
func TestIBSuite(t *testing.T) {
	ibTools(t)
	f, err := fabric.Load("../../checks/ibfabric/testdata/demo.yaml", fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var o Options
	o.ForIB(f)
	o.Suites = []report.Suite{report.SuiteIB}
	rep, err := Run(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fabric != "demo" || rep.Topology == nil || len(rep.Topology.Links) != 7 {
		t.Fatalf("report %s, topology %v", rep.Fabric, rep.Topology)
	}
	counters := func(rep *report.Report) string {
		for _, r := range rep.Results {
			if r.ID == ibfabric.IDCounters {
				return string(r.Status) + " " + r.Summary
			}
		}
		return ""
	}
	if c := counters(rep); !strings.HasPrefix(c, "fail ") || !strings.Contains(c, "one reading") {
		t.Errorf("ib alone: counters %q", c)
	}
	o.Suites = []report.Suite{report.SuitePreflight, report.SuiteIB}
	o.Gatherer = bareHost(t)
	if rep, err = Run(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	// the counters did not move between the two readings: old errors
	if c := counters(rep); !strings.HasPrefix(c, "warn ") || !strings.Contains(c, "read before and after the other suites") {
		t.Errorf("ib with preflight: counters %q", c)
	}
	if _, err := Run(t.Context(), Options{Suites: []report.Suite{report.SuiteIB}}); err == nil || !strings.Contains(err.Error(), "-f FABRIC") {
		t.Errorf("ib without a fabric: %v", err)
	}
}
