package rdma

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// ethtoolOut is the shape of ethtool -S on an mlx5 netdev: a header, one
// "name: value" line each, indented.
const ethtoolOut = `NIC statistics:
     rx_packets: 1000
     rx_prio3_pause: 12
     tx_prio3_pause: 340
     rx_discards_phy: 5
     rx_symbol_err_phy: 0
     rx_crc_errors_phy: 1
     link_down_events_phy: 2
`

func fixtureFS(host string) sysfs.FS {
	return sysfs.NewFS(filepath.Join("..", "..", "hostcfg", "testdata", "hosts", host, "sys"))
}

func source(r PortReading, name string) (CounterSource, bool) {
	for _, s := range r.Sources {
		if s.Name == name {
			return s, true
		}
	}
	return CounterSource{}, false
}

// TestReadCountersFixtures: on the captured mlx5 and rxe trees, every
// port is read with its netdev and link layer; hw_counters and counters
// come with the directory they were read from (lifespan, a setting, left
// out); ethtool -S runs on the port's netdev; rxe has no counters/
// directory, so that source is absent, not empty.
func TestReadCountersFixtures(t *testing.T) {
	var ran [][]string
	run := func(_ context.Context, argv []string) ([]byte, error) {
		ran = append(ran, argv)
		return []byte(ethtoolOut), nil
	}
	a := &Agent{Sys: fixtureFS("mlx5-ofed"), RunTool: run}
	got, err := a.ReadCounters(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got.At.IsZero() || len(got.Ports) != 2 {
		t.Fatalf("reading %+v, want two ports and a time", got)
	}
	p := got.Ports[0]
	if p.Device != "mlx5_0" || p.Port != 1 || p.Netdev != "ens1f0np0" || p.LinkLayer != "Ethernet" {
		t.Errorf("port %s/%d netdev %q link layer %q", p.Device, p.Port, p.Netdev, p.LinkLayer)
	}
	hw, ok := source(p, SourceHW)
	if !ok || !strings.HasSuffix(hw.From, "/class/infiniband/mlx5_0/ports/1/hw_counters") {
		t.Fatalf("hw_counters source %+v", hw)
	}
	if _, ok := hw.Counters["np_cnp_sent"]; !ok {
		t.Errorf("hw_counters lack np_cnp_sent: %v", slices.Sorted(maps.Keys(hw.Counters)))
	}
	if _, ok := hw.Counters["lifespan"]; ok {
		t.Errorf("hw_counters/lifespan is a setting, not a counter")
	}
	if pc, ok := source(p, SourcePort); !ok || !strings.HasSuffix(pc.From, "/ports/1/counters") || len(pc.Counters) == 0 {
		t.Errorf("counters source %+v", pc)
	}
	if et, ok := source(p, SourceEthtool); !ok || et.From != "ethtool -S ens1f0np0" || et.Counters["rx_prio3_pause"] != 12 || et.Error != "" {
		t.Errorf("ethtool source %+v", et)
	}
	if !slices.EqualFunc(ran, [][]string{{"ethtool", "-S", "ens1f0np0"}, {"ethtool", "-S", "ens1f1np1"}}, slices.Equal) {
		t.Errorf("ran %q", ran)
	}
	// No statistics directory in the fixture: left out.
	if s, ok := source(p, SourceStatistics); ok {
		t.Errorf("statistics source %+v from a tree without one", s)
	}

	rxe, err := (&Agent{Sys: fixtureFS("rxe"), RunTool: run}).ReadCounters(t.Context())
	if err != nil || len(rxe.Ports) != 1 {
		t.Fatalf("rxe: %+v, %v", rxe, err)
	}
	rp := rxe.Ports[0]
	if rp.Netdev != "enp0s3" {
		t.Errorf("rxe0 netdev %q, want its parent enp0s3", rp.Netdev)
	}
	if _, ok := source(rp, SourcePort); ok {
		t.Errorf("rxe0 has no counters/ directory, yet a counters source")
	}
	if hw, _ := source(rp, SourceHW); hw.Counters["rcvd_seq_err"] != 1 || hw.Counters["out_of_seq_request"] != 3 {
		t.Errorf("rxe0 hw_counters %v", hw.Counters)
	}
}

// TestReadCountersThroughAgent: the op is served on the agent (it is in
// hello's ops), takes no args, and a failing ethtool is the source's
// error, not the op's: the sysfs counters still come back.
func TestReadCountersThroughAgent(t *testing.T) {
	h := &agent.Handler{}
	(&Agent{Sys: fixtureFS("rxe"), RunTool: func(context.Context, []string) ([]byte, error) {
		return nil, ErrNoEthtool
	}}).Register(h)
	if !slices.Contains(h.Ops(), OpCounters) {
		t.Fatalf("ops %v lack %s", h.Ops(), OpCounters)
	}
	ag := agentclient.Local{Handler: h}
	var got PortCounters
	if err := agentclient.Call(t.Context(), ag, OpCounters, nil, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Ports) != 1 {
		t.Fatalf("ports %+v", got.Ports)
	}
	et, ok := source(got.Ports[0], SourceEthtool)
	if !ok || !strings.Contains(et.Error, "ethtool not found") || et.Counters != nil {
		t.Errorf("ethtool source %+v, want its error", et)
	}
	if hw, ok := source(got.Ports[0], SourceHW); !ok || len(hw.Counters) == 0 {
		t.Errorf("hw_counters not read beside a failing ethtool: %+v", hw)
	}
	err := agentclient.Call(t.Context(), ag, OpCounters, map[string]int{"port": 1}, &got)
	if !errors.Is(err, agentclient.ErrAgent) || !strings.Contains(err.Error(), `unknown field "port"`) {
		t.Errorf("args on an op that takes none: %v, want it refused", err)
	}
}

// TestReadCountersStatistics: a netdev's statistics and carrier counts
// are read from its directory, and a tree whose hw_counters holds an
// unreadable entry keeps what it read with the error beside it.
func TestReadCountersStatistics(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"class/infiniband/rxe0/parent":                           "eth0\n",
		"class/infiniband/rxe0/ports/1/link_layer":               "Ethernet\n",
		"class/infiniband/rxe0/ports/1/hw_counters/rcvd_seq_err": "3\n",
		"class/net/eth0/statistics/rx_crc_errors":                "9\n",
		"class/net/eth0/carrier_down_count":                      "1\n",
	}
	for name, v := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A directory where a counter file should be: unreadable.
	os.MkdirAll(filepath.Join(root, "class/infiniband/rxe0/ports/1/hw_counters/broken"), 0o755)
	a := &Agent{Sys: sysfs.NewFS(root), RunTool: func(context.Context, []string) ([]byte, error) { return []byte("NIC statistics:\n"), nil }}
	got, err := a.ReadCounters(t.Context())
	if err != nil || len(got.Ports) != 1 {
		t.Fatalf("%+v, %v", got, err)
	}
	p := got.Ports[0]
	if st, ok := source(p, SourceStatistics); !ok || st.Counters["rx_crc_errors"] != 9 || st.From != filepath.Join(root, "class/net/eth0/statistics") {
		t.Errorf("statistics %+v", st)
	}
	if cc, ok := source(p, SourceCarrier); !ok || !maps.Equal(cc.Counters, map[string]uint64{"carrier_down_count": 1}) {
		t.Errorf("carrier %+v", cc)
	}
	if hw, ok := source(p, SourceHW); !ok || hw.Counters["rcvd_seq_err"] != 3 || !strings.Contains(hw.Error, "broken") {
		t.Errorf("hw_counters %+v, want rcvd_seq_err and the error of broken", hw)
	}
	if et, ok := source(p, SourceEthtool); !ok || len(et.Counters) != 0 || et.Error != "" {
		t.Errorf("ethtool with no statistics: %+v", et)
	}
}

