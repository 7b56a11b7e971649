package rdma

import (
	"fmt"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/perftest"
)

// Measurement names in Results.
const (
	MeasBWAverage = "bw_average" // Gb/s, the client's final row
	MeasBWPeak    = "bw_peak"    // Gb/s
	MeasMsgRate   = "msg_rate"   // Mpps
	MeasLatency   = "t_avg"      // us (t_typical when perftest printed no t_avg)
	MeasWall      = "wall"       // seconds the pair took, setup included
	MeasAttempts  = "attempts"   // runs it took (retries of measurement failures)
)

// Thresholds judge a run.
type Thresholds struct {
	// MinPercentOfPortRate is the absolute floor (0 = none).
	MinPercentOfPortRate float64
	// PortRateGbps, when set, is the rate the absolute floor is a
	// percentage of, instead of the rate the ports report (sysfs): an
	// emulated fabric declares its measured envelope here.
	PortRateGbps float64
	// MaxLatency bounds latency tests (0 = none).
	MaxLatency time.Duration
	// RelativeFloor is the outlier fraction of the fleet's best
	// (0: evaluate.DefaultRelativeFloor).
	RelativeFloor float64
}

func (th Thresholds) relative() float64 {
	if th.RelativeFloor <= 0 || th.RelativeFloor > 1 {
		return evaluate.DefaultRelativeFloor
	}
	return th.RelativeFloor
}

// ID is the check ID of a run: "pairwise/write_bw" or "loopback/write_bw".
func (r PairRun) ID() string {
	if r.Loopback() {
		return "loopback/" + r.Test.Test.String()
	}
	return "pairwise/" + r.Test.Test.String()
}

// Target is "server/dev->client/dev" for a pair and "host/dev" for a loopback.
func (r PairRun) Target() string {
	if r.Loopback() {
		return r.Server.Name()
	}
	return r.Server.Name() + "->" + r.Client.Name()
}

// Value returns the run's headline number: the client's average bandwidth
// in Gb/s, or its latency in µs for latency tests. A bandwidth run whose
// only failure is perftest's clock calibration has the number Estimated
// gives.
func (r PairRun) Value() (float64, bool) {
	if r.Err != nil {
		return 0, false
	}
	if f, failed := r.Failure(); failed {
		if f.Class == checks.ClockCalibration {
			return r.Estimated()
		}
		return 0, false
	}
	rep := r.ClientOut.Report()
	if rep == nil {
		return 0, false
	}
	if r.Test.Test.Kind == perftest.Lat {
		if len(rep.Lat) == 0 {
			return 0, false
		}
		row := rep.Lat[len(rep.Lat)-1]
		if row.TAvg != 0 {
			return row.TAvg, true
		}
		return row.TTypical, row.TTypical != 0
	}
	row, ok := rep.Final()
	if !ok {
		return 0, false
	}
	return perftest.ToGbps(row.BWAverage, rep.BWUnit), true
}

// SampleWindow is how long perftest samples a duration-mode (-D) test: it
// counts completions between two alarm(2) signals, D−2·margin seconds
// apart, with its default margin of ⌊D/4⌋ seconds (perftest_parameters.c).
func SampleWindow(d time.Duration) time.Duration {
	secs := int(d / time.Second)
	return time.Duration(secs-2*(secs/4)) * time.Second
}

// Estimated returns the bandwidth of a duration-mode bandwidth run whose
// perftest could not calibrate its CPU clock ("Correlation coefficient r^2
// … < 0.9", common under emulation and load). perftest then prints rows
// whose bandwidth columns are void, but their #iterations column still
// counts the completions of the sampling window, whose length alarm(2)
// sets (SampleWindow): the bandwidth is iterations × message size over the
// window, summed over both sides when traffic ran both ways. false when the
// run is not such a run or a side's row is missing.
func (r PairRun) Estimated() (float64, bool) {
	if r.Err != nil || r.Test.Test.Kind != perftest.BW || r.Test.Duration <= 0 {
		return 0, false
	}
	f, failed := r.Failure()
	if !failed || f.Class != checks.ClockCalibration {
		return 0, false
	}
	win := SampleWindow(r.Test.Duration).Seconds()
	if win <= 0 {
		return 0, false
	}
	sides := []*Outcome{r.ClientOut}
	if r.Test.Bidirectional && !r.Loopback() {
		sides = append(sides, r.ServerOut)
	}
	var bits float64
	for _, o := range sides {
		rep := o.Report()
		if rep == nil {
			return 0, false
		}
		row, ok := rep.Final()
		if !ok || row.Bytes <= 0 || row.Iterations < 0 {
			return 0, false
		}
		bits += float64(row.Iterations) * float64(row.Bytes) * 8
	}
	return bits / win / 1e9, true
}

