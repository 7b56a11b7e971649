package view

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
)

// PlanTable writes the table of `fabricctl plan` (and of apply's plan); then, on w, the
// footnotes the rows point to and how many targets change, stay and could not be observed.
//
// The default view fits a terminal: one row per change a target needs (SETTING is the
// component and the setting, "eth0 mtu"), with DISRUPTIVE and the note's footnote number;
// one row per target counting the settings it cannot apply ("12 settings on eth0",
// UNSUPPORTED [1-4]), each reason written once below the table with the targets and settings it
// concerns; "no changes" (with what it cannot apply on the same row), or the target's ERROR. With t.Wide() (-o wide) every setting has
// its own row, tier, component and note in full, as JSON has them.
func PlanTable(t *output.TableWriter, w io.Writer, p *fabric.Plan) { planTable(t, w, p, false) }

// DriftTable is PlanTable for `fabricctl drift`: a target in sync says "no drift", and the
// last line says which targets drifted ("2 target(s) drifted: leaf-01, lab-h3") or "no drift
// on 6 target(s)".
func DriftTable(t *output.TableWriter, w io.Writer, p *fabric.Plan) { planTable(t, w, p, true) }

func planTable(t *output.TableWriter, w io.Writer, p *fabric.Plan, drift bool) {
	same := "no changes"
	if drift {
		same = "no drift"
	}
	wide := t.Wide()
	if wide {
		t.Row("TARGET", "TIER", "COMPONENT", "SETTING", "CHANGE", "NOTE")
	} else {
		t.Row("TARGET", "SETTING", "CHANGE", "NOTE")
		t.CutToFit(2)
	}
	var notes footnotes
	var changed, failed []string
	unchanged := 0
	for _, tp := range p.Targets {
		if tp.Error != "" {
			failed = append(failed, tp.Target)
			if wide {
				t.Row(tp.Target, tp.Tier, "-", "-", "ERROR", tp.Error)
			} else {
				t.Row(tp.Target, "-", "ERROR", tp.Error)
			}
			continue
		}
		actionable := len(fabric.Actionable(tp.Changes)) > 0
		if actionable {
			changed = append(changed, tp.Target)
		} else {
			unchanged++
		}
		if wide {
			if len(tp.Changes) == 0 {
				t.Row(tp.Target, tp.Tier, "-", "-", same, "")
			}
			for _, c := range tp.Changes {
				note := c.Note
				switch {
				case c.Unsupported:
					note = "UNSUPPORTED " + reason(note)
				case c.Disruptive:
					note = impact(c) + " " + note
				}
				t.Row(tp.Target, tp.Tier, output.OrDash(c.Component), c.Setting, change(c), strings.TrimSpace(note))
			}
			continue
		}
		var unsupported []fabric.Change
		for _, c := range tp.Changes {
			if c.Unsupported {
				unsupported = append(unsupported, c)
			}
		}
		// unsupportedNote numbers the reasons (after the target's other notes, in row order).
		unsupportedNote := func() string {
			if len(unsupported) == 0 {
				return ""
			}
			var nums []int
			for _, c := range unsupported {
				nums = append(nums, notes.add(reason(c.Note), true, tp.Target, c.Setting))
			}
			return "UNSUPPORTED " + output.Refs(nums)
		}
		if !actionable {
			// One row: the target is in sync, and what it cannot apply.
			note := unsupportedNote()
			if note != "" {
				note += ": " + countSettings(unsupported)
			}
			t.Row(tp.Target, "-", same, note)
			continue
		}
		for _, c := range tp.Changes {
			if c.Unsupported {
				continue
			}
			var note []string
			if c.Disruptive {
				note = append(note, impact(c))
			}
			if n := strings.TrimSpace(c.Note); n != "" {
				note = append(note, output.Refs([]int{notes.add(n, false, "", "")}))
			}
			setting := c.Setting
			if c.Component != "" {
				setting = c.Component + " " + c.Setting
			}
			t.Row(tp.Target, setting, change(c), strings.Join(note, " "))
		}
		if note := unsupportedNote(); note != "" {
			t.Row(tp.Target, countSettings(unsupported), "-", note)
		}
	}
	t.Flush()
	notes.write(w, t.Term())
	if !drift {
		fmt.Fprintf(w, "\n%d target(s): %d to change, %d unchanged, %d could not be observed\n", len(p.Targets), len(changed), unchanged, len(failed))
		return
	}
	var parts []string
	if len(changed) == 0 {
		parts = append(parts, fmt.Sprintf("no drift on %d target(s)", unchanged))
	} else {
		parts = append(parts, fmt.Sprintf("%d target(s) drifted: %s", len(changed), output.Names(changed)))
		if unchanged > 0 {
			parts = append(parts, fmt.Sprintf("%d without drift", unchanged))
		}
	}
	if len(failed) > 0 {
		parts = append(parts, fmt.Sprintf("%d could not be observed: %s", len(failed), output.Names(failed)))
	}
	fmt.Fprintf(w, "\n%s\n", output.Printable(strings.Join(parts, "; ")))
}

