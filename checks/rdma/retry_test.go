package rdma

import (
	"math"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/perftest"
)

// pairOfFleet is the first two endpoints of a fake fleet (in-process
// agents, the fake perftest).
func pairOfFleet(t *testing.T) (Endpoint, Endpoint) {
	t.Helper()
	usePath(t, fakePath(t, ""))
	eps, _ := fleet(t, nil, nil)
	return eps[0], eps[1]
}

func hasEvidence(r checks.Result, sub string) bool {
	for _, e := range r.Evidence {
		if strings.Contains(e, sub) {
			return true
		}
	}
	return false
}

// TestRetryPortInUse: the server's out-of-band port is taken; the run is
// retried on another port and then measures, with the retry in evidence.
func TestRetryPortInUse(t *testing.T) {
	srv, cli := pairOfFleet(t)
	port := freePort(t)
	ln, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if l2, err := net.Listen("tcp", ":"+strconv.Itoa(port+portStride)); err != nil {
		t.Skipf("port %d is taken too", port+portStride)
	} else {
		l2.Close()
	}
	run := RunPair(t.Context(), srv, cli, Test{Test: perftest.WriteBW, Iterations: 100, Timeout: 20 * time.Second, Retries: 1}, port)
	res := Judge(run, Thresholds{})
	if run.Attempts != 2 || run.TCPPort != port+portStride || res.Status != checks.StatusPass {
		t.Fatalf("attempts %d on port %d: %s %s %s", run.Attempts, run.TCPPort, res.Status, res.Class, res.Summary)
	}
	if !hasEvidence(res, "run again: attempt 1: the out-of-band TCP port is held by another process") {
		t.Errorf("evidence %q", res.Evidence)
	}
	// Without retries it is an error of the measurement, not of the link.
	run = RunPair(t.Context(), srv, cli, Test{Test: perftest.WriteBW, Iterations: 100, Timeout: 20 * time.Second}, port)
	res = Judge(run, Thresholds{})
	if res.Status != checks.StatusError || res.Class != checks.PortInUse || !strings.HasPrefix(res.Summary, "measurement error, not a verdict on the link") {
		t.Errorf("no retries: %s %s %s", res.Status, res.Class, res.Summary)
	}
}

// TestRetryClockCalibration: an iteration-mode run whose clock calibration
// fails has no number: it is run again; when the failure persists beyond
// the retries the result is an error of the measurement naming the cause.
func TestRetryClockCalibration(t *testing.T) {
	srv, cli := pairOfFleet(t)
	t.Setenv("FAKE_STATE", t.TempDir())
	t.Setenv("FAKE_CALIB_FAILS", "1")
	test := Test{Test: perftest.WriteBW, Iterations: 100, Timeout: 20 * time.Second, Retries: 2}
	run := RunPair(t.Context(), srv, cli, test, freePort(t))
	if res := Judge(run, Thresholds{}); run.Attempts != 2 || res.Status != checks.StatusPass || !hasEvidence(res, "CPU clock could not be calibrated") {
		t.Errorf("one failed calibration: attempts %d, %s %s %q", run.Attempts, res.Status, res.Summary, res.Evidence)
	}
	t.Setenv("FAKE_STATE", t.TempDir())
	t.Setenv("FAKE_CALIB_FAILS", "5")
	run = RunPair(t.Context(), srv, cli, test, freePort(t))
	res := Judge(run, Thresholds{})
	if run.Attempts != 3 || res.Status != checks.StatusError || res.Class != checks.ClockCalibration ||
		!strings.Contains(res.Summary, "measurement error, not a verdict on the link") || !strings.Contains(res.Summary, "after 3 attempts") {
		t.Errorf("persistent: attempts %d, %s %s %q", run.Attempts, res.Status, res.Class, res.Summary)
	}
}

// TestClockCalibrationEstimatedInDurationMode: in duration mode the
// iteration count of the alarm-timed window still measures the bandwidth:
// no retry, a number, and the evidence says how it was computed.
func TestClockCalibrationEstimatedInDurationMode(t *testing.T) {
	srv, cli := pairOfFleet(t)
	t.Setenv("FAKE_STATE", t.TempDir())
	t.Setenv("FAKE_CALIB_FAILS", "1")
	run := RunPair(t.Context(), srv, cli, Test{Test: perftest.WriteBW, Duration: 5 * time.Second, Timeout: 20 * time.Second, Retries: 2}, freePort(t))
	res := Judge(run, Thresholds{})
	v, _ := res.Measurement(MeasBWAverage)
	want := 1000 * 65536 * 8 / 3.0 / 1e9 // the fake's 1000 iterations of 64 KiB over -D 5's 3 s window
	if run.Attempts != 1 || res.Status != checks.StatusPass || math.Abs(v.Value-want) > 1e-9 {
		t.Fatalf("attempts %d, %s %s, bandwidth %v want %v", run.Attempts, res.Status, res.Summary, v.Value, want)
	}
	if !hasEvidence(res, "computed from the iteration counts over the 3s sampling window of -D 5") {
		t.Errorf("evidence %q", res.Evidence)
	}
}

func TestSampleWindow(t *testing.T) {
	for d, want := range map[time.Duration]time.Duration{5 * time.Second: 3 * time.Second, 8 * time.Second: 4 * time.Second,
		10 * time.Second: 6 * time.Second, 30 * time.Second: 16 * time.Second} {
		if got := SampleWindow(d); got != want {
			t.Errorf("SampleWindow(%s) = %s, want %s", d, got, want)
		}
	}
}

// TestEstimatedBothWays: with traffic both ways each side's row counts its
// own completions; the estimate is their sum. A missing row gives none.
func TestEstimatedBothWays(t *testing.T) {
	row := func(iters int) string {
		return "---\n #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n 65536      " +
			strconv.Itoa(iters) + "           0.000000            0.000000            0.000000\n---\n"
	}
	r := PairRun{Server: Endpoint{Host: "a", Device: "rxe0"}, Client: Endpoint{Host: "b", Device: "rxe0"},
		Test:      Test{Test: perftest.WriteBW, Duration: 8 * time.Second, Bidirectional: true},
		ServerOut: &Outcome{Role: Server, Stdout: row(50)},
		ClientOut: &Outcome{Role: Client, Stdout: row(70), Stderr: "Correlation coefficient r^2: 0.506356 < 0.9\n"}}
	v, ok := r.Estimated()
	if want := 120 * 65536 * 8 / 4.0 / 1e9; !ok || math.Abs(v-want) > 1e-12 {
		t.Errorf("estimate %v %v, want %v", v, ok, want)
	}
	r.ServerOut.Stdout = "garbage"
	if _, ok := r.Estimated(); ok {
		t.Error("estimated without the server's row")
	}
	r.ServerOut.Stdout, r.Test.Duration, r.Test.Iterations = row(50), 0, 1000
	if _, ok := r.Estimated(); ok {
		t.Error("estimated an iteration-mode run")
	}
}
