package report

import (
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/topology"
)

// The InfiniBand suite's results that name a cable ("A <-> B") or a port.
var ibCableChecks = []string{"ib/link", "ib/counters", "ib/cabling"}

// ibReport says whether r holds the ib suite's results and a topology: the
// declared InfiniBand cabling the report's drawing and cable list show.
func ibReport(r *Report) bool {
	if r.Topology == nil {
		return false
	}
	for _, res := range r.Results {
		if SuiteOf(res.ID) == SuiteIB {
			return true
		}
	}
	return false
}

// ibCableFinding is what the ib suite found on one declared cable: the
// worst status and its results' words, "" when every result passed.
type ibCableFinding struct {
	Status checks.Status
	Text   string
}

// ibFindings maps each of r.Topology's cables ("A <-> B") to what the ib
// suite found on it: a link or counter result naming the cable, or a
// cabling result at one of its ends.
func ibFindings(r *Report) map[string]ibCableFinding {
	out := map[string]ibCableFinding{}
	if !ibReport(r) {
		return out
	}
	ends := map[string]string{}
	for _, l := range r.Topology.Links {
		ends[l.A.String()], ends[l.B.String()] = l.String(), l.String()
	}
	for _, res := range r.Results {
		if res.Status == checks.StatusPass || res.Status == checks.StatusSkip || !contains(ibCableChecks, res.ID) {
			continue
		}
		key := res.Target
		if k, ok := ends[res.Target]; ok {
			key = k
		}
		f := out[key]
		if f.Status == "" || res.Status.Worse(f.Status) {
			f.Status = res.Status
		}
		f.Text = strings.TrimPrefix(f.Text+"; "+res.ID+": "+res.Summary, "; ")
		out[key] = f
	}
	return out
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// maxIBTableCables is how many passing cables the table lists; a bigger
// fabric lists its cables with findings and counts the rest.
const maxIBTableCables = 40

// writeIBTopology writes the INFINIBAND TOPOLOGY section of the table: the
// declared cables with what the ib suite found on each.
func writeIBTopology(b *strings.Builder, r *Report) {
	if !ibReport(r) {
		return
	}
	fs := ibFindings(r)
	t := r.Topology
	switches := len(t.Nodes) - len(t.Names(topology.RoleHost))
	bad := 0
	for _, l := range t.Links {
		if _, ok := fs[l.String()]; ok {
			bad++
		}
	}
	fmt.Fprintf(b, "\nINFINIBAND TOPOLOGY (as declared: %d switches, %d cables; %d with a finding)\n", switches, len(t.Links), bad)
	w := 0
	for _, l := range t.Links {
		w = max(w, len(l.String()))
	}
	hidden := 0
	for _, l := range t.Links {
		f, ok := fs[l.String()]
		if !ok && len(t.Links) > maxIBTableCables {
			hidden++
			continue
		}
		status, text := "ok", ""
		if ok {
			status, text = strings.ToUpper(string(f.Status)), f.Text
		}
		fmt.Fprintf(b, "  %-*s  %-5s %s\n", w, oneLine(l.String()), status, oneLine(text))
	}
	if hidden > 0 {
		fmt.Fprintf(b, "  … and %d more cables, every one as declared and healthy\n", hidden)
	}
	for _, c := range r.Cabling {
		if _, ok := fs[c.At.String()]; ok || c.Kind != topology.Unexpected {
			continue
		}
		fmt.Fprintf(b, "  %s  unexpected: %s\n", oneLine(c.At.String()), oneLine(c.Message))
	}
}
