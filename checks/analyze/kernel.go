package analyze

import (
	"bytes"
	"fmt"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/hostparse"
)

// kernelPrefix is what dmesg (plain, -T, -x, --time-format iso),
// journalctl -k (short, short-iso, short-precise, short-monotonic) and
// syslog files (/var/log/messages, kern.log) put before a kernel message:
// Detect counts the driver's lines only behind it, so that a line quoting
// one (an NHC error) is not a kernel log.
const kernelPrefix = `^(?:\[[^\]]*\]\s*|(?:[A-Z][a-z]{2}\s+\d{1,2}\s+[\d:.]+|\d{4}-\d\d-\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?)\s+)?` +
	`(?:kern\s*:\s*\w+\s*:\s*)?(?:\S+\s+kernel:\s*|kernel:\s*)?(?:\[[^\]]*\]\s*)?`

// evalKernelLog judges the NVIDIA driver's Xid events in a kernel log
// (dmesg, journalctl -k, syslog files) by NVIDIA's own taxonomy, the Xid
// catalog's immediate action (hostparse.JudgeXid has the rule): one
// finding per GPU bus id and kind of event that needs action, quoting its
// first line and counting its repeats; events NVIDIA says to ignore stay in
// the facts.
func evalKernelLog(opt Options, name string, data []byte) ([]Finding, any, error) {
	k, err := hostparse.ParseKernelLog(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, g := range k.GPUs {
		for _, e := range g.Events {
			if f, ok := xidFinding(g, e); ok {
				out = append(out, f)
			}
		}
	}
	if len(k.Warnings) > 0 {
		out = append(out, bad("kernel-log/xid", "", checks.StatusWarn, "", fmt.Sprintf("%d Xid line(s) not read: their number is unreadable", len(k.Warnings)), k.Warnings...))
	}
	if len(out) == 0 {
		out = append(out, pass("kernel-log/xid", "", kernelCleanSummary(k)))
	}
	return out, k, nil
}

// xidFinding is the finding of one of a GPU's events; ok is false for an
// event that needs no action.
func xidFinding(g hostparse.KernelGPU, e hostparse.XidEvent) (Finding, bool) {
	v := hostparse.JudgeXid(e, g)
	var st checks.Status
	switch v.Severity {
	case hostparse.XidFail:
		st = checks.StatusFail
	case hostparse.XidWarn:
		st = checks.StatusWarn
	default:
		return Finding{}, false
	}
	summary := v.Note // the catalog does not know it: "unclassified Xid N: …"
	if v.Class.Code != 0 {
		action := v.Action
		if action == "" {
			action = string(v.Class.Action)
		}
		if action == "" {
			action = "none given"
		}
		summary = fmt.Sprintf("Xid %d (%s): NVIDIA's action %s", e.Xid, v.Class.Description, action)
		if v.Note != "" {
			summary += "; " + v.Note
		}
	}
	seen := fmt.Sprintf("seen once, line %d", e.Line)
	if e.Count > 1 {
		seen = fmt.Sprintf("seen %d times, lines %d-%d", e.Count, e.Line, e.LastLine)
	}
	return bad("kernel-log/xid", g.Bus, st, "", summary, e.Text, seen), true
}

// kernelCleanSummary says what a log without an Xid to act on holds.
func kernelCleanSummary(k *hostparse.KernelLog) string {
	events := 0
	for _, g := range k.GPUs {
		for _, e := range g.Events {
			events += e.Count
		}
	}
	lines := fmt.Sprintf("%d lines", k.NVRMLines)
	if k.NVRMLines == 1 {
		lines = "1 line"
	}
	s := "no Xid that needs action in " + lines + " of the NVIDIA driver"
	if events == 0 {
		s = "no Xid event in " + lines + " of the NVIDIA driver"
	}
	if k.Driver != "" {
		s += " (driver " + k.Driver + ")"
	}
	if events > 0 {
		s += fmt.Sprintf("; %d event(s) NVIDIA says need no action are in the facts", events)
	}
	return s
}
