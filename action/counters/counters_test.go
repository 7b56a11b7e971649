package counters

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// fixtureHost serves the op over one of hostcfg's captured sysfs trees,
// ethtool -S answered by ethtool (called with how many times it ran).
func fixtureHost(name, tree string, ethtool func(n int, argv []string) ([]byte, error)) HostAgent {
	var mu sync.Mutex
	n := 0
	a := &rdma.Agent{Sys: sysfs.NewFS(filepath.Join("..", "..", "hostcfg", "testdata", "hosts", tree, "sys")),
		RunTool: func(_ context.Context, argv []string) ([]byte, error) {
			mu.Lock()
			defer mu.Unlock()
			n++
			return ethtool(n, argv)
		}}
	h := &agent.Handler{}
	a.Register(h)
	return HostAgent{Name: name, Agent: agentclient.Local{Handler: h}}
}

// mlx5Ethtool is ethtool -S of an mlx5 netdev whose pause and discard
// counters grow by step each time it runs.
func mlx5Ethtool(step uint64) func(int, []string) ([]byte, error) {
	return func(n int, _ []string) ([]byte, error) {
		k := uint64(n-1) / 2 // two netdevs per reading
		return fmt.Appendf(nil, "NIC statistics:\n     rx_prio3_pause: %d\n     tx_prio3_pause: %d\n     rx_discards_phy: %d\n     rx_crc_errors_phy: 0\n     rx_symbol_err_phy: 0\n     link_down_events_phy: 1\n",
			100+k*step, 200+k*step, 7+k), nil
	}
}

// noEthtool is a host without ethtool.
func noEthtool(int, []string) ([]byte, error) { return nil, rdma.ErrNoEthtool }

func portOf(t *testing.T, rep *Report, target, port string) Port {
	t.Helper()
	for _, p := range rep.Ports {
		if p.Target == target && p.Port == port {
			return p
		}
	}
	t.Fatalf("no port %s %s in %+v", target, port, rep.Ports)
	return Port{}
}

