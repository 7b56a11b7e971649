package check

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
)

// Progress is documented as called from one goroutine at a time: a plain
// function appending to a slice must be safe (go test -race checks the
// append too; this test fails without it as well).
func TestProgressNeverCalledConcurrently(t *testing.T) {
	var hosts []Host
	for _, n := range []string{"h1", "h2", "h3", "h4", "h5", "h6"} {
		h, _ := fixtureHost(t, n, nil)
		hosts = append(hosts, h)
	}
	var inside, overlaps atomic.Int32
	var lines []string
	opts := Options{Suites: []report.Suite{report.SuitePreflight}, Checks: &fabric.Checks{},
		Progress: func(f string, a ...any) {
			if inside.Add(1) > 1 {
				overlaps.Add(1)
			}
			for range 1000 { // hold the call open so that others would meet it
				runtime.Gosched()
			}
			lines = append(lines, f)
			inside.Add(-1)
		}}
	if _, err := Run(t.Context(), "test", hosts, opts); err != nil {
		t.Fatal(err)
	}
	if n := overlaps.Load(); n > 0 {
		t.Errorf("Progress was entered %d times while another call was running", n)
	}
	if len(lines) < len(hosts) {
		t.Errorf("%d progress lines for %d hosts", len(lines), len(hosts))
	}
}
