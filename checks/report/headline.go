package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/topology"
)

// idHost is the ID of the result the pairwise sweep adds for a host that
// failed with known-good partners too (checks/rdma's IDHost): the sweep's
// own blame of a host.
const idHost = "pairwise/host"

// headline is what the page opens with: the verdict in a word, the
// components blamed for it with their reason and evidence, and what the
// warnings and undecided checks are. It reads the report only.
type headline struct {
	Status   checks.Status
	Word     string // PASS, WARN, FAIL or ERROR
	Title    string // one line: "lab-h3 is to blame", "Everything passed"
	Counts   string // "54 host checks: 30 pass, 8 warn, 16 skip · 6 pairs: 6 pass"
	Blamed   []blame
	Warnings []group // status warn, grouped
	Errors   []group // status error: checks that could not decide
	Failures []group // failed checks that name no host (fleet-wide)
	// The first screen shows at most headlineItems of each list; the rest
	// are counted here and shown further down the page.
	MoreBlamed, MoreWarnings, MoreErrors, MoreFailures int
}

// headlineItems is how many entries of each list the verdict shows.
const headlineItems = 4

// blame is one component the report holds responsible for failures.
type blame struct {
	Kind         string // host, nic, cable, port, uplink, switch, path
	Name         string // "lab-h3", "cable gpu-12:ens1f0np0 <-> leaf-01:swp2", "gpu-02 ↔ gpu-04"
	Component    string // data-component: "host:lab-h3", a suspect's component ID, "path:gpu-02,gpu-04"
	Reason       string // one line
	Evidence     int    // evidence lines behind the blame
	EvidenceText string // "5 pieces of evidence"
	Tests        string // "3 of 3 pairs failed", "1 failed check"
	Confidence   string // "97%", suspects only
	Alternatives []string
	Source       string // "localisation", "re-tests with known-good partners", "host checks", "pairwise"
	Where        string // a blamed host's cables, when the report has a topology: "eth0 → leaf-02:swp3"
}

// group is several results with the same status, check, class and
// summary, as one entry: the same warning on four hosts is one warning.
type group struct {
	Status   checks.Status
	ID       string
	Class    checks.FailureClass
	Summary  string
	Targets  []groupTarget
	Evidence []string // shared by every target, or each prefixed with its target
}

type groupTarget struct {
	Target string
	Value  string
}

// TargetNames joins the group's targets for people, "→" in pairs.
func (g group) TargetNames() string {
	var names []string
	for _, t := range g.Targets {
		names = append(names, strings.ReplaceAll(t.Target, "->", " → "))
	}
	return strings.Join(names, ", ")
}

// groupRows folds rows of one status, check, class and summary into one
// group each, in the rows' order.
func groupRows(rs []row) []group {
	var out []group
	index := map[string]int{}
	evidence := map[int][][]string{}
	for _, x := range rs {
		k := strings.Join([]string{string(x.Status), x.ID, string(x.Class), x.Summary}, "\x00")
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, group{Status: x.Status, ID: x.ID, Class: x.Class, Summary: x.Summary})
		}
		out[i].Targets = append(out[i].Targets, groupTarget{Target: x.Target, Value: x.Value})
		evidence[i] = append(evidence[i], x.Evidence)
	}
	for i := range out {
		evs := evidence[i]
		same := true
		for _, e := range evs[1:] {
			same = same && slices.Equal(e, evs[0])
		}
		if same {
			out[i].Evidence = evs[0]
			continue
		}
		for j, e := range evs {
			for _, line := range e {
				out[i].Evidence = append(out[i].Evidence, out[i].Targets[j].Target+": "+line)
			}
		}
	}
	return out
}

// isFleet reports whether a target names no host: "fleet", "fleet/perftest".
func isFleet(target string) bool { return HostOf(target) == "fleet" }

