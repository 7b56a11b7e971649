package checks

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// Status is the verdict of one Result.
type Status string

// The statuses, from best to worst (see Worst).
const (
	StatusPass  Status = "pass"  // the property holds
	StatusSkip  Status = "skip"  // the check does not apply (no GPU, IB-only test on RoCE, …)
	StatusWarn  Status = "warn"  // works, but something deserves a look (outlier, counter noise)
	StatusFail  Status = "fail"  // the property does not hold: the fabric is broken here
	StatusError Status = "error" // the check could not decide (tool missing, host unreachable)
)

var statusRank = map[Status]int{StatusPass: 0, StatusSkip: 1, StatusWarn: 2, StatusFail: 3, StatusError: 4}

// Valid reports whether s is one of the five statuses.
func (s Status) Valid() bool { _, ok := statusRank[s]; return ok }

// UnmarshalText rejects unknown statuses so that reports read back strictly.
func (s *Status) UnmarshalText(b []byte) error {
	v := Status(b)
	if !v.Valid() {
		return fmt.Errorf("parsing status %q: %w", b, ErrUnknownStatus)
	}
	*s = v
	return nil
}

// Worse reports whether s is a worse verdict than t (error > fail > warn > skip > pass).
func (s Status) Worse(t Status) bool { return statusRank[s] > statusRank[t] }

// Worst returns the worst status among results, or StatusPass for none.
func Worst(results []Result) Status {
	w := StatusPass
	for _, r := range results {
		if r.Status.Worse(w) {
			w = r.Status
		}
	}
	return w
}

// FailureClass names the cause of a failed or errored Result, so that a report
// can group "QP bring-up on 3 pairs" instead of listing 3 stack traces.
type FailureClass string

// The failure classes. The string values are stable: reports and tests key on them.
const (
	// OOBConnect: the TCP/rdma_cm out-of-band exchange failed ("Couldn't connect to
	// host:18515", "Unable to init the socket connection", "Couldn't read remote address").
	OOBConnect FailureClass = "oob-connect"
	// QPBringUp: ibv_modify_qp to INIT/RTR/RTS failed; for RoCE almost always the GID
	// index, MTU, GRH or pkey ("Failed to modify QP to RTR").
	QPBringUp FailureClass = "qp-bringup"
	// CompletionError: a work completion came back with an error status
	// (retry exceeded, remote access, transport errors).
	CompletionError FailureClass = "completion-error"
	// ArgumentError: the tool rejected its command line ("Parser function exited with Error").
	ArgumentError FailureClass = "argument-error"
	// LowBandwidth: the measured bandwidth is under the absolute or relative floor.
	LowBandwidth FailureClass = "low-bandwidth"
	// HighLatency: the measured latency is over the bound.
	HighLatency FailureClass = "high-latency"
	// CounterEvidence: counters moved during the test (retransmits, out-of-sequence,
	// pause frames, ECN marks, CNPs) beyond the healthy baseline.
	CounterEvidence FailureClass = "counter-evidence"
	// Timeout: the test did not finish in time (a black-holed path, a hung peer).
	Timeout FailureClass = "timeout"
	// MissingTool: a required binary (ib_write_bw, show_gids, nvidia-smi) is not installed.
	MissingTool FailureClass = "missing-tool"
	// ClockCalibration: perftest could not calibrate the CPU clock
	// ("Correlation coefficient r^2: … < 0.9"), common in VMs; its timings are void.
	ClockCalibration FailureClass = "clock-calibration"
	// NoDevice: the RDMA device named does not exist on the host ("IB device mlx5_9 not found").
	NoDevice FailureClass = "no-device"
	// PortDown: the port is not ACTIVE ("Port number 1 state is Down").
	PortDown FailureClass = "port-down"
	// SetupTimeout: the test never started: the server did not listen on
	// its out-of-band port in time (a slow or overloaded host).
	SetupTimeout FailureClass = "setup-timeout"
	// PortInUse: the server could not listen on its out-of-band TCP port
	// ("Couldn't listen to port 18600"): another process holds it.
	PortInUse FailureClass = "port-in-use"
	// Resources: the device refused a verbs object (a QP, CQ, MR, PD) or
	// a post ("Unable to create QP", "Couldn't allocate MR"): device limits,
	// memory pinning, or a feature the device or driver lacks.
	Resources FailureClass = "resources"
)

