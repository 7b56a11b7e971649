package ibdiag

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks/internal/textutil"
)

// parseAny parses text with the parser of kind and returns its result and
// its accounting.
func parseAny(kind, text string) (any, *Accounting, error) {
	switch kind {
	case "ibnetdiscover":
		v, err := ParseIBNetDiscover(text)
		return v, &v.Accounting, err
	case "iblinkinfo":
		v, err := ParseIBLinkInfo(text)
		if v == nil {
			return v, &Accounting{}, err
		}
		return v, &v.Accounting, err
	case "perfquery":
		v, err := ParsePerfQuery(text)
		return v, &v.Accounting, err
	case "smpquery":
		v, err := ParseSMPQuery(text)
		return v, &v.Accounting, err
	case "sminfo":
		v, err := ParseSMInfo(text)
		return v, &v.Accounting, err
	case "ibtracert":
		v, err := ParseIBTracert(text)
		return v, &v.Accounting, err
	case "ibroute":
		v, err := ParseIBRoute(text)
		return v, &v.Accounting, err
	case "ibqueryerrors":
		v, err := ParseIBQueryErrors(text)
		return v, &v.Accounting, err
	}
	panic("unknown kind " + kind)
}

// kindOf names the parser of a lab capture by its file name.
func kindOf(name string) string {
	for _, k := range []string{"ibnetdiscover", "iblinkinfo", "perfquery", "smpquery", "sminfo", "ibtracert", "ibroute", "ibqueryerrors"} {
		if strings.Contains(name, k) {
			return k
		}
	}
	return ""
}

// nonBlank counts the lines with text once terminal escapes are removed.
func nonBlank(text string) int {
	var ls []string
	quoted := true
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimRight(textutil.StripANSI(l), " \t\r"); strings.TrimSpace(l) != "" {
			ls = append(ls, l)
			quoted = quoted && l[0] == '>'
		}
	}
	n := 0
	for _, l := range ls {
		// a quoted capture's line of only the marker is a blank line
		if !quoted || strings.TrimSpace(l[1:]) != "" {
			n++
		}
	}
	return n
}

func ip(v int) *int { return &v }

