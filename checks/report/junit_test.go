package report

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// junitRead is how a CI server reads the file, independent of the writer's types.
type junitRead struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			ClassName string `xml:"classname,attr"`
			Failure   []struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error []struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"error"`
			Skipped   []struct{} `xml:"skipped"`
			SystemOut string     `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, r *Report) junitRead {
	t.Helper()
	out := render(t, WriteJUnit, r)
	var doc junitRead
	dec := xml.NewDecoder(bytes.NewReader(out))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("JUnit output is not valid XML: %v\n%s", err, out)
	}
	return doc
}

func TestJUnitStructure(t *testing.T) {
	r := fixture()
	doc := readJUnit(t, r)
	var names []string
	for _, s := range doc.Suites {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "preflight,loopback,pairwise,nccl" {
		t.Fatalf("suites %s, want preflight,loopback,pairwise,nccl", got)
	}
	// Expected counts from the report itself: one case per result and per pair.
	type tally struct{ tests, failures, errors, skipped int }
	want := map[string]*tally{}
	count := func(su Suite, st checks.Status) {
		if want[string(su)] == nil {
			want[string(su)] = &tally{}
		}
		w := want[string(su)]
		w.tests++
		switch st {
		case checks.StatusFail:
			w.failures++
		case checks.StatusError:
			w.errors++
		case checks.StatusSkip:
			w.skipped++
		}
	}
	for _, res := range r.Results {
		count(SuiteOf(res.ID), res.Status)
	}
	for _, p := range r.Pairs {
		count(SuitePairwise, p.Status)
	}
	total := tally{}
	for _, s := range doc.Suites {
		var got tally
		got.tests = len(s.Cases)
		for _, c := range s.Cases {
			got.failures += len(c.Failure)
			got.errors += len(c.Error)
			got.skipped += len(c.Skipped)
			if n := len(c.Failure) + len(c.Error) + len(c.Skipped); n > 1 {
				t.Errorf("%s %s %s: %d outcome elements", s.Name, c.Name, c.ClassName, n)
			}
		}
		if w := want[s.Name]; got != *w {
			t.Errorf("suite %s: elements %+v, want %+v", s.Name, got, *w)
		}
		if attr := (tally{s.Tests, s.Failures, s.Errors, s.Skipped}); attr != got {
			t.Errorf("suite %s: attributes %+v disagree with its elements %+v", s.Name, attr, got)
		}
		total.tests += got.tests
		total.failures += got.failures
		total.errors += got.errors
		total.skipped += got.skipped
	}
	if attr := (tally{doc.Tests, doc.Failures, doc.Errors, doc.Skipped}); attr != total || total.tests != len(r.Results)+len(r.Pairs) {
		t.Errorf("testsuites attributes %+v, elements %+v, report has %d entries", attr, total, len(r.Results)+len(r.Pairs))
	}
	if secs, err := strconv.ParseFloat(doc.Time, 64); err != nil || secs != 252.5 {
		t.Errorf("time %q, want 252.500", doc.Time)
	}
}

func TestJUnitCarriesSummaryAndEvidence(t *testing.T) {
	doc := readJUnit(t, fixture())
	found := 0
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			switch {
			case s.Name == "pairwise" && c.ClassName == "gpu-02/mlx5_0->gpu-04/mlx5_0" && c.Name == "pairwise/write_bw":
				found++
				if len(c.Failure) != 1 || c.Failure[0].Type != "counter-evidence" ||
					!strings.Contains(c.Failure[0].Message, "61.30 Gb/s") ||
					c.Failure[0].Text != "gpu-04/mlx5_0: out_of_sequence +1841 during the test (out-of-sequence; healthy baseline +12)\n"+
						"gpu-04/mlx5_0: packet_seq_err +212 during the test (sequence-error; healthy baseline +0)" {
					t.Errorf("failing pair: %+v", c.Failure)
				}
			case s.Name == "preflight" && c.Name == "preflight/pcie-link":
				found++
				if len(c.Failure) != 1 || !strings.Contains(c.Failure[0].Text, "LnkSta: Speed 16GT/s (downgraded)") {
					t.Errorf("preflight failure: %+v", c.Failure)
				}
			case s.Name == "pairwise" && c.Name == "pairwise/write_lat" && c.ClassName == "gpu-03->gpu-04":
				found++
				if len(c.Error) != 1 || c.Error[0].Type != "qp-bringup" || c.Error[0].Message != "Failed to modify QP to RTR" {
					t.Errorf("errored pair: %+v", c.Error)
				}
			case c.Name == "nccl/network":
				found++
				if !strings.HasPrefix(c.SystemOut, "warn: rank 3 fell back to NET/Socket") || len(c.Failure)+len(c.Error) != 0 {
					t.Errorf("warning must pass with system-out: %+v", c)
				}
			}
		}
	}
	if found != 4 {
		t.Errorf("found %d of the 4 interesting cases", found)
	}
}

// TestJUnitValidWithHostileText: control characters and markup from tool
// output still give a file every XML parser reads.
func TestJUnitValidWithHostileText(t *testing.T) {
	r := New("lab", fixture().Started, SuitePreflight)
	r.Add(checks.Result{ID: "preflight/x", Target: `h"<&>`, Status: checks.StatusFail,
		Summary: "\x1b[31mred\x1b[0m ]]> \x00", Evidence: []string{"</failure><x>", "\ufffe"}})
	doc := readJUnit(t, r)
	c := doc.Suites[0].Cases[0]
	if c.ClassName != `h"<&>` || len(c.Failure) != 1 || !strings.Contains(c.Failure[0].Text, "</failure><x>") {
		t.Errorf("hostile text did not survive: %+v", c)
	}
}
