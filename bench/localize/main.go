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
	"github.com/fabricctl/fabricctl/fabric"
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

// driver is how a trial drives the localiser after the schedule's rounds
// (DRIVER): driverRun is localize.Run, driverRefine localize.Refine as
// fabricctl check drives it.
type driver string

const (
	driverRun    driver = "run"
	driverRefine driver = "refine"
)

// refineRounds bounds Refine's re-test rounds (REFINE_ROUNDS): by
// default fabricctl check's own bound, spec.checks.pairwise.localizeRounds'
// default (fabric.DefaultLocalizeRounds); 8 gives Refine as many rounds as
// Run (localize.Options.MaxAdaptiveRounds).
var refineRounds = fabric.DefaultLocalizeRounds

// refineScreen has Refine's re-test rounds also screen the hosts no
// re-test uses (localize.Options.Screen), as fabricctl check does;
// SCREEN=0 turns it off.
var refineScreen = true

// parseDriver reads DRIVER's value: run (or empty) or refine.
func parseDriver(v string) (driver, error) {
	switch d := driver(v); d {
	case "", driverRun:
		return driverRun, nil
	case driverRefine:
		return d, nil
	}
	return "", fmt.Errorf("DRIVER=%q: want run (default) or refine", v)
}

// tag is what ends every figure line of the driver: nothing for Run,
// " driver=refine" for Refine.
func (d driver) tag() string {
	if d == driverRun {
		return ""
	}
	return " driver=" + string(d)
}

// drive runs the schedule's rounds through t and then the driver's
// re-tests, and returns the result and the number of rounds run (the
// schedule's and the re-tests'), with the error that stopped it.
func (d driver) drive(ctx context.Context, m *localize.Model, t localize.Tester, rounds []schedule.Round) (localize.Result, int, error) {
	if d == driverRun {
		s, err := localize.Run(ctx, m, t, rounds, localize.Options{})
		return s.Result, s.Rounds, err
	}
	// As fabricctl check (action/check.LocalizeRouted): the sweep's
	// results in a localiser, the counters read once, then Refine's
	// re-tests, numbered after the schedule's rounds as Run numbers its.
	l := localize.New(m, localize.Options{Screen: refineScreen})
	n := 0
	for _, r := range rounds {
		obs, err := t.RunRound(ctx, n, r)
		n++
		if err != nil {
			return l.Analyze(), n, fmt.Errorf("running round %d: %w", n, err)
		}
		if err := l.Add(obs...); err != nil {
			return l.Analyze(), n, fmt.Errorf("adding round %d: %w", n, err)
		}
	}
	if cr, ok := t.(localize.CounterReader); ok {
		read, moved, err := cr.ReadCounters(ctx)
		if err != nil {
			return l.Analyze(), n, fmt.Errorf("reading counters: %w", err)
		}
		l.SetCounters(read, moved)
	}
	ref, err := localize.Refine(ctx, l, t, n, refineRounds)
	return ref.Result, n + len(ref.Rounds), err
}