// Judge turns a run into a Result. A run that could not measure (an agent
// or the tool failed, perftest's clock or out-of-band exchange failed after
// its retries) is an error of the measurement, never a failure of the link;
// failures of the link keep their cause; otherwise the measurements, the
// absolute floor and the latency bound decide. Relative floors and counter
// evidence need the whole sweep (see Sweep).
func Judge(r PairRun, th Thresholds) (res checks.Result) {
	res = checks.Result{ID: r.ID(), Target: r.Target(), Status: checks.StatusPass}
	defer func() {
		res.Measurements = append(res.Measurements, checks.Measurement{Name: MeasWall, Value: r.Wall.Seconds(), Unit: "s"})
		if r.Attempts > 1 {
			res.Measurements = append(res.Measurements, checks.Measurement{Name: MeasAttempts, Value: float64(r.Attempts), Unit: checks.UnitCount})
			for _, why := range r.Retried {
				res.Evidence = append(res.Evidence, "run again: "+why)
			}
		}
	}()
	if r.Err != nil {
		res.Status = checks.StatusError
		res.Summary = "measurement error, not a verdict on the link: " + r.Err.Error() + attempts(r)
		return res
	}
	if f, failed := r.Failure(); failed && !(f.Class == checks.ClockCalibration && estimated(r)) {
		res.Status, res.Class = checks.StatusFail, f.Class
		res.Summary = f.Class.Describe()
		if f.Detail != "" {
			res.Summary += " (" + f.Detail + ")"
		}
		switch {
		case f.Class == "":
			res.Status = checks.StatusError
		case f.Class.Measurement():
			// The tool, its clock or its set-up failed: the link was not judged.
			res.Status = checks.StatusError
			res.Summary = "measurement error, not a verdict on the link: " + res.Summary + attempts(r)
		}
		if f.Text != "" {
			res.Evidence = append(res.Evidence, strings.TrimSpace(f.Text))
		}
		res.Evidence = append(res.Evidence, perftest.Hints(r.ServerOut.Report(), r.ClientOut.Report())...)
		for _, o := range []*Outcome{r.ServerOut, r.ClientOut} {
			if o != nil && o.TimedOut {
				res.Evidence = append(res.Evidence, fmt.Sprintf("%s on %s: killed after %s (wall-clock bound)", o.Role, hostOf(r, o.Role), o.Wall.Round(time.Millisecond)))
			}
		}
		return res
	}
	v, ok := r.Value()
	if !ok {
		res.Status, res.Class, res.Summary = checks.StatusError, checks.CompletionError, "perftest printed no result row"
		return res
	}
	if r.Test.Test.Kind == perftest.Lat {
		res.Measurements = append(res.Measurements, checks.Measurement{Name: MeasLatency, Value: v, Unit: checks.UnitUsec})
		res.Summary = fmt.Sprintf("%.2f us", v)
		if th.MaxLatency > 0 {
			f, err := evaluate.LatencyBound(v, float64(th.MaxLatency)/float64(time.Microsecond))
			if err == nil {
				evaluate.Merge(&res, f)
			}
		}
		return res
	}
	res.Measurements = append(res.Measurements, checks.Measurement{Name: MeasBWAverage, Value: v, Unit: checks.UnitGbps})
	if f, failed := r.Failure(); failed {
		// Estimated: perftest's own rate columns are void.
		res.Evidence = append(res.Evidence, fmt.Sprintf("%s: perftest could not calibrate its CPU clock, so its rate columns are void; the bandwidth is computed from the iteration counts over the %s sampling window of -D %d",
			strings.TrimSpace(f.Text), SampleWindow(r.Test.Duration), int(r.Test.Duration/time.Second)))
	} else {
		rep := r.ClientOut.Report()
		row, _ := rep.Final()
		res.Measurements = append(res.Measurements,
			checks.Measurement{Name: MeasBWPeak, Value: perftest.ToGbps(row.BWPeak, rep.BWUnit), Unit: checks.UnitGbps},
			checks.Measurement{Name: MeasMsgRate, Value: row.MsgRate, Unit: checks.UnitMpps})
	}
	res.Summary = fmt.Sprintf("%.3f Gb/s", v)
	if v <= 0 {
		// perftest in duration mode ends on time even when nothing got through.
		res.Status, res.Class = checks.StatusFail, checks.LowBandwidth
		res.Summary = "no data moved (0 Gb/s): the path drops RoCE traffic"
		return res
	}
	rate, from := th.PortRateGbps, "declared"
	if rate <= 0 {
		rate, from = minPositive(r.Server.RateGbps, r.Client.RateGbps), "port"
	}
	if th.MinPercentOfPortRate > 0 && rate > 0 {
		if f, err := evaluate.AbsoluteFloor(v, rate, th.MinPercentOfPortRate); err == nil {
			if from == "declared" {
				f.Summary = strings.Replace(f.Summary, "port rate", "declared port rate", 1)
			}
			if f.Status != checks.StatusPass {
				evaluate.Merge(&res, f)
			} else {
				res.Summary = f.Summary[len("ok: "):]
			}
		}
	}
	return res
}