// TestParseEthtoolStats: name/value lines after the header; group
// headers skipped; lines it does not understand returned, not dropped;
// output that is not ethtool -S's is an error.
func TestParseEthtoolStats(t *testing.T) {
	got, unparsed, err := ParseEthtoolStats([]byte(ethtoolOut + "     rx_queue_0: \n     weird line\n     tx: -1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"weird line", "tx: -1"}; !slices.Equal(unparsed, want) {
		t.Errorf("unparsed %q, want %q", unparsed, want)
	}
	want := map[string]uint64{"rx_packets": 1000, "rx_prio3_pause": 12, "tx_prio3_pause": 340, "rx_discards_phy": 5,
		"rx_symbol_err_phy": 0, "rx_crc_errors_phy": 1, "link_down_events_phy": 2}
	if !maps.Equal(got, want) {
		t.Errorf("parsed %v, want %v", got, want)
	}
	if _, _, err := ParseEthtoolStats([]byte("no stats available\n")); err == nil {
		t.Errorf("output without the header parsed")
	}
}

// FuzzParseEthtoolStats: whatever ethtool printed, every non-blank line is a
// counter, a group heading, the header or reported as unparsed.
func FuzzParseEthtoolStats(f *testing.F) {
	f.Add([]byte(ethtoolOut))
	f.Add([]byte("NIC statistics:\n  a: 1\n  b:\n  c: x\n:5\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cs, unparsed, err := ParseEthtoolStats(b)
		if err != nil {
			return
		}
		if len(cs)+len(unparsed) > strings.Count(string(b), "\n")+1 {
			t.Fatalf("%d counters and %d unparsed from %d lines", len(cs), len(unparsed), strings.Count(string(b), "\n")+1)
		}
	})
}

// TestCountsPhyErrors: which ports' NICs count corrupted frames: mlx5's
// ethtool PHY counters and an InfiniBand port's PMA do; a netdev's generic
// rx_crc_errors alone (virtio, veth) and a port whose ethtool failed do not.
func TestCountsPhyErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		srcs []CounterSource
		want bool
	}{
		{"mlx5", []CounterSource{{Name: SourceEthtool, Counters: map[string]uint64{"rx_crc_errors_phy": 0}}}, true},
		{"ib", []CounterSource{{Name: SourcePort, Counters: map[string]uint64{"symbol_error": 0}}}, true},
		{"virtio", []CounterSource{{Name: SourceStatistics, Counters: map[string]uint64{"rx_crc_errors": 0}}, {Name: SourceEthtool, Counters: map[string]uint64{"rx_queue_0_packets": 1}}}, false},
		{"statistics named like ethtool", []CounterSource{{Name: SourceStatistics, Counters: map[string]uint64{"rx_crc_errors_phy": 0}}}, false},
		{"ethtool failed", []CounterSource{{Name: SourceEthtool, Error: "ethtool not found"}}, false},
		// Broadcom bnxt_en's port statistics (physical function only).
		{"bnxt_en", []CounterSource{{Name: SourceEthtool, Counters: map[string]uint64{"rx_fcs_err_frames": 1, "rx_align_err_frames": 0, "tx_fcs_err_frames": 0}}}, true},
		{"bnxt_en ext only", []CounterSource{{Name: SourceEthtool, Counters: map[string]uint64{"rx_pcs_symbol_err": 0, "link_down_events": 2}}}, true},
		{"bnxt_en VF", []CounterSource{{Name: SourceEthtool, Counters: map[string]uint64{"rxq0_ucast_packets": 9}}}, false},
		// Intel ice: ".nic" names are the port's, on the PF's netdev only.
		{"ice PF", []CounterSource{{Name: SourceEthtool, Counters: map[string]uint64{"rx_crc_errors.nic": 0, "illegal_bytes.nic": 0, "rx_bytes": 5}}}, true},
		{"ice VF", []CounterSource{{Name: SourceEthtool, Counters: map[string]uint64{"rx_bytes": 5, "tx_restart": 0}}}, false},
		{"i40e", []CounterSource{{Name: SourceEthtool, Counters: map[string]uint64{"port.rx_crc_errors": 13551, "rx_crc_errors": 13551}}}, true},
	} {
		if got := CountsPhyErrors(PortReading{Sources: tc.srcs}); got != tc.want {
			t.Errorf("%s: CountsPhyErrors = %v, want %v", tc.name, got, tc.want)
		}
	}
}
