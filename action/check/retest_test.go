package check

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/testkit/localizesim"
)

// fakeFabric is a workload manager's launcher that runs no perftest: it
// answers every job from a fault model, as the lab's netem loss shows —
// a run whose path is lossy reaches a third of its healthy speed and
// its server counts 40 out-of-sequence requests (0 or 1 when healthy). It
// records every round and fails the test when a NIC is in two jobs of one
// round; cancel, when set, is called during the round after the first
// sweepRounds rounds.
type fakeFabric struct {
	t           *testing.T
	lossy       func(server, client string) bool
	mu          sync.Mutex
	rounds      [][]rdma.Job
	sweepRounds int
	cancel      context.CancelFunc
	// speed, when set, is a healthy run's Gb/s (default 9.5).
	speed func(server, client string) float64
}

const fakeTable = `---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      1000             %.2f              %.2f   		   0.018
---------------------------------------------------------------------------------------
`

func (f *fakeFabric) Preflight(_ context.Context, intents []fabric.HostIntent) ([]preflight.Facts, []error) {
	out := make([]preflight.Facts, len(intents))
	for i, in := range intents {
		out[i] = preflight.Facts{Host: in.Host, Observed: &hostcfg.Observed{Interfaces: []hostcfg.InterfaceState{{Name: "eth0",
			RDMA: &hostcfg.RDMAState{Port: sysfs.Port{Device: "rxe0", Port: 1, State: "ACTIVE", RateGbps: 10, LinkLayer: "Ethernet"}, RoCEv2IPv4GIDIndex: 1}}}}}
	}
	return out, make([]error, len(intents))
}

func (f *fakeFabric) RunRound(_ context.Context, jobs []rdma.Job) []rdma.PairRun {
	f.mu.Lock()
	f.rounds = append(f.rounds, jobs)
	n := len(f.rounds)
	f.mu.Unlock()
	busy := map[string]bool{}
	var out []rdma.PairRun
	for _, j := range jobs {
		for _, e := range []rdma.Endpoint{j.Server, j.Client} {
			if busy[e.Name()] {
				f.t.Errorf("round %d: %s in two jobs at once", n, e.Name())
			}
			busy[e.Name()] = true
		}
		gbps, seq := 9.5, uint64(n%2)
		if f.speed != nil {
			gbps = f.speed(j.Server.Host, j.Client.Host)
		}
		if f.lossy(j.Server.Host, j.Client.Host) {
			gbps, seq = gbps/3, 40
		}
		out = append(out, rdma.PairRun{Server: j.Server, Client: j.Client, Test: j.Test, TCPPort: j.TCPPort, Attempts: 1,
			ServerOut: &rdma.Outcome{ID: "s", Role: rdma.Server, Before: evaluate.Counters{"out_of_seq_request": 0}, After: evaluate.Counters{"out_of_seq_request": seq}},
			ClientOut: &rdma.Outcome{ID: "c", Role: rdma.Client, Stdout: fmt.Sprintf(fakeTable, gbps, gbps)}})
	}
	if f.cancel != nil && n == f.sweepRounds+1 {
		f.cancel()
	}
	return out
}

// twoLeafHosts are the hosts and declared cabling of the two-leaf lab
// (profiles/lab/two-leaf.yaml).
func twoLeafHosts(t *testing.T) ([]Host, *topology.Topology) {
	f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), "profiles/lab/two-leaf.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hosts []Host
	for _, h := range f.Spec.Hosts {
		hosts = append(hosts, Host{Intent: fabric.HostIntent{Host: h.Name, Address: h.Address, Labels: h.Labels}})
	}
	return hosts, topology.Declared(f)
}

// closHosts are the 16 hosts of a Clos fabric of 4 leaves and 2 spines.
func closHosts() ([]Host, *topology.Topology) {
	c := localizesim.Default()
	c.Hosts, c.Leaves, c.Spines = 16, 4, 2
	topo := localizesim.New(c, 1).Topology()
	var hosts []Host
	for i := 1; i <= 16; i++ {
		hosts = append(hosts, Host{Intent: fabric.HostIntent{Host: fmt.Sprintf("h%04d", i), Address: fmt.Sprintf("192.0.2.%d", i)}})
	}
	return hosts, topo
}

