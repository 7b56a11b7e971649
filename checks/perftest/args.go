package perftest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DefaultTCPPort is the out-of-band port perftest listens on without -p.
const DefaultTCPPort = 18515

// MaxQPTimeout is the largest QP timeout exponent: the verbs attribute is
// 5 bits wide, and 0 there would mean "wait forever".
const MaxQPTimeout = 31

// MaxFlowLabel is the largest GRH flow label: the field is 20 bits wide.
const MaxFlowLabel = 0xFFFFF

// minDuration is the shortest -D perftest accepts with its default margin of
// 2 s ("please check that DURATION > 2*MARGIN").
const minDuration = 5 * time.Second

// Spec describes one side of one perftest run. The same Spec, with Peer set,
// describes the client; without Peer, the server. Zero fields are left to
// perftest's defaults and not passed.
type Spec struct {
	Test   Test
	Device string // -d: RDMA device, e.g. mlx5_0 or rxe0 (required)
	IBPort int    // -i: port of the device, 1..3 (0: perftest's default 1)
	// GIDIndex is -x: the GID table index, required on RoCE, where it must
	// name the RoCE v2 IPv4 GID found in /sys/class/infiniband/<dev>/ports/<n>/gids.
	// nil lets perftest choose (fine on InfiniBand).
	GIDIndex *int
	// TClass is --tclass: the traffic class in the GRH (RoCE: the IP ToS
	// byte, DSCP<<2|ECN) of connections set up without rdma_cm; nil leaves
	// perftest's 0. Reproduces how NCCL (NCCL_IB_TC) marks its traffic.
	TClass *int
	// FlowLabel is --flow_label: the 20-bit flow label of the GRH,
	// 1..MaxFlowLabel (0: not passed, perftest's 0). On RoCE v2 the
	// drivers that follow the kernel's convention derive the UDP source
	// port of the QP from it (rdma_flow_label_to_udp_sport), so a chosen
	// label pins the ECMP path of the test. perftest sets it only where it
	// sets the GRH itself: with -x (GIDIndex) and without rdma_cm (-R);
	// perftest 23.10 and later (docs/pinned-paths.md).
	FlowLabel int
	// QPTimeout is -u: the QP's local ACK timeout exponent, each try
	// waiting 4.096 µs × 2^QPTimeout before the send is retried (0 leaves
	// perftest's 14, 67 ms; NCCL's NCCL_IB_TIMEOUT defaults to 20, 4.3 s).
	QPTimeout     int
	TCPPort       int           // -p: out-of-band TCP port, unique per concurrent pair (0: 18515)
	ReportGbits   bool          // --report_gbits: bandwidth in Gb/s instead of MB/s
	IgnoreFreq    bool          // -F: do not fail when the CPU frequency is not at its maximum
	Duration      time.Duration // -D: run for this long (whole seconds, > 4 s); exclusive with Iterations
	Iterations    int           // -n: exchanges per size (5..100000000); exclusive with Duration
	Size          int64         // -s: message size in bytes; exclusive with AllSizes
	AllSizes      bool          // -a: every size from 2 bytes to 8 MiB
	QPs           int           // -q: queue pairs (1..16384; bandwidth tests only)
	RDMACM        bool          // -R: connect the QPs through rdma_cm
	Bidirectional bool          // -b: traffic both ways (bandwidth tests only)
	// JSONFile, when set, adds --out_json --out_json_file=JSONFile (perftest
	// releases that support it; see ParseJSON for the old invalid format).
	JSONFile string
	// Peer is the server's address for the client side; empty for the server.
	// Use the RoCE interface's IP with RDMACM.
	Peer string
}