var classHelp = map[FailureClass]string{
	OOBConnect:       "the out-of-band TCP/rdma_cm exchange failed: peer not listening, firewall, wrong address or port",
	QPBringUp:        "the queue pair could not reach RTR/RTS: check the GID index (RoCE v2 IPv4 GID), MTU, GRH and pkey",
	CompletionError:  "a work completion returned an error: retries exhausted, path lost or remote access denied",
	ArgumentError:    "the tool rejected its arguments",
	LowBandwidth:     "bandwidth below the floor",
	HighLatency:      "latency above the bound",
	CounterEvidence:  "error or congestion counters moved during the test",
	Timeout:          "the test did not finish in time",
	MissingTool:      "a required tool is not installed",
	ClockCalibration: "the CPU clock could not be calibrated, so timings are not trustworthy",
	NoDevice:         "the RDMA device does not exist",
	PortDown:         "the port is not active",
	SetupTimeout:     "the test never started: the server did not listen on its out-of-band port in time",
	PortInUse:        "the out-of-band TCP port is held by another process",
	Resources:        "the device refused a verbs object (QP, CQ, MR, PD) or a post: limits, memory pinning, or a feature the device lacks",
}

// measurementClasses are the causes that void a measurement without saying
// anything about the link: the tool, its clock or its set-up failed.
var measurementClasses = map[FailureClass]bool{
	OOBConnect: true, ClockCalibration: true, SetupTimeout: true, PortInUse: true,
	MissingTool: true, ArgumentError: true,
}

// Measurement reports whether c is a failure of the measurement itself (the
// tool, its clock, its out-of-band exchange or set-up) rather than of the
// link under test: such a test decided nothing about the link.
func (c FailureClass) Measurement() bool { return measurementClasses[c] }

// Describe says in one line what the class means and where to look.
func (c FailureClass) Describe() string {
	if h, ok := classHelp[c]; ok {
		return h
	}
	return string(c)
}

// Valid reports whether c is one of the classes above.
func (c FailureClass) Valid() bool { _, ok := classHelp[c]; return ok }

// Unit is the unit of a Measurement, written the way users read it.
type Unit string

// Units used by the checks.
const (
	UnitGbps    Unit = "Gb/s"   // gigabits per second (perftest --report_gbits)
	UnitMBps    Unit = "MB/s"   // mebibytes per second (perftest default, 2^20 bytes)
	UnitGBps    Unit = "GB/s"   // gigabytes per second (nccl-tests algbw/busbw)
	UnitMpps    Unit = "Mpps"   // million messages per second
	UnitUsec    Unit = "us"     // microseconds
	UnitCycles  Unit = "cycles" // CPU cycles (perftest -C)
	UnitBytes   Unit = "B"
	UnitCount   Unit = "count"
	UnitPercent Unit = "%"
)

// Measurement is one number a check measured, with its unit.
type Measurement struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  Unit    `json:"unit"`
}

// Result is what a check proved about one target.
type Result struct {
	ID           string        `json:"id"`     // the check, e.g. "preflight/port-active", "pairwise/write_bw"
	Target       string        `json:"target"` // host, host/device, or "a/dev->b/dev" for a pair
	Status       Status        `json:"status"`
	Class        FailureClass  `json:"class,omitempty"` // set when Status is fail or error
	Summary      string        `json:"summary"`
	Measurements []Measurement `json:"measurements,omitempty"`
	Evidence     []string      `json:"evidence,omitempty"` // what a human needs to see to believe the verdict
	// CounterKinds are the kinds of the counters that moved beyond the
	// healthy baseline during the test (checks/evaluate's Kind:
	// "retransmit", "out-of-sequence", "pause", …), each once, in the
	// order first seen: what the evidence lines say, for programs. A
	// failure with a loss kind among them lost packets, whatever its class.
	// fabricctl extension.
	CounterKinds []string `json:"counterKinds,omitempty"`
}

// Measurement returns the first measurement called name.
func (r Result) Measurement(name string) (Measurement, bool) {
	for _, m := range r.Measurements {
		if m.Name == name {
			return m, true
		}
	}
	return Measurement{}, false
}

// ErrorResult builds the Result of a check that could not decide because of err.
func ErrorResult(id, target string, class FailureClass, err error) Result {
	return Result{ID: id, Target: target, Status: StatusError, Class: class, Summary: err.Error()}
}

// Sort orders results by ID, then Target, so reports and JSON are stable.
func Sort(results []Result) {
	slices.SortStableFunc(results, func(a, b Result) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Target, b.Target))
	})
}

// Check is one unit of work: a runner calls Run, possibly concurrently with other
// Checks, and collects the Results. Run never panics on bad input and reports
// problems as Results with StatusError instead of returning an error, so that a
// sweep continues past a broken host. Run must return when ctx is done.
type Check interface {
	// ID names the check, e.g. "loopback/write_bw"; every Result it returns carries it.
	ID() string
	// Run performs the check and returns at least one Result.
	Run(ctx context.Context) []Result
}
