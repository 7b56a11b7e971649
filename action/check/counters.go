package check

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// SwitchReading is one read of the switches' port error counters.
type SwitchReading struct {
	// Readings holds every counter of every port of the switches read,
	// At being the switch and its port as the fabric file names them.
	Readings []localize.Reading
	// Read names the switches read; Unread those that could not be,
	// each with why ("leaf-03: reading port counters: …", "leaf-04:
	// cisco-nxos reads no port counters").
	Read   []string
	Unread []string
	// NotWeighed are the counters read that bear on a fault but that the
	// localiser does not weigh, and the ports left out for counting no
	// receive error, one line per reason (NotWeighedLines).
	NotWeighed []string
}

// SwitchCounterSource reads the switches' port error counters once
// (action/fleet's SwitchCounters over the switch drivers'
// switchcfg.CounterReader). A switch it cannot reach goes into Unread;
// it never fails as a whole.
type SwitchCounterSource func(ctx context.Context) SwitchReading

// SwitchCounters follows the switches' counters across the tests: the
// reading before the pairwise sweep, and the source to read them again
// after it and after every re-test round. Not safe for concurrent use.
type SwitchCounters struct {
	src    SwitchCounterSource
	before SwitchReading
	after  SwitchReading // the latest reading of every switch read since
	last   *report.SwitchCounters
	moved  []localize.Counter // what the last Evidence found moved
}

// StartSwitchCounters takes the reading before the tests (nil when src is nil).
func StartSwitchCounters(ctx context.Context, src SwitchCounterSource) *SwitchCounters {
	if src == nil {
		return nil
	}
	return &SwitchCounters{src: src, before: src(ctx)}
}

// Evidence reads the counters again and returns what moved since the
// reading before the tests, on the switch ports topo cables (the links'
// ends; others say nothing about a tested path): read the ports of the
// switches read both times, moved the counters that grew there (see
// localize.Deltas: a cleared counter is no delta and its port unknown).
// A switch read after an earlier round but not now keeps that reading:
// what it counted until then is still evidence. Summary says afterwards
// which switches were read.
func (s *SwitchCounters) Evidence(ctx context.Context, topo *topology.Topology) (read []fabric.Endpoint, moved []localize.Counter) {
	after := s.carry(s.src(ctx))
	s.after = after
	cabled := map[fabric.Endpoint]bool{}
	for _, l := range topo.Links {
		cabled[l.A], cabled[l.B] = true, true
	}
	keep := func(rs []localize.Reading) []localize.Reading {
		return slices.DeleteFunc(slices.Clone(rs), func(r localize.Reading) bool { return !cabled[r.At] })
	}
	read, moved = localize.Deltas(keep(s.before.Readings), keep(after.Readings))
	s.moved = moved
	sum := &report.SwitchCounters{}
	for _, name := range s.before.Read {
		if slices.Contains(after.Read, name) {
			sum.Read = append(sum.Read, name)
		}
	}
	unread := slices.Concat(s.before.Unread, after.Unread) // a switch read once has its reason in the other
	slices.Sort(sum.Read)
	slices.Sort(unread)
	sum.Unread = slices.Compact(unread)
	notWeighed := slices.Concat(s.before.NotWeighed, after.NotWeighed)
	slices.Sort(notWeighed)
	sum.NotWeighed = slices.Compact(notWeighed)
	s.last = sum
	return read, moved
}

// carry adds to now the latest earlier reading of every switch read then
// but not now, and says so beside why it was not read now.
func (s *SwitchCounters) carry(now SwitchReading) SwitchReading {
	for _, name := range s.after.Read {
		if slices.Contains(now.Read, name) {
			continue
		}
		now.Read = append(now.Read, name)
		for _, r := range s.after.Readings {
			if r.At.Device == name {
				now.Readings = append(now.Readings, r)
			}
		}
		for i, u := range now.Unread {
			if strings.HasPrefix(u, name+": ") {
				now.Unread[i] = u + " (its earlier reading is used)"
			}
		}
	}
	return now
}

// Summary is which switches the last Evidence read (nil before any).
func (s *SwitchCounters) Summary() *report.SwitchCounters {
	if s == nil {
		return nil
	}
	return s.last
}

// IDPortCounters is the check ID of a port whose error counters moved
// during the tests (PortCounterResults).
const IDPortCounters = "pairwise/port-counters"

// warnKinds are the counter kinds that show a fault of the port's link
// whatever the tests said, with what each means; discards are left out,
// since a loaded port also discards what its lossy classes cannot hold.
var warnKinds = map[localize.CounterKind]string{
	localize.PhyErrors:  "receive errors: the cable or optics arriving here",
	localize.LinkDown:   "the link went down",
	localize.PauseStorm: "a pause storm: the NIC stalled sending pause frames",
	localize.Degraded:   "the link trained below its width or speed",
}

// PortCounterResults turns what the last Evidence found moved into one
// warning per port (IDPortCounters, its target the port as the fabric
// file names it): receive errors, link-downs, pause storms and links
// trained low during the tests, whether or not a test failed through the
// port. A link that corrupts a few frames, or went down once, in a check
// whose tests all passed is still a link to look at, and the localiser
// names only what explains a failed test. Sorted by port; nil before any
// Evidence.
func (s *SwitchCounters) PortCounterResults() []checks.Result {
	if s == nil {
		return nil
	}
	byPort := map[fabric.Endpoint][]localize.Counter{}
	for _, c := range s.moved {
		if _, ok := warnKinds[c.Kind]; ok && c.Delta > 0 {
			byPort[c.At] = append(byPort[c.At], c)
		}
	}
	var out []checks.Result
	for _, at := range slices.SortedFunc(maps.Keys(byPort), fabric.Endpoint.Compare) {
		var names, means, ev []string
		for _, c := range byPort[at] {
			names = append(names, fmt.Sprintf("%s +%d", c.Name, c.Delta))
			if !slices.Contains(means, warnKinds[c.Kind]) {
				means = append(means, warnKinds[c.Kind])
			}
			ev = append(ev, fmt.Sprintf("%s: %s +%d during the tests (%s)", at, c.Name, c.Delta, warnKinds[c.Kind]))
		}
		out = append(out, checks.Result{ID: IDPortCounters, Target: at.String(), Status: checks.StatusWarn, Class: checks.CounterEvidence,
			Summary: fmt.Sprintf("%s during the tests (%s)", strings.Join(names, ", "), strings.Join(means, "; ")), Evidence: ev})
	}
	return out
}
