package localize

import (
	"context"
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/schedule"
)

// Ambiguity is a question the results leave open: either the components
// one of which is at fault (a suspect and its alternatives, which the
// localiser lists when they explain the results within a factor
// Options.Ambiguity of each other: a tie is one of these), or bad tests
// that no suspect explains because there were too few tests to blame
// anything.
type Ambiguity struct {
	// Components are the suspect, then its alternatives.
	Components []checks.SuspectRef `json:"components,omitempty"`
	// Unexplained are the bad tests when no suspect was named at all.
	Unexplained []Observation `json:"unexplained,omitempty"`
}

// String says what the ambiguity is, for people: "cable lab-h1:eth0 <->
// leaf-01:swp1 or port leaf-01:swp1", "no suspect explains lab-h1→lab-h3
// 0.0 Gb/s with loss".
func (a Ambiguity) String() string {
	if len(a.Components) > 0 {
		var names []string
		for _, c := range a.Components {
			names = append(names, c.Name)
		}
		return strings.Join(names, " or ")
	}
	var tests []string
	for _, o := range a.Unexplained {
		tests = append(tests, o.Client+"→"+o.Server)
	}
	return fmt.Sprintf("no suspect explains the bad test(s) %s", strings.Join(tests, ", "))
}

// Ambiguities lists what the result leaves open: every suspect with
// alternatives, and the bad tests no suspect explains — when no suspect
// was named at all, or when they point at a possible further fault
// (Possible). A result without any is exact: each suspect is named alone,
// and what it leaves unexplained is noise (ECMP collisions, measurement
// hiccups), or nothing failed.
func (r Result) Ambiguities() []Ambiguity {
	var out []Ambiguity
	for _, s := range r.Suspects {
		if len(s.Alternatives) > 0 {
			out = append(out, Ambiguity{Components: append([]checks.SuspectRef{s.SuspectRef}, s.Alternatives...)})
		}
	}
	if len(r.Unexplained) > 0 && (len(r.Suspects) == 0 || len(r.Possible) > 0) {
		out = append(out, Ambiguity{Unexplained: r.Unexplained})
	}
	return out
}

// Why Refine stopped.
const (
	StopNothingFailed = "nothing-failed" // no bad test: there is nothing to localise
	StopExact         = "exact"          // every suspect is named alone
	StopNoSplit       = "no-split"       // no test can split what is left: counters or people must
	StopBound         = "bound"          // the round bound was reached
	StopError         = "error"          // the tester failed or the context ended
)

// RetestRound is one round of re-tests Refine ran.
type RetestRound struct {
	// Splits are the ambiguities the round was chosen to split.
	Splits []Ambiguity `json:"splits"`
	// Probes are the re-tests, each with the component it bears on.
	Probes []Probe `json:"probes"`
	// Observations are their results, as the tester returned them.
	Observations []Observation `json:"observations"`
}

// Refinement is what Refine did and concluded.
type Refinement struct {
	Result
	Rounds []RetestRound `json:"rounds,omitempty"`
	// Stop is why it stopped: one of the Stop constants.
	Stop string `json:"stop"`
}

// Refine runs adaptive re-tests on results a caller already recorded in
// l (its own sweep): while some bad test leaves an ambiguity, it asks the
// localiser for the re-tests that best split it (Plan), runs them
// through t as one round numbered first+k, and adds their results; it
// stops as soon as the suspects are exact, when no test can split what
// is left, or after maxRounds rounds. Nothing failed: no re-test at all.
// An error of the tester or the end of ctx stops it with the state
// reached (the rounds run, the result of what was recorded) and the
// error.
func Refine(ctx context.Context, l *Localizer, t Tester, first, maxRounds int) (Refinement, error) {
	var ref Refinement
	err := adapt(ctx, l, t, first, maxRounds, true, func(r RetestRound, _ schedule.Round) { ref.Rounds = append(ref.Rounds, r) }, &ref.Stop)
	ref.Result = l.Analyze()
	return ref, err
}

// adapt is the re-test loop of Run and Refine. untilExact: stop when
// nothing failed or every suspect is exact (Refine); otherwise (Run) go on
// to maxRounds. Run's rounds, and Refine's with Options.Screen, have the
// hosts no re-test uses screening (Model.screen), since a fault that
// spoils only some tests or rounds needs more of them. Every
// round run is reported to done with all its pairs, even one cut short.
func adapt(ctx context.Context, l *Localizer, t Tester, first, maxRounds int, untilExact bool, done func(RetestRound, schedule.Round), stop *string) error {
	screen := !untilExact || l.o.Screen
	readCounters := func() error {
		cr, ok := t.(CounterReader)
		if !ok {
			return nil
		}
		read, moved, err := cr.ReadCounters(ctx)
		if err != nil {
			return fmt.Errorf("reading counters: %w", err)
		}
		l.SetCounters(read, moved)
		return nil
	}
	for i := 0; ; i++ {
		var splits []Ambiguity
		if untilExact {
			r := l.Analyze()
			if r.Bad == 0 {
				*stop = StopNothingFailed
				return nil
			}
			if splits = r.Ambiguities(); len(splits) == 0 {
				*stop = StopExact
				return nil
			}
		}
		if i >= maxRounds {
			*stop = StopBound
			return nil
		}
		if err := ctx.Err(); err != nil {
			*stop = StopError
			return err
		}
		probes := l.Plan(i)
		pairs := make(schedule.Round, len(probes))
		busy := map[string]bool{}
		for k, p := range probes {
			pairs[k] = p.Pair
			for _, e := range []string{p.Client, p.Server} {
				if ne, err := l.m.endpoint(e); err == nil {
					busy[ne.host] = true
				}
			}
		}
		if len(pairs) == 0 && untilExact {
			// Nothing to split: screening alone would run to the bound
			// on a cable and its port, which no test splits.
			*stop = StopNoSplit
			return nil
		}
		if screen {
			pairs = append(pairs, l.m.screen(first+i, busy)...)
		}
		if len(pairs) == 0 {
			*stop = StopNoSplit
			return nil
		}
		obs, err := t.RunRound(ctx, first+i, pairs)
		done(RetestRound{Splits: splits, Probes: probes, Observations: obs}, pairs)
		if addErr := l.Add(obs...); addErr != nil && err == nil {
			err = addErr
		}
		if err != nil {
			*stop = StopError
			return fmt.Errorf("running re-test round %d: %w", i+1, err)
		}
		if err := readCounters(); err != nil {
			*stop = StopError
			return err
		}
	}
}
