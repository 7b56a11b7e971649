package check

import (
	"context"
	"encoding/json"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

func TestPinnedFlowLabel(t *testing.T) {
	on := &fabric.Checks{Pairwise: &fabric.Pairwise{FlowLabel: "auto"}}
	if pinnedFlowLabel(on) != rdma.FlowLabelAuto || pinnedFlowLabel(&fabric.Checks{Pairwise: &fabric.Pairwise{FlowLabel: "off"}}) != 0 || pinnedFlowLabel(nil) != 0 {
		t.Error("flowLabel auto/off/absent")
	}
	if sw := pairwiseSweep(Options{Checks: on}); sw.Test.FlowLabel != rdma.FlowLabelAuto {
		t.Errorf("the sweep's test carries flow label %d with flowLabel: auto", sw.Test.FlowLabel)
	}
	if sw := pairwiseSweep(Options{}); sw.Test.FlowLabel != 0 {
		t.Errorf("the sweep's test carries flow label %d by default", sw.Test.FlowLabel)
	}
}

func TestPinPairs(t *testing.T) {
	g := 3
	srv := rdma.Endpoint{Host: "gpu-05", Device: "mlx5_0", GIDIndex: &g}
	cli := rdma.Endpoint{Host: "gpu-01", Device: "mlx5_0", GIDIndex: &g}
	run := rdma.PairRun{Server: srv, Client: cli, Test: rdma.Test{Test: perftest.WriteBW, FlowLabel: rdma.FlowLabelAuto}}
	pairs := []report.Pair{{A: "gpu-05", DeviceA: "mlx5_0", B: "gpu-01", DeviceB: "mlx5_0", Test: "write_bw"}, {A: "gpu-06", B: "gpu-02", Test: "write_bw"}}
	PinPairs(pairs, []rdma.PairRun{run})
	fl := rdma.PairFlowLabel("gpu-01/mlx5_0", "gpu-05/mlx5_0", 0)
	sport, _ := rdma.UDPSourcePort(fl)
	if pairs[0].FlowLabel != fl || pairs[0].UDPSourcePort != sport || pairs[1].FlowLabel != 0 {
		t.Errorf("pairs %+v, want the first with label %#x port %#x, the second without", pairs, fl, sport)
	}
	b, _ := json.Marshal(pairs[0])
	if !strings.Contains(string(b), `"flowLabel":`) || !strings.Contains(string(b), `"udpSourcePort":`) {
		t.Errorf("pair JSON %s lacks the flow label", b)
	}
}

func roceFacts(dev, netdev, ip string) preflight.Facts {
	return preflight.Facts{Observed: &hostcfg.Observed{Interfaces: []hostcfg.InterfaceState{{Name: netdev, RDMA: &hostcfg.RDMAState{
		Port:               sysfs.Port{Device: dev, Port: 1},
		GIDs:               []sysfs.GID{{Index: 2, GID: "fe80::1", Type: "RoCE v2"}, {Index: 3, GID: "::ffff:" + ip, Type: "RoCE v2", Netdev: netdev}},
		RoCEv2IPv4GIDIndex: 3,
	}}}}}
}

func TestRoCEEndOf(t *testing.T) {
	f := roceFacts("mlx5_0", "eth0", "10.1.1.2")
	if e, ok := RoCEEndOf(f, "mlx5_0"); !ok || e.Addr != netip.MustParseAddr("10.1.1.2") || e.Netdev != "eth0" {
		t.Errorf("RoCEEndOf = %+v, %v", e, ok)
	}
	if _, ok := RoCEEndOf(f, "mlx5_1"); ok {
		t.Error("another device's end was found")
	}
	if _, ok := RoCEEndOf(preflight.Facts{}, "mlx5_0"); ok {
		t.Error("an unobserved host has an end")
	}
}

// tracer answers OpTracePath from canned traces by destination, and
// records the arguments.
type tracer struct {
	mu     sync.Mutex
	args   []rdma.TraceArgs
	traces map[string]rdma.Traced
}

func (tr *tracer) agent() agentclient.Agent {
	h := &agent.Handler{}
	h.Register(rdma.OpTracePath, func(_ context.Context, raw json.RawMessage) (any, error) {
		var a rdma.TraceArgs
		if err := agent.DecodeArgs(raw, &a); err != nil {
			return nil, err
		}
		tr.mu.Lock()
		defer tr.mu.Unlock()
		tr.args = append(tr.args, a)
		return tr.traces[a.Dest], nil
	})
	return agentclient.Local{Handler: h}
}

func hops(addrs ...string) rdma.Trace {
	tr := rdma.Trace{Target: addrs[len(addrs)-1]}
	for i, a := range addrs {
		tr.Hops = append(tr.Hops, rdma.Hop{TTL: i + 1, Addrs: []string{a}})
	}
	return tr
}

func TestLearnPaths(t *testing.T) {
	g := 3
	tr := &tracer{traces: map[string]rdma.Traced{
		// There: the same path twice. Back: two paths for one 5-tuple.
		"10.2.2.2": {Traces: []rdma.Trace{hops("10.1.1.1", "10.9.2.1", "10.9.1.2", "10.2.2.2"), hops("10.1.1.1", "10.9.2.1", "10.9.1.2", "10.2.2.2")}},
		"10.1.1.2": {Traces: []rdma.Trace{hops("10.2.2.1", "10.9.2.3", "10.9.2.0", "10.1.1.2"), hops("10.2.2.1", "10.9.1.3", "10.9.1.0", "10.1.1.2")}},
	}}
	ag := tr.agent()
	srv := rdma.Endpoint{Host: "gpu-05", Device: "mlx5_0", GIDIndex: &g, Agent: ag}
	cli := rdma.Endpoint{Host: "gpu-01", Device: "mlx5_0", GIDIndex: &g, Agent: ag}
	auto := rdma.Test{Test: perftest.WriteBW, FlowLabel: rdma.FlowLabelAuto}
	runs := []rdma.PairRun{
		{Server: srv, Client: cli, Test: auto},
		{Server: srv, Client: srv, Test: auto},                              // a loopback: nothing to trace
		{Server: srv, Client: cli, Test: rdma.Test{Test: perftest.WriteBW}}, // no label: the path is not fixed
	}
	ends := map[string]RoCEEnd{"gpu-01/mlx5_0": {netip.MustParseAddr("10.1.1.2"), "eth0"}, "gpu-05/mlx5_0": {netip.MustParseAddr("10.2.2.2"), "eth0"}}
	owners := map[netip.Addr]string{}
	for sw, as := range map[string][]string{"leaf-01": {"10.1.1.1", "10.9.1.0", "10.9.2.0"}, "spine-01": {"10.9.1.1", "10.9.1.3"}, "spine-02": {"10.9.2.1", "10.9.2.3"}, "leaf-02": {"10.2.2.1", "10.9.1.2", "10.9.2.2"}} {
		for _, a := range as {
			owners[netip.MustParseAddr(a)] = sw
		}
	}
	got := LearnPaths(t.Context(), runs, ends, owners)
	if len(got) != 1 {
		t.Fatalf("learned %d pairs, want 1 (the loopback and the unlabelled run are not traced)", len(got))
	}
	p := got[0]
	fl := rdma.PairFlowLabel("gpu-01/mlx5_0", "gpu-05/mlx5_0", 0)
	if p.Client != "gpu-01" || p.Server != "gpu-05" || p.ClientPort != "eth0" || p.FlowLabel != fl {
		t.Errorf("pair %+v", p)
	}
	if !p.There.Known || !slices.Equal(p.There.Switches, []string{"leaf-01", "spine-02", "leaf-02"}) {
		t.Errorf("there %+v", p.There)
	}
	if p.Back.Known || p.Back.Deterministic || !strings.Contains(p.Back.Why, "not deterministic") {
		t.Errorf("back %+v, want not deterministic", p.Back)
	}
	sport, _ := rdma.UDPSourcePort(fl)
	if len(tr.args) != 2 {
		t.Fatalf("traced %d times, want both directions once", len(tr.args))
	}
	for _, a := range tr.args {
		if a.SourcePort != int(sport) || a.Repeat != 2 || (a.Source != "10.1.1.2" && a.Source != "10.2.2.2") {
			t.Errorf("trace args %+v, want the pair's port %d, from its own RoCE address, twice", a, sport)
		}
	}
	routes, notes := PathRoutes(clos(t), got)
	if routes == nil || len(notes) != 1 {
		t.Errorf("routes %v, notes %q: want the direction there only", routes, notes)
	}
}