// TestAbsentIsNotZero: one reading of an mlx5 host and an rxe host
// through their agents. mlx5's metrics come from its own counters (hw_counters,
// ethtool -S) with their provenance; rxe's loss metrics from rxe's own
// counters (out_of_seq_request, rcvd_seq_err, completer_retry_err), and
// the metrics rxe has no counter for — PFC pause, ECN, CNPs, discards —
// are absent, never 0.
func TestAbsentIsNotZero(t *testing.T) {
	hosts := []HostAgent{fixtureHost("gpu-01", "mlx5-ofed", mlx5Ethtool(0)), fixtureHost("soft-01", "rxe", noEthtool)}
	rep, err := Run(t.Context(), "lab", hosts, nil, Options{Lossless: []int{3}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Unread) != 0 || len(rep.Ports) != 3 {
		t.Fatalf("ports %d, unread %+v", len(rep.Ports), rep.Unread)
	}
	m := portOf(t, rep, "gpu-01", "ens1f0np0/mlx5_0:1")
	for name, key := range map[string]string{PauseRx(3): "ethtool/rx_prio3_pause", ECNMarked: "hw_counters/np_ecn_marked_roce_packets",
		CNPSent: "hw_counters/np_cnp_sent", OutOfSequence: "hw_counters/out_of_sequence", AckTimeout: "hw_counters/local_ack_timeout_err",
		RxDiscards: "ethtool/rx_discards_phy", LinkDown: "counters/link_downed"} {
		v, ok := m.Metrics[name]
		if !ok || !slices.Equal(v.From, []string{key}) || v.Value != m.Counters[key].Value {
			t.Errorf("mlx5 %s = %+v, want %s's value %d", name, v, key, m.Counters[key].Value)
		}
	}
	if v := m.Metrics[SymbolCRC]; !slices.Equal(v.From, []string{"ethtool/rx_symbol_err_phy", "ethtool/rx_crc_errors_phy"}) {
		t.Errorf("mlx5 symbol/CRC from %v, want ethtool's PHY counters first", v.From)
	}
	if c := m.Counters["ethtool/rx_prio3_pause"]; c.From != "ethtool -S ens1f0np0" || c.Value != 100 || c.Kind != "pause" {
		t.Errorf("provenance of rx_prio3_pause: %+v", c)
	}
	if c := m.Counters["hw_counters/np_cnp_sent"]; !strings.HasSuffix(c.From, "/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent") || c.Kind != "cnp" {
		t.Errorf("provenance of np_cnp_sent: %+v", c)
	}

	r := portOf(t, rep, "soft-01", "enp0s3/rxe0:1")
	for name, key := range map[string]string{OutOfSequence: "hw_counters/out_of_seq_request", SequenceError: "hw_counters/rcvd_seq_err",
		AckTimeout: "hw_counters/completer_retry_err", LinkDown: "hw_counters/link_downed"} {
		if v, ok := r.Metrics[name]; !ok || !slices.Equal(v.From, []string{key}) {
			t.Errorf("rxe %s = %+v, want it from %s", name, v, key)
		}
	}
	if r.Metrics[OutOfSequence].Value != 3 || r.Metrics[SequenceError].Value != 1 || r.Clean {
		t.Errorf("rxe loss %+v, clean %v: the fixture counted 3 out of sequence and 1 sequence error", r.Metrics, r.Clean)
	}
	for _, name := range []string{PauseRx(3), PauseTx(3), ECNMarked, CNPSent, CNPHandled, RxDiscards, SymbolCRC} {
		if v, ok := r.Metrics[name]; ok {
			t.Errorf("rxe has no counter for %s, yet it is %+v", name, v)
		}
	}
	if len(r.SourceErrors) != 1 || !strings.Contains(r.SourceErrors[0], "ethtool not found") {
		t.Errorf("rxe source errors %q, want ethtool's", r.SourceErrors)
	}
	var b bytes.Buffer
	Table(output.NewTable(&b), &b, rep, true)
	if line := lineOf(b.String(), "soft-01"); dashes(line) != 7 {
		t.Errorf("rxe's row does not show its absent counters as -:\n%s", b.String())
	}
}

func dashes(line string) int {
	n := 0
	for _, f := range strings.Fields(line) {
		if f == "-" {
			n++
		}
	}
	return n
}

func lineOf(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// TestRunInterval: with an interval the values are the movements between
// two readings, rates per second for congestion metrics; a host whose
// agent fails is unread, the others still read; a switch whose driver
// failed is unread with why.
func TestRunInterval(t *testing.T) {
	broken := HostAgent{Name: "gpu-09", Agent: failing{}}
	hosts := []HostAgent{fixtureHost("gpu-01", "mlx5-ofed", mlx5Ethtool(50)), broken}
	sw := func(context.Context) []SwitchReading {
		return []SwitchReading{{Switch: "leaf-02", Err: errors.New("the sonic driver reads no port counters")}}
	}
	rep, err := Run(t.Context(), "lab", hosts, sw, Options{Interval: 20 * time.Millisecond, Lossless: []int{3}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Interval != "20ms" {
		t.Errorf("interval %q", rep.Interval)
	}
	if len(rep.Unread) != 2 || rep.Unread[0].Target != "gpu-09" || rep.Unread[1].Target != "leaf-02" {
		t.Errorf("unread %+v, want gpu-09 and leaf-02", rep.Unread)
	}
	p := portOf(t, rep, "gpu-01", "ens1f0np0/mlx5_0:1")
	if p.Seconds <= 0 {
		t.Fatalf("seconds %v between the readings", p.Seconds)
	}
	v := p.Metrics[PauseRx(3)]
	if v.Value != 50 || v.PerSecond == nil || *v.PerSecond != 50/p.Seconds {
		t.Errorf("pause rx %+v, want +50 and its rate over %vs", v, p.Seconds)
	}
	if c := p.Counters["ethtool/rx_prio3_pause"]; c.Before == nil || *c.Before != 100 || *c.After != 150 {
		t.Errorf("rx_prio3_pause readings %+v", c)
	}
	if d := p.Metrics[RxDiscards]; d.Value != 1 || d.PerSecond != nil || p.Clean {
		t.Errorf("discards %+v (a loss metric has no rate), clean %v", d, p.Clean)
	}
	if v := p.Metrics[CNPSent]; v.Value != 0 || v.PerSecond == nil || *v.PerSecond != 0 {
		t.Errorf("cnp sent moved %+v, want 0 at 0/s", v)
	}
}

// failing is an agent that cannot be reached.
type failing struct{}

func (failing) Exec(context.Context, io.Reader, io.Writer) error {
	return errors.New("dialing gpu-09:22: connection refused")
}

// TestDeltas: movements between two readings: a counter that went down
// (cleared) counts from zero and is marked, in its metric too; one in
// the second reading only is absent; rates divide by the time between
// the host's own reading times; a switch port's discards and PHY errors
// sum its counters of each kind.
func TestDeltas(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	first, second := sample(t0, 0), sample(t0.Add(10*time.Second), 1)
	rep := &Report{Lossless: []int{3}}
	rep.assemble(first, second, true)
	p := rep.Ports[0]
	if p.Seconds != 10 {
		t.Fatalf("seconds %v, want 10", p.Seconds)
	}
	if v := p.Metrics[PauseTx(3)]; v.Value != 400 || v.PerSecond == nil || *v.PerSecond != 40 {
		t.Errorf("pause tx %+v, want 400 at 40/s", v)
	}
	if v := p.Metrics[OutOfSequence]; v.Value != 5 || !v.Reset {
		t.Errorf("out of sequence %+v, want ≥5 (reset)", v)
	}
	if _, ok := p.Metrics[CNPHandled]; ok {
		t.Errorf("rp_cnp_handled is in the second reading only: its metric must be absent")
	}
	if _, ok := p.Counters["hw_counters/rp_cnp_handled"]; ok {
		t.Errorf("a counter in one reading only has no movement")
	}
	s := portOf(t, rep, "leaf-01", "swp1")
	if v := s.Metrics[SymbolCRC]; v.Value != 3 || !slices.Equal(v.From, []string{"crc_errors", "frame_errors"}) {
		t.Errorf("switch PHY errors %+v, want 2+1 from crc_errors and frame_errors", v)
	}
	if v := s.Metrics[RxDiscards]; v.Value != 0 || s.Clean {
		t.Errorf("switch discards %+v clean %v", v, s.Clean)
	}
	if c := s.Counters["crc_errors"]; c.From != "ip -s -s -j link show" || c.Kind != string(switchcfg.PhyErrors) {
		t.Errorf("switch counter provenance %+v", c)
	}
	if !portOf(t, rep, "leaf-01", "swp2").Clean {
		t.Errorf("swp2 moved nothing and is not clean")
	}
}

// sample is a reading of one mlx5 host port and two switch ports; k=1 is
// the later one.
func sample(at time.Time, k uint64) reading {
	hw := map[string]uint64{"out_of_sequence": 100, "np_cnp_sent": 10, "np_ecn_marked_roce_packets": 20, "packet_seq_err": 0, "local_ack_timeout_err": 0}
	if k == 1 {
		hw = map[string]uint64{"out_of_sequence": 5, "np_cnp_sent": 130, "np_ecn_marked_roce_packets": 20, "packet_seq_err": 0,
			"local_ack_timeout_err": 0, "rp_cnp_handled": 9}
	}
	host := rdma.PortCounters{At: at, Ports: []rdma.PortReading{{Device: "mlx5_0", Port: 1, Netdev: "ens1f0np0", LinkLayer: "Ethernet",
		Sources: []rdma.CounterSource{
			{Name: rdma.SourceHW, From: "/sys/class/infiniband/mlx5_0/ports/1/hw_counters", Counters: hw},
			{Name: rdma.SourceEthtool, From: "ethtool -S ens1f0np0", Counters: map[string]uint64{
				"rx_prio3_pause": 1000 + 30*k, "tx_prio3_pause": 2000 + 400*k, "rx_discards_phy": 0, "rx_crc_errors_phy": 0, "rx_symbol_err_phy": 0}},
		}}}}
	sw := SwitchReading{Switch: "leaf-01", At: at, From: []string{"ip -s -s -j link show"}, Counters: []switchcfg.PortCounter{
		{Port: "swp1", Kind: switchcfg.PhyErrors, Name: "crc_errors", Value: 40 + 2*k},
		{Port: "swp1", Kind: switchcfg.PhyErrors, Name: "frame_errors", Value: 1 + k},
		{Port: "swp1", Kind: switchcfg.Discards, Name: "dropped", Value: 0},
		{Port: "swp2", Kind: switchcfg.PhyErrors, Name: "crc_errors", Value: 8},
		{Port: "swp2", Kind: switchcfg.Discards, Name: "dropped", Value: 3},
	}}
	return reading{hosts: map[string]hostRead{"gpu-01": {r: host}}, switches: map[string]SwitchReading{"leaf-01": sw}}
}

// TestTableGolden: the table of one reading (clean ports summed up, then
// with --all), of the movements, and the JSON of the movements.
func TestTableGolden(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	abs := &Report{APIVersion: "fabricctl.io/v1alpha1", Fabric: "lab", Lossless: []int{3}}
	abs.assemble(sample(t0, 0), reading{}, false)
	abs.Ports = append(abs.Ports, cleanPort("gpu-02", "ens1f0np0/mlx5_0:1"), cleanPort("gpu-03", "ens1f0np0/mlx5_0:1"))
	abs.Unread = []Unread{{Target: "gpu-09", Error: "reading port counters: dialing gpu-09:22: connection refused"}}
	mov := &Report{APIVersion: "fabricctl.io/v1alpha1", Fabric: "lab", Interval: "10s", Lossless: []int{3}}
	mov.assemble(sample(t0, 0), sample(t0.Add(10*time.Second), 1), true)
	for _, c := range []struct {
		name string
		rep  *Report
		all  bool
	}{{"table.golden", abs, false}, {"table-all.golden", abs, true}, {"table-interval.golden", mov, false}} {
		var b bytes.Buffer
		Table(output.NewTable(&b), &b, c.rep, c.all)
		testutil.Golden(t, c.name, b.Bytes())
	}
	var b bytes.Buffer
	if err := output.Write(&b, output.JSON, mov, nil); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "interval.json.golden", b.Bytes())
	var back struct {
		Ports []struct {
			Metrics map[string]Value `json:"metrics"`
		} `json:"ports"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || len(back.Ports) != len(mov.Ports) {
		t.Fatalf("the JSON does not read back: %v", err)
	}
	if _, ok := back.Ports[0].Metrics[CNPHandled]; ok {
		t.Errorf("an absent metric is in the JSON")
	}
}

// cleanPort is a host port whose every metric is zero.
func cleanPort(target, port string) Port {
	ms := map[string]Value{}
	for _, m := range Metrics([]int{3}) {
		ms[m.Name] = Value{From: []string{m.Terms[0][0]}}
	}
	return Port{Target: target, Tier: Host, Port: port, Clean: true, Metrics: ms, Counters: map[string]Counter{}}
}

// TestRate: rates keep what a reader needs and no trailing zeros.
func TestRate(t *testing.T) {
	for r, want := range map[float64]string{0: "0", 0.004: "<0.01", 0.25: "0.25", 3: "3", 12.5: "12.5", 40: "40", 1234.6: "1235"} {
		if got := rate(r); got != want {
			t.Errorf("rate(%v) = %q, want %q", r, got, want)
		}
	}
}

// TestUnparsedLinesAreReported: ethtool lines the agent did not understand
// reach the port's notes, not the floor.
func TestUnparsedLinesAreReported(t *testing.T) {
	var errs []string
	flatten(rdma.PortReading{Sources: []rdma.CounterSource{{Name: rdma.SourceEthtool, From: "ethtool -S eth0",
		Counters: map[string]uint64{"rx_packets": 1}, Unparsed: []string{"tx: -1", "weird"}}}}, &errs)
	if len(errs) != 1 || !strings.Contains(errs[0], `2 line(s) not understood, first "tx: -1"`) {
		t.Errorf("notes %q, want the 2 unparsed lines reported", errs)
	}
}

// TestCRCOfANICThatDoesNotCount: a virtio NIC's netdev statistics carry
// rx_crc_errors, always 0 (the driver never counts it): its symbol/CRC
// metric is absent, not 0. A NIC with PHY counters keeps it.
func TestCRCOfANICThatDoesNotCount(t *testing.T) {
	rep := &Report{Lossless: []int{3}}
	virtio := rdma.PortReading{Device: "rxe0", Port: 1, Netdev: "eth0", Sources: []rdma.CounterSource{
		{Name: rdma.SourceStatistics, From: "/sys/class/net/eth0/statistics", Counters: map[string]uint64{"rx_crc_errors": 0}},
		{Name: rdma.SourceEthtool, From: "ethtool -S eth0", Counters: map[string]uint64{"rx_queue_0_packets": 9}},
	}}
	if v, ok := rep.hostPort("lab-h1", virtio, nil, 0).Metrics[SymbolCRC]; ok {
		t.Errorf("virtio symbol/CRC = %+v, want absent", v)
	}
	mlx5 := virtio
	mlx5.Sources = append(slices.Clone(virtio.Sources[:1]), rdma.CounterSource{Name: rdma.SourceEthtool, From: "ethtool -S eth0", Counters: map[string]uint64{"rx_crc_errors_phy": 0}})
	if _, ok := rep.hostPort("gpu-01", mlx5, nil, 0).Metrics[SymbolCRC]; !ok {
		t.Errorf("mlx5 symbol/CRC absent, want it from rx_crc_errors_phy")
	}
	// Other drivers' names for the same counters (the kernel's bnxt_en,
	// ice and i40e ethtool tables): symbol and CRC errors add up, and
	// bnxt_en's link-down events fill LINK DOWN.
	for _, tc := range []struct {
		name      string
		ethtool   map[string]uint64
		crc, down uint64
		hasDown   bool
	}{
		{"bnxt_en", map[string]uint64{"rx_fcs_err_frames": 4, "rx_pcs_symbol_err": 3, "link_down_events": 2}, 7, 2, true},
		{"ice", map[string]uint64{"rx_crc_errors.nic": 5, "illegal_bytes.nic": 1}, 6, 0, false},
		{"i40e", map[string]uint64{"port.rx_crc_errors": 9, "port.illegal_bytes": 0}, 9, 0, false},
	} {
		p := rdma.PortReading{Device: "roce0", Port: 1, Netdev: "eth0", Sources: []rdma.CounterSource{
			{Name: rdma.SourceStatistics, From: "/sys/class/net/eth0/statistics", Counters: map[string]uint64{"rx_crc_errors": 100}},
			{Name: rdma.SourceEthtool, From: "ethtool -S eth0", Counters: tc.ethtool}}}
		ms := rep.hostPort("gpu-02", p, nil, 0).Metrics
		if v, ok := ms[SymbolCRC]; !ok || v.Value != tc.crc {
			t.Errorf("%s: symbol/CRC %+v (present %v), want %d from its ethtool names", tc.name, v, ok, tc.crc)
		}
		if v, ok := ms[LinkDown]; ok != tc.hasDown || v.Value != tc.down {
			t.Errorf("%s: link down %+v (present %v), want %d present %v", tc.name, v, ok, tc.down, tc.hasDown)
		}
	}
}
