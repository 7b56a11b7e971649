package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// mlx5Port is one port's reading as the port-counters op gives it, with
// the counters that move under a bad cable towards the host.
func mlx5Port(crc, down, pause, seq uint64) rdma.PortReading {
	return rdma.PortReading{Device: "mlx5_0", Port: 1, Netdev: "eth0", LinkLayer: "Ethernet", Sources: []rdma.CounterSource{
		{Name: rdma.SourceHW, Counters: map[string]uint64{"packet_seq_err": seq, "out_of_sequence": seq, "np_cnp_sent": 7}},
		{Name: rdma.SourceStatistics, Counters: map[string]uint64{"rx_crc_errors": crc, "rx_packets": 1000 + crc}},
		{Name: rdma.SourceCarrier, Counters: map[string]uint64{"carrier_changes": 2 * down, "carrier_down_count": down}},
		{Name: rdma.SourceEthtool, Counters: map[string]uint64{"rx_crc_errors_phy": crc, "link_down_events_phy": down, "rx_prio3_pause": pause, "tx_pause_ctrl_phy": pause, "rx_discards_phy": 0}},
	}}
}

func TestHostReadings(t *testing.T) {
	topo := clos(t)
	pc := rdma.PortCounters{Ports: []rdma.PortReading{mlx5Port(3, 1, 50, 9),
		{Device: "mlx5_1", Port: 1, Netdev: "eth1", Sources: []rdma.CounterSource{{Name: rdma.SourceStatistics, Counters: map[string]uint64{"rx_crc_errors": 5}}}}, // not cabled
	}}
	rs, unw := HostReadings("gpu-05", pc, topo)
	at := fabric.Endpoint{Device: "gpu-05", Port: "eth0"}
	var got []string
	for _, r := range rs {
		if r.At != at {
			t.Errorf("reading at %s, want %s (the uncabled eth1 is left out)", r.At, at)
		}
		got = append(got, string(r.Kind)+" "+r.Name)
	}
	want := []string{"phy-errors rx_crc_errors", "link-down carrier_down_count", "phy-errors rx_crc_errors_phy", "link-down link_down_events_phy"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("readings %q, want %q", got, want)
	}
	var names []string
	for _, u := range unw {
		names = append(names, u.Name)
		if u.Why == "" {
			t.Errorf("%s unweighed without a reason", u.Name)
		}
	}
	if !slices.Equal(names, []string{"out_of_sequence", "packet_seq_err", "rx_discards_phy", "rx_prio3_pause", "tx_pause_ctrl_phy"}) {
		t.Errorf("unweighed %q", names)
	}
	// carrier_changes counts the ups too; np_cnp_sent is congestion, not a fault.
	for _, r := range rs {
		if r.Name == "carrier_changes" || r.Name == "np_cnp_sent" {
			t.Errorf("%s was weighed", r.Name)
		}
	}
}

// TestHostCountersNameTheCable: CRC errors counted by a host's NIC, with
// the tests into that host lossy, point at its cable arriving there.
func TestHostCountersNameTheCable(t *testing.T) {
	topo := clos(t)
	before, _ := HostReadings("gpu-05", rdma.PortCounters{Ports: []rdma.PortReading{mlx5Port(0, 0, 0, 0)}}, topo)
	after, _ := HostReadings("gpu-05", rdma.PortCounters{Ports: []rdma.PortReading{mlx5Port(4100, 0, 0, 0)}}, topo)
	var clean []localize.Reading
	for h := 1; h <= 8; h++ {
		if h != 5 {
			r, _ := HostReadings(hostName(h), rdma.PortCounters{Ports: []rdma.PortReading{mlx5Port(0, 0, 0, 0)}}, topo)
			clean = append(clean, r...)
		}
	}
	read, moved := localize.Deltas(append(slices.Clone(before), clean...), append(slices.Clone(after), clean...))
	if len(read) != 8 || len(moved) != 2 || moved[0].At.Device != "gpu-05" {
		t.Fatalf("read %v moved %v, want 8 hosts read and gpu-05's two CRC counters moved", read, moved)
	}
	var obs []localize.Observation
	for c := 1; c <= 8; c++ {
		for s := 1; s <= 8; s++ {
			if c == s || (c+s)%2 == 0 {
				continue
			}
			o := localize.Observation{Client: hostName(c), Server: hostName(s), Gbps: 95}
			if s == 5 {
				o.Gbps, o.Loss = 20, true
			}
			obs = append(obs, o)
		}
	}
	m, err := localize.NewModel(topo, localize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := localize.New(m, localize.Options{})
	if err := l.Add(obs...); err != nil {
		t.Fatal(err)
	}
	without := l.Analyze().Suspects
	l.SetCounters(read, moved)
	with := l.Analyze().Suspects
	t.Logf("without counters %s; with gpu-05's CRC errors %s", describeSuspects(without), describeSuspects(with))
	if len(with) == 0 || with[0].Component != "cable:gpu-05:eth0" || len(with[0].Alternatives) != 0 {
		t.Errorf("with the host's CRC errors: %+v, want cable:gpu-05:eth0 alone", with)
	}
	if len(without) > 0 && without[0].Component == "cable:gpu-05:eth0" && len(without[0].Alternatives) == 0 {
		t.Errorf("without counters the cable was already named alone (%+v): the counters added nothing", without)
	}
}

func describeSuspects(ss []checks.Suspect) string {
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%s (+%d alternatives)", s.Component, len(s.Alternatives)))
	}
	return fmt.Sprint(out)
}

