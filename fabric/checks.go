package fabric

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Checks configures the validation suites (spec.checks): what `fabricctl
// check` runs, and the policy that turns its measurements into verdicts.
// The thresholds describe what a healthy fabric delivers; an emulated lab
// writes its measured envelope here (profiles/lab/fabric.yaml, docs/lab.md).
type Checks struct {
	Preflight *Preflight `yaml:"preflight,omitempty" json:"preflight,omitempty"`
	Loopback  *Loopback  `yaml:"loopback,omitempty" json:"loopback,omitempty"`
	Pairwise  *Pairwise  `yaml:"pairwise,omitempty" json:"pairwise,omitempty"`
	// Counters are the counter-evidence rules of the loopback and pairwise
	// suites. fabricctl extension.
	Counters *CounterRules `yaml:"counters,omitempty" json:"counters,omitempty"`
	// NCCL is the collective sanity check (check --suite nccl). fabricctl extension.
	NCCL *NCCL `yaml:"nccl,omitempty" json:"nccl,omitempty"`
	// Incast is the congestion suite (check --suite incast). fabricctl extension.
	Incast *Incast `yaml:"incast,omitempty" json:"incast,omitempty"`
}

// Incast configures the congestion suite: rounds of Senders hosts writing
// to one receiver at once (ib_write_bw on the RoCE class's traffic class),
// every leaf's downlinks congested in turn, then cross-leaf rounds that
// congest the uplinks; the port counters of every participating host and
// switch port are read before and after each round and judged
// (checks/congestion: lossless held, PFC and ECN engaged, no pause storm).
// Every field is optional. fabricctl extension.
type Incast struct {
	// Senders writing to one receiver at once (default 3; at most the
	// hosts checked less one).
	Senders int `yaml:"senders,omitempty" json:"senders,omitempty"`
	// MessageSize of each write (default 64KiB).
	MessageSize Bytes `yaml:"messageSize,omitempty" json:"messageSize,omitempty"`
	// QPs per sender (perftest -q, default 2).
	QPs int `yaml:"qps,omitempty" json:"qps,omitempty"`
	// Duration of each round's writes (default 10s; whole seconds, at least 5s).
	Duration Duration `yaml:"duration,omitempty" json:"duration,omitempty"`
	// ReceiversPerLeaf is how many hosts of each leaf take an incast round
	// as its receiver (default 1).
	ReceiversPerLeaf int `yaml:"receiversPerLeaf,omitempty" json:"receiversPerLeaf,omitempty"`
	// CrossLeaf adds the rounds where the hosts of one group of leaves
	// write to those of the others, congesting the uplinks (default: on
	// when the hosts sit on more than one leaf).
	CrossLeaf *bool `yaml:"crossLeaf,omitempty" json:"crossLeaf,omitempty"`
	// Bounds of the pause verdicts.
	Bounds *IncastBounds `yaml:"bounds,omitempty" json:"bounds,omitempty"`
	// Ignore lists counters the verdicts do not read (names as in
	// hw_counters/ or ethtool -S); absent: spec.checks.counters.ignore.
	Ignore []string `yaml:"ignore,omitempty" json:"ignore,omitempty"`
	// Retries: as Loopback.Retries.
	Retries *int `yaml:"retries,omitempty" json:"retries,omitempty"`
	// QPTimeout: as Loopback.QPTimeout; a paused sender waits, so a fabric
	// that pauses long may need more than perftest's 14.
	QPTimeout int `yaml:"qpTimeout,omitempty" json:"qpTimeout,omitempty"`
}

// IncastBounds are the bounds of the congestion verdicts (congestion.Bounds).
type IncastBounds struct {
	// MaxPausedPercent: a port paused (or pausing its peer) longer than this
	// share of the round is in a pause storm (default 50).
	MaxPausedPercent float64 `yaml:"maxPausedPercent,omitempty" json:"maxPausedPercent,omitempty"`
	// HeavyPausedPercent: pausing this share of the round or more is heavy;
	// heavy pausing with no ECN marking warns (default 5).
	HeavyPausedPercent float64 `yaml:"heavyPausedPercent,omitempty" json:"heavyPausedPercent,omitempty"`
	// HeavyPauseFrames: where a port has no pause-duration counter, this
	// many pause frames or more is heavy (default 10000).
	HeavyPauseFrames int `yaml:"heavyPauseFrames,omitempty" json:"heavyPauseFrames,omitempty"`
}

// Defaults of spec.checks.incast.
const (
	DefaultIncastSenders          = 3
	DefaultIncastMessageSize      = Bytes(64 << 10)
	DefaultIncastQPs              = 2
	DefaultIncastDuration         = Duration(10 * time.Second)
	DefaultIncastReceiversPerLeaf = 1
)

