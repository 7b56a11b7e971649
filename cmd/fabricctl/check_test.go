package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/report"
)

func TestCheckRejectsBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"check"}, "no fabric file"},
		{[]string{"check", "-f", "x.yaml", "--suite", "preflight,bogus"}, `unknown suite "bogus"`},
		{[]string{"check", "-f", "x.yaml", "-o", "yaml"}, `output "yaml" is not one of table, json, junit, html`},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestCheckExitCodes(t *testing.T) {
	v := 1.0
	cases := []struct {
		results []checks.Status
		pairs   []checks.Status
		want    int
	}{
		{[]checks.Status{checks.StatusPass, checks.StatusWarn, checks.StatusSkip}, []checks.Status{checks.StatusPass}, exitOK},
		{[]checks.Status{checks.StatusPass}, []checks.Status{checks.StatusFail, checks.StatusPass}, exitChanges},
		{[]checks.Status{checks.StatusFail, checks.StatusError}, nil, exitError},
	}
	for i, c := range cases {
		rep := report.New("t", time.Unix(0, 0), report.SuitePreflight)
		for _, s := range c.results {
			rep.Add(checks.Result{ID: "preflight/x", Target: "h", Status: s})
		}
		for _, s := range c.pairs {
			rep.AddPairs(report.Pair{A: "a", B: "b", Test: "write_bw", Value: &v, Unit: checks.UnitGbps, Status: s})
		}
		code := exitOK
		var ec exitCodeError
		if err := checkExit(rep); errors.As(err, &ec) {
			code = ec.code
		}
		if code != c.want {
			t.Errorf("case %d: exit %d, want %d", i, code, c.want)
		}
	}
}
