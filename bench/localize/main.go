package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/testkit/localizesim"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "localize:", err)
		os.Exit(1)
	}
}

func envInt(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q is not a count", name, v)
	}
	return n, nil
}

func run() error {
	trials, err := envInt("TRIALS", 100)
	if err != nil {
		return err
	}
	seed, err := envInt("SEED", 1)
	if err != nil {
		return err
	}
	cfg := localizesim.Default()
	switch ev := os.Getenv("EVIDENCE"); ev {
	case "", "switches":
	case "hosts":
		cfg.SwitchCounters = false
	default:
		return fmt.Errorf("EVIDENCE=%q: want switches or hosts", ev)
	}
	if v := os.Getenv("SILENT"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 1 {
			return fmt.Errorf("SILENT=%q is not a share 0..1", v)
		}
		cfg.Silent = f
	}
	faultCounts := []int{0, 1, 3}
	if v := os.Getenv("FAULTS"); v != "" {
		faultCounts = nil
		for _, s := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 0 {
				return fmt.Errorf("FAULTS=%q: want counts like 1,3", v)
			}
			faultCounts = append(faultCounts, n)
		}
	}
	// The topology is the same in every trial: build the model once.
	m, err := localize.NewModel(localizesim.New(cfg, 0).Topology(), localize.Options{})
	if err != nil {
		return err
	}
	rounds, err := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, schedule.DefaultTopologyRounds)
	if err != nil {
		return err
	}
	for _, k := range faultCounts {
		res := make([]verdict, trials)
		var wg sync.WaitGroup
		next := make(chan int)
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := range next {
					res[i] = trial(cfg, m, rounds, k, uint64(seed)*1_000_003+uint64(k)*10_007+uint64(i))
				}
			})
		}
		for i := range trials {
			next <- i
		}
		close(next)
		wg.Wait()
		var exact, ambiguous, wrong, maxRounds, sumRounds int
		for _, r := range res {
			sumRounds += r.rounds
			switch r.class {
			case classExact:
				exact++
			case classAmbiguous:
				ambiguous++
			default:
				wrong++
			}
			maxRounds = max(maxRounds, r.rounds)
			if r.class == classWrong && os.Getenv("VERBOSE") != "" {
				fmt.Fprintf(os.Stderr, "wrong: seed %d faults %v suspects %v\n", r.seed, r.truth, r.got)
			}
		}
		frac := func(n int) string {
			if trials == 0 {
				return "0"
			}
			return strconv.FormatFloat(float64(n)/float64(trials), 'f', 3, 64)
		}
		fmt.Printf("localize: hosts=%d faults=%d trials=%d exact=%s ambiguous=%s wrong=%s rounds=%d\n",
			cfg.Hosts, k, trials, frac(exact), frac(ambiguous), frac(wrong), maxRounds)
		if trials > 0 {
			fmt.Fprintf(os.Stderr, "localize: faults=%d mean rounds %.2f\n", k, float64(sumRounds)/float64(trials))
		}
	}
	return nil
}

type class int

const (
	classExact class = iota
	classAmbiguous
	classWrong
)

type verdict struct {
	seed   uint64
	class  class
	rounds int
	truth  []string
	got    [][]string
}

func trial(cfg localizesim.Config, m *localize.Model, rounds []schedule.Round, k int, seed uint64) verdict {
	sim := localizesim.New(cfg, seed)
	var truth []string
	for _, f := range sim.Inject(k) {
		truth = append(truth, f.Component)
	}
	s, err := localize.Run(context.Background(), m, sim, rounds, localize.Options{})
	v := verdict{seed: seed, rounds: s.Rounds, truth: truth}
	for _, sus := range s.Suspects {
		set := []string{sus.Component}
		for _, a := range sus.Alternatives {
			set = append(set, a.Component)
		}
		v.got = append(v.got, set)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "localize: trial:", err)
		v.class = classWrong
		return v
	}
	v.class = Classify(truth, v.got)
	return v
}

// Classify judges one trial (docs/localisation.md): exact when the
// suspects are the faults, one each, with no alternatives; ambiguous when
// every fault is among the suspects and their alternatives and every
// suspect's set holds a fault; wrong otherwise.
func Classify(truth []string, sets [][]string) class {
	covered := map[string]bool{}
	single := len(sets) == len(truth)
	for _, set := range sets {
		hit := false
		for _, c := range set {
			if slices.Contains(truth, c) {
				hit = true
				covered[c] = true
			}
		}
		if !hit {
			return classWrong
		}
		single = single && len(set) == 1
	}
	for _, t := range truth {
		if !covered[t] {
			return classWrong
		}
	}
	if single {
		return classExact
	}
	return classAmbiguous
}