// IncastOrDefault returns c's incast settings with every absent field at
// its default (CrossLeaf stays nil when absent: it depends on the leaves).
func (c *Checks) IncastOrDefault() Incast {
	var in Incast
	if c != nil && c.Incast != nil {
		in = *c.Incast
	}
	if in.Senders == 0 {
		in.Senders = DefaultIncastSenders
	}
	if in.MessageSize == 0 {
		in.MessageSize = DefaultIncastMessageSize
	}
	if in.QPs == 0 {
		in.QPs = DefaultIncastQPs
	}
	if in.Duration == 0 {
		in.Duration = DefaultIncastDuration
	}
	if in.ReceiversPerLeaf == 0 {
		in.ReceiversPerLeaf = DefaultIncastReceiversPerLeaf
	}
	if in.Ignore == nil && c != nil && c.Counters != nil {
		in.Ignore = c.Counters.Ignore
	}
	return in
}

// NCCL configures the collective sanity check: an all-reduce across the
// hosts (nccl-tests all_reduce_perf, or fabricctl's own PyTorch script) with
// NCCL_DEBUG=INFO, its logs analysed. Every field is optional. fabricctl extension.
type NCCL struct {
	// Tool: auto (all_reduce_perf on a single host when installed, PyTorch
	// otherwise), nccl-tests or torch.
	Tool string `yaml:"tool,omitempty" json:"tool,omitempty" enum:"auto,nccl-tests,torch"`
	// RanksPerHost is the number of ranks on each host (0: one per GPU).
	RanksPerHost int `yaml:"ranksPerHost,omitempty" json:"ranksPerHost,omitempty"`
	// MinBytes and MaxBytes bound the all-reduce sizes (default 8B..1GiB, doubling).
	MinBytes Bytes `yaml:"minBytes,omitempty" json:"minBytes,omitempty"`
	MaxBytes Bytes `yaml:"maxBytes,omitempty" json:"maxBytes,omitempty"`
	// Iterations timed per size (default 20).
	Iterations int `yaml:"iterations,omitempty" json:"iterations,omitempty"`
	// Timeout bounds the whole job on each host (default 5m).
	Timeout Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// Port is the rendezvous TCP port on the first host (default 29581).
	Port int `yaml:"port,omitempty" json:"port,omitempty"`
	// Python is the interpreter with PyTorch on the hosts (default python3).
	Python string `yaml:"python,omitempty" json:"python,omitempty"`
	// AllowSocket accepts NCCL's TCP socket transport between hosts (a
	// fabric without RDMA); otherwise it is a failure.
	AllowSocket bool `yaml:"allowSocket,omitempty" json:"allowSocket,omitempty"`
	// MinPercentOfPortRate is the bus bandwidth floor across hosts, in
	// percent of each rank's share of its host's NIC rate (default 70).
	MinPercentOfPortRate int `yaml:"minPercentOfPortRate,omitempty" json:"minPercentOfPortRate,omitempty"`
	// OOBInterface is the interface NCCL should bootstrap over
	// (NCCL_SOCKET_IFNAME); empty: the one holding the host's address.
	OOBInterface string `yaml:"oobInterface,omitempty" json:"oobInterface,omitempty"`
	// Env holds NCCL_* variables to set for the job (NCCL_IB_GID_INDEX,
	// NCCL_IB_TC, NCCL_IB_HCA, …); they are judged like the hosts' own.
	Env map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
}

// Preflight has no settings yet; its presence enables the suite.
type Preflight struct {
	// ExpectedRate is the port rate in Gb/s every host must show (0 = any). fabricctl extension.
	ExpectedRate float64 `yaml:"expectedRate,omitempty" json:"expectedRate,omitempty"`
}