// retestPolicy is a halves sweep (one round: each host of the first half
// with one of the second) without the sweep's own confirmation, so that
// one failing pair leaves both its ends open; rounds bounds the re-tests
// (nil: the default).
func retestPolicy(rounds *int) *fabric.Checks {
	return &fabric.Checks{Pairwise: &fabric.Pairwise{Schedule: "halves", LocalizeRounds: rounds},
		Counters: &fabric.CounterRules{MaxHealthyPerTest: 8}}
}

func pint(n int) *int { return &n }

func touching(host string) func(a, b string) bool {
	return func(a, b string) bool { return a == host || b == host }
}

// TestCheckRetestsNarrowTheAccessLink: over the two-leaf lab and a Clos
// fabric, a halves sweep leaves one failing pair whose either end could be
// at fault; check runs the localiser's re-tests through the same executor
// (no NIC twice in a round), and names the faulty host's access link: its
// cable, with its leaf port the one alternative tests cannot split. The
// re-tests are in the table, JSON and HTML, and change no verdict.
func TestCheckRetestsNarrowTheAccessLink(t *testing.T) {
	for _, tc := range []struct {
		name       string
		hosts      func() ([]Host, *topology.Topology)
		host, port string
	}{
		{"two-leaf", func() ([]Host, *topology.Topology) { return twoLeafHosts(t) }, "lab-h1", "port:leaf-01:swp1"},
		{"clos", closHosts, "h0002", "port:leaf-01:swp2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hosts, topo := tc.hosts()
			f := &fakeFabric{t: t, lossy: touching(tc.host)}
			rep, err := Run(t.Context(), "test", hosts, Options{Suites: []report.Suite{report.SuitePairwise}, Checks: retestPolicy(nil), Launcher: f, Topology: topo})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Pairs) != len(hosts)/2 || rep.Summary().Pairs.Fail != 1 {
				t.Fatalf("the sweep: %d pairs, %s; want %d, one failure", len(rep.Pairs), rep.Summary().Pairs, len(hosts)/2)
			}
			if len(f.rounds) < 2 || len(rep.Retests) != len(f.rounds)-1 || len(rep.Retests) > fabric.DefaultLocalizeRounds {
				t.Fatalf("%d rounds at the executor, %d re-test rounds in the report", len(f.rounds), len(rep.Retests))
			}
			first := rep.Retests[0]
			if len(first.Splits) != 1 || !strings.Contains(first.Splits[0], tc.host) {
				t.Errorf("round 1 splits %v, want the failing pair of %s", first.Splits, tc.host)
			}
			partner := false
			for _, p := range first.Pairs {
				if p.For.Component == "" || p.Value == nil {
					t.Errorf("re-test %+v", p)
				}
				if touching(tc.host)(p.A, p.B) {
					partner = true
					if p.Status != checks.StatusFail {
						t.Errorf("re-test %s through the lossy link: %s", p.Target(), p.Status)
					}
				}
			}
			if !partner {
				t.Errorf("no re-test of %s with another partner: %+v", tc.host, first.Pairs)
			}
			if set, want := onlySuspect(t, rep), []string{"cable:" + tc.host + ":eth0", tc.port}; !slices.Equal(set, want) {
				t.Errorf("suspect %v, want %v", set, want)
			}
			// Tests cannot split a cable from its port: the localiser says so
			// (no-split), or on a larger fabric spends the bound on near misses.
			if rep.RetestStop != "no-split" && rep.RetestStop != "bound" {
				t.Errorf("stopped: %s, want no-split or bound", rep.RetestStop)
			}
			var table, js, html bytes.Buffer
			for w, fn := range map[*bytes.Buffer]func(*bytes.Buffer, *report.Report) error{
				&table: func(b *bytes.Buffer, r *report.Report) error { return report.WriteTable(b, r) },
				&js:    func(b *bytes.Buffer, r *report.Report) error { return report.WriteJSON(b, r) },
				&html:  func(b *bytes.Buffer, r *report.Report) error { return report.WriteHTML(b, r) },
			} {
				if err := fn(w, rep); err != nil {
					t.Fatal(err)
				}
			}
			if !strings.Contains(table.String(), "\nRE-TESTS (to localise; no verdict counts them; stopped: "+rep.RetestStop+")\nround 1 to split: no suspect explains") ||
				!strings.Contains(table.String(), "\nSUSPECTS\n1. CABLE  cable "+tc.host+":eth0") {
				t.Errorf("table:\n%s", table.String())
			}
			if !strings.Contains(js.String(), `"retests": [`) || !strings.Contains(js.String(), `"retestStop": "`+rep.RetestStop+`"`) {
				t.Errorf("JSON lacks the re-tests")
			}
			if !strings.Contains(html.String(), `<tr class="retest" data-round="1"`) {
				t.Errorf("HTML lacks the re-tests")
			}
		})
	}
}