func run() error {
	trials, err := envInt("TRIALS", 100)
	if err != nil {
		return err
	}
	d, err := parseDriver(os.Getenv("DRIVER"))
	if err != nil {
		return err
	}
	if refineRounds, err = envInt("REFINE_ROUNDS", refineRounds); err != nil {
		return err
	}
	refineScreen = os.Getenv("SCREEN") != "0"
	seed, err := envInt("SEED", 1)
	if err != nil {
		return err
	}
	cfg := localizesim.Default()
	var evidences []string
	for _, ev := range strings.Split(os.Getenv("EVIDENCE"), ",") {
		switch ev = strings.TrimSpace(ev); ev {
		case "", "switches", "switch":
			evidences = append(evidences, "switch")
		case "hosts", "hosts-paths", "switch-paths":
			evidences = append(evidences, ev)
		case "switches-paths":
			evidences = append(evidences, "switch-paths")
		default:
			return fmt.Errorf("EVIDENCE=%q: want switches, hosts, hosts-paths or switch-paths (comma-separated)", ev)
		}
	}
	var models []localizesim.FaultModel
	for _, v := range strings.Split(os.Getenv("MODELS"), ",") {
		switch v = strings.TrimSpace(v); v {
		case "":
			models = append(models, localizesim.Easy)
		case "all":
			models = append(models, localizesim.Models...)
		default:
			if !slices.Contains(localizesim.Models, localizesim.FaultModel(v)) {
				return fmt.Errorf("MODELS=%q: want easy, gray, intermittent, incidents, mixed or all", v)
			}
			models = append(models, localizesim.FaultModel(v))
		}
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
	ib := os.Getenv("IB")
	switch ib {
	case "", "1", "0", "only":
	default:
		return fmt.Errorf("IB=%q: want 1 (default), 0 or only", ib)
	}
	frac := func(n int) string {
		if trials == 0 {
			return "0"
		}
		return strconv.FormatFloat(float64(n)/float64(trials), 'f', 3, 64)
	}
	if ib != "only" {
		for _, ev := range evidences {
			for _, model := range models {
				c := cfg
				c.Model = model
				c.SwitchCounters = ev == "switch" || ev == "switch-paths"
				c.PinnedPaths = ev == "hosts-paths" || ev == "switch-paths"
				if err := ethernet(c, ev, faultCounts, trials, seed, frac, d); err != nil {
					return err
				}
			}
		}
	}
	if ib != "0" {
		return infiniband(faultCounts, trials, seed, frac, d)
	}
	return nil
}

// sessions runs trials sessions of k faults on the fabric of cfg, in
// parallel, each driven by d.
func sessions(cfg localizesim.Config, m *localize.Model, rounds []schedule.Round, k, trials int, seed uint64, d driver) []verdict {
	res := make([]verdict, trials)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				res[i] = trial(cfg, m, rounds, k, seed+uint64(i), d)
			}
		})
	}
	for i := range trials {
		next <- i
	}
	close(next)
	wg.Wait()
	return res
}

// ethernet runs the RoCE settings: ECMP paths out of sight, host and
// (EVIDENCE=switches) switch receive errors.
func ethernet(cfg localizesim.Config, evidence string, faultCounts []int, trials, seed int, frac func(int) string, d driver) error {
	// The topology is the same in every trial: build the model once.
	sim := localizesim.New(cfg, 0)
	m, err := localize.NewRoutedModel(sim.Topology(), sim.Routes(), localize.Options{})
	if err != nil {
		return err
	}
	rounds, err := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, schedule.DefaultTopologyRounds)
	if err != nil {
		return err
	}
	for _, k := range faultCounts {
		res := sessions(cfg, m, rounds, k, trials, uint64(seed)*1_000_003+uint64(k)*10_007, d)
		for _, line := range honest(cfg, evidence, k, res, d.tag()) {
			fmt.Println(line)
		}
		if cfg.Model != localizesim.Easy || strings.HasSuffix(evidence, "-paths") {
			continue
		}
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
		fmt.Printf("localize: hosts=%d faults=%d trials=%d exact=%s ambiguous=%s wrong=%s rounds=%d%s\n",
			cfg.Hosts, k, trials, frac(exact), frac(ambiguous), frac(wrong), maxRounds, d.tag())
		if trials > 0 {
			fmt.Fprintf(os.Stderr, "localize: faults=%d mean rounds %.2f%s\n", k, float64(sumRounds)/float64(trials), d.tag())
		}
	}
	return nil
}

