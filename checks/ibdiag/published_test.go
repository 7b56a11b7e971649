package ibdiag

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

// publishedExpect is the reading of each published output
// (testdata/published/ibdiag.yaml), written from its text before the
// parsers ran on it.
var publishedExpect = map[string]struct {
	kind  string
	check func(t *testing.T, v any, acc *Accounting)
}{
	"ibnetdiscover-ndr-ibdiagnet2": {"ibnetdiscover", func(t *testing.T, v any, acc *Accounting) {
		topo := v.(*Topology)
		sw, ca, ports := 0, 0, 0
		for _, n := range topo.Nodes {
			if n.Type == Switch {
				sw++
			} else {
				ca++
			}
			for _, p := range n.Ports {
				ports++
				if p.Width != 4 || p.Speed != NDR {
					t.Errorf("line %d: %v %q", p.Line, p.Width, p.Speed)
				}
			}
		}
		// every link is listed from both ends
		if sw != 9 || ca != 263 || ports != 542 || len(topo.Links()) != 271 || len(acc.Unparsed) != 0 {
			t.Errorf("%d switches, %d CAs, %d ports, %d links, unparsed %v", sw, ca, ports, len(topo.Links()), acc.Unparsed)
		}
		top := topo.Nodes[0]
		if top.Desc != "MF0;ib-switch-sequoia:MQM9700/U1" || !top.Enhanced || *top.LID != 180 || top.Ports[0].Label != "1/1/1" || top.Ports[0].GUID != 0 || *top.VendorID != 0x2c9 {
			t.Errorf("%+v", top)
		}
		agg, ok := topo.Node("H-b0cf0e0300e5b948")
		if !ok || agg.Ports[0].Label != "1" || agg.Ports[0].GUID != 0xb0cf0e0300e5b948 || *agg.Ports[0].LID != 25 || *agg.Ports[0].PeerLID != 24 {
			t.Errorf("%+v", agg)
		}
	}},
	"ibnetdiscover-p-edr-osc": {"ibnetdiscover", func(t *testing.T, v any, acc *Accounting) {
		topo := v.(*Topology)
		if len(topo.PortLines) != 9 || len(acc.Unparsed) != 0 {
			t.Fatalf("%d lines, unparsed %v", len(topo.PortLines), acc.Unparsed)
		}
		p := topo.PortLines[0]
		if p.Local.Type != CA || p.Local.LID != 134 || p.Local.GUID != 0x7cfe9003003b4bde || p.Local.Desc != "o0001 HCA-1" || p.Width != 4 || p.Speed != EDR ||
			p.Peer.Type != Switch || p.Peer.LID != 1719 || p.Peer.Port != 10 || p.Peer.Desc != "ib-i1l1s01" {
			t.Errorf("%+v %+v", p, p.Peer)
		}
		if q := topo.PortLines[7]; q.Peer != nil || q.Speed != "" || q.SpeedRaw != "???" || q.Local.Port != 37 {
			t.Errorf("%+v", q)
		}
		if q := topo.PortLines[8]; q.Peer != nil || q.Speed != SDR || q.Local.Desc != "ib-i7l2s01" {
			t.Errorf("%+v", q)
		}
	}},
	"ibnetdiscover-p-hdr": {"ibnetdiscover", func(t *testing.T, v any, acc *Accounting) {
		topo := v.(*Topology)
		if len(topo.PortLines) != 6 || len(acc.Unparsed) != 0 {
			t.Fatalf("%d lines, unparsed %v", len(topo.PortLines), acc.Unparsed)
		}
		if p := topo.PortLines[0]; p.Speed != HDR || p.Peer.Desc != "5FB0405-leaf-IB01 " || p.Local.Desc != "Mellanox Technologies Aggregation Node" {
			t.Errorf("%+v", p)
		}
		if p := topo.PortLines[3]; p.Local.Desc != " 5FB0406-spine-IB02 " || p.Peer != nil {
			t.Errorf("%+v", p)
		}
		if p := topo.PortLines[5]; p.Speed != QDR || p.Local.Port != 22 {
			t.Errorf("%+v", p)
		}
	}},
	"ibnetdiscover-p-unquoted": {"ibnetdiscover", func(t *testing.T, v any, acc *Accounting) {
		// an unquoted name is not what ibnetdiscover prints: not understood, returned
		if len(acc.Unparsed) != 1 || acc.Unparsed[0].Line != 1 {
			t.Errorf("unparsed %v", acc.Unparsed)
		}
	}},
	"perfquery-x-edr-switch-2052": {"perfquery", func(t *testing.T, v any, acc *Accounting) {
		pq := v.(*PerfQuery)
		b := pq.Blocks[0]
		if len(pq.Blocks) != 1 || !b.Extended() || *b.LID != 2052 || b.CapMask2 != "0x0000002" || b.Counters["PortXmitData"].Value != 178791657177235 ||
			b.Counters["SymbolErrorCounter"].Bits != 64 || len(b.Counters) != 22 || len(acc.Unparsed) != 0 {
			t.Errorf("%+v %v", b, acc.Unparsed)
		}
	}},
	"perfquery-x-edr-hca": {"perfquery", func(t *testing.T, v any, acc *Accounting) {
		pq := v.(*PerfQuery)
		if len(pq.Blocks) != 1 || len(pq.Blocks[0].Counters) != 22 || len(acc.Unparsed) != 0 || len(pq.Blocks[0].Saturated()) != 0 {
			t.Errorf("%+v %v", pq.Blocks, acc.Unparsed)
		}
	}},
	"perfquery-x-edr-switch-1719-two-ports": {"perfquery", func(t *testing.T, v any, acc *Accounting) {
		pq := v.(*PerfQuery)
		if len(pq.Blocks) != 2 || *pq.Blocks[1].Port != 2 || pq.Blocks[0].Counters["PortXmitWait"].Value != 22730501 || pq.Blocks[1].Counters["PortXmitWait"].Value != 36510964 || len(acc.Unparsed) != 0 {
			t.Errorf("%+v %v", pq.Blocks, acc.Unparsed)
		}
	}},
	"perfquery-E-edr-switch-1719": {"perfquery", func(t *testing.T, v any, acc *Accounting) {
		b := v.(*PerfQuery).Blocks[0]
		if b.Attribute != "PortRcvErrorDetails counters" || len(b.Counters) != 6 || b.Counters["PortLoopingErrors"] != (Counter{0, 16, false}) || len(acc.Unparsed) != 0 {
			t.Errorf("%+v %v", b, acc.Unparsed)
		}
	}},
}

