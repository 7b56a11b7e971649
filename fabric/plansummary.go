package fabric

import (
	"fmt"
	"slices"
	"strings"
)

// Values a Change carries for things that are not there (switchcfg.Compare
// writes them): ValueMissing as Old, the device has no value for a setting
// the intent sets; ValueAbsent as New, the device has something the intent
// does not ask for, which apply removes.
const (
	ValueMissing = "(missing)"
	ValueAbsent  = "(absent)"
)

// Display returns Old and New as a plan table shows them: a removal reads
// "3 → (remove)" and an addition "(none) → 3". JSON keeps the raw values.
func (c Change) Display() (old, new string) {
	old, new = c.Old, c.New
	if old == ValueMissing {
		old = "(none)"
	}
	if new == ValueAbsent {
		new = "(remove)"
	}
	return old, new
}

// Summary counts what an apply of a plan would do: what its confirmation
// prompt says.
type Summary struct {
	// Targets with an actionable change, and those changes.
	Targets, Changes int
	// Disruptive changes among them.
	Disruptive int
	// Links that will flap, "target component" ("h1 eth0"), sorted.
	Links []string
	// Unobserved targets, which apply leaves alone.
	Unobserved int
}

// Summarize counts p's actionable changes, disruptive ones and the links
// they flap.
func (p *Plan) Summarize() Summary {
	var s Summary
	for _, tp := range p.Targets {
		if tp.Error != "" {
			s.Unobserved++
			continue
		}
		cs := Actionable(tp.Changes)
		if len(cs) == 0 {
			continue
		}
		s.Targets++
		s.Changes += len(cs)
		for _, c := range cs {
			if c.Disruptive {
				s.Disruptive++
			}
			if c.Flaps {
				link := strings.TrimSpace(tp.Target + " " + c.Component)
				if !slices.Contains(s.Links, link) {
					s.Links = append(s.Links, link)
				}
			}
		}
	}
	slices.Sort(s.Links)
	return s
}

// String says the summary in one line: "7 change(s) to 3 target(s): 2
// disruptive, 1 link(s) will flap (h1 eth0)".
func (s Summary) String() string {
	out := fmt.Sprintf("%d change(s) to %d target(s): %d disruptive, %d link(s) will flap", s.Changes, s.Targets, s.Disruptive, len(s.Links))
	if len(s.Links) > 0 {
		const most = 8
		names := s.Links
		more := ""
		if len(names) > most {
			names, more = names[:most], fmt.Sprintf(" and %d more", len(s.Links)-most)
		}
		out += " (" + strings.Join(names, ", ") + more + ")"
	}
	if s.Unobserved > 0 {
		out += fmt.Sprintf("; %d target(s) could not be observed and are left alone", s.Unobserved)
	}
	return out
}

// UnmarshalText reads a tier as MarshalText writes it (a saved plan).
func (t *Tier) UnmarshalText(b []byte) error {
	for _, x := range []Tier{TierSubnetManager, TierSwitch, TierHost} {
		if x.String() == string(b) {
			*t = x
			return nil
		}
	}
	return fmt.Errorf("unknown tier %q (want subnet-manager, switch or host)", b)
}

// AttachNative sets Native on the plan of every target that is a
// NativeDiffer and was observed.
func (p *Plan) AttachNative(targets []Target) {
	byName := make(map[string]Target, len(targets))
	for _, t := range targets {
		byName[t.Name()] = t
	}
	for i, tp := range p.Targets {
		if tp.err != nil {
			continue
		}
		if nd, ok := byName[tp.Target].(NativeDiffer); ok {
			p.Targets[i].Native = nd.NativeDiff()
		}
	}
}
