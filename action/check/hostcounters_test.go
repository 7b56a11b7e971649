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
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/rdma"
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