func hostName(h int) string { return "gpu-0" + string(rune('0'+h)) }

func TestWithHostCounters(t *testing.T) {
	topo := clos(t)
	serve := func(pc rdma.PortCounters, fail bool) agentclient.Agent {
		h := &agent.Handler{}
		h.Register(rdma.OpCounters, func(context.Context, json.RawMessage) (any, error) {
			if fail {
				return nil, errors.New("no sysfs")
			}
			return pc, nil
		})
		return agentclient.Local{Handler: h}
	}
	hosts := []Host{
		{Intent: fabric.HostIntent{Host: "gpu-01"}, Agent: serve(rdma.PortCounters{Ports: []rdma.PortReading{mlx5Port(1, 0, 0, 0)}}, false)},
		{Intent: fabric.HostIntent{Host: "gpu-02"}, Agent: serve(rdma.PortCounters{}, true)},
	}
	sw := func(context.Context) SwitchReading {
		return SwitchReading{Read: []string{"leaf-01"}, Readings: []localize.Reading{{At: fabric.Endpoint{Device: "leaf-01", Port: "swp1"}, Kind: localize.PhyErrors, Name: "rx_fcs", Value: 2}}}
	}
	r := WithHostCounters(sw, hosts, topo)(t.Context())
	if !slices.Equal(r.Read, []string{"leaf-01", "gpu-01"}) || len(r.Readings) != 5 || len(r.Unread) != 1 || !strings.HasPrefix(r.Unread[0], "gpu-02: reading port counters: ") {
		t.Errorf("reading %+v", r)
	}
}