// Validate reports, in one error per problem joined together, what perftest
// would reject or what would make the run ambiguous.
func (s Spec) Validate() error {
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	if !s.Test.Valid() {
		bad("test %q is not one of the ib_{write,read,send,atomic}_{bw,lat} binaries", s.Test.String())
	}
	if s.Device == "" {
		bad("device is required")
	} else if !argSafe(s.Device) {
		bad("device %q must not start with '-' or contain spaces", s.Device)
	}
	if s.IBPort < 0 || s.IBPort > 3 {
		bad("ib port %d is outside 1..3", s.IBPort)
	}
	if s.GIDIndex != nil && (*s.GIDIndex < 0 || *s.GIDIndex > 255) {
		bad("gid index %d is outside 0..255", *s.GIDIndex)
	}
	if s.TClass != nil && (*s.TClass < 0 || *s.TClass > 255) {
		bad("traffic class %d is outside 0..255", *s.TClass)
	}
	if s.FlowLabel < 0 || s.FlowLabel > MaxFlowLabel {
		bad("flow label %d is outside 1..%d", s.FlowLabel, MaxFlowLabel)
	} else if s.FlowLabel != 0 && s.RDMACM {
		bad("a flow label (--flow_label) is not applied to connections set up through rdma_cm (-R)")
	} else if s.FlowLabel != 0 && s.GIDIndex == nil {
		bad("a flow label (--flow_label) needs a GRH: set the GID index (-x)")
	}
	if s.QPTimeout < 0 || s.QPTimeout > MaxQPTimeout {
		bad("qp timeout %d is outside 1..%d", s.QPTimeout, MaxQPTimeout)
	}
	if s.TCPPort < 0 || s.TCPPort > 65535 {
		bad("tcp port %d is outside 1..65535", s.TCPPort)
	}
	if s.Duration != 0 && s.Iterations != 0 {
		bad("duration and iterations are exclusive")
	}
	if s.Duration != 0 {
		if s.Duration%time.Second != 0 {
			bad("duration %s is not a whole number of seconds", s.Duration)
		}
		if s.Duration < minDuration {
			bad("duration %s is too short: perftest needs more than twice its 2 s margin (at least %s)", s.Duration, minDuration)
		}
	}
	if s.Iterations != 0 && (s.Iterations < 5 || s.Iterations > 100000000) {
		bad("iterations %d is outside 5..100000000", s.Iterations)
	}
	if s.Size < 0 {
		bad("size %d is negative", s.Size)
	}
	if s.AllSizes && s.Size != 0 {
		bad("size and all sizes are exclusive")
	}
	if s.AllSizes && s.Duration != 0 {
		bad("all sizes (-a) cannot run for a duration (-D)")
	}
	if s.QPs < 0 || s.QPs > 16384 {
		bad("queue pairs %d is outside 1..16384", s.QPs)
	}
	if s.Test.Kind == Lat && (s.Bidirectional || s.QPs > 1) {
		bad("bidirectional traffic and several queue pairs exist only in bandwidth tests")
	}
	if s.JSONFile != "" && (!argSafe(s.JSONFile) || strings.ContainsRune(s.JSONFile, '=')) {
		bad("json file %q must not start with '-' or contain spaces or '='", s.JSONFile)
	}
	if s.Peer != "" && !argSafe(s.Peer) {
		bad("peer %q must not start with '-' or contain spaces", s.Peer)
	}
	if len(probs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrBadSpec, strings.Join(probs, "; "))
}

// argSafe rejects values that perftest's getopt would take for an option, or
// that a careless shell join would split.
func argSafe(v string) bool {
	return !strings.HasPrefix(v, "-") && !strings.ContainsAny(v, " \t\n\x00")
}

// Args returns the argv of the perftest process for s, binary first, as a
// fixed list to exec directly (never a shell string). The order is stable.
func Args(s Spec) ([]string, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("building %s arguments: %w", s.Test.Binary(), err)
	}
	argv := []string{s.Test.Binary(), "-d", s.Device}
	if s.IBPort != 0 {
		argv = append(argv, "-i", strconv.Itoa(s.IBPort))
	}
	if s.GIDIndex != nil {
		argv = append(argv, "-x", strconv.Itoa(*s.GIDIndex))
	}
	if s.TClass != nil {
		argv = append(argv, "--tclass="+strconv.Itoa(*s.TClass))
	}
	if s.FlowLabel != 0 {
		argv = append(argv, "--flow_label="+strconv.Itoa(s.FlowLabel))
	}
	if s.QPTimeout != 0 {
		argv = append(argv, "-u", strconv.Itoa(s.QPTimeout))
	}
	if s.TCPPort != 0 {
		argv = append(argv, "-p", strconv.Itoa(s.TCPPort))
	}
	if s.ReportGbits {
		argv = append(argv, "--report_gbits")
	}
	if s.IgnoreFreq {
		argv = append(argv, "-F")
	}
	if s.Duration != 0 {
		argv = append(argv, "-D", strconv.Itoa(int(s.Duration/time.Second)))
	}
	if s.Iterations != 0 {
		argv = append(argv, "-n", strconv.Itoa(s.Iterations))
	}
	if s.AllSizes {
		argv = append(argv, "-a")
	}
	if s.Size != 0 {
		argv = append(argv, "-s", strconv.FormatInt(s.Size, 10))
	}
	if s.QPs != 0 {
		argv = append(argv, "-q", strconv.Itoa(s.QPs))
	}
	if s.RDMACM {
		argv = append(argv, "-R")
	}
	if s.Bidirectional {
		argv = append(argv, "-b")
	}
	if s.JSONFile != "" {
		argv = append(argv, "--out_json", "--out_json_file="+s.JSONFile)
	}
	if s.Peer != "" {
		argv = append(argv, s.Peer)
	}
	return argv, nil
}
