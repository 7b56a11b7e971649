package congestion

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// mlx5 is a healthy mlx5 port reading: every counter the verdicts read,
// at base; moves adds to it.
func mlx5(base uint64, moves map[string]uint64) evaluate.Counters {
	cs := evaluate.Counters{}
	for p := 0; p < 8; p++ {
		for _, n := range []string{"rx_prio%d_pause", "tx_prio%d_pause", "rx_prio%d_pause_duration", "tx_prio%d_pause_duration", "rx_prio%d_packets", "rx_prio%d_discards"} {
			cs["ethtool/"+fmt.Sprintf(n, p)] = base
		}
	}
	for _, n := range []string{"rx_discards_phy", "rx_out_of_buffer", "tx_pause_storm_warning_events", "tx_pause_storm_error_events"} {
		cs["ethtool/"+n] = base
	}
	for _, n := range []string{"np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored", "out_of_sequence",
		"packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err", "duplicate_request", "rnr_nak_retry_err", "out_of_buffer"} {
		cs["hw_counters/"+n] = base
	}
	for k, v := range moves {
		cs[k] += v
	}
	return cs
}

func rxe(base uint64, moves map[string]uint64) evaluate.Counters {
	cs := evaluate.Counters{}
	for _, n := range []string{"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err", "send_rnr_err",
		"rcvd_seq_err", "ack_deferred", "retry_exceeded_err", "retry_rnr_exceeded_err", "completer_retry_err", "send_err", "link_downed"} {
		cs["hw_counters/"+n] = base
	}
	for k, v := range moves {
		cs[k] += v
	}
	return cs
}

// congested is what a healthy incast receiver shows: traffic, pause sent
// to the switch, marks received and CNPs sent.
var congested = map[string]uint64{
	"ethtool/rx_prio3_packets": 9_000_000, "ethtool/tx_prio3_pause": 800, "ethtool/tx_prio3_pause_duration": 120_000,
	"hw_counters/np_ecn_marked_roce_packets": 41_000, "hw_counters/np_cnp_sent": 40_000,
}

func with(m map[string]uint64, extra map[string]uint64) map[string]uint64 {
	out := maps.Clone(m)
	for k, v := range extra {
		out[k] += v
	}
	return out
}

var intent = Intent{Lossless: []int{3}, ECN: true, ECNMinKB: 1500, ECNMaxKB: 3000, PFCXoffKB: 1000}