// TestCheckRetestsHealthy: a healthy fabric gets no re-test and passes.
func TestCheckRetestsHealthy(t *testing.T) {
	hosts, topo := twoLeafHosts(t)
	f := &fakeFabric{t: t, lossy: func(string, string) bool { return false }}
	rep, err := Run(t.Context(), "test", hosts, Options{Suites: []report.Suite{report.SuitePairwise}, Checks: retestPolicy(nil), Launcher: f, Topology: topo})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.rounds) != 1 || len(rep.Retests) != 0 || rep.RetestStop != "" || len(rep.Suspects) != 0 || rep.Summary().Status != checks.StatusPass {
		t.Errorf("healthy: %d rounds, re-tests %+v, suspects %+v, %s", len(f.rounds), rep.Retests, rep.Suspects, rep.Summary().Status)
	}
}

// TestCheckRetestsBound: localizeRounds bounds the re-test rounds; 0 runs
// none.
func TestCheckRetestsBound(t *testing.T) {
	hosts, topo := twoLeafHosts(t)
	for _, n := range []int{0, 1} {
		f := &fakeFabric{t: t, lossy: touching("lab-h1")}
		rep, err := Run(t.Context(), "test", hosts, Options{Suites: []report.Suite{report.SuitePairwise}, Checks: retestPolicy(pint(n)), Launcher: f, Topology: topo})
		if err != nil {
			t.Fatal(err)
		}
		want := map[int]string{0: "", 1: "bound"}[n]
		if len(f.rounds) != 1+n || len(rep.Retests) != n || rep.RetestStop != want {
			t.Errorf("localizeRounds %d: %d rounds at the executor, %d re-test rounds, stopped %q", n, len(f.rounds), len(rep.Retests), rep.RetestStop)
		}
	}
}

// TestCheckRetestsCancelled: the context ending during a re-test round
// keeps the state reached: the round in the report (its results went to
// the localiser: localize's TestRefineCancelled), no further round, and an
// error result saying why it stopped.
func TestCheckRetestsCancelled(t *testing.T) {
	hosts, topo := twoLeafHosts(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	f := &fakeFabric{t: t, lossy: touching("lab-h1"), sweepRounds: 1, cancel: cancel}
	rep, err := Run(ctx, "test", hosts, Options{Suites: []report.Suite{report.SuitePairwise}, Checks: retestPolicy(nil), Launcher: f, Topology: topo})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.rounds) != 2 || len(rep.Retests) != 1 || len(rep.Retests[0].Pairs) == 0 || rep.RetestStop != "error" {
		t.Fatalf("%d rounds, re-tests %+v, stopped %q", len(f.rounds), rep.Retests, rep.RetestStop)
	}
	var res checks.Result
	for _, r := range rep.Results {
		if r.ID == "pairwise/localise" {
			res = r
		}
	}
	if res.Status != checks.StatusError || !strings.Contains(res.Summary, "context canceled") {
		t.Errorf("localise result %+v", res)
	}
	if !rep.Retested("lab-h1", "lab-h2") && !rep.Retested("lab-h1", "lab-h4") {
		t.Errorf("the round run lacks lab-h1's re-test: %+v", rep.Retests)
	}
}

// TestCheckLocalizesByTheFabricsFloor: the localiser reads a test as slow
// by the fabric's own relative floor. The lab declares minPercentOfBest 2
// (qemu spreads healthy tests 30x): its healthy spread must not make slow
// NICs suspects, nor re-tests, and a lossy access link is still named.
func TestCheckLocalizesByTheFabricsFloor(t *testing.T) {
	hosts, topo := twoLeafHosts(t)
	speeds := map[string]float64{"lab-h1": 0.09, "lab-h2": 0.02, "lab-h3": 0.06, "lab-h4": 0.012}
	speed := func(a, b string) float64 { return min(speeds[a], speeds[b]) }
	policy := &fabric.Checks{Pairwise: &fabric.Pairwise{MinPercentOfBest: 2}, Counters: &fabric.CounterRules{MaxHealthyPerTest: 8}}
	for _, tc := range []struct {
		name  string
		lossy func(a, b string) bool
		want  string
	}{
		{"healthy", func(string, string) bool { return false }, ""},
		{"access link", touching("lab-h1"), "cable:lab-h1:eth0"},
	} {
		f := &fakeFabric{t: t, lossy: tc.lossy, speed: speed}
		rep, err := Run(t.Context(), "test", hosts, Options{Suites: []report.Suite{report.SuitePairwise}, Checks: policy, Launcher: f, Topology: topo})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range rep.Suspects {
			got = append(got, s.Component)
		}
		if want := slices.DeleteFunc([]string{tc.want}, func(s string) bool { return s == "" }); !slices.Equal(got, want) {
			t.Errorf("%s: suspects %v, want %v", tc.name, got, want)
		}
		if tc.want == "" && (len(rep.Retests) != 0 || len(f.rounds) != 3) {
			t.Errorf("%s: %d rounds, re-tests %+v", tc.name, len(f.rounds), rep.Retests)
		}
	}
}

