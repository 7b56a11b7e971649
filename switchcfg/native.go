package switchcfg

import (
	"fmt"
	"github.com/fabricctl/fabricctl/internal/textdiff"

	"github.com/fabricctl/fabricctl/fabric"
)

// NativeDiff renders both sides of a plan in the switch's own language: got
// (a reading of the switch, as ObserveIntent returns it) with want's
// identity — name, platform, model, ports — and want itself, and returns
// their unified diff. It is what a push would change in the managed
// sections, as read back; the push itself sends want's whole rendering and
// the device diffs it. Pure.
//
// A reading that does not render (a switch without QoS has no trust to
// render) is diffed as empty, so every desired line shows as added, and a
// note says why; so are port groups and unparsed input, which the
// rendering of the reading cannot show.
func NativeDiff(d Driver, want, got fabric.SwitchIntent) *fabric.NativeDiff {
	nd := &fabric.NativeDiff{Platform: d.Info().Name,
		From: want.Name + ": managed sections as read back, rendered natively",
		To:   want.Name + ": desired, rendered natively"}
	to, err := d.Render(want)
	if err != nil {
		nd.Notes = append(nd.Notes, fmt.Sprintf("rendering the desired intent: %v", err))
		return nd
	}
	nd.Format = to.Format
	var fromText string
	if from, err := d.Render(asRendered(want, got)); err != nil {
		nd.Notes = append(nd.Notes, fmt.Sprintf("the reading does not render (%v): every desired line is shown as added", err))
	} else {
		fromText = from.Text
	}
	if n := len(got.PortGroups); n > 0 {
		nd.Notes = append(nd.Notes, fmt.Sprintf("%d group(s) of ports differ from the rest (the plan lists them); the read-back is rendered as the rest", n))
	}
	if n := len(got.Unparsed); n > 0 {
		nd.Notes = append(nd.Notes, fmt.Sprintf("%d piece(s) of the read-back were not understood and are not rendered", n))
	}
	nd.Diff = UnifiedDiff(nd.From, nd.To, fromText, to.Text)
	return nd
}

// asRendered is the reading got as Render needs it: want's identity and
// ports (the reading's ports may be a superset), the reading's QoS. A role
// class the reading does not name is the class at the priority want's has.
func asRendered(want, got fabric.SwitchIntent) fabric.SwitchIntent {
	out := want
	out.MTU, out.Trust, out.Classes, out.PFC = got.MTU, got.Trust, got.Classes, got.PFC
	out.RoCEClass, out.CNPClass = roleIn(got.RoCEClass, want.RoCEClass, want.Classes, got.Classes),
		roleIn(got.CNPClass, want.CNPClass, want.Classes, got.Classes)
	out.PortGroups, out.Unparsed = nil, nil
	return out
}

func roleIn(gotName, wantName string, wantClasses, gotClasses []fabric.SwitchClass) string {
	if gotName != "" || wantName == "" {
		return gotName
	}
	p, ok := priorityOf(wantName, wantClasses)
	if !ok {
		return ""
	}
	for _, c := range gotClasses {
		if c.Priority == p {
			return c.Name
		}
	}
	return ""
}

// UnifiedDiff returns the unified diff (three lines of context) of two
// texts line by line, labelled fromName and toName, or "" when they are
// equal (textdiff.Unified).
func UnifiedDiff(fromName, toName, from, to string) string {
	return textdiff.Unified(fromName, toName, from, to)
}