// TestPublished reads the real outputs of testdata/published/ibdiag.yaml,
// kept outside the repository; it skips when they are absent.
func TestPublished(t *testing.T) {
	dir := os.Getenv("FABRICCTL_OUTPUT_CORPUS")
	if dir == "" {
		dir = filepath.Join(testutil.RepoRoot(t), "..", "output-corpus")
	}
	raw, err := os.ReadFile("testdata/published/ibdiag.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct{ ID, File, SHA256 string }
	if err := yaml.Unmarshal(raw, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(publishedExpect) {
		t.Errorf("%d entries, %d readings", len(entries), len(publishedExpect))
	}
	for _, e := range entries {
		t.Run(e.ID, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, e.File))
			if os.IsNotExist(err) {
				t.Skipf("%s not in the output corpus", e.File)
			}
			if err != nil {
				t.Fatal(err)
			}
			if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != e.SHA256 {
				t.Fatalf("sha256 differs from the manifest")
			}
			x, ok := publishedExpect[e.ID]
			if !ok {
				t.Fatalf("no reading for %s", e.ID)
			}
			v, acc, err := parseAny(x.kind, string(data))
			if err != nil && !(e.ID == "ibnetdiscover-p-unquoted" && errors.Is(err, ErrNoData)) {
				t.Fatal(err)
			}
			if acc.Lines() != nonBlank(string(data)) {
				t.Errorf("%d of %d lines accounted for", acc.Lines(), nonBlank(string(data)))
			}
			x.check(t, v, acc)
		})
	}
}