// TestCheckWeighsTheSweepsOwnRetests: with retestOutliers the sweep runs
// lab-h1 against known-good partners and folds those runs into its pairs'
// verdicts; the report keeps every run with its own verdict (Runs: the
// first runs, then the re-tests), and the localiser weighs them all,
// with no re-test of its own: lab-h1's access link is named.
func TestCheckWeighsTheSweepsOwnRetests(t *testing.T) {
	hosts, topo := twoLeafHosts(t)
	f := &fakeFabric{t: t, lossy: touching("lab-h1")}
	policy := &fabric.Checks{Pairwise: &fabric.Pairwise{Schedule: "halves", RetestOutliers: true, LocalizeRounds: pint(0)},
		Counters: &fabric.CounterRules{MaxHealthyPerTest: 8}}
	rep, err := Run(t.Context(), "test", hosts, Options{Suites: []report.Suite{report.SuitePairwise}, Checks: policy, Launcher: f, Topology: topo})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Retests) != 0 {
		t.Fatalf("the localiser re-tested with localizeRounds 0: %+v", rep.Retests)
	}
	if len(rep.Runs) <= len(rep.Pairs) {
		t.Fatalf("%d runs for %d pairs: the sweep's re-tests are not in the report", len(rep.Runs), len(rep.Pairs))
	}
	lossy := 0
	for _, p := range rep.Runs {
		if touching("lab-h1")(p.A, p.B) {
			if !slices.Contains(p.CounterKinds, string(evaluate.OutOfSequence)) {
				t.Errorf("run %s: counter kinds %v, want out-of-sequence", p.Target(), p.CounterKinds)
			}
			lossy++
		}
	}
	if lossy < 2 {
		t.Errorf("%d runs through lab-h1, want its first run and its re-tests", lossy)
	}
	if set := onlySuspect(t, rep); !slices.Contains(set, "cable:lab-h1:eth0") {
		t.Errorf("suspects %v, want lab-h1's access cable", set)
	}
	var js bytes.Buffer
	if err := report.WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"runs": [`) || !strings.Contains(js.String(), `"counterKinds": [`) {
		t.Errorf("JSON lacks the runs or their counter kinds")
	}
}

// TestCheckRetestsScreen: check's re-test rounds also pair the hosts no
// re-test uses (localize.Options.Screen); the report lists those pairs
// in their round as screening, so that every test the localiser weighed
// is in the report.
func TestCheckRetestsScreen(t *testing.T) {
	hosts, topo := closHosts()
	f := &fakeFabric{t: t, lossy: touching("h0002")}
	rep, err := Run(t.Context(), "test", hosts, Options{Suites: []report.Suite{report.SuitePairwise}, Checks: retestPolicy(nil), Launcher: f, Topology: topo})
	if err != nil {
		t.Fatal(err)
	}
	screened, ran := 0, 0
	for k, rr := range rep.Retests {
		ran += len(f.rounds[k+1])
		for _, p := range rr.Pairs {
			switch {
			case p.For == screening:
				screened++
			case p.For.Component == "":
				t.Errorf("round %d: re-test %s bears on nothing", rr.Round, p.Target())
			}
		}
		if len(rr.Pairs) != len(f.rounds[k+1]) {
			t.Errorf("round %d: %d pairs in the report, %d run", rr.Round, len(rr.Pairs), len(f.rounds[k+1]))
		}
	}
	if len(rep.Retests) == 0 || screened == 0 {
		t.Errorf("%d re-test rounds, %d of %d pairs screening; want some", len(rep.Retests), screened, ran)
	}
}