// infiniband runs the IB settings (localizesim.IB): routes known from the
// forwarding tables, IB faults, every port's counters; one line per
// setting in the form of issue 32 with model=ib evidence=ib, and per fault
// kind on stderr.
func infiniband(faultCounts []int, trials, seed int, frac func(int) string, d driver) error {
	cfg := localizesim.IB()
	if v := os.Getenv("SILENT"); v != "" {
		cfg.Silent, _ = strconv.ParseFloat(v, 64) // checked by run
	}
	sim := localizesim.New(cfg, 0)
	m, err := localize.NewRoutedModel(sim.Topology(), sim.Routes(), localize.Options{})
	if err != nil {
		return err
	}
	rounds, err := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, schedule.DefaultTopologyRounds)
	if err != nil {
		return err
	}
	for _, k := range faultCounts {
		res := sessions(cfg, m, rounds, k, trials, uint64(seed)*1_000_003+uint64(k)*10_007+500_000_000, d)
		var exact, resolved, missed, misblamed, named, maxRounds, sumRounds int
		type tally struct{ n, exact, resolved int }
		kinds := map[string]*tally{}
		for _, r := range res {
			sumRounds += r.rounds
			maxRounds = max(maxRounds, r.rounds)
			miss, blame := score(r.truth, r.got)
			switch {
			case r.class == classExact:
				exact++
				resolved++
			case r.class == classAmbiguous:
				resolved++
			}
			if miss {
				missed++
			}
			if blame {
				misblamed++
			}
			for _, set := range r.got {
				named += len(set)
			}
			if k == 1 && len(r.kinds) == 1 {
				t := kinds[r.kinds[0]]
				if t == nil {
					t = &tally{}
					kinds[r.kinds[0]] = t
				}
				t.n++
				if r.class == classExact {
					t.exact++
				}
				if r.class != classWrong {
					t.resolved++
				}
			}
			if r.class != classExact && os.Getenv("VERBOSE") != "" {
				fmt.Fprintf(os.Stderr, "not exact: ib seed %d faults %v %v suspects %v\n", r.seed, r.truth, r.kinds, r.got)
			}
		}
		candidates := 0.0
		if trials > 0 {
			candidates = float64(named) / float64(trials)
		}
		fmt.Printf("localize: hosts=%d faults=%d model=ib evidence=ib trials=%d exact=%s resolved=%s missed=%s misblamed=%s candidates=%.2f rounds=%d%s\n",
			cfg.Hosts, k, trials, frac(exact), frac(resolved), frac(missed), frac(misblamed), candidates, maxRounds, d.tag())
		if trials > 0 {
			fmt.Fprintf(os.Stderr, "localize: ib faults=%d mean rounds %.2f%s\n", k, float64(sumRounds)/float64(trials), d.tag())
		}
		names := make([]string, 0, len(kinds))
		for n := range kinds {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			t := kinds[n]
			fmt.Fprintf(os.Stderr, "localize: ib faults=1 kind=%s trials=%d exact=%.3f resolved=%.3f%s\n", n, t.n,
				float64(t.exact)/float64(t.n), float64(t.resolved)/float64(t.n), d.tag())
		}
	}
	return nil
}

// score says whether a fault is in no reported set (missed) and whether a
// reported set holds no fault (misblamed).
func score(truth []string, sets [][]string) (missed, misblamed bool) {
	covered := map[string]bool{}
	for _, set := range sets {
		hit := false
		for _, c := range set {
			if slices.Contains(truth, c) {
				hit, covered[c] = true, true
			}
		}
		misblamed = misblamed || !hit
	}
	for _, t := range truth {
		missed = missed || !covered[t]
	}
	return missed, misblamed
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
	kinds  []string // the faults' kinds: nic, cable, cable/degraded …
	// classes: per fault, the smallest set of components no end-to-end
	// test can split from it (unsplittable)
	classes [][]string
	got     [][]string
	// possible: the sets Result.Possible names when no suspect was named
	possible [][]string
}

// trial runs one session of k faults on the fabric of cfg, driven by d,
// and judges it.
func trial(cfg localizesim.Config, m *localize.Model, rounds []schedule.Round, k int, seed uint64, d driver) verdict {
	sim := localizesim.New(cfg, seed)
	var truth, kinds []string
	var classes [][]string
	for _, f := range sim.Inject(k) {
		truth = append(truth, f.Component)
		classes = append(classes, unsplittable(sim, f))
		kinds = append(kinds, kindOf(cfg, f))
	}
	s, n, err := d.drive(context.Background(), m, sim, rounds)
	v := verdict{seed: seed, rounds: n, truth: truth, kinds: kinds, classes: classes}
	for _, sus := range s.Suspects {
		set := []string{sus.Component}
		for _, a := range sus.Alternatives {
			set = append(set, a.Component)
		}
		v.got = append(v.got, set)
	}
	for _, sus := range s.Possible {
		set := []string{sus.Component}
		for _, a := range sus.Alternatives {
			set = append(set, a.Component)
		}
		v.possible = append(v.possible, set)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "localize: trial: %v%s\n", err, d.tag())
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
