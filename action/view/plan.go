package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
)

// PlanTable writes the rows of `fabricctl plan` and `drift`: each target's changes (marked
// UNSUPPORTED or DISRUPTIVE), "no changes" or its ERROR, then, on w after the table, how many
// targets change, stay and could not be observed.
func PlanTable(t *output.TableWriter, w io.Writer, p *fabric.Plan) {
	t.Row("TARGET", "TIER", "COMPONENT", "SETTING", "CHANGE", "NOTE")
	changed, same, failed := 0, 0, 0
	for _, tp := range p.Targets {
		switch {
		case tp.Error != "":
			failed++
			t.Row(tp.Target, tp.Tier, "-", "-", "ERROR", tp.Error)
			continue
		case len(fabric.Actionable(tp.Changes)) > 0:
			changed++
		default:
			same++
		}
		if len(tp.Changes) == 0 {
			t.Row(tp.Target, tp.Tier, "-", "-", "no changes", "")
		}
		for _, c := range tp.Changes {
			note := c.Note
			switch {
			case c.Unsupported:
				note = "UNSUPPORTED " + note
			case c.Disruptive:
				note = "DISRUPTIVE " + note
			}
			t.Row(tp.Target, tp.Tier, output.OrDash(c.Component), c.Setting, fmt.Sprintf("%s → %s", output.OrDash(c.Old), output.OrDash(c.New)), strings.TrimSpace(note))
		}
	}
	t.Flush()
	fmt.Fprintf(w, "\n%d target(s): %d to change, %d unchanged, %d could not be observed\n", len(p.Targets), changed, same, failed)
}

// ResultTable writes, on w, the rows of `fabricctl apply`'s result after its plan: each target's
// outcome, then how many targets had each outcome.
func ResultTable(t *output.TableWriter, w io.Writer, r *fabric.Result) {
	fmt.Fprintln(w)
	t.Row("TARGET", "TIER", "OUTCOME", "APPLIED", "REMAINING", "ERROR")
	counts := map[fabric.Outcome]int{}
	for _, tr := range r.Targets {
		counts[tr.Outcome]++
		t.Row(tr.Target, tr.Tier, tr.Outcome, len(tr.Applied), len(fabric.Actionable(tr.Remaining)), output.OrDash(tr.Error))
	}
	t.Flush()
	var parts []string
	for _, o := range []fabric.Outcome{fabric.OutcomeChanged, fabric.OutcomeUnchanged, fabric.OutcomeWouldApply,
		fabric.OutcomeRolledBack, fabric.OutcomeFailed, fabric.OutcomeSkipped} {
		if counts[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[o], o))
		}
	}
	fmt.Fprintf(w, "\n%d target(s): %s\n", len(r.Targets), strings.Join(parts, ", "))
}
