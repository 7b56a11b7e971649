package rdma

import (
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

func traceSample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "traceroute", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTracerouteGolden parses every sample under testdata/traceroute
// (README.md there says where each came from) against its golden file.
func TestTracerouteGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "traceroute", "*.txt"))
	if len(files) < 8 {
		t.Fatalf("only %d samples", len(files))
	}
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) {
			tr, err := ParseTraceroute(traceSample(t, filepath.Base(p)))
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("traceroute", strings.TrimSuffix(filepath.Base(p), ".txt")+".golden"), testutil.JSON(t, tr))
		})
	}
}

// TestTracerouteFacts pins what the path reading relies on, independent
// of the goldens.
func TestTracerouteFacts(t *testing.T) {
	tr, err := ParseTraceroute(traceSample(t, "routed-n-q1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var addrs []string
	for _, h := range tr.Hops {
		addrs = append(addrs, h.Addrs...)
	}
	if tr.Target != "10.2.2.2" || tr.MaxHops != 8 || !slices.Equal(addrs, []string{"10.1.1.1", "10.9.2.1", "10.9.1.2", "10.2.2.2"}) || len(tr.Unparsed) != 0 {
		t.Errorf("routed-n-q1: %+v", tr)
	}
	tr, _ = ParseTraceroute(traceSample(t, "routed-names-q3.txt"))
	if h := tr.Hops[1]; !slices.Equal(h.Addrs, []string{"10.9.2.1", "10.9.1.1"}) || len(h.RTTs) != 3 {
		t.Errorf("hop 2 with names: %+v, want both spines and 3 times", h)
	}
	if h := tr.Hops[0]; h.Lost != 1 || len(h.Addrs) != 1 {
		t.Errorf("hop 1 with names: %+v, want one address and one lost probe", h)
	}
	tr, _ = ParseTraceroute(traceSample(t, "net-unreachable.txt"))
	if h := tr.Hops[0]; !slices.Equal(h.Notes, []string{"!N"}) {
		t.Errorf("!N: %+v", h)
	}
	tr, _ = ParseTraceroute(traceSample(t, "bind-error.txt"))
	if len(tr.Hops) != 0 || len(tr.Unparsed) != 1 || !strings.HasPrefix(tr.Unparsed[0], "bind:") {
		t.Errorf("bind error: %+v, want no hop and the error unparsed", tr)
	}
	if _, err := ParseTraceroute([]byte("PING 10.0.0.1 56(84) bytes of data.\n")); !errors.Is(err, ErrNotTraceroute) {
		t.Errorf("ping output: %v, want ErrNotTraceroute", err)
	}
	// What is not understood is kept, whole: a token no traceroute prints,
	// a TTL going backwards.
	tr, _ = ParseTraceroute([]byte(" 1  10.0.0.1  0.1 ms\n 2  10.0.0.2  fast\n 1  10.0.0.3  0.2 ms\n"))
	if len(tr.Hops) != 1 || !slices.Equal(tr.Unparsed, []string{"2  10.0.0.2  fast", "1  10.0.0.3  0.2 ms"}) {
		t.Errorf("odd lines: %+v", tr)
	}
}

func FuzzParseTraceroute(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "traceroute", "*.txt"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte(" 1  a (b) ( ) !N 1 ms\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := ParseTraceroute(b)
		if err != nil {
			return
		}
		prev := 0
		for _, h := range tr.Hops {
			if h.TTL <= prev || h.TTL > maxTraceHops {
				t.Fatalf("hop TTLs out of order or range: %+v", tr.Hops)
			}
			prev = h.TTL
			for _, a := range h.Addrs {
				if _, err := netip.ParseAddr(a); err != nil {
					t.Fatalf("hop address %q is not an address", a)
				}
			}
		}
	})
}

const procNetRoute = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n" +
	"eth0\t00000000\t0101010A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n" +
	"eth0\t0001010A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n" +
	"ens1f0\t0000A8C0\t00000000\t0001\t0\t0\t100\t0000FFFF\t0\t0\t0\n" +
	"ens1f1\t0000A8C0\t00000000\t0001\t0\t0\t50\t0000FFFF\t0\t0\t0\n" +
	"eth0\t0002020A\t0101010A\t0002\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"

func TestProcNetRoute(t *testing.T) {
	// The real table of the namespace host behind the first leaf (testdata/traceroute/README.md).
	real := traceSample(t, "../proc-net-route-h1.txt")
	rs, err := ParseProcNetRoute(real)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Gateway != netip.MustParseAddr("10.1.1.1") || rs[1].Dest != netip.MustParsePrefix("10.1.1.0/24") {
		t.Fatalf("routes %+v", rs)
	}
	rs, err = ParseProcNetRoute([]byte(procNetRoute))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		dst        string
		on, routed bool
	}{
		{"10.1.1.3", true, true},    // the /24 beats the default route
		{"10.2.2.2", false, true},   // only the default: via 10.1.1.1
		{"192.168.7.1", true, true}, // two /16s: the lower metric's, on link
		{"10.2.2.9", false, true},   // a /24 that is down (flags 2, no RTF_UP) is not taken
	}
	for _, c := range cases {
		on, ok := OnLink(rs, netip.MustParseAddr(c.dst))
		if on != c.on || ok != c.routed {
			t.Errorf("OnLink(%s) = %v, %v; want %v, %v", c.dst, on, ok, c.on, c.routed)
		}
	}
	if _, ok := OnLink(rs[1:2], netip.MustParseAddr("172.16.0.1")); ok {
		t.Error("no route matched, yet OnLink said")
	}
	for _, bad := range []string{"", "Iface\nlo\t0000007F\n", "Destination\n", "Iface\neth0 0000000G 00000000 0001 0 0 0 00000000\n", "Iface\neth0 00000000 00000000 0001 0 0 0 00FF00FF\n"} {
		if _, err := ParseProcNetRoute([]byte(bad)); err == nil {
			t.Errorf("ParseProcNetRoute(%q) read it", bad)
		}
	}
}

