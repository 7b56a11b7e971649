package analyze

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/ibdiag"
)

// The InfiniBand diagnostics read by checks/ibdiag.
const (
	KindIBNetDiscover Kind = "ibnetdiscover"
	KindPerfQuery     Kind = "perfquery"
	KindSMPQuery      Kind = "smpquery"
	KindSMInfo        Kind = "sminfo"
	KindIBTracert     Kind = "ibtracert"
	KindIBRoute       Kind = "ibroute"
	KindIBQueryErrors Kind = "ibqueryerrors"
)

// accountFindings turns the lines a parser did not read into findings:
// the tool's own errors and the lines not understood are never dropped.
func accountFindings(kind Kind, acc ibdiag.Accounting) []Finding {
	var out []Finding
	for _, e := range acc.ToolErrors {
		out = append(out, bad(string(kind)+"/tool-error", fmt.Sprintf("line %d", e.Line), checks.StatusWarn, "", e.Text))
	}
	if n := len(acc.Unparsed); n > 0 {
		ev := make([]string, 0, n)
		for _, u := range acc.Unparsed {
			ev = append(ev, u.String())
		}
		out = append(out, bad(string(kind)+"/unparsed", "", checks.StatusWarn, "", fmt.Sprintf("%d line(s) not understood", n), ev...))
	}
	return out
}

// counterFindings judges one port's error counters: any error counted is a
// failure, a saturated counter says the true count is higher.
func counterFindings(id, subject string, cs map[string]ibdiag.Counter) []Finding {
	var errs, sat []string
	for _, name := range ibdiag.ErrorCounters {
		c, ok := cs[name]
		if !ok || c.Value == 0 {
			continue
		}
		s := fmt.Sprintf("%s=%d", name, c.Value)
		if c.Saturated {
			s += " (saturated)"
			sat = append(sat, name)
		}
		errs = append(errs, s)
	}
	var out []Finding
	if len(errs) > 0 {
		out = append(out, bad(id, subject, checks.StatusFail, checks.CounterEvidence, strings.Join(errs, " ")))
	}
	if w, ok := cs["PortXmitWait"]; ok && w.Saturated {
		out = append(out, bad(id, subject, checks.StatusWarn, checks.CounterEvidence, fmt.Sprintf("PortXmitWait=%d saturated: congestion, count lost (clear with perfquery -R)", w.Value)))
	}
	if len(out) == 0 {
		out = append(out, pass(id, subject, "no error counted"))
	}
	return out
}