// Loopback is the per-host RDMA loopback test.
type Loopback struct {
	Test        string   `yaml:"test,omitempty" json:"test,omitempty" enum:"write_bw,read_bw,send_bw,atomic_bw,write_lat,read_lat,send_lat,atomic_lat"`
	MessageSize Bytes    `yaml:"messageSize,omitempty" json:"messageSize,omitempty"`
	Duration    Duration `yaml:"duration,omitempty" json:"duration,omitempty"`
	// PortRate is what MinPercentOfPortRate is a percentage of: "sysfs"
	// (the default: the rate each port reports) or a rate such as 100Gb/s.
	// fabricctl extension.
	PortRate             Rate `yaml:"portRate,omitempty" json:"portRate,omitempty"`
	MinPercentOfPortRate int  `yaml:"minPercentOfPortRate,omitempty" json:"minPercentOfPortRate,omitempty"`
	// MinPercentOfBest is the relative floor: a host below this percentage
	// of the best host is an outlier (default 93). fabricctl extension.
	MinPercentOfBest int `yaml:"minPercentOfBest,omitempty" json:"minPercentOfBest,omitempty"`
	// MaxLatency bounds latency tests. fabricctl extension.
	MaxLatency Duration `yaml:"maxLatency,omitempty" json:"maxLatency,omitempty"`
	// RetestOutliers runs a host whose loopback failed on the link or was
	// an outlier once more before the verdict: a re-run that passes clears
	// it. fabricctl extension.
	RetestOutliers bool `yaml:"retestOutliers,omitempty" json:"retestOutliers,omitempty"`
	// Retries is how often a failure of the measurement itself (clock
	// calibration, out-of-band connect, set-up timeout, port in use) is run
	// again before it is reported as an error of the measurement (default
	// 2). fabricctl extension.
	Retries *int `yaml:"retries,omitempty" json:"retries,omitempty"`
	// QPTimeout is perftest's -u, the QP's local ACK timeout exponent:
	// each try waits 4.096 µs × 2^qpTimeout before the send is retried,
	// 7 times. Absent: perftest's 14 (67 ms). Set it to the workload's own
	// value to test as it runs (NCCL_IB_TIMEOUT, 20 by default: 4.3 s), or
	// where hosts can stall for longer than 67 ms × 7 without a fault
	// (emulated NICs). 1..31. fabricctl extension.
	QPTimeout int `yaml:"qpTimeout,omitempty" json:"qpTimeout,omitempty"`
}

// Pairwise is the host-to-host RDMA sweep.
type Pairwise struct {
	Schedule    string   `yaml:"schedule,omitempty" json:"schedule,omitempty" enum:"all-pairs,ring,halves,cross-leaf,topology"`
	Test        string   `yaml:"test,omitempty" json:"test,omitempty" enum:"write_bw,read_bw,send_bw,atomic_bw,write_lat,read_lat,send_lat,atomic_lat"`
	MessageSize Bytes    `yaml:"messageSize,omitempty" json:"messageSize,omitempty"`
	Duration    Duration `yaml:"duration,omitempty" json:"duration,omitempty"`
	// Bidirectional runs bandwidth tests both ways at once (perftest -b), so
	// that a fault on either host's transmit path shows in every pair the
	// host is part of. fabricctl extension.
	Bidirectional bool `yaml:"bidirectional,omitempty" json:"bidirectional,omitempty"`
	// PortRate: as Loopback.PortRate; a pair uses the lower of its two ends.
	PortRate             Rate `yaml:"portRate,omitempty" json:"portRate,omitempty"`
	MinPercentOfPortRate int  `yaml:"minPercentOfPortRate,omitempty" json:"minPercentOfPortRate,omitempty"`
	// MinPercentOfBest is the relative floor: a pair below this percentage
	// of the fleet's best pair is an outlier (default 93). fabricctl extension.
	MinPercentOfBest int      `yaml:"minPercentOfBest,omitempty" json:"minPercentOfBest,omitempty"`
	MaxLatency       Duration `yaml:"maxLatency,omitempty" json:"maxLatency,omitempty"`
	// RetestOutliers re-tests every failing or outlier pair's hosts against
	// known-good partners before the verdict: a host is blamed only when it
	// fails with good partners too, and a pair whose re-test passes is not
	// a failure.
	RetestOutliers bool `yaml:"retestOutliers,omitempty" json:"retestOutliers,omitempty"`
	// Partners is how many known-good partners a suspect host is re-tested
	// against (default 2). fabricctl extension.
	Partners int `yaml:"partners,omitempty" json:"partners,omitempty"`
	// Retries: as Loopback.Retries.
	Retries *int `yaml:"retries,omitempty" json:"retries,omitempty"`
	// QPTimeout: as Loopback.QPTimeout.
	QPTimeout int `yaml:"qpTimeout,omitempty" json:"qpTimeout,omitempty"`
	// LocalizeRounds bounds the rounds of adaptive re-tests `fabricctl
	// check` adds after the sweep when the localiser's suspects are
	// ambiguous (a suspect with alternatives, or failing pairs that name
	// none): each round runs the pairs that best split the ambiguity, and
	// it stops early once the suspects are exact or no test can split
	// them. Needs declared cabling. Absent: DefaultLocalizeRounds; 0: no
	// re-tests; at most MaxLocalizeRounds. fabricctl extension.
	LocalizeRounds *int `yaml:"localizeRounds,omitempty" json:"localizeRounds,omitempty"`
	// FlowLabel pins each test's ECMP path on RoCE v2: "auto" gives every
	// pair its own GRH flow label (perftest --flow_label), hence its own
	// fixed UDP source port, learns the pairs' paths with a UDP traceroute
	// of the same 5-tuple and hands them to the localiser; "off" (or
	// absent) leaves the NIC's choice. docs/pinned-paths.md. fabricctl
	// extension.
	FlowLabel string `yaml:"flowLabel,omitempty" json:"flowLabel,omitempty" enum:"off,auto"`
}