// TestHostReadingsOtherDrivers: Broadcom bnxt_en's and Intel ice's and
// i40e's port counters (their kernel drivers' ethtool names) are weighed
// as mlx5's are: receive errors as phy-errors, bnxt_en's link_down_events
// as link-down.
func TestHostReadingsOtherDrivers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ethtool map[string]uint64
		want    []string
	}{
		{"bnxt_en", map[string]uint64{"rx_fcs_err_frames": 4, "rx_pcs_symbol_err": 3, "link_down_events": 2, "rx_ucast_frames": 9},
			[]string{"link-down link_down_events", "phy-errors rx_fcs_err_frames", "phy-errors rx_pcs_symbol_err"}},
		{"ice", map[string]uint64{"rx_crc_errors.nic": 5, "illegal_bytes.nic": 1, "rx_bytes": 7},
			[]string{"phy-errors illegal_bytes.nic", "phy-errors rx_crc_errors.nic"}},
		{"i40e", map[string]uint64{"port.rx_crc_errors": 9, "port.illegal_bytes": 0},
			[]string{"phy-errors port.illegal_bytes", "phy-errors port.rx_crc_errors"}},
	} {
		p := rdma.PortReading{Device: "roce0", Port: 1, Netdev: "eth0", LinkLayer: "Ethernet", Sources: []rdma.CounterSource{{Name: rdma.SourceEthtool, Counters: tc.ethtool}}}
		rs, _ := HostReadings("gpu-05", rdma.PortCounters{Ports: []rdma.PortReading{p}}, clos(t))
		var got []string
		for _, r := range rs {
			got = append(got, string(r.Kind)+" "+r.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: readings %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestWithHostCountersNotWeighed: a host with one port that counts
// receive errors and one that does not is read; the other port, and the
// counters read but not weighed (pause, retransmits, NIC discards), are
// listed with why rather than dropped.
func TestWithHostCountersNotWeighed(t *testing.T) {
	ep := func(d, p string) fabric.Endpoint { return fabric.Endpoint{Device: d, Port: p} }
	topo := topology.New([]topology.Node{{Name: "leaf-01", Role: topology.RoleLeaf}, {Name: "gpu-03", Role: topology.RoleHost}},
		[]topology.Link{{A: ep("gpu-03", "eth0"), B: ep("leaf-01", "swp1")}, {A: ep("gpu-03", "eth1"), B: ep("leaf-01", "swp2")}})
	virtio := virtioPort()
	virtio.Netdev, virtio.Device = "eth1", "rxe1"
	h := &agent.Handler{}
	h.Register(rdma.OpCounters, func(context.Context, json.RawMessage) (any, error) {
		return rdma.PortCounters{Ports: []rdma.PortReading{mlx5Port(0, 0, 5, 1), virtio}}, nil
	})
	r := WithHostCounters(nil, []Host{{Intent: fabric.HostIntent{Host: "gpu-03"}, Agent: agentclient.Local{Handler: h}}}, topo)(t.Context())
	if !slices.Equal(r.Read, []string{"gpu-03"}) || len(r.Unread) != 0 {
		t.Fatalf("read %v, unread %v; want gpu-03 read", r.Read, r.Unread)
	}
	for _, rd := range r.Readings {
		if rd.At.Port != "eth0" {
			t.Errorf("reading %+v at a port whose NIC counts no receive error", rd)
		}
	}
	var heads []string
	for _, l := range r.NotWeighed {
		head, _, _ := strings.Cut(l, ": ")
		heads = append(heads, head)
	}
	want := []string{"out_of_sequence, packet_seq_err at gpu-03:eth0", "ports gpu-03:eth1", "rx_discards_phy at gpu-03:eth0", "rx_prio3_pause, tx_pause_ctrl_phy at gpu-03:eth0"}
	if !slices.Equal(heads, want) {
		t.Errorf("not weighed:\n%s\nwant the heads %q", strings.Join(r.NotWeighed, "\n"), want)
	}
	if !strings.Contains(r.NotWeighed[1], "not evidence") {
		t.Errorf("the left-out port's line %q does not say why", r.NotWeighed[1])
	}
}

// TestNotWeighedLinesCut: a reason met at many ports names six and counts
// the rest, so a thousand hosts' pause counters make one short line.
func TestNotWeighedLinesCut(t *testing.T) {
	var hcs []HostCounter
	for i := range 1000 {
		hcs = append(hcs, HostCounter{At: fabric.Endpoint{Device: fmt.Sprintf("h%04d", i), Port: "eth0"}, Name: "rx_prio3_pause", Why: "pause"})
	}
	got := NotWeighedLines(hcs)
	want := []string{"rx_prio3_pause at h0000:eth0, h0001:eth0, h0002:eth0, h0003:eth0, h0004:eth0, h0005:eth0 and 994 more: pause"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestFabricHostCounters: check over an Ethernet fabric reads the hosts'
// port counters beside the switches'; over InfiniBand (IBLocalize) it
// leaves the source as it was.
func TestFabricHostCounters(t *testing.T) {
	topo := clos(t)
	h := &agent.Handler{}
	h.Register(rdma.OpCounters, func(context.Context, json.RawMessage) (any, error) {
		return rdma.PortCounters{Ports: []rdma.PortReading{mlx5Port(0, 0, 0, 0)}}, nil
	})
	hosts := []Host{{Intent: fabric.HostIntent{Host: "gpu-01"}, Agent: agentclient.Local{Handler: h}}}
	switches := func(context.Context) SwitchReading { return SwitchReading{Read: []string{"leaf-01"}} }
	eth := fabricHostCounters(Options{Topology: topo, SwitchCounters: switches}, hosts)
	if r := eth.SwitchCounters(t.Context()); !slices.Equal(r.Read, []string{"leaf-01", "gpu-01"}) || len(r.Readings) == 0 {
		t.Errorf("Ethernet: read %v with %d readings, want the switch and the host", r.Read, len(r.Readings))
	}
	ib := fabricHostCounters(Options{Topology: topo, SwitchCounters: switches, IBLocalize: func(context.Context) (IBReading, error) { return IBReading{}, nil }}, hosts)
	if r := ib.SwitchCounters(t.Context()); !slices.Equal(r.Read, []string{"leaf-01"}) {
		t.Errorf("InfiniBand: read %v, want the switches' source alone", r.Read)
	}
}

// TestHostKindsAgreeWithEvaluate: a host counter the localiser weighs and
// checks/evaluate also judges means the same in both: receive errors and
// link-downs are errors, the pause-storm watchdog a pause storm.
func TestHostKindsAgreeWithEvaluate(t *testing.T) {
	want := map[localize.CounterKind]evaluate.Kind{localize.PhyErrors: evaluate.Error, localize.LinkDown: evaluate.Error, localize.PauseStorm: evaluate.PauseStorm}
	storm := 0
	for src, names := range hostKinds {
		for name, k := range names {
			if k == localize.PauseStorm {
				storm++
			}
			if ek, ok := evaluate.KindOf(name); ok && ek != want[k] {
				t.Errorf("%s %s: the localiser weighs it as %s, evaluate judges it %s", src, name, k, ek)
			}
		}
	}
	if storm == 0 {
		t.Errorf("no host counter is weighed as a pause storm")
	}
}

// TestHostReadingsPauseStorm: a NIC whose PFC stall watchdog fired is
// pause-storm evidence at its end of the access cable.
func TestHostReadingsPauseStorm(t *testing.T) {
	p := mlx5Port(0, 0, 9000, 0)
	p.Sources[3].Counters["tx_pause_storm_warning_events"] = 2
	p.Sources[3].Counters["tx_pause_storm_error_events"] = 1
	rs, _ := HostReadings("gpu-05", rdma.PortCounters{Ports: []rdma.PortReading{p}}, clos(t))
	var storms []string
	for _, r := range rs {
		if r.Kind == localize.PauseStorm {
			storms = append(storms, r.At.String()+" "+r.Name)
		}
	}
	if !slices.Equal(storms, []string{"gpu-05:eth0 tx_pause_storm_error_events", "gpu-05:eth0 tx_pause_storm_warning_events"}) {
		t.Errorf("pause-storm readings %q", storms)
	}
}

// virtioPort is a lab host's port: rxe over virtio_net, whose netdev
// statistics carry rx_crc_errors (always 0: the driver never counts it)
// and whose ethtool -S names per-queue counters only.
func virtioPort() rdma.PortReading {
	return rdma.PortReading{Device: "rxe0", Port: 1, Netdev: "eth0", LinkLayer: "Ethernet", Sources: []rdma.CounterSource{
		{Name: rdma.SourceHW, Counters: map[string]uint64{"rcvd_seq_err": 0, "out_of_seq_request": 0}},
		{Name: rdma.SourceStatistics, Counters: map[string]uint64{"rx_crc_errors": 0, "rx_frame_errors": 0, "rx_packets": 9000}},
		{Name: rdma.SourceCarrier, Counters: map[string]uint64{"carrier_down_count": 1}},
		{Name: rdma.SourceEthtool, Counters: map[string]uint64{"rx_queue_0_packets": 9000, "rx_queue_0_drops": 0}},
	}}
}

// TestHostReadingsNotCounting: a NIC that counts no receive error (the
// soft-RoCE lab's virtio) gives no reading, so its clean zeros cannot
// exonerate a silently lossy cable; the port is listed as left out, and
// a host with only such ports is unread, with why.
func TestHostReadingsNotCounting(t *testing.T) {
	topo := clos(t)
	rs, unw := HostReadings("gpu-05", rdma.PortCounters{Ports: []rdma.PortReading{virtioPort()}}, topo)
	if len(rs) != 0 || len(unw) != 1 || unw[0].Name != "" || unw[0].At.String() != "gpu-05:eth0" || !strings.Contains(unw[0].Why, "not evidence") {
		t.Fatalf("readings %+v, left out %+v; want none, and the port left out with why", rs, unw)
	}
	h := &agent.Handler{}
	h.Register(rdma.OpCounters, func(context.Context, json.RawMessage) (any, error) {
		return rdma.PortCounters{Ports: []rdma.PortReading{virtioPort()}}, nil
	})
	r := WithHostCounters(nil, []Host{{Intent: fabric.HostIntent{Host: "gpu-05"}, Agent: agentclient.Local{Handler: h}}}, topo)(t.Context())
	if len(r.Read) != 0 || len(r.Readings) != 0 || len(r.Unread) != 1 || !strings.HasPrefix(r.Unread[0], "gpu-05: port eth0: its NIC names no PHY receive-error counter") {
		t.Errorf("reading %+v, want gpu-05 unread with why", r)
	}
}