// headlineOf judges a sorted report for its first screen.
func headlineOf(r *Report, rs []row, sum Summary) headline {
	h := headline{Status: sum.Status, Word: strings.ToUpper(string(sum.Status))}
	h.Counts = countsLine("host check", sum.Checks) + " · " + countsLine("pair", sum.Pairs)
	var warns, errs, fleetFails []row
	for _, x := range rs {
		switch {
		case x.Status == checks.StatusWarn:
			warns = append(warns, x)
		case x.Status == checks.StatusError:
			errs = append(errs, x)
		case x.Status == checks.StatusFail && x.Suite != SuitePairwise && isFleet(x.Target):
			fleetFails = append(fleetFails, x)
		}
	}
	h.Warnings, h.Errors, h.Failures = groupRows(warns), groupRows(errs), groupRows(fleetFails)
	h.Blamed = blames(r)

	failed := sum.All.Fail
	switch {
	case len(h.Blamed) == 1:
		h.Title = fmt.Sprintf("%s is to blame", h.Blamed[0].Name)
	case len(h.Blamed) > 1:
		h.Title = fmt.Sprintf("%d components are to blame", len(h.Blamed))
		if ns := names(h.Blamed, 3); len([]rune(ns)) <= 60 { // long names are in the list below
			h.Title += ": " + ns
		}
	case failed > 0:
		h.Title = fmt.Sprintf("%s failed", plural(failed, "check"))
	case sum.All.Error > 0:
		h.Title = fmt.Sprintf("%s could not decide: nothing failed, but the verdict is open", plural(sum.All.Error, "check"))
	case sum.All.Warn > 0:
		h.Title = fmt.Sprintf("Nothing failed, with %s to read", plural(sum.All.Warn, "warning"))
	case sum.All.Total == 0:
		h.Title = "Nothing was checked"
	default:
		h.Title = "Everything passed"
	}
	if len(h.Blamed) > 0 && sum.All.Error > 0 {
		h.Title += fmt.Sprintf("; %s could not decide", plural(sum.All.Error, "check"))
	}
	for i := range h.Blamed {
		switch n := h.Blamed[i].Evidence; n {
		case 0:
			h.Blamed[i].EvidenceText = "no evidence lines"
		case 1:
			h.Blamed[i].EvidenceText = "1 piece of evidence"
		default:
			h.Blamed[i].EvidenceText = fmt.Sprintf("%d pieces of evidence", n)
		}
	}
	h.Blamed, h.MoreBlamed = firstOf(h.Blamed)
	h.Warnings, h.MoreWarnings = firstOf(h.Warnings)
	h.Errors, h.MoreErrors = firstOf(h.Errors)
	h.Failures, h.MoreFailures = firstOf(h.Failures)
	return h
}

// firstOf keeps the first headlineItems of s and counts the rest.
func firstOf[T any](s []T) ([]T, int) {
	if len(s) <= headlineItems {
		return s, 0
	}
	return s[:headlineItems], len(s) - headlineItems
}

// blames lists the components to blame, strongest first: the
// localiser's suspects, then the hosts the verdict fails (their own checks
// failed, or every pair they took part in, or re-tests with known-good
// partners), then the paths between two hosts whose failed pairs no
// blamed host explains (only when the localiser named nobody).
func blames(r *Report) []blame {
	var out []blame
	for _, s := range r.Suspects {
		b := blame{Kind: string(s.Kind), Name: s.Name, Component: s.Component, Reason: s.Summary, Evidence: len(s.Evidence),
			Confidence: fmt.Sprintf("%.0f%%", 100*s.Confidence), Source: "localisation"}
		for _, a := range s.Alternatives {
			b.Alternatives = append(b.Alternatives, a.Name)
		}
		out = append(out, b)
	}
	blamedHost := map[string]bool{}
	for _, v := range r.HostVerdicts(hostsOf(r)) {
		if !v.Failed {
			continue
		}
		blamedHost[v.Host] = true
		b := blame{Kind: "host", Name: v.Host, Component: "host:" + v.Host, Reason: v.Reason, Where: cablesText(r, v.Host)}
		var own []checks.Result
		for _, res := range r.Results {
			if res.Status == checks.StatusFail && HostOf(res.Target) == v.Host {
				own = append(own, res)
				b.Evidence += len(res.Evidence)
			}
		}
		switch {
		case slices.ContainsFunc(own, func(res checks.Result) bool { return res.ID == idHost }):
			i := slices.IndexFunc(own, func(res checks.Result) bool { return res.ID == idHost })
			b.Reason, b.Source = own[i].Summary, "re-tests with known-good partners"
		case len(own) > 0:
			b.Reason, b.Source = fmt.Sprintf("%s %s: %s", own[0].ID, own[0].Target, own[0].Summary), "host checks"
			if len(own) > 1 {
				b.Reason += fmt.Sprintf(" (and %d more)", len(own)-1)
			}
		default:
			b.Source = "pairwise"
		}
		var tests []string
		if n := len(own) - countID(own, idHost); n > 0 {
			tests = append(tests, plural(n, "failed check"))
		}
		if v.Pairs > 0 && v.FailedPairs > 0 {
			tests = append(tests, fmt.Sprintf("%d of %d pairs failed", v.FailedPairs, v.Pairs))
		}
		if b.Source == "pairwise" {
			for _, p := range r.Pairs {
				if p.Status == checks.StatusFail && (p.A == v.Host || p.B == v.Host) {
					b.Evidence += max(1, len(p.Evidence))
				}
			}
		}
		b.Tests = strings.Join(tests, ", ")
		out = append(out, b)
	}
	if len(r.Suspects) > 0 {
		return out
	}
	// Failed pairs between hosts that pass elsewhere: the path between them.
	paths := map[[2]string]*blame{}
	var order [][2]string
	for _, p := range r.Pairs {
		if p.Status != checks.StatusFail || blamedHost[p.A] || blamedHost[p.B] {
			continue
		}
		k := [2]string{p.A, p.B}
		if compareHosts(p.B, p.A) < 0 {
			k = [2]string{p.B, p.A}
		}
		b, ok := paths[k]
		if !ok {
			b = &blame{Kind: "path", Name: k[0] + " ↔ " + k[1], Component: "path:" + k[0] + "," + k[1],
				Reason: fmt.Sprintf("%s %s: %s", p.ID(), strings.ReplaceAll(p.Target(), "->", " → "), p.Summary), Source: "pairwise"}
			paths[k] = b
			order = append(order, k)
		}
		b.Evidence += max(1, len(p.Evidence))
	}
	for _, k := range order {
		b := paths[k]
		n := 0
		for _, p := range r.Pairs {
			if p.Status == checks.StatusFail && (p.A == k[0] && p.B == k[1] || p.A == k[1] && p.B == k[0]) {
				n++
			}
		}
		b.Tests = plural(n, "failed test") + " between them; both hosts pass with other partners"
		out = append(out, *b)
	}
	return out
}

