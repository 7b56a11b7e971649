package counters

import (
	"fmt"
	"slices"

	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// Group is what a metric's movement means.
type Group string

// The groups, in the table's order.
const (
	Congestion Group = "congestion" // PFC pause, ECN marks, CNPs: normal under load in a lossless fabric
	Loss       Group = "loss"       // packets lost or resent
	Errors     Group = "error"      // corrupted frames, links that went down
)

// The metrics of every port, by name. Pause metrics are per lossless
// priority: PauseRx(3) = "pause-rx-prio3".
const (
	ECNMarked     = "ecn-marked"
	CNPSent       = "cnp-sent"
	CNPHandled    = "cnp-handled"
	OutOfSequence = "out-of-sequence"
	SequenceError = "sequence-error"
	AckTimeout    = "ack-timeout"
	RxDiscards    = "rx-discards"
	SymbolCRC     = "symbol-crc"
	LinkDown      = "link-down"
)

// PauseRx names the metric of PFC pause frames received on priority p.
func PauseRx(p int) string { return fmt.Sprintf("pause-rx-prio%d", p) }

// PauseTx names the metric of PFC pause frames sent on priority p.
func PauseTx(p int) string { return fmt.Sprintf("pause-tx-prio%d", p) }

// Metric is how one column of the table is computed from a host port's
// counters: the sum of its terms, each the first counter of its list the
// port has; absent when the port has none of any term.
type Metric struct {
	Name  string
	Group Group
	// Terms list counter keys (Key): "hw_counters/np_cnp_sent".
	Terms [][]string
	// Rate: with an interval, the metric has a rate per second.
	Rate bool
}

// Key is how Port.Counters names a host counter: its source and its name
// ("ethtool/rx_prio3_pause", "hw_counters/out_of_sequence").
func Key(source, name string) string { return source + "/" + name }

func hw(n string) string   { return Key(rdma.SourceHW, n) }
func pma(n string) string  { return Key(rdma.SourcePort, n) }
func eth(n string) string  { return Key(rdma.SourceEthtool, n) }
func stat(n string) string { return Key(rdma.SourceStatistics, n) }

// hostMetrics are the metrics after the pause ones, in the table's order.
// The first name of each list is mlx5's; rxe's own follow where it counts
// the same thing (DESIGN.md §4.3; docs/counters.md lists them).
var hostMetrics = []Metric{
	{Name: ECNMarked, Group: Congestion, Rate: true, Terms: [][]string{{hw("np_ecn_marked_roce_packets")}}},
	{Name: CNPSent, Group: Congestion, Rate: true, Terms: [][]string{{hw("np_cnp_sent")}}},
	{Name: CNPHandled, Group: Congestion, Rate: true, Terms: [][]string{{hw("rp_cnp_handled")}}},
	{Name: OutOfSequence, Group: Loss, Terms: [][]string{{hw("out_of_sequence"), hw("out_of_seq_request")}}},
	{Name: SequenceError, Group: Loss, Terms: [][]string{{hw("packet_seq_err"), hw("rcvd_seq_err")}}},
	{Name: AckTimeout, Group: Loss, Terms: [][]string{{hw("local_ack_timeout_err"), hw("completer_retry_err")}}},
	{Name: RxDiscards, Group: Loss, Terms: [][]string{{eth("rx_discards_phy")}}},
	// Symbol and CRC errors by mlx5's, bnxt_en's, ice's and i40e's names
	// (rdma.PhyErrorCounters), the netdev's rx_crc_errors last.
	{Name: SymbolCRC, Group: Errors, Terms: [][]string{
		{eth("rx_symbol_err_phy"), eth("rx_pcs_symbol_err"), eth("illegal_bytes.nic"), eth("port.illegal_bytes"), pma("symbol_error")},
		{eth("rx_crc_errors_phy"), eth("rx_fcs_err_frames"), eth("rx_crc_errors.nic"), eth("port.rx_crc_errors"), stat("rx_crc_errors")}}},
	{Name: LinkDown, Group: Errors, Terms: [][]string{
		{pma("link_downed"), hw("link_downed"), eth("link_down_events_phy"), eth("link_down_events"), Key(rdma.SourceCarrier, "carrier_down_count")}}},
}

// Metrics returns the metrics of a host port in the table's order: PFC
// pause received and sent on each lossless priority (mlx5's ethtool -S
// rx_prioN_pause, tx_prioN_pause), then the others.
func Metrics(lossless []int) []Metric {
	var ms []Metric
	for _, p := range lossless {
		ms = append(ms,
			Metric{Name: PauseRx(p), Group: Congestion, Rate: true, Terms: [][]string{{eth(fmt.Sprintf("rx_prio%d_pause", p))}}},
			Metric{Name: PauseTx(p), Group: Congestion, Rate: true, Terms: [][]string{{eth(fmt.Sprintf("tx_prio%d_pause", p))}}})
	}
	return append(ms, hostMetrics...)
}

// groupOf returns the group of a metric name.
func groupOf(lossless []int, name string) Group {
	for _, m := range Metrics(lossless) {
		if m.Name == name {
			return m.Group
		}
	}
	return ""
}

// switchMetric says which metric a switch counter of a kind adds to.
var switchMetric = map[switchcfg.ErrorKind]string{switchcfg.PhyErrors: SymbolCRC, switchcfg.Discards: RxDiscards}

// Value is one metric of one port.
type Value struct {
	// Value is the counters' sum: their values, or with an interval their
	// movement.
	Value uint64 `json:"value"`
	// PerSecond is the movement's rate, for congestion metrics with an
	// interval.
	PerSecond *float64 `json:"perSecond,omitempty"`
	// Reset: a counter summed here was cleared (or wrapped) during the
	// interval; Value counts it from zero, so it is at least this much.
	Reset bool `json:"reset,omitempty"`
	// From are the keys of Port.Counters summed.
	From []string `json:"from"`
}

// metrics computes a host port's metrics from its counters (values or
// movements, by key); those the port has none of are left out.
func metrics(lossless []int, cs map[string]Counter, seconds float64) map[string]Value {
	out := map[string]Value{}
	for _, m := range Metrics(lossless) {
		var v Value
		for _, term := range m.Terms {
			for _, key := range term {
				c, ok := cs[key]
				if !ok {
					continue
				}
				v.Value += c.Value
				v.Reset = v.Reset || c.Reset
				v.From = append(v.From, key)
				break
			}
		}
		if v.From == nil {
			continue
		}
		if m.Rate && seconds > 0 {
			r := float64(v.Value) / seconds
			v.PerSecond = &r
		}
		out[m.Name] = v
	}
	return out
}

// switchMetrics sums a switch port's counters (by key, the NOS's names)
// into its metrics by their kinds.
func switchMetrics(kinds map[string]switchcfg.ErrorKind, cs map[string]Counter) map[string]Value {
	out := map[string]Value{}
	keys := make([]string, 0, len(cs))
	for k := range cs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		name, ok := switchMetric[kinds[k]]
		if !ok {
			continue
		}
		v := out[name]
		v.Value += cs[k].Value
		v.Reset = v.Reset || cs[k].Reset
		v.From = append(v.From, k)
		out[name] = v
	}
	return out
}
