package localize

import (
	"math"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
)

// Options tune the localiser. The zero value uses the defaults.
type Options struct {
	// RelativeFloor: a test below this fraction of ReferenceGbps is slow
	// (default evaluate.DefaultRelativeFloor, 0.93).
	RelativeFloor float64
	// ReferenceGbps is what a healthy test reaches; 0 takes the median of
	// all measured tests (a fabric is mostly healthy).
	ReferenceGbps float64
	// Priors are the probabilities that one given component of a kind is
	// faulty when testing starts; missing kinds take DefaultPriors.
	Priors map[checks.SuspectKind]float64
	// Ambiguity is how many times less likely than a suspect another
	// component may be and still be listed as its alternative (default 20).
	Ambiguity float64
	// MaxAdaptiveRounds bounds the re-test rounds Run adds after the
	// schedule (default 8).
	MaxAdaptiveRounds int
	// MaxPairsPerTarget bounds the re-tests one component in question gets
	// in one round (default 8); an uplink, uplink group or spine, which a
	// test crosses only on some of its equal-cost paths, gets four times as
	// many.
	MaxPairsPerTarget int
	// Screen makes Refine's re-test rounds also pair the hosts no re-test
	// uses, as Run's do (within their leaves in even rounds, across
	// leaves in odd ones): a fault that spoils only some tests or rounds
	// shows with more of them, at no cost in rounds, since the round runs
	// at once. Refine still stops as soon as the suspects are exact.
	Screen bool
}

// DefaultPriors: cables, transceivers and NICs fail far more often than
// switch ports, and whole switches or uplink groups rarely.
var DefaultPriors = map[checks.SuspectKind]float64{
	checks.SuspectNIC:         1e-3,
	checks.SuspectCable:       1e-3,
	checks.SuspectSwitchPort:  2e-4,
	checks.SuspectUplink:      1e-3,
	checks.SuspectUplinkGroup: 2e-5,
	checks.SuspectLeaf:        2e-5,
	checks.SuspectSpine:       2e-5,
}

func (o Options) withDefaults() Options {
	if o.RelativeFloor <= 0 || o.RelativeFloor > 1 {
		o.RelativeFloor = evaluate.DefaultRelativeFloor
	}
	if o.Ambiguity <= 1 {
		o.Ambiguity = 20
	}
	if o.MaxAdaptiveRounds <= 0 {
		o.MaxAdaptiveRounds = 8
	}
	if o.MaxPairsPerTarget <= 0 {
		o.MaxPairsPerTarget = 8
	}
	return o
}

func (o Options) logOdds(k checks.SuspectKind) float64 {
	p, ok := o.Priors[k]
	if !ok || p <= 0 || p >= 1 {
		p = DefaultPriors[k]
	}
	return math.Log(p / (1 - p))
}

// The outcome model: how a test turns out when a faulty component lies on
// its path. A NIC fault (a slow adapter, a PCIe link trained down, thermal
// throttling) slows tests without loss: a lossless fabric pauses rather
// than drops. A faulty cable, port or switch corrupts or drops packets,
// which RDMA sees as retransmits and out-of-sequence packets. Healthy tests
// are slow or lossy at the background rates measured in the session
// (ECMP collisions, measurement hiccups).
var (
	emitNIC   = [3]float64{0.10, 0.85, 0.05} // good, slow, lossy
	emitLossy = [3]float64{0.05, 0.10, 0.85}
	// Lost acknowledgements cost retransmit timeouts: slower, often counted.
	emitAck = [3]float64{0.08, 0.27, 0.65}
)

// Counter evidence model: the end a faulty cable corrupts frames towards
// counts receive errors with pSeen (not every fault is counted); a healthy
// end shows some with pBackground (marginal optics within spec).
const (
	pSeen       = 0.7
	pBackground = 0.005
	// pStateSeen: a link trained low shows it in its port state (the
	// state is read, not counted, so it is seldom missed).
	pStateSeen = 0.98
	// A NIC flooding its leaf with pauses trips its stall watchdog
	// (pStormSeen); a healthy one almost never does.
	pStormSeen       = 0.9
	pStormBackground = 1e-3
	// A flapping link counts a link-down at its ends (pDownSeen); a
	// healthy one does when a host reboots or a cable is reseated.
	pDownSeen       = 0.95
	pDownBackground = 5e-4
)

// Background rates before any test: how often a healthy test reads slow or
// lossy, and how many tests' worth of weight that guess carries against
// the session's own counts.
const (
	bgSlow   = 0.02
	bgLossy  = 0.004
	bgWeight = 50
)