// cablesText says where a host is cabled: "ens1f0np0 → leaf-01:swp2, ens1f1np1 → leaf-02:swp2"; "" without a topology.
func cablesText(r *Report, host string) string {
	if r.Topology == nil {
		return ""
	}
	var out []string
	for _, l := range r.Topology.LinksOf(host) {
		if l.Kind == topology.Access && l.A.Device == host {
			out = append(out, l.A.Port+" → "+l.B.String())
		}
	}
	return strings.Join(out, ", ")
}

// hostsOf lists the hosts a report knows: the ends of its pairs and the
// hosts of its results, "fleet" targets left out.
func hostsOf(r *Report) []string {
	set := map[string]bool{}
	for _, p := range r.Pairs {
		set[p.A], set[p.B] = true, true
	}
	for _, res := range r.Results {
		if h := HostOf(res.Target); h != "" && !isFleet(res.Target) {
			set[h] = true
		}
	}
	out := make([]string, 0, len(set))
	for h := range set {
		out = append(out, h)
	}
	slices.SortFunc(out, compareHosts)
	return out
}

func countID(rs []checks.Result, id string) int {
	n := 0
	for _, r := range rs {
		if r.ID == id {
			n++
		}
	}
	return n
}

func names(bs []blame, n int) string {
	var out []string
	for _, b := range bs[:min(n, len(bs))] {
		out = append(out, b.Name)
	}
	s := strings.Join(out, ", ")
	if len(bs) > n {
		s += fmt.Sprintf(" and %d more", len(bs)-n)
	}
	return s
}

// plural reads "1 check", "3 checks".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// countsLine reads "54 host checks: 30 pass, 8 warn, 16 skip" (what is
// singular: "host check"), leaving out
// the statuses nothing had.
func countsLine(what string, c Counts) string {
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{c.Pass, "pass"}, {c.Warn, "warn"}, {c.Fail, "fail"}, {c.Skip, "skip"}, {c.Error, "error"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	if len(parts) == 0 {
		return "no " + what + "s"
	}
	return fmt.Sprintf("%s: %s", plural(c.Total, what), strings.Join(parts, ", "))
}

// cardNote is what a summary card says next to its total: the worst that
// happened, never "all clear" beside a warning.
func cardNote(c Counts) string {
	switch {
	case c.Fail > 0:
		return fmt.Sprintf("%d failed", c.Fail)
	case c.Error > 0:
		return fmt.Sprintf("%d could not decide", c.Error)
	case c.Warn > 0:
		return plural(c.Warn, "warning")
	case c.Total == 0:
		return "none run"
	}
	return "all clear"
}