// labExpect is the reading of each lab capture, written from the fabric
// that was built (README.md) before the parsers ran on it.
var labExpect = map[string]func(t *testing.T, v any){
	"healthy-ibnetdiscover.txt": func(t *testing.T, v any) {
		topo := v.(*Topology)
		if len(topo.Nodes) != 8 || len(topo.Links()) != 7 {
			t.Fatalf("%d nodes, %d links; want 8, 7", len(topo.Nodes), len(topo.Links()))
		}
		leaf, _ := topo.Node("leaf-01")
		if leaf.Type != Switch || leaf.GUID != 0x0008f10400000201 || *leaf.LID != 3 || len(leaf.Ports) != 4 || *leaf.SysImageGUID != 0x8f10400000201 {
			t.Errorf("leaf-01 %+v", leaf)
		}
		p := leaf.Ports[0]
		if p.Num != 1 || p.PeerID != "H-0002c90300001000" || p.PeerPort != 1 || p.PeerGUID != 0x2c90300001001 || p.PeerDesc != "lab-h1" || *p.PeerLID != 4 || p.Width != 4 || p.Speed != EDR {
			t.Errorf("leaf-01[1] %+v", p)
		}
		h4, _ := topo.Node("lab-h4")
		if h4.Type != CA || len(h4.Ports) != 1 || h4.Ports[0].GUID != 0x2c90300004001 || *h4.Ports[0].LID != 7 || h4.Ports[0].PeerDesc != "leaf-02" {
			t.Errorf("lab-h4 %+v", h4)
		}
	},
	"faulty-ibnetdiscover.txt": func(t *testing.T, v any) {
		topo := v.(*Topology)
		if len(topo.Nodes) != 7 || len(topo.Links()) != 6 {
			t.Fatalf("%d nodes, %d links; want 7, 6 (lab-h3 unplugged)", len(topo.Nodes), len(topo.Links()))
		}
		n := 0
		for _, l := range topo.Links() {
			if l.Width == 1 {
				n++
				if !(l.A.Desc == "spine-01" && l.B.Desc == "leaf-01" || l.A.Desc == "leaf-01" && l.B.Desc == "spine-01") {
					t.Errorf("1X link %+v", l)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d 1X links, want 1", n)
		}
	},
	"healthy-ibnetdiscover-p.txt": func(t *testing.T, v any) {
		topo := v.(*Topology)
		unlinked := 0
		for _, p := range topo.PortLines {
			if p.Peer == nil {
				unlinked++
			}
		}
		// 3 switches x 8 ports + 5 CAs = 29 lines; 14 cabled ends, 15 empty switch ports
		if len(topo.PortLines) != 29 || unlinked != 15 {
			t.Errorf("%d lines, %d unlinked", len(topo.PortLines), unlinked)
		}
	},
	"faulty-ibnetdiscover-s.txt": func(t *testing.T, v any) {
		topo := v.(*Topology)
		if len(topo.Discovery) != 7 || len(topo.Nodes) != 7 || topo.Discovery[4].Path != "0,1,7" || topo.Discovery[4].Type != Switch {
			t.Errorf("%d steps %+v", len(topo.Discovery), topo.Discovery)
		}
	},
	"faulty-iblinkinfo.txt": func(t *testing.T, v any) {
		li := v.(*LinkInfo)
		var oneX, down int
		for _, n := range li.Nodes {
			for _, p := range n.Ports {
				if p.Width == 1 && p.Up() {
					oneX++
				}
				if p.State == StateDown && p.PhysState == PhysPolling {
					down++
				}
				if p.Up() && p.Speed != EDR {
					t.Errorf("%s[%d] speed %q", n.Name, p.Port, p.Speed)
				}
			}
		}
		// spine-01[1] and leaf-01[7]; 24 switch ports less 9 cabled = 15 Down/Polling, leaf-02[1] among them
		if oneX != 2 || down != 16 {
			t.Errorf("%d 1X ports, %d down", oneX, down)
		}
	},
	"faulty-perfquery-leaf02-p1.txt": func(t *testing.T, v any) {
		b := v.(*PerfQuery).Blocks[0]
		if *b.LID != 8 || *b.Port != 1 || b.CapMask != "0x1300" || b.Extended() {
			t.Errorf("%+v", b)
		}
		want := map[string]Counter{
			"SymbolErrorCounter": {57, 16, false}, "LinkErrorRecoveryCounter": {255, 8, true}, "LinkDownedCounter": {3, 8, false},
			"PortRcvErrors": {65535, 16, true}, "PortXmitDiscards": {12, 16, false}, "ExcessiveBufferOverrunErrors": {2, 4, false},
			"VL15Dropped": {9, 16, false}, "PortXmitWait": {4294967295, 32, true}, "PortXmitData": {4896, 32, false},
		}
		for k, w := range want {
			if b.Counters[k] != w {
				t.Errorf("%s = %+v, want %+v", k, b.Counters[k], w)
			}
		}
		if got := b.Saturated(); !slices.Equal(got, []string{"LinkErrorRecoveryCounter", "PortRcvErrors", "PortXmitWait"}) {
			t.Errorf("saturated %v", got)
		}
		if _, ok := b.Counters["CounterSelect2"]; ok || b.Fields["CounterSelect2"] != "0x00" {
			t.Errorf("CounterSelect2 read as a counter")
		}
	},
	"healthy-perfquery-x-h1.txt": func(t *testing.T, v any) {
		b := v.(*PerfQuery).Blocks[0]
		if !b.Extended() || b.Counters["PortXmitData"] != (Counter{2232, 64, false}) || b.CapMask2 != "0x0000000" {
			t.Errorf("%+v", b)
		}
		if _, ok := b.Counters["SymbolErrorCounter"]; ok {
			t.Errorf("SymbolErrorCounter is not printed by this -x: absent, not 0")
		}
	},
	"healthy-perfquery-a-leaf02.txt": func(t *testing.T, v any) {
		if b := v.(*PerfQuery).Blocks[0]; *b.Port != 255 || len(b.Counters) != 18 {
			t.Errorf("%+v", b)
		}
	},
	"faulty-perfquery-E-h1.txt": func(t *testing.T, v any) {
		b := v.(*PerfQuery).Blocks[0]
		if b.Attribute != "PortRcvErrorDetails counters" || b.Counters["PortLocalPhysicalErrors"] != (Counter{7, 16, false}) {
			t.Errorf("%+v", b)
		}
	},
	"healthy-smpquery-portinfo.txt": func(t *testing.T, v any) {
		q := v.(*SMPQuery)
		p := q.PortInfo()
		if q.Attribute != "Port info" || *p.LID != 4 || *p.SMLID != 1 || p.State != StateActive || p.PhysState != PhysLinkUp || p.WidthActive != 4 ||
			p.Speed != EDR || *p.NeighborMTU != 2048 || p.LinkDownDefState != PhysPolling || len(p.WidthSupported) != 5 || len(p.Bad) != 0 {
			t.Errorf("%+v", p)
		}
		if f := q.Fields[4]; f.Name != "CapMask" || len(f.Flags) != 6 || f.Flags[0] != "IsTrapSupported" {
			t.Errorf("%+v", f)
		}
	},
	"faulty-smpquery-portinfo-sw.txt": func(t *testing.T, v any) {
		if p := v.(*SMPQuery).PortInfo(); p.WidthActive != 1 || p.State != StateActive {
			t.Errorf("%+v", p)
		}
	},
	"healthy-smpquery-nodeinfo-sw.txt": func(t *testing.T, v any) {
		n := v.(*SMPQuery).NodeInfo()
		if n.Type != Switch || *n.NumPorts != 8 || *n.GUID != 0x0008f10400000201 || *n.LocalPort != 0 || len(n.Bad) != 0 {
			t.Errorf("%+v", n)
		}
	},
	"healthy-smpquery-nodedesc.txt": func(t *testing.T, v any) {
		if d, ok := v.(*SMPQuery).NodeDesc(); !ok || d != "lab-h1" {
			t.Errorf("%q", d)
		}
	},
	"healthy-sminfo.txt": func(t *testing.T, v any) {
		s := v.(*SMInfo)
		if s.LID != 1 || s.GUID != 0x2c9030000f001 || s.State != "SMINFO_MASTER" || *s.StateCode != 3 || *s.Priority != 0 || *s.ActivityCount != 157 {
			t.Errorf("%+v", s)
		}
	},
	"healthy-ibtracert.txt": func(t *testing.T, v any) {
		tr := v.(*Trace)
		if !tr.Complete() || tr.From.Desc != "lab-h1" || tr.From.LIDLow != 4 || len(tr.Hops) != 4 || tr.To.Desc != "lab-h4" {
			t.Fatalf("%+v", tr)
		}
		h := tr.Hops[1]
		if h.OutPort != 7 || h.Type != Switch || h.GUID != 0x0008f10400000100 || h.InPort != 1 || h.LIDLow != 2 || h.Desc != "spine-01" {
			t.Errorf("%+v", h)
		}
	},
	"faulty-ibtracert-down.txt": func(t *testing.T, v any) {
		t.Errorf("an unreachable trace must be ErrNoData")
	},
	"healthy-ibroute-leaf01.txt": func(t *testing.T, v any) {
		r := v.(*Routes)
		lft := r.Tables[0]
		if len(r.Tables) != 1 || *lft.LID != 3 || lft.Desc != "leaf-01" || len(lft.Entries) != 8 || *lft.Valid != 8 || lft.LIDHigh != 8 {
			t.Fatalf("%+v", r)
		}
		if p, ok := lft.Port(6); !ok || p != 7 {
			t.Errorf("lid 6 -> %d", p)
		}
		if e := lft.Entries[3]; e.DestType != CA || e.DestGUID != 0x0002c90300001001 || e.DestDesc != "lab-h1" || e.OutPort != 1 {
			t.Errorf("%+v", e)
		}
	},
	"faulty-ibroute-leaf01.txt": func(t *testing.T, v any) {
		if _, ok := v.(*Routes).Tables[0].Port(6); ok {
			t.Errorf("lab-h3 (lid 6) is gone from the LFT")
		}
	},
	"faulty-ibqueryerrors.txt": func(t *testing.T, v any) {
		q := v.(*QueryErrors)
		if len(q.Ports) != 2 || *q.Summary.BadNodes != 1 || *q.Summary.PortsChecked != 28 || *q.Summary.Suppressed != "" || *q.Summary.NodesChecked != 7 {
			t.Fatalf("%+v", q)
		}
		all, p1 := q.Ports[0], q.Ports[1]
		if !all.All() || all.Node != "leaf-02" || all.NodeGUID != 0x8f10400000202 || all.Counters["PortXmitWait"].Saturated {
			t.Errorf("port ALL is a sum, not a saturated field: %+v", all)
		}
		if *p1.Port != 1 || !p1.Counters["PortRcvErrors"].Saturated || !p1.Counters["PortXmitWait"].Saturated || p1.Counters["SymbolErrorCounter"] != (Counter{57, 16, false}) || len(p1.Counters) != 8 {
			t.Errorf("%+v", p1)
		}
	},
	"faulty-ibqueryerrors-r.txt": func(t *testing.T, v any) {
		q := v.(*QueryErrors)
		if len(q.Ports) != 3 || !strings.Contains(q.Ports[1].Link, "Down/ Polling") || q.Ports[2].Node != "lab-h1" || q.Ports[2].NodeGUID != 0 || q.Ports[2].GUID != 0x2c90300001001 {
			t.Errorf("%+v", q.Ports)
		}
	},
	"faulty-ibqueryerrors-suppress.txt": func(t *testing.T, v any) {
		q := v.(*QueryErrors)
		if *q.Summary.Suppressed != "SymbolErrorCounter PortXmitWait" {
			t.Errorf("%+v", q.Summary)
		}
		if _, ok := q.Ports[1].Counters["SymbolErrorCounter"]; ok {
			t.Errorf("a suppressed counter is absent")
		}
	},
	"faulty-ibqueryerrors-counters.txt": func(t *testing.T, v any) {
		q := v.(*QueryErrors)
		if len(q.Ports) != 28 || !q.Ports[0].Data || q.Ports[0].Counters["PortXmitData"].Value != 3600 || *q.Summary.BadPorts != 0 {
			t.Errorf("%d ports %+v", len(q.Ports), q.Summary)
		}
	},
	"healthy-ibqueryerrors.txt": func(t *testing.T, v any) {
		q := v.(*QueryErrors)
		if len(q.Ports) != 0 || *q.Summary.BadPorts != 0 || *q.Summary.NodesChecked != 8 {
			t.Errorf("%+v", q)
		}
	},
}

// TestLab reads every lab capture: each parses, accounts for every
// non-blank line with nothing unparsed, and matches its reading where
// one is written.
func TestLab(t *testing.T) {
	files, _ := filepath.Glob("testdata/lab/*.txt")
	if len(files) < 40 {
		t.Fatalf("%d lab captures", len(files))
	}
	checked := 0
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			kind := kindOf(name)
			v, acc, err := parseAny(kind, string(data))
			switch {
			case name == "faulty-ibtracert-down.txt" || name == "faulty-ibroute-spine-M.txt":
				// only tool errors / a multicast table: no data, and every line accounted for
				if err == nil {
					t.Errorf("want ErrNoData")
				}
			case err != nil:
				t.Fatal(err)
			}
			if acc.Lines() != nonBlank(string(data)) {
				t.Errorf("%d of %d lines accounted for", acc.Lines(), nonBlank(string(data)))
			}
			if len(acc.Unparsed) != 0 && name != "faulty-ibroute-spine-M.txt" {
				t.Errorf("unparsed %v", acc.Unparsed)
			}
			if check, ok := labExpect[name]; ok && err == nil {
				checked++
				check(t, v)
			}
		})
	}
	if checked < len(labExpect)-1 {
		t.Errorf("%d of %d readings checked", checked, len(labExpect))
	}
}