// change is a change's CHANGE cell: "old → new", a removal "3 → (remove)", an addition
// "(none) → 3" (fabric.Change.Display).
func change(c fabric.Change) string {
	old, new := c.Display()
	return fmt.Sprintf("%s → %s", output.OrDash(old), output.OrDash(new))
}

// impact is the disruption a change marks: "DISRUPTIVE", or "DISRUPTIVE, link flaps" when
// it takes its interface's link down.
func impact(c fabric.Change) string {
	if c.Flaps {
		return "DISRUPTIVE, link flaps"
	}
	return "DISRUPTIVE"
}

// reason is an unsupported change's note without its redundant "unsupported: ".
func reason(note string) string {
	note = strings.TrimSpace(note)
	if r, ok := strings.CutPrefix(note, "unsupported: "); ok {
		return r
	}
	return output.OrDash(note)
}

// countSettings counts a target's unsupported settings: "12 settings on eth0" when they
// share a component, "12 settings" otherwise.
func countSettings(cs []fabric.Change) string {
	n := fmt.Sprintf("%d settings", len(cs))
	if len(cs) == 1 {
		n = "1 setting"
	}
	comp := cs[0].Component
	for _, c := range cs {
		if c.Component != comp {
			return n
		}
	}
	if comp == "" {
		return n
	}
	return n + " on " + comp
}

// footnotes are the notes a table's rows point to, each written once, numbered in the order
// the rows first point to them.
type footnotes struct {
	list  []*footnote
	index map[string]int
}

type footnote struct {
	text string
	// many notes a reason that concerns targets and settings, which the footnote lists.
	many              bool
	targets, settings []string
}

// add returns the number of text's footnote, adding target and setting to what it lists
// when many is set.
func (f *footnotes) add(text string, many bool, target, setting string) int {
	key := fmt.Sprint(many, "\x00", text)
	i, ok := f.index[key]
	if !ok {
		if f.index == nil {
			f.index = map[string]int{}
		}
		i = len(f.list)
		f.index[key] = i
		f.list = append(f.list, &footnote{text: text, many: many})
	}
	n := f.list[i]
	if many {
		if !slices.Contains(n.targets, target) {
			n.targets = append(n.targets, target)
		}
		if setting != "" && !slices.Contains(n.settings, setting) {
			n.settings = append(n.settings, setting)
		}
	}
	return i + 1
}

// write writes the footnotes after a blank line, each wrapped to term's width with its
// lines after the first indented under its text.
func (f *footnotes) write(w io.Writer, term output.Term) {
	if len(f.list) == 0 {
		return
	}
	var b strings.Builder
	b.WriteByte('\n')
	for i, n := range f.list {
		text := n.text
		if n.many {
			text += ": " + output.Names(n.targets)
			if len(n.settings) > 0 {
				text += " (" + strings.Join(n.settings, ", ") + ")"
			}
		}
		b.WriteString(term.Hang(fmt.Sprintf("[%d] ", i+1), output.Printable(text)))
	}
	io.WriteString(w, b.String())
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
