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
)

// Thresholds judge a run.
type Thresholds struct {
	// MinPercentOfPortRate is the absolute floor (0 = none).
	MinPercentOfPortRate float64
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
// in Gb/s, or its latency in µs for latency tests.
func (r PairRun) Value() (float64, bool) {
	if _, failed := r.Failure(); failed || r.Err != nil {
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

// Judge turns a run into a Result: errors when the run decided nothing,
// failures with their cause, measurements and the absolute floor and
// latency bound otherwise. Relative floors and counter evidence need the
// whole sweep (see Sweep).
func Judge(r PairRun, th Thresholds) checks.Result {
	res := checks.Result{ID: r.ID(), Target: r.Target(), Status: checks.StatusPass}
	defer func() {
		res.Measurements = append(res.Measurements, checks.Measurement{Name: MeasWall, Value: r.Wall.Seconds(), Unit: "s"})
	}()
	if r.Err != nil {
		res.Status, res.Summary = checks.StatusError, r.Err.Error()
		return res
	}
	if f, failed := r.Failure(); failed {
		res.Status, res.Class = checks.StatusFail, f.Class
		switch f.Class {
		case checks.MissingTool, checks.ArgumentError, checks.ClockCalibration, "":
			res.Status = checks.StatusError // the tool could not decide
		}
		res.Summary = f.Class.Describe()
		if f.Detail != "" {
			res.Summary += " (" + f.Detail + ")"
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
	rep := r.ClientOut.Report()
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
	row, _ := rep.Final()
	res.Measurements = append(res.Measurements,
		checks.Measurement{Name: MeasBWAverage, Value: v, Unit: checks.UnitGbps},
		checks.Measurement{Name: MeasBWPeak, Value: perftest.ToGbps(row.BWPeak, rep.BWUnit), Unit: checks.UnitGbps},
		checks.Measurement{Name: MeasMsgRate, Value: row.MsgRate, Unit: checks.UnitMpps})
	res.Summary = fmt.Sprintf("%.3f Gb/s", v)
	if v <= 0 {
		// perftest in duration mode ends on time even when nothing got through.
		res.Status, res.Class = checks.StatusFail, checks.LowBandwidth
		res.Summary = "no data moved (0 Gb/s): the path drops RoCE traffic"
		return res
	}
	rate := minPositive(r.Server.RateGbps, r.Client.RateGbps)
	if th.MinPercentOfPortRate > 0 && rate > 0 {
		if f, err := evaluate.AbsoluteFloor(v, rate, th.MinPercentOfPortRate); err == nil {
			if f.Status != checks.StatusPass {
				evaluate.Merge(&res, f)
			} else {
				res.Summary = f.Summary[len("ok: "):]
			}
		}
	}
	return res
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

// sides returns each distinct host/device side of a run with its counter
// movements (a loopback on one device has one side).
func (r PairRun) sides() []side {
	var out []side
	if r.ServerOut != nil {
		out = append(out, side{r.Server.Name(), r.ServerOut.Deltas()})
	}
	if r.ClientOut != nil && !(r.Loopback() && (r.Client.LoopDevice == "" || r.Client.LoopDevice == r.Client.Device)) {
		name := r.Client.Name()
		if r.Loopback() {
			name = r.Client.Host + "/" + r.Client.LoopDevice
		}
		out = append(out, side{name, r.ClientOut.Deltas()})
	}
	return out
}

type side struct {
	name   string
	deltas []evaluate.Delta
}

// baselineSlack is added to every counter of a baseline built from the
// sweep itself, so that counters that stayed at zero in healthy runs may move
// by a few without being evidence.
const baselineSlack = 10

// judgeSweep adds what needs the whole sweep: outliers below the relative
// floor of the best value, and counter movements beyond the baseline (given,
// or built from the healthy runs of the sweep: twice their largest movement
// plus baselineSlack).
func judgeSweep(runs []PairRun, results []checks.Result, th Thresholds, base evaluate.Baseline) evaluate.Baseline {
	best := 0.0
	isBW := len(runs) > 0 && runs[0].Test.Test.Kind == perftest.BW
	for _, r := range runs {
		if v, ok := r.Value(); ok && isBW {
			best = max(best, v)
		}
	}
	outlier := make([]bool, len(runs))
	if best > 0 {
		for i, r := range runs {
			v, ok := r.Value()
			if !ok {
				continue
			}
			f, err := evaluate.RelativeFloor(v, best, th.relative())
			if err == nil && f.Status != checks.StatusPass {
				outlier[i] = true
				evaluate.Merge(&results[i], f)
			}
		}
	}
	if base == nil {
		var healthy [][]evaluate.Delta
		for i, r := range runs {
			if _, ok := r.Value(); ok && !outlier[i] && results[i].Status == checks.StatusPass {
				for _, s := range r.sides() {
					healthy = append(healthy, s.deltas)
				}
			}
		}
		base = evaluate.NewBaseline(healthy...)
		// One healthy test is a small sample: a counter counts as evidence
		// only beyond twice the healthy maximum plus a little.
		for k, v := range base {
			base[k] = 2*v + baselineSlack
		}
	}
	for i, r := range runs {
		if r.Err != nil {
			continue
		}
		for _, s := range r.sides() {
			f, ev := evaluate.EvaluateCounters(s.name, s.deltas, base)
			if f.Status == checks.StatusPass {
				continue
			}
			evaluate.Merge(&results[i], f)
			results[i].Evidence = append(results[i].Evidence, ev...)
		}
	}
	return base
}