func estimated(r PairRun) bool { _, ok := r.Estimated(); return ok }

func attempts(r PairRun) string {
	if r.Attempts > 1 {
		return fmt.Sprintf(" (after %d attempts)", r.Attempts)
	}
	return ""
}

func hostOf(r PairRun, role Role) string {
	if role == Server {
		return r.Server.Host
	}
	return r.Client.Host
}

func minPositive(a, b float64) float64 {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}

// side is one host/device end of a run with its counter movements.
type side struct {
	host   string
	name   string
	deltas []evaluate.Delta
}

// sides returns each distinct host/device side of a run with its counter
// movements (a loopback on one device has one side).
func (r PairRun) sides() []side {
	var out []side
	if r.ServerOut != nil {
		out = append(out, side{r.Server.Host, r.Server.Name(), r.ServerOut.Deltas()})
	}
	if r.ClientOut != nil && !(r.Loopback() && (r.Client.LoopDevice == "" || r.Client.LoopDevice == r.Client.Device)) {
		name := r.Client.Name()
		if r.Loopback() {
			name = r.Client.Host + "/" + r.Client.LoopDevice
		}
		out = append(out, side{r.Client.Host, name, r.ClientOut.Deltas()})
	}
	return out
}

// gigabytes is the data a bandwidth run moved (its bandwidth over its
// whole duration), 0 when unknown.
func (r PairRun) gigabytes() float64 {
	if r.Test.Test.Kind != perftest.BW || r.Test.Duration <= 0 {
		return 0
	}
	v, ok := r.Value()
	if !ok || v <= 0 {
		return 0
	}
	return v * r.Test.Duration.Seconds() / 8
}

// samples are the counter samples of a run's sides.
func (r PairRun) samples() []hostSample {
	gb := r.gigabytes()
	var out []hostSample
	for _, s := range r.sides() {
		out = append(out, hostSample{host: s.host, peers: []string{r.Server.Host, r.Client.Host},
			Sample: evaluate.Sample{Subject: s.name, Deltas: s.deltas, GB: gb}})
	}
	return out
}

// hostSample is a side's counter sample, with the host it ran on and the
// hosts of its run.
type hostSample struct {
	host  string
	peers []string
	evaluate.Sample
}