func FuzzParseProcNetRoute(f *testing.F) {
	f.Add([]byte(procNetRoute))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := ParseProcNetRoute(b)
		if err != nil {
			return
		}
		for _, r := range rs {
			if !r.Dest.IsValid() || r.Dest != r.Dest.Masked() {
				t.Fatalf("route %+v has an unmasked destination", r)
			}
		}
		OnLink(rs, netip.MustParseAddr("10.1.1.3"))
	})
}

// traceAgent serves OpTracePath with a stand-in traceroute that prints
// its argv to stderr and the sample named by TRACE (a path), or sleeps.
func traceAgent(t *testing.T, withTool bool) agentclient.Local {
	t.Helper()
	bin, proc := t.TempDir(), t.TempDir()
	script := "#!/bin/sh\necho \"$0 $*\" >&2\n[ -n \"$SLEEP\" ] && exec sleep \"$SLEEP\"\ncat \"$TRACE\"\nexit ${EXIT:-0}\n"
	if withTool {
		if err := os.WriteFile(filepath.Join(bin, "traceroute"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(proc, "net"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proc, "net", "route"), []byte(procNetRoute), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &Agent{ProcRoot: proc, LookPath: func(name string) (string, error) {
		p := filepath.Join(bin, name)
		if _, err := os.Stat(p); err != nil {
			return "", errors.New("executable file not found in $PATH")
		}
		return p, nil
	}}
	h := &agent.Handler{}
	a.Register(h)
	return agentclient.Local{Handler: h}
}

func TestTracePathOp(t *testing.T) {
	ag := traceAgent(t, true)
	if !slices.Contains(ag.Handler.Ops(), OpTracePath) {
		t.Fatalf("ops %v lack %s", ag.Handler.Ops(), OpTracePath)
	}
	abs, _ := filepath.Abs(filepath.Join("testdata", "traceroute", "routed-roce-silent-destination.txt"))
	t.Setenv("TRACE", abs)
	var out Traced
	if err := agentclient.Call(t.Context(), ag, OpTracePath, TraceArgs{Dest: "10.2.2.2", Source: "10.1.1.2", SourcePort: 0xda2b, Repeat: 2}, &out); err != nil {
		t.Fatal(err)
	}
	want := []string{"traceroute", "-n", "-U", "-p", "4791", "--sport=55851", "-q", "1", "-w", "1", "-N", "1", "-m", "8", "-s", "10.1.1.2", "10.2.2.2"}
	if !slices.Equal(out.Argv, want) || len(out.Traces) != 2 || out.Class != "" || out.OnLink == nil || *out.OnLink {
		t.Fatalf("reply %+v\nwant argv %q, two traces, routed", out, want)
	}
	if !strings.HasSuffix(out.Stderr, strings.Join(want[1:], " ")) {
		t.Errorf("stderr %q: the tool did not get the argv (no shell between)", out.Stderr)
	}
	owners := map[netip.Addr]string{netip.MustParseAddr("10.1.1.1"): "leaf-01", netip.MustParseAddr("10.9.2.1"): "spine-02", netip.MustParseAddr("10.9.1.2"): "leaf-02"}
	if p := ReadTraced(out, owners); !p.Known || !slices.Equal(p.Switches, []string{"leaf-01", "spine-02", "leaf-02"}) {
		t.Errorf("path %+v", p)
	}

	// On the link: the table routes 10.1.1.3 without a gateway.
	if err := agentclient.Call(t.Context(), ag, OpTracePath, TraceArgs{Dest: "10.1.1.3", SourcePort: 0xc001, MaxHops: 2}, &out); err != nil || out.OnLink == nil || !*out.OnLink {
		t.Errorf("on-link peer: %+v %v", out, err)
	} else if p := ReadTraced(out, owners); p.Known || p.Why != NotObservableOnLink {
		t.Errorf("on-link path %+v, want %q", p, NotObservableOnLink)
	}

	// Bad requests never reach the tool.
	for _, bad := range []TraceArgs{
		{Dest: "10.2.2.2; reboot", SourcePort: 0xc000},
		{Dest: "-x", SourcePort: 0xc000},
		{Dest: "leaf-01", SourcePort: 0xc000},
		{Dest: "224.0.0.1", SourcePort: 0xc000},
		{Dest: "10.2.2.2", SourcePort: 4791},
		{Dest: "10.2.2.2", SourcePort: 0x10000},
		{Dest: "10.2.2.2", SourcePort: 0xc000, MaxHops: 17},
		{Dest: "10.2.2.2", SourcePort: 0xc000, Repeat: 4},
		{Dest: "10.2.2.2", SourcePort: 0xc000, Source: "fe80::1"},
	} {
		err := agentclient.Call(t.Context(), ag, OpTracePath, bad, &out)
		if !errors.Is(err, agentclient.ErrAgent) || !strings.Contains(err.Error(), ErrBadArgs.Error()) {
			t.Errorf("%+v: %v, want a bad request", bad, err)
		}
	}
	raw := json.RawMessage(`{"dest":"10.2.2.2","sourcePort":49152,"command":"sh"}`)
	if err := agentclient.Call(t.Context(), ag, OpTracePath, raw, &out); err == nil {
		t.Error("an unknown field was accepted")
	}
}

func TestTracePathBounds(t *testing.T) {
	ag := traceAgent(t, true)
	t.Setenv("SLEEP", "30")
	var out Traced
	start := time.Now()
	if err := agentclient.Call(t.Context(), ag, OpTracePath, TraceArgs{Dest: "10.2.2.2", SourcePort: 0xc000, MaxHops: 1}, &out); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second || out.Class != checks.ArgumentError || !strings.Contains(out.Error, "stopped after") {
		t.Errorf("a hanging traceroute: %+v after %s, want it stopped at 1 s + 5 s", out, took)
	}
	defer func(d []string) { sbinDirs = d }(sbinDirs)
	sbinDirs = nil // this machine's own /usr/sbin/traceroute must not answer
	var none Traced
	if err := agentclient.Call(t.Context(), traceAgent(t, false), OpTracePath, TraceArgs{Dest: "10.2.2.2", SourcePort: 0xc000}, &none); err != nil ||
		none.Class != checks.MissingTool || !strings.Contains(none.Error, "install traceroute") {
		t.Errorf("no traceroute: %+v %v", none, err)
	}
}

func TestReadPath(t *testing.T) {
	owners := map[netip.Addr]string{
		netip.MustParseAddr("10.1.1.1"): "leaf-01", netip.MustParseAddr("10.9.1.0"): "leaf-01", netip.MustParseAddr("10.9.2.0"): "leaf-01",
		netip.MustParseAddr("10.9.1.1"): "spine-01", netip.MustParseAddr("10.9.1.3"): "spine-01",
		netip.MustParseAddr("10.9.2.1"): "spine-02", netip.MustParseAddr("10.9.2.3"): "spine-02",
		netip.MustParseAddr("10.2.2.1"): "leaf-02", netip.MustParseAddr("10.9.1.2"): "leaf-02", netip.MustParseAddr("10.9.2.2"): "leaf-02",
	}
	read := func(name string) LearnedPath {
		tr, err := ParseTraceroute(traceSample(t, name))
		if err != nil {
			t.Fatal(err)
		}
		return ReadPath(tr, nil, owners)
	}
	// leaf-02 answers from the address it sends back by (10.9.1.2, towards
	// spine-01), not the one the probe came in by: addresses name switches.
	for name, want := range map[string][]string{
		"routed-n-q1.txt":                    {"leaf-01", "spine-02", "leaf-02"},
		"routed-roce-silent-destination.txt": {"leaf-01", "spine-02", "leaf-02"},
		"routed-reverse.txt":                 {"leaf-02", "spine-02", "leaf-01"},
	} {
		if p := read(name); !p.Known || !slices.Equal(p.Switches, want) {
			t.Errorf("%s: %+v, want %v", name, p, want)
		}
	}
	for name, why := range map[string]string{
		"routed-names-q3.txt": "hop 2 answered from 10.9.2.1 and 10.9.1.1: the 5-tuple took several paths",
		"net-unreachable.txt": "hop 1 (10.1.1.1) answered !N: unreachable",
		"all-silent.txt":      "no hop answered within 4 hops",
		"on-link.txt":         NotObservableOnLink, // the peer answered at TTL 1: no router between
	} {
		if p := read(name); p.Known || !strings.Contains(p.Why, why) {
			t.Errorf("%s: %+v, want unknown because %q", name, p, why)
		}
	}
	unknown := map[netip.Addr]string{netip.MustParseAddr("10.1.1.1"): "leaf-01"}
	tr, _ := ParseTraceroute(traceSample(t, "routed-n-q1.txt"))
	if p := ReadPath(tr, nil, unknown); p.Known || !strings.Contains(p.Why, "hop 2: 10.9.2.1 is no declared switch's address") {
		t.Errorf("undeclared address: %+v", p)
	}
	gap := Trace{Target: "10.2.2.2", Hops: []Hop{{TTL: 1, Addrs: []string{"10.1.1.1"}}, {TTL: 2, Lost: 1}, {TTL: 3, Addrs: []string{"10.9.1.2"}}}}
	if p := ReadPath(gap, nil, owners); p.Known || !strings.Contains(p.Why, "hop 2 did not answer") {
		t.Errorf("gap: %+v", p)
	}

	// Determinism: two traces of one 5-tuple agree, or the path is not used.
	a, _ := ParseTraceroute(traceSample(t, "routed-n-q1.txt"))
	b := Trace{Target: "10.2.2.2", Hops: []Hop{{TTL: 1, Addrs: []string{"10.1.1.1"}}, {TTL: 2, Addrs: []string{"10.9.1.1"}}, {TTL: 3, Addrs: []string{"10.9.1.2"}}}}
	if p := ReadTraced(Traced{Traces: []Trace{a, a}}, owners); !p.Known || !p.Deterministic {
		t.Errorf("the same trace twice: %+v", p)
	}
	if p := ReadTraced(Traced{Traces: []Trace{a, b}}, owners); p.Known || p.Deterministic || !strings.Contains(p.Why, "leaf-01 → spine-02 → leaf-02 and leaf-01 → spine-01 → leaf-02") {
		t.Errorf("two paths for one 5-tuple: %+v", p)
	}
	if p := ReadTraced(Traced{Class: checks.MissingTool, Error: ErrNoTraceroute.Error()}, owners); p.Known || p.Why != ErrNoTraceroute.Error() {
		t.Errorf("no traceroute: %+v", p)
	}
}

func TestSwitchAddrs(t *testing.T) {
	f := &fabric.Fabric{Spec: fabric.FabricSpec{Switches: []fabric.Switch{
		{Name: "leaf-01", Address: "10.0.1.1", Labels: map[string]string{LabelLoopback: "10.255.0.1", LabelAddresses: "10.9.1.0, 10.9.2.0 ::ffff:10.1.1.1"}},
		{Name: "spine-01", Address: "spine-01.mgmt", Labels: map[string]string{LabelLoopback: "10.255.0.11", LabelAddresses: "10.9.9.9"}},
		{Name: "spine-02", Address: "10.0.1.12", Labels: map[string]string{LabelAddresses: "10.9.9.9, not-an-ip"}},
	}}}
	got := SwitchAddrs(f)
	want := map[string]string{"10.0.1.1": "leaf-01", "10.255.0.1": "leaf-01", "10.9.1.0": "leaf-01", "10.9.2.0": "leaf-01", "10.1.1.1": "leaf-01",
		"10.255.0.11": "spine-01", "10.0.1.12": "spine-02"} // 10.9.9.9 is declared twice: it names neither
	if len(got) != len(want) {
		t.Errorf("SwitchAddrs = %v, want %v", got, want)
	}
	for a, sw := range want {
		if got[netip.MustParseAddr(a)] != sw {
			t.Errorf("%s → %q, want %s", a, got[netip.MustParseAddr(a)], sw)
		}
	}
}
