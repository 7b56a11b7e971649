package localize_test

import (
	"context"
	"testing"

	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/testkit/localizesim"
)

// fabric1024 is the benchmark's simulated fabric (1,024 hosts, 32 leaves,
// 8 spines) with three faults, its model and the topology schedule.
func fabric1024(b *testing.B, seed uint64) (*localizesim.Sim, *localize.Model, []schedule.Round) {
	b.Helper()
	sim := localizesim.New(localizesim.Default(), seed)
	sim.Inject(3)
	m, err := localize.NewModel(sim.Topology(), localize.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rounds, err := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, schedule.DefaultTopologyRounds)
	if err != nil {
		b.Fatal(err)
	}
	return sim, m, rounds
}

// BenchmarkModel1024 builds the failure model of a 1,024-host fabric.
func BenchmarkModel1024(b *testing.B) {
	sim := localizesim.New(localizesim.Default(), 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := localize.NewModel(sim.Topology(), localize.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyze1024 analyses the 2,048 tests of the four schedule
// rounds of a 1,024-host fabric with three faults.
func BenchmarkAnalyze1024(b *testing.B) {
	sim, m, rounds := fabric1024(b, 7)
	l := localize.New(m, localize.Options{})
	for i, r := range rounds {
		obs, err := sim.RunRound(context.Background(), i, r)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Add(obs...); err != nil {
			b.Fatal(err)
		}
	}
	read, moved, _ := sim.ReadCounters(context.Background())
	l.SetCounters(read, moved)
	b.ReportAllocs()
	for b.Loop() {
		l.SetCounters(read, moved) // drops the analysis Analyze keeps for unchanged data
		if r := l.Analyze(); len(r.Suspects) == 0 {
			b.Fatal("no suspect")
		}
	}
}

// BenchmarkSession1024 runs a whole session on a 1,024-host fabric with
// three faults: the schedule's rounds, the re-tests, the analysis.
func BenchmarkSession1024(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		sim, m, rounds := fabric1024(b, uint64(100+i))
		b.StartTimer()
		if _, err := localize.Run(context.Background(), m, sim, rounds, localize.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
