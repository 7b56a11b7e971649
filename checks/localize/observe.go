package localize

import (
	"fmt"
	"math"
	"slices"

	"github.com/fabricctl/fabricctl/fabric"
)

// Outcome is how one test turned out, as the localiser reads it.
type Outcome string

// The outcomes.
const (
	Good  Outcome = "good"  // at the reference bandwidth, no loss
	Slow  Outcome = "slow"  // below the floor without loss (a NIC, congestion)
	Lossy Outcome = "lossy" // packets lost: retransmits, out-of-sequence, completion errors, timeouts
	Void  Outcome = "void"  // the test could not run for a reason unrelated to the path; ignored
)

// Observation is one pairwise test: Client sent to Server (perftest's
// roles). Endpoints are host names (hosts with one cabled NIC) or
// "host:iface".
type Observation struct {
	Client string  `json:"client"`
	Server string  `json:"server"`
	Gbps   float64 `json:"gbps"`
	// Loss: counters at the ends moved with loss (retransmits,
	// out-of-sequence, NAKs), or the test failed with completion errors or
	// a timeout.
	Loss bool `json:"loss,omitempty"`
	// Outcome, when set, is a verdict already made (checks/evaluate); it
	// overrides Gbps and Loss.
	Outcome Outcome `json:"outcome,omitempty"`
	// Detail is shown as evidence ("61.3 Gb/s, out_of_sequence +1841").
	Detail string `json:"detail,omitempty"`
	// Round is the round the test ran in (0-based), for evidence.
	Round int `json:"round"`
}

// CounterKind groups the counters the localiser reads as evidence.
type CounterKind string

// The counter kinds.
const (
	// PhyErrors: frames received corrupted at this endpoint (CRC/FCS,
	// symbol errors, uncorrectable FEC): the cable or transceivers arriving
	// here (mlx5 rx_crc_errors_phy, rx_symbol_err_phy; IB symbol_error,
	// port_rcv_errors; switch FCS/CRC error counters).
	PhyErrors CounterKind = "phy-errors"
	// Discards: frames the switch port dropped for buffers or errors
	// without corruption (rx/tx discards): the port, not the cable.
	Discards CounterKind = "discards"
	// PauseStorm: the NIC at this endpoint stalled while sending pause
	// frames for longer than its watchdog allows and stopped sending them
	// (mlx5 tx_pause_storm_warning_events, tx_pause_storm_error_events;
	// ethtool's standard pause statistic tx_pause_storm_events, which
	// "should never increment under normal overload conditions"): the NIC
	// floods its leaf with pauses, slowing the leaf's other tests too.
	PauseStorm CounterKind = "pause-storm"
)

// Counter is a counter that moved at an endpoint during the tests.
type Counter struct {
	At    fabric.Endpoint `json:"at"`
	Kind  CounterKind     `json:"kind"`
	Name  string          `json:"name"` // the counter as the device names it
	Delta uint64          `json:"delta"`
}

// outcomeIndex maps an outcome to the emission vector index.
func outcomeIndex(o Outcome) int {
	switch o {
	case Slow:
		return 1
	case Lossy:
		return 2
	}
	return 0
}

// test is one classified observation.
type test struct {
	obs    Observation
	out    int // 0 good, 1 slow, 2 lossy
	client *nicEnd
	server *nicEnd
	cert   []hop  // components the test surely crosses
	paths  []path // equal-cost ways between the leaves; nil within one leaf
	// rev: the data runs from the paths' second leaf to their first, so
	// every path hop is crossed the other way.
	rev        bool
	inter      bool
	bgClass    int // background class (analysis.loads)
	background *[3]float64
}

// classify turns observations into outcomes: Outcome when set, else
// lossy when Loss, slow below floor × reference, good otherwise.
func classify(obs []Observation, o Options) ([]Outcome, float64) {
	ref := o.ReferenceGbps
	if ref <= 0 {
		var vs []float64
		for _, ob := range obs {
			if ob.Outcome != Void && !math.IsNaN(ob.Gbps) && ob.Gbps > 0 {
				vs = append(vs, ob.Gbps)
			}
		}
		if len(vs) > 0 {
			slices.Sort(vs)
			ref = vs[len(vs)/2]
		}
	}
	out := make([]Outcome, len(obs))
	for i, ob := range obs {
		switch {
		case ob.Outcome != "":
			out[i] = ob.Outcome
		case ob.Loss:
			out[i] = Lossy
		case ref > 0 && ob.Gbps < o.RelativeFloor*ref:
			out[i] = Slow
		default:
			out[i] = Good
		}
	}
	return out, ref
}

func (o Observation) String() string {
	s := fmt.Sprintf("%s→%s %.1f Gb/s", o.Client, o.Server, o.Gbps)
	if o.Loss {
		s += " with loss"
	}
	if o.Detail != "" {
		s += " (" + o.Detail + ")"
	}
	return s
}