func TestVerdicts(t *testing.T) {
	const s = 30
	cases := []struct {
		name   string
		intent Intent
		ports  []Port
		want   map[string]checks.Status // id → worst status among the ports
	}{
		{"lossless held", intent, []Port{
			{Target: "gpu-01", Port: "ens1f0np0/mlx5_0:1", Role: Receiver, Seconds: s, Before: mlx5(100, nil), After: mlx5(100, congested)},
			{Target: "gpu-02", Port: "ens1f0np0/mlx5_0:1", Role: Sender, Seconds: s, Before: mlx5(100, nil),
				After: mlx5(100, map[string]uint64{"ethtool/rx_prio3_pause": 700, "ethtool/rx_prio3_pause_duration": 90_000, "hw_counters/rp_cnp_handled": 20_000})},
		}, map[string]checks.Status{IDLossless: checks.StatusPass, IDPFC: checks.StatusPass, IDECN: checks.StatusPass, IDPauseStorm: checks.StatusPass, IDEngaged: checks.StatusPass}},
		{"drops on lossless", intent, []Port{
			{Target: "gpu-01", Port: "ens1f0np0/mlx5_0:1", Role: Receiver, Seconds: s, Before: mlx5(100, nil),
				After: mlx5(100, with(congested, map[string]uint64{"ethtool/rx_prio3_discards": 37, "hw_counters/out_of_sequence": 1841}))},
		}, map[string]checks.Status{IDLossless: checks.StatusFail, IDPFC: checks.StatusPass}},
		{"pause on a lossy priority", intent, []Port{
			{Target: "gpu-03", Port: "ens1f0np0/mlx5_0:1", Role: Receiver, Seconds: s, Before: mlx5(0, nil),
				After: mlx5(0, with(congested, map[string]uint64{"ethtool/tx_prio0_pause": 5000, "ethtool/rx_prio0_packets": 10}))},
		}, map[string]checks.Status{IDPFC: checks.StatusFail, IDLossless: checks.StatusPass}},
		{"heavy pause without marking", intent, []Port{
			{Target: "gpu-02", Port: "ens1f0np0/mlx5_0:1", Role: Sender, Seconds: s, Before: mlx5(5, nil),
				After: mlx5(5, map[string]uint64{"ethtool/rx_prio3_pause": 90_000, "ethtool/rx_prio3_pause_duration": 6_000_000, "ethtool/rx_prio3_packets": 100})},
		}, map[string]checks.Status{IDECN: checks.StatusWarn, IDPFC: checks.StatusPass, IDPauseStorm: checks.StatusPass}},
		{"ECN not configured", Intent{Lossless: []int{3}}, []Port{
			{Target: "gpu-02", Port: "ens1f0np0/mlx5_0:1", Seconds: s, Before: mlx5(5, nil), After: mlx5(5, congested)},
		}, map[string]checks.Status{IDECN: checks.StatusSkip}},
		{"pause storm by duration", intent, []Port{
			{Target: "gpu-04", Port: "ens1f0np0/mlx5_0:1", Seconds: s, Before: mlx5(1, nil),
				After: mlx5(1, map[string]uint64{"ethtool/rx_prio3_pause": 400_000, "ethtool/rx_prio3_pause_duration": 27_000_000, "hw_counters/rp_cnp_handled": 10})},
		}, map[string]checks.Status{IDPauseStorm: checks.StatusFail}},
		{"pause storm without traffic", intent, []Port{
			{Target: "gpu-05", Port: "ens1f0np0/mlx5_0:1", Seconds: s, Before: mlx5(1, nil),
				After: mlx5(1, map[string]uint64{"ethtool/tx_prio3_pause": 3000, "ethtool/tx_prio3_pause_duration": 1000})},
		}, map[string]checks.Status{IDPauseStorm: checks.StatusFail}},
		{"storm detector", intent, []Port{
			{Target: "gpu-06", Port: "ens1f0np0/mlx5_0:1", Seconds: s, Before: mlx5(1, nil),
				After: mlx5(1, with(congested, map[string]uint64{"ethtool/tx_pause_storm_error_events": 1}))},
		}, map[string]checks.Status{IDPauseStorm: checks.StatusFail}},
		{"rxe not observable", intent, []Port{
			{Target: "lab-h1", Port: "eth1/rxe0:1", Role: Receiver, Seconds: s, Before: rxe(10, nil), After: rxe(10, map[string]uint64{"hw_counters/rcvd_pkts": 500_000})},
		}, map[string]checks.Status{IDLossless: checks.StatusPass, IDPFC: checks.StatusSkip, IDECN: checks.StatusSkip, IDPauseStorm: checks.StatusSkip, IDEngaged: checks.StatusSkip}},
		{"rxe loss", intent, []Port{
			{Target: "lab-h2", Port: "eth1/rxe0:1", Role: Receiver, Seconds: s, Before: rxe(10, nil),
				After: rxe(10, map[string]uint64{"hw_counters/out_of_seq_request": 77, "hw_counters/rcvd_seq_err": 3})},
		}, map[string]checks.Status{IDLossless: checks.StatusFail, IDPFC: checks.StatusSkip}},
		{"counter reset during the round", intent, []Port{
			{Target: "gpu-07", Port: "ens1f0np0/mlx5_0:1", Seconds: s, Before: mlx5(1000, nil),
				After: func() evaluate.Counters {
					c := mlx5(1000, congested)
					c["hw_counters/out_of_sequence"] = 0 // cleared: nothing after the reset
					return c
				}()},
			{Target: "gpu-08", Port: "ens1f0np0/mlx5_0:1", Seconds: s, Before: mlx5(1000, nil),
				After: func() evaluate.Counters {
					c := mlx5(1000, congested)
					c["hw_counters/packet_seq_err"] = 12 // cleared, then 12 more
					return c
				}()},
		}, map[string]checks.Status{IDLossless: checks.StatusFail}},
		{"counter absent from one reading", intent, []Port{
			{Target: "gpu-09", Port: "ens1f0np0/mlx5_0:1", Seconds: s,
				Before: evaluate.Counters{"ethtool/rx_prio3_pause": 1},
				After:  evaluate.Counters{"ethtool/rx_prio3_pause": 9, "hw_counters/out_of_sequence": 5}},
		}, map[string]checks.Status{IDLossless: checks.StatusSkip, IDPFC: checks.StatusPass}},
		{"global pause instead of PFC", intent, []Port{
			{Target: "gpu-10", Port: "eth03/mlx5_2:1", Seconds: s,
				Before: with(mlx5(0, nil), map[string]uint64{"ethtool/tx_global_pause": 0, "ethtool/rx_global_pause": 0}),
				After:  mlx5(0, with(congested, map[string]uint64{"ethtool/tx_global_pause": 1266552, "ethtool/rx_global_pause": 0}))},
		}, map[string]checks.Status{IDPFC: checks.StatusFail}},
		{"switch ports", intent, []Port{
			{Target: "leaf-1", Port: "Ethernet8", Family: SONiC, Seconds: s,
				Before: evaluate.Counters{"Rx PFC3": 0, "Tx PFC3": 10, "Tx PFC0": 0, "UC3 Drop/pkts": 0, "UC3 EcnMarked/pkts": 5, "UC0 Drop/pkts": 0},
				After:  evaluate.Counters{"Rx PFC3": 0, "Tx PFC3": 15010, "Tx PFC0": 0, "UC3 Drop/pkts": 0, "UC3 EcnMarked/pkts": 5, "UC0 Drop/pkts": 4100}},
			{Target: "leaf-2", Port: "swp7", Family: Cumulus, Seconds: s,
				Before: evaluate.Counters{"pfc-stats 3 tx-pause-frames": 0, "pfc-stats 3 tx-pause-duration": 0, "egress-queue-stats 3 tx-uc-buffer-discards": 0},
				After:  evaluate.Counters{"pfc-stats 3 tx-pause-frames": 50, "pfc-stats 3 tx-pause-duration": 900, "egress-queue-stats 3 tx-uc-buffer-discards": 12}},
		}, map[string]checks.Status{IDLossless: checks.StatusFail, IDECN: checks.StatusWarn, IDPFC: checks.StatusPass}},
	}
	var golden strings.Builder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Evaluate(c.intent, c.ports)
			worst := map[string]checks.Status{}
			for _, r := range got {
				if !r.Status.Valid() {
					t.Errorf("%s %s: status %q", r.ID, r.Target, r.Status)
				}
				if (r.Status == checks.StatusFail || r.Status == checks.StatusWarn) && r.Class == "" {
					t.Errorf("%s %s: %s without a class", r.ID, r.Target, r.Status)
				}
				if w, ok := worst[r.ID]; !ok || r.Status.Worse(w) {
					worst[r.ID] = r.Status
				}
			}
			for id, want := range c.want {
				if worst[id] != want {
					t.Errorf("%s: %s, want %s", id, worst[id], want)
				}
			}
			fmt.Fprintf(&golden, "== %s\n", c.name)
			for _, r := range got {
				fmt.Fprintf(&golden, "%-5s %-22s %s", r.Status, r.ID, r.Target)
				if r.Class != "" {
					fmt.Fprintf(&golden, " [%s]", r.Class)
				}
				fmt.Fprintf(&golden, "\n      %s\n", r.Summary)
				for _, e := range r.Evidence {
					fmt.Fprintf(&golden, "      · %s\n", e)
				}
			}
		})
	}
	testutil.Golden(t, "verdicts.golden", []byte(golden.String()))
}