// LocalizeRoundsOr returns *r, or DefaultLocalizeRounds when r is nil.
func LocalizeRoundsOr(r *int) int {
	if r == nil {
		return DefaultLocalizeRounds
	}
	return *r
}

// CounterRules say when the counters a test moved are evidence against the
// link: a counter of an evidence kind (retransmits, out-of-sequence,
// sequence errors, drops, errors, pause and ECN/CNP) whose movement per GB
// the test moved lies beyond the fleet's healthy baseline — its mean plus
// Sigma standard deviations — and that moved by at least MinEvents. A
// counter that merely moved is not evidence. fabricctl extension.
type CounterRules struct {
	// Sigma is k in mean + k·σ (default 4).
	Sigma float64 `yaml:"sigma,omitempty" json:"sigma,omitempty"`
	// MinEvents: a movement smaller than this in one test is never evidence
	// (default 10).
	MinEvents int `yaml:"minEvents,omitempty" json:"minEvents,omitempty"`
	// MinPerGB: a movement under this many events per GB moved is never
	// evidence, whatever the baseline (default 0).
	MinPerGB float64 `yaml:"minPerGB,omitempty" json:"minPerGB,omitempty"`
	// MaxHealthyPerTest is the declared healthy envelope: the most an
	// evidence counter moves in one test of this fabric when nothing is
	// wrong (measured, with margin). A movement above it is evidence even
	// when the fleet's own spread would excuse it — as when most tests
	// cross one bad link, so that the spread is lossy too. minEvents and
	// minPerGB still apply. 0 or absent: the fleet's spread alone decides.
	MaxHealthyPerTest int `yaml:"maxHealthyPerTest,omitempty" json:"maxHealthyPerTest,omitempty"`
	// Ignore lists counters never taken as evidence (names as in
	// hw_counters/, counters/ or ethtool -S, e.g. duplicate_request).
	Ignore []string `yaml:"ignore,omitempty" json:"ignore,omitempty"`
}

// Defaults of the check policy.
const (
	DefaultMinPercentOfBest = 93
	DefaultRetries          = 2
	DefaultPartners         = 2
	DefaultSigma            = 4.0
	DefaultMinEvents        = 10
	// DefaultLocalizeRounds: three rounds of re-tests split what one sweep
	// leaves open in the simulated 1,024-host Clos (bench/localize.sh
	// needs at most 8 after four rounds of the topology schedule) and cost
	// three test durations.
	DefaultLocalizeRounds = 3
	MaxLocalizeRounds     = 8
	// MaxQPTimeout is the largest qpTimeout: the verbs attribute is 5 bits
	// wide (0 there would mean "wait forever").
	MaxQPTimeout = 31
)

// RetriesOr returns *r, or DefaultRetries when r is nil.
func RetriesOr(r *int) int {
	if r == nil {
		return DefaultRetries
	}
	return *r
}

// Rate is a link rate in Gb/s. YAML accepts "sysfs" (0: the rate each port
// reports in /sys/class/infiniband/<dev>/ports/<n>/rate) or a number with
// Gb/s or Mb/s ("100Gb/s", "250Mb/s").
type Rate float64

// RateSysfs is how YAML spells the zero Rate.
const RateSysfs = "sysfs"

var rateUnits = map[string]float64{"Gb/s": 1, "Gbps": 1, "Gbit/s": 1, "Mb/s": 1e-3, "Mbps": 1e-3, "Mbit/s": 1e-3}

// ParseRate parses "sysfs", "100Gb/s", "250 Mb/s".
func ParseRate(s string) (Rate, error) {
	if strings.TrimSpace(s) == RateSysfs {
		return 0, nil
	}
	num, unit := splitNumberUnit(s)
	mult, ok := rateUnits[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("%q is not a rate; use sysfs or a number with Gb/s or Mb/s (e.g. 100Gb/s)", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || f*mult > 1e6 {
		return 0, fmt.Errorf("%q is not a rate between 0 and 1000000 Gb/s", s)
	}
	return Rate(f * mult), nil
}

func (r *Rate) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		d.errAt(n, path, "expected sysfs or a rate such as 100Gb/s, got %s", kindName(n))
		return
	}
	v, err := ParseRate(n.Value)
	if err != nil {
		d.errAt(n, path, "%v", err)
		return
	}
	*r = v
}

// String prints "sysfs" or the rate in Gb/s.
func (r Rate) String() string {
	if r == 0 {
		return RateSysfs
	}
	return strconv.FormatFloat(float64(r), 'g', -1, 64) + "Gb/s"
}

func (r Rate) MarshalYAML() (any, error) { return r.String(), nil }