func evalPerfQuery(_ Options, _ string, data []byte) ([]Finding, any, error) {
	pq, err := ibdiag.ParsePerfQuery(string(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, b := range pq.Blocks {
		subject := strings.TrimSpace(b.Target)
		if b.Port != nil {
			subject += fmt.Sprintf(" port %d", *b.Port)
		}
		out = append(out, counterFindings("perfquery/errors", orUnknown(subject), b.Counters)...)
	}
	return append(out, accountFindings(KindPerfQuery, pq.Accounting)...), pq, nil
}

func evalIBQueryErrors(_ Options, _ string, data []byte) ([]Finding, any, error) {
	q, err := ibdiag.ParseIBQueryErrors(string(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, p := range q.Ports {
		if p.Data || p.All() {
			continue // data counters; "port ALL" sums the ports listed below it
		}
		subject := fmt.Sprintf("%s port %d", orUnknown(p.Node), *p.Port)
		out = append(out, counterFindings("ibqueryerrors/errors", subject, p.Counters)...)
	}
	if s := q.Summary; s.BadPorts != nil {
		if *s.BadPorts == 0 {
			out = append(out, pass("ibqueryerrors/summary", "", fmt.Sprintf("%d ports checked, none over threshold", deref(s.PortsChecked))))
		} else {
			out = append(out, bad("ibqueryerrors/summary", "", checks.StatusFail, checks.CounterEvidence, fmt.Sprintf("%d of %d ports have errors beyond threshold", *s.BadPorts, deref(s.PortsChecked))))
		}
	}
	return append(out, accountFindings(KindIBQueryErrors, q.Accounting)...), q, nil
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func evalIBNetDiscover(_ Options, _ string, data []byte) ([]Finding, any, error) {
	t, err := ibdiag.ParseIBNetDiscover(string(data))
	if err != nil {
		return nil, nil, err
	}
	links := t.Links()
	// the width most links trained at; a narrower link is degraded
	count := map[ibdiag.Width]int{}
	for _, l := range links {
		count[l.Width]++
	}
	var common ibdiag.Width
	for w, n := range count {
		if n > count[common] || n == count[common] && w > common {
			common = w
		}
	}
	var out []Finding
	for _, l := range links {
		if l.Width != 0 && l.Width < common {
			out = append(out, bad("ibnetdiscover/width", fmt.Sprintf("%s[%d]-%s[%d]", orUnknown(l.A.Desc), l.A.Port, orUnknown(l.B.Desc), l.B.Port), checks.StatusFail, checks.LowBandwidth,
				fmt.Sprintf("link trained at %s, most links at %s", l.Width, common)))
		}
	}
	out = append(out, pass("ibnetdiscover/topology", "", fmt.Sprintf("%d nodes, %d links, %d port lines", len(t.Nodes), len(links), len(t.PortLines))))
	return append(out, accountFindings(KindIBNetDiscover, t.Accounting)...), t, nil
}

func evalSMPQuery(_ Options, _ string, data []byte) ([]Finding, any, error) {
	q, err := ibdiag.ParseSMPQuery(string(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	if q.Attribute == "Port info" {
		p := q.PortInfo()
		st := fmt.Sprintf("%s/%s %s %s", p.State, p.PhysState, p.WidthActive, p.Speed)
		if p.State == ibdiag.StateActive && p.PhysState == ibdiag.PhysLinkUp {
			out = append(out, pass("smpquery/port-state", q.Target, st))
		} else {
			out = append(out, bad("smpquery/port-state", q.Target, checks.StatusFail, checks.PortDown, st))
		}
	} else {
		out = append(out, pass("smpquery/read", q.Target, fmt.Sprintf("%d fields", len(q.Fields))))
	}
	return append(out, accountFindings(KindSMPQuery, q.Accounting)...), q, nil
}

func evalSMInfo(_ Options, _ string, data []byte) ([]Finding, any, error) {
	s, err := ibdiag.ParseSMInfo(string(data))
	if err != nil {
		return nil, nil, err
	}
	f := pass("sminfo/master", fmt.Sprintf("lid %d", s.LID), fmt.Sprintf("SM guid %#x %s", s.GUID, s.State))
	if s.State != "SMINFO_MASTER" {
		f = bad("sminfo/master", fmt.Sprintf("lid %d", s.LID), checks.StatusWarn, "", fmt.Sprintf("SM guid %#x is %s, not master", s.GUID, s.State))
	}
	return append([]Finding{f}, accountFindings(KindSMInfo, s.Accounting)...), s, nil
}

func evalIBTracert(_ Options, _ string, data []byte) ([]Finding, any, error) {
	tr, err := ibdiag.ParseIBTracert(string(data))
	if err != nil {
		return nil, nil, err
	}
	var path []string
	for _, h := range tr.Hops {
		path = append(path, fmt.Sprintf("[%d]->%s[%d]", h.OutPort, orUnknown(h.Desc), h.InPort))
	}
	f := pass("ibtracert/path", "", strings.Join(path, " "))
	if !tr.Complete() {
		f = bad("ibtracert/path", "", checks.StatusFail, "", "the trace did not reach its destination: "+strings.Join(path, " "))
	}
	return append([]Finding{f}, accountFindings(KindIBTracert, tr.Accounting)...), tr, nil
}

func evalIBRoute(_ Options, _ string, data []byte) ([]Finding, any, error) {
	r, err := ibdiag.ParseIBRoute(string(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, t := range r.Tables {
		ports := map[int]int{}
		for _, e := range t.Entries {
			ports[e.OutPort]++
		}
		keys := make([]int, 0, len(ports))
		for p := range ports {
			keys = append(keys, p)
		}
		sort.Ints(keys)
		var use []string
		for _, p := range keys {
			use = append(use, fmt.Sprintf("%d:%d", p, ports[p]))
		}
		out = append(out, pass("ibroute/lft", orUnknown(t.Desc), fmt.Sprintf("%d LIDs routed (out port:LIDs %s)", len(t.Entries), strings.Join(use, " "))))
	}
	return append(out, accountFindings(KindIBRoute, r.Accounting)...), r, nil
}