// TestRxeSaysWhy pins the sentence the lab report shows for soft-RoCE.
func TestRxeSaysWhy(t *testing.T) {
	p := Port{Target: "h1", Port: "rxe0:1", Before: rxe(0, nil), After: rxe(0, nil)}
	var all []string
	for _, r := range Evaluate(intent, []Port{p}) {
		if r.Status == checks.StatusPass && r.ID != IDLossless {
			t.Errorf("%s passes on rxe: %s", r.ID, r.Summary)
		}
		all = append(all, r.Summary+" "+strings.Join(r.Evidence, " "))
	}
	const want = "PFC activity not observable on rxe: losslessness judged from retransmits and sequence errors only"
	if !strings.Contains(strings.Join(all, "\n"), want) {
		t.Errorf("no %q in\n%s", want, strings.Join(all, "\n"))
	}
}

// TestTableAgreesWithKindOf: a host counter's signal and evaluate.KindOf
// tell the same story where KindOf knows the name.
func TestTableAgreesWithKindOf(t *testing.T) {
	for _, c := range Table {
		if c.Family.Switch() || c.PerPriority() && c.Signal != Drop && c.Signal != PauseRx && c.Signal != PauseTx {
			continue
		}
		name := strings.ReplaceAll(c.Pattern, "{p}", "3")
		k, ok := evaluate.KindOf(name)
		if !ok {
			continue
		}
		if want := c.Signal.Kind(); k != want {
			t.Errorf("%s %s: KindOf %s, table %s (%s)", c.Family, name, k, c.Signal, want)
		}
	}
}

