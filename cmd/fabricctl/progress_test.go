package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/action/check"
	"github.com/fabricctl/fabricctl/fabric"
)

// clock is a fake time source the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// Off a terminal (a CI log) progress is whole lines, never a carriage
// return: one at most every lineInterval, one for every failure, one when a
// phase is done.
func TestProgressLinesOffTerminal(t *testing.T) {
	var b bytes.Buffer
	c := &clock{time.Unix(0, 0)}
	p := progress(&b, false, c.now)
	step := func(d time.Duration, ev fabric.Event) { c.t = c.t.Add(d); p(ev) }
	step(time.Second, fabric.Event{Phase: "plan", Target: "h1", Done: 1, Total: 5}) // too soon: no line
	step(5*time.Second, fabric.Event{Phase: "plan", Target: "h2", Done: 2, Total: 5})
	step(time.Second, fabric.Event{Phase: "plan", Target: "leaf-01", Done: 3, Total: 5, Err: errors.New("planning leaf-01: refused")})
	step(time.Second, fabric.Event{Phase: "plan", Target: "h3", Done: 4, Total: 5}) // too soon
	step(time.Second, fabric.Event{Phase: "plan", Target: "h4", Done: 5, Total: 5})
	step(30*time.Second, fabric.Event{Phase: "apply", Target: "h1", Done: 1, Total: 2})
	step(time.Second, fabric.Event{Phase: "apply", Target: "h2", Done: 2, Total: 2})
	want := `fabricctl: plan: 2/5 targets done, 6s elapsed
fabricctl: plan: leaf-01 failed; 3/5 targets done (1 failed), 7s elapsed
fabricctl: plan: 5/5 targets done (1 failed), 9s elapsed
fabricctl: apply: 1/2 targets done, 39s elapsed
fabricctl: apply: 2/2 targets done, 40s elapsed
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if strings.ContainsAny(b.String(), "\r\033") {
		t.Errorf("a carriage return or an escape off a terminal: %q", b.String())
	}
}

// On a terminal the line is redrawn in place, as before.
func TestProgressTerminalUnchanged(t *testing.T) {
	var b bytes.Buffer
	p := progress(&b, true, time.Now)
	p(fabric.Event{Phase: "plan", Target: "h1", Done: 1, Total: 2})
	p(fabric.Event{Phase: "plan", Target: "h2", Done: 2, Total: 2})
	if want := "\r\033[Kplan 1/2 h1\r\033[Kplan 2/2 h2\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// A bytes.Buffer as stderr (not a terminal) gets line progress from plan's engine.
func TestEngineProgressOnBuffer(t *testing.T) {
	var b bytes.Buffer
	g := &globals{stderr: &b}
	e := g.engine()
	if e.Progress == nil {
		t.Fatal("no progress off a terminal")
	}
	e.Progress(fabric.Event{Phase: "plan", Target: "h1", Done: 1, Total: 1})
	if !regexp.MustCompile(`^fabricctl: plan: 1/1 targets done, \d+s elapsed\n$`).MatchString(b.String()) {
		t.Errorf("got %q", b.String())
	}
}

func TestCheckLimit(t *testing.T) {
	e := check.EstimateRun([]fabric.HostIntent{{Host: "a"}, {Host: "b"}, {Host: "c"}, {Host: "d"}}, check.Options{})
	cases := []struct {
		explicit bool
		timeout  time.Duration
		want     time.Duration
		says     string
	}{
		{false, 10 * time.Minute, e.Limit(), "time limit " + check.Duration(e.Limit())}, // the default does not count
		{true, 90 * time.Second, 90 * time.Second, "time limit 1m30s (--timeout)"},
		{true, 10 * time.Minute, 10 * time.Minute, "time limit 10m (--timeout)"},
		{true, 0, 0, "no time limit (--timeout 0)"},
	}
	for _, c := range cases {
		got, says := checkLimit(c.explicit, c.timeout, e)
		if got != c.want || says != c.says {
			t.Errorf("explicit %v, --timeout %v: %v %q; want %v %q", c.explicit, c.timeout, got, says, c.want, c.says)
		}
	}
	if e.Limit() == 10*time.Minute || e.Limit() <= 0 {
		t.Fatalf("the derived limit %v cannot tell the cases apart", e.Limit())
	}
}

// check prints its estimate before any host is reached, and its time
// limit: derived from the schedule, or --timeout when given (on the root
// or after the subcommand).
func TestCheckPrintsEstimateAndLimit(t *testing.T) {
	f := labFabric // its hosts are never reached: every dial fails
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"check", "-f", f}, "; time limit 8m\n"},
		{[]string{"--timeout", "90s", "check", "-f", f}, "; time limit 1m30s (--timeout)\n"},
		{[]string{"check", "-f", f, "--timeout", "10m"}, "; time limit 10m (--timeout)\n"},
		{[]string{"check", "-f", f, "--timeout", "0"}, "; no time limit (--timeout 0)\n"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		g := &globals{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
			dial: func(context.Context, string, string) (net.Conn, error) {
				return nil, errors.New("no network in this test")
			}}
		execute(t.Context(), g, c.args)
		first, _, _ := strings.Cut(errb.String(), "\n")
		if !strings.HasPrefix(first, "fabricctl: check: 4 hosts, preflight + loopback (4 runs at once, write_bw 5s) + pairwise all-pairs (3 rounds, 6 runs, write_bw 5s both ways), about 40s") ||
			!strings.HasSuffix(first+"\n", c.want) {
			t.Errorf("%v: the first line on stderr is\n%s\nwant the estimate ending %q; all of it:\n%s", c.args, first, c.want, errb.String())
		}
	}
}
