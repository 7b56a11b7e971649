package slurm_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/action/check"
	"github.com/fabricctl/fabricctl/action/launch/slurm"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/testkit/slurmsim"
)

// peakHeap samples the live heap every 20 ms until stop is called and returns the highest.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

// BenchmarkSweepSimulated runs the controller side of `check --launcher slurm` over a simulated
// Slurm of n nodes: the preflight step and a pairwise ring (2 rounds), plus one round of the
// all-pairs schedule (n/2 pairs) to size the steps of the schedule that needs n−1 of them. The
// simulated nodes' own work (building and framing their results, in this process) is subtracted,
// so the times are fabricctl's: building and encoding the specs, reading back every framed
// result, judging. Reported per run: srun steps, the largest
// spec on srun's command line, the peak heap (the simulated nodes' work included), the heap the
// report and the round's runs retain, and the size of the all-pairs plan.
//
//	go test -run '^$' -bench SweepSimulated -benchtime 1x ./action/launch/slurm/
func BenchmarkSweepSimulated(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			sim := newSim(b, fmt.Sprintf("gpu[00001-%05d]", n))
			hs := hosts(b, n, nil)
			for i := range hs {
				hs[i].Intent.Host = fmt.Sprintf("gpu%05d", i+1)
			}
			checksRing := &fabric.Checks{Preflight: &fabric.Preflight{}, Pairwise: &fabric.Pairwise{Schedule: string(schedule.KindRing), Test: "write_bw"}}
			for b.Loop() {
				c := slurmsim.New(fmt.Sprintf("gpu[00001-%05d]", n))
				c.Task = sim.Task
				runtime.GC()
				stop := peakHeap()
				t0 := time.Now()
				l := &slurm.Launcher{Run: c}
				rep, err := check.Run(context.Background(), "sim", hs, check.Options{Checks: checksRing,
					Suites: []report.Suite{report.SuitePreflight, report.SuitePairwise}, Launcher: l})
				if err != nil {
					b.Fatal(err)
				}
				wall := time.Since(t0) - c.NodeTime()
				// one all-pairs round: n/2 disjoint pairs in one step; the whole plan (n−1 rounds)
				// is built as the sweep would, and its size reported
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				plan, err := schedule.Build(schedule.KindAllPairs, func() []schedule.Host {
					var out []schedule.Host
					for _, h := range hs {
						out = append(out, schedule.Host{Name: h.Intent.Host})
					}
					return out
				}())
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				var after runtime.MemStats
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "allpairs-plan-MiB")
				round := plan.Rounds[0]
				nRounds := len(plan.Rounds)
				plan = schedule.Plan{}
				eps := map[string]rdma.Endpoint{}
				gid := 1
				for _, h := range hs {
					eps[h.Intent.Host] = rdma.Endpoint{Host: h.Intent.Host, Address: h.Intent.Address, Device: "rxe0", Port: 1, GIDIndex: &gid}
				}
				var jobs []rdma.Job
				for i, p := range round {
					jobs = append(jobs, rdma.Job{Server: eps[p.Server], Client: eps[p.Client], Test: rdma.Test{Duration: 5 * time.Second}, TCPPort: 18600 + i})
				}
				t1, n1 := time.Now(), c.NodeTime()
				runs := l.RunRound(context.Background(), jobs)
				roundWall := time.Since(t1) - (c.NodeTime() - n1)
				peak := stop()
				steps := l.Steps()
				c, l = nil, nil // the simulated cluster and the launcher's records are not the controller's data
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "retained-heap-MiB")
				runtime.KeepAlive(rep)
				runtime.KeepAlive(runs)
				for _, r := range runs {
					if r.Err != nil {
						b.Fatal(r.Err)
					}
				}
				if w := checks.Worst(rep.Results); w == checks.StatusError || w == checks.StatusFail {
					b.Fatalf("simulated healthy fleet: worst %s", w)
				}
				b.ReportMetric(float64(len(steps)), "steps")
				b.ReportMetric(float64(steps[0].ArgBytes), "preflight-spec-B")
				b.ReportMetric(float64(steps[len(steps)-1].ArgBytes), "allpairs-round-spec-B")
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
				b.ReportMetric(wall.Seconds(), "preflight+ring-s")
				b.ReportMetric(roundWall.Seconds(), "allpairs-round-s")
				b.ReportMetric(float64(nRounds), "allpairs-rounds")
			}
		})
	}
}

var benchSizes = []int{1000, 10000}
