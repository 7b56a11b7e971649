package analyze

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// TestIBDiagDetect: every lab capture of checks/ibdiag is told by its
// content as the tool that printed it, and judged.
func TestIBDiagDetect(t *testing.T) {
	files, _ := filepath.Glob("../ibdiag/testdata/lab/*.txt")
	if len(files) < 40 {
		t.Fatalf("%d captures", len(files))
	}
	kinds := []Kind{KindIBNetDiscover, KindIBLinkInfo, KindPerfQuery, KindSMPQuery, KindSMInfo, KindIBTracert, KindIBRoute, KindIBQueryErrors}
	for _, f := range files {
		name := filepath.Base(f)
		var want Kind
		for _, k := range kinds {
			if strings.Contains(name, string(k)+"-") || strings.Contains(name, string(k)+".") {
				want = k
			}
		}
		// ibtracert's failure prints only tool errors; a multicast table is no LFT
		if name == "faulty-ibtracert-down.txt" || name == "faulty-ibroute-spine-M.txt" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := Detect(data); got != want {
			t.Errorf("%s: Detect = %s, want %s", name, got, want)
			continue
		}
		file := Analyze(name, data)
		for _, fd := range file.Findings {
			if fd.Status == checks.StatusError || strings.HasSuffix(fd.ID, "/unparsed") {
				t.Errorf("%s: %+v", name, fd)
			}
		}
	}
}

// TestIBDiagVerdicts: the faults injected in the lab are what analyze reports.
func TestIBDiagVerdicts(t *testing.T) {
	for name, want := range map[string]struct {
		worst   checks.Status
		mention string
	}{
		"healthy-ibqueryerrors.txt":       {checks.StatusPass, "none over threshold"},
		"faulty-ibqueryerrors.txt":        {checks.StatusFail, "PortRcvErrors=65535 (saturated)"},
		"faulty-perfquery-leaf02-p1.txt":  {checks.StatusFail, "SymbolErrorCounter=57"},
		"healthy-perfquery-h1.txt":        {checks.StatusPass, "no error counted"},
		"faulty-ibnetdiscover.txt":        {checks.StatusFail, "trained at 1X"},
		"healthy-ibnetdiscover.txt":       {checks.StatusPass, "8 nodes, 7 links"},
		"healthy-ibtracert.txt":           {checks.StatusPass, "[7]->spine-01[1]"},
		"faulty-smpquery-portinfo-sw.txt": {checks.StatusPass, "Active/LinkUp 1X EDR"},
		"healthy-sminfo.txt":              {checks.StatusPass, "SMINFO_MASTER"},
		"healthy-ibroute-leaf01.txt":      {checks.StatusPass, "8 LIDs routed"},
	} {
		data, err := os.ReadFile(filepath.Join("../ibdiag/testdata/lab", name))
		if err != nil {
			t.Fatal(err)
		}
		f := Analyze(name, data)
		found := false
		for _, fd := range f.Findings {
			if fd.Status == want.worst && strings.Contains(fd.Summary, want.mention) {
				found = true
			}
		}
		if f.Worst() != want.worst || !found {
			t.Errorf("%s: worst %s, findings %+v", name, f.Worst(), f.Findings)
		}
	}
}
