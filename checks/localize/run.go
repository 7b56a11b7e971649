package localize

import (
	"context"
	"fmt"

	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/fabric"
)

// Tester runs one round of pairwise tests: every pair at once, no NIC in
// two of them. It returns one Observation per pair it could judge; a pair
// it could not run at all is left out (or given Outcome Void).
type Tester interface {
	RunRound(ctx context.Context, round int, pairs schedule.Round) ([]Observation, error)
}

// CounterReader is implemented by Testers that read error counters: read
// lists the endpoints whose counters were read, moved the counters that
// moved there since testing began.
type CounterReader interface {
	ReadCounters(ctx context.Context) (read []fabric.Endpoint, moved []Counter, err error)
}

// Session is what Run did and concluded.
type Session struct {
	Result
	// Rounds is the number of rounds run: the schedule's and the re-tests'.
	Rounds int `json:"rounds"`
	// Retests are the re-test rounds run after the schedule: the
	// re-tests the localiser chose, and the idle hosts' screening pairs.
	Retests []schedule.Round `json:"retests,omitempty"`
}

// ScheduleHosts returns the model's test endpoints as schedule hosts with
// their leaf as the "leaf" label, for schedule.Topology.
func (m *Model) ScheduleHosts() []schedule.Host {
	var out []schedule.Host
	for _, name := range m.Endpoints() {
		e := m.ends[name]
		out = append(out, schedule.Host{Name: m.testName(e), Labels: map[string]string{schedule.LeafLabel: e.leafName}})
	}
	return out
}

// Run tests with the given rounds (schedule.Topology over
// m.ScheduleHosts() is the one made for it), then adds
// Options.MaxAdaptiveRounds re-test rounds: the tests the localiser picks
// to split the remaining explanations, and every host no re-test uses
// paired within its leaf or across leaves in turn (faults that spoil some
// tests or rounds only need more tests to show), and returns the suspects. Errors
// of the tester stop the session; what was learnt so far is returned with
// the error.
func Run(ctx context.Context, m *Model, t Tester, rounds []schedule.Round, o Options) (Session, error) {
	l := New(m, o)
	var s Session
	finish := func(err error) (Session, error) {
		s.Result = l.Analyze()
		return s, err
	}
	for _, r := range rounds {
		obs, err := t.RunRound(ctx, s.Rounds, r)
		s.Rounds++
		if err != nil {
			return finish(fmt.Errorf("running round %d: %w", s.Rounds, err))
		}
		if err := l.Add(obs...); err != nil {
			return finish(err)
		}
	}
	if cr, ok := t.(CounterReader); ok {
		read, moved, err := cr.ReadCounters(ctx)
		if err != nil {
			return finish(fmt.Errorf("reading counters: %w", err))
		}
		l.SetCounters(read, moved)
	}
	var stop string
	err := adapt(ctx, l, t, s.Rounds, l.o.MaxAdaptiveRounds, false, func(_ RetestRound, pairs schedule.Round) {
		s.Rounds++
		s.Retests = append(s.Retests, pairs)
	}, &stop)
	return finish(err)
}
