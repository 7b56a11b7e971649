package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// The JUnit XML schema as CI servers (Jenkins, GitLab, GitHub test reporters)
// read it: testsuites → testsuite → testcase with failure, error or skipped.
type (
	junitSuites struct {
		XMLName   xml.Name     `xml:"testsuites"`
		Name      string       `xml:"name,attr"`
		Tests     int          `xml:"tests,attr"`
		Failures  int          `xml:"failures,attr"`
		Errors    int          `xml:"errors,attr"`
		Skipped   int          `xml:"skipped,attr"`
		Time      string       `xml:"time,attr"`
		Timestamp string       `xml:"timestamp,attr,omitempty"`
		Suites    []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string          `xml:"name,attr"`
		Tests     int             `xml:"tests,attr"`
		Failures  int             `xml:"failures,attr"`
		Errors    int             `xml:"errors,attr"`
		Skipped   int             `xml:"skipped,attr"`
		Timestamp string          `xml:"timestamp,attr,omitempty"`
		Props     []junitProperty `xml:"properties>property,omitempty"`
		Cases     []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Failure   *junitProblem `xml:"failure"`
		Error     *junitProblem `xml:"error"`
		Skipped   *junitProblem `xml:"skipped"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)

// WriteJUnit writes r as JUnit XML: one testsuite per suite (preflight,
// loopback, pairwise, nccl, in that order), one testcase per check (name =
// check ID, classname = target) and per pair (name = "pairwise/<test>",
// classname = "a->b"). A fail becomes <failure>, an error <error>, a skip
// <skipped>, each with the summary as message, the failure class as type and
// the evidence as text; a warning passes and carries its summary and evidence
// in <system-out>. Cases keep the report's order (target, then ID).
func WriteJUnit(w io.Writer, r *Report) error {
	s, err := r.sorted()
	if err != nil {
		return fmt.Errorf("writing JUnit report: %w", err)
	}
	doc := junitSuites{Name: "fabricctl check " + s.Fabric, Time: seconds(s)}
	if !s.Started.IsZero() {
		doc.Timestamp = s.Started.Format("2006-01-02T15:04:05Z")
	}
	index := map[Suite]int{}
	for _, su := range s.Suites {
		index[su] = len(doc.Suites)
		doc.Suites = append(doc.Suites, junitSuite{Name: string(su), Timestamp: doc.Timestamp,
			Props: []junitProperty{{"fabric", s.Fabric}}})
	}
	add := func(su Suite, c junitCase, st checks.Status) {
		js := &doc.Suites[index[su]] // sorted() lists every suite a result or pair belongs to
		js.Tests++
		switch st {
		case checks.StatusFail:
			js.Failures++
		case checks.StatusError:
			js.Errors++
		case checks.StatusSkip:
			js.Skipped++
		}
		js.Cases = append(js.Cases, c)
	}
	for _, res := range s.Results {
		add(SuiteOf(res.ID), junitCaseOf(res.ID, res.Target, res.Status, res.Class, res.Summary, res.Evidence), res.Status)
	}
	for _, p := range s.Pairs {
		sum := p.Summary
		if sum == "" && p.Value != nil {
			sum = formatValue(*p.Value, p.Unit)
		}
		add(SuitePairwise, junitCaseOf(p.ID(), p.Target(), p.Status, p.Class, sum, p.Evidence), p.Status)
	}
	for _, js := range doc.Suites {
		doc.Tests += js.Tests
		doc.Failures += js.Failures
		doc.Errors += js.Errors
		doc.Skipped += js.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("writing JUnit report: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing JUnit report: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("writing JUnit report: %w", err)
	}
	return nil
}

func junitCaseOf(id, target string, st checks.Status, class checks.FailureClass, summary string, evidence []string) junitCase {
	c := junitCase{Name: id, ClassName: target}
	text := strings.Join(evidence, "\n")
	p := &junitProblem{Message: summary, Type: string(class), Text: text}
	switch st {
	case checks.StatusFail:
		c.Failure = p
	case checks.StatusError:
		c.Error = p
	case checks.StatusSkip:
		c.Skipped = &junitProblem{Message: summary}
	case checks.StatusWarn:
		c.SystemOut = strings.TrimSpace("warn: " + summary + "\n" + text)
	}
	return c
}

// seconds is the run's duration as JUnit wants it ("12.500").
func seconds(r *Report) string {
	d := r.Finished.Sub(r.Started)
	if r.Started.IsZero() || r.Finished.IsZero() || d < 0 {
		d = 0
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}