func TestTableProvenance(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Table {
		if c.Doc == "" || !strings.HasPrefix(c.Doc, "https://") || c.Where == "" {
			t.Errorf("%s %s: no document or place", c.Family, c.Pattern)
		}
		k := string(c.Family) + "\x00" + c.Pattern
		if seen[k] {
			t.Errorf("%s %s twice", c.Family, c.Pattern)
		}
		seen[k] = true
		if n, ok := Lookup(c.Family, strings.ReplaceAll(c.Pattern, "{p}", "5")); !ok || n.Signal != c.Signal {
			t.Errorf("%s %s: lookup %v %v", c.Family, c.Pattern, n, ok)
		}
	}
	if !Documents(RXE, OutOfSequence) || Documents(RXE, PauseRx) || Documents(RXE, ECNMarked) {
		t.Error("rxe documents the wrong signals")
	}
	if n, ok := Lookup(MLX5, "ethtool/rx_prio6_pause"); !ok || n.Priority != 6 || n.Signal != PauseRx {
		t.Errorf("%+v %v", n, ok)
	}
	if _, ok := Lookup(MLX5, "ethtool/rx_prio8_pause"); ok {
		t.Error("priority 8 matched")
	}
}

func TestParseText(t *testing.T) {
	in := "NIC statistics:\n     rx_prio3_pause: 12\n     rxq0: rx_bytes: 5\n" +
		"Port 1 hw counters:\nnp_cnp_sent: 40871\n/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:7\n" +
		"link mlx5_1/1 rx_write_requests 3 np_ecn_marked_roce_packets 9\n" +
		"rp_cnp_handled: 1,169,933\nrx_prio3_pause: 99\n"
	cs, skipped := ParseText([]byte(in))
	want := evaluate.Counters{"rx_prio3_pause": 12, "np_cnp_sent": 40871, "out_of_sequence": 7, "rx_write_requests": 3, "np_ecn_marked_roce_packets": 9}
	if !maps.Equal(cs, want) || skipped != 4 {
		t.Errorf("got %v skipped %d", cs, skipped)
	}
}

func FuzzParseText(f *testing.F) {
	f.Add([]byte("NIC statistics:\n     rx_prio3_pause: 12\n"))
	f.Add([]byte("link mlx5_0/1 a 1 b 2\nlink x\n"))
	f.Add([]byte("a/b/c: 18446744073709551615\n:\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, skipped := ParseText(data)
		if skipped < 0 {
			t.Fatal("negative skipped")
		}
		for name := range cs {
			if !validName(name) {
				t.Fatalf("invalid name %q", name)
			}
		}
		// Whatever it parsed judges without panicking.
		Evaluate(intent, []Port{{Target: "h", Port: "p", Before: evaluate.Counters{}, After: cs}, {Target: "h", Port: "q", Before: cs, After: cs}})
	})
}

// TestDocListsTable keeps docs/congestion.md in step with Table.
func TestDocListsTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "docs", "congestion.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Table {
		if !strings.Contains(string(doc), "| `"+c.Pattern+"` | "+string(c.Signal)+" |") {
			t.Errorf("docs/congestion.md does not list %s %s as %s", c.Family, c.Pattern, c.Signal)
		}
	}
}
