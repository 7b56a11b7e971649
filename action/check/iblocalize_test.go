package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/action/ibcheck"
	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// The localiser on an InfiniBand fabric, fed as Run feeds it with
// Options.IBLocalize: the routes of OpenSM's forwarding tables and every
// port's IBTA counters, read before the tests and after them. The tables
// and counters are the real InfiniBand lab's (ibsim + OpenSM, replayed
// from action/ibcheck/testdata/localize, which lab/iblab's localize tests
// capture and check against ibtracert). ibsim has no data path, so the
// pairwise outcomes are synthesised from the fault: a test is lossy when
// its data or its acknowledgements leave by the faulty port, slow when its
// data crosses the degraded cable, as the lab's routes carry them.

// replayRunner prints the captures of dir: dir/<argv joined by _>.txt.
type replayRunner struct{ dir string }

func (r replayRunner) RunDiag(_ context.Context, argv []string) (ibcheck.Output, error) {
	b, err := os.ReadFile(filepath.Join(r.dir, strings.Join(argv, "_")+".txt"))
	return ibcheck.Output{Stdout: b}, err
}

// labSource is NewIBSource over the captures of the lab of fabric f,
// phase after phase (the last one repeated): the reading before the
// tests, then those after.
func labSource(t *testing.T, path string, phases ...string) (*fabric.Fabric, IBSource) {
	t.Helper()
	f, err := fabric.Load(path, fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var reads int
	src := func(ctx context.Context) (IBReading, error) {
		dir := filepath.Join("..", "ibcheck", "testdata", "localize", f.Metadata.Name, phases[min(reads, len(phases)-1)])
		reads++
		return NewIBSource(f, ibcheck.Options{Runner: replayRunner{dir: dir}})(ctx)
	}
	return f, src
}

// synth makes the pairwise outcome of every pair of a round over routes:
// lossy when the data or the acknowledgements leave by a port of lossy,
// slow (a quarter of the rate) when the data crosses a cable with an end
// in slow, else at the full 97 Gb/s.
func synth(t *testing.T, topo *topology.Topology, routes *localize.Routes, lossy, slow []fabric.Endpoint) func(schedule.Round) []report.Pair {
	return func(round schedule.Round) []report.Pair {
		var out []report.Pair
		for _, p := range round {
			c, s := fabric.Endpoint{Device: p.Client, Port: "1"}, fabric.Endpoint{Device: p.Server, Port: "1"}
			there, err := routes.Path(topo, c, s)
			if err != nil {
				t.Fatal(err)
			}
			back, err := routes.Path(topo, s, c)
			if err != nil {
				t.Fatal(err)
			}
			v := 97.0
			pair := report.Pair{A: p.Server, B: p.Client, DeviceA: "mlx5_0", DeviceB: "mlx5_0", Test: "write_bw", Value: &v, Unit: checks.UnitGbps, Status: checks.StatusPass}
			crosses := func(path, ports []fabric.Endpoint) bool {
				return slices.ContainsFunc(path, func(e fabric.Endpoint) bool { return slices.Contains(ports, e) })
			}
			var far []fabric.Endpoint // the other end of each slow cable: data leaving by either end
			for _, e := range slow {
				for _, l := range topo.LinksAt(e) {
					o, _ := l.Other(e)
					far = append(far, e, o)
				}
			}
			switch {
			case crosses(there, lossy) || crosses(back, lossy):
				pair.Value, pair.Status, pair.Class = nil, checks.StatusFail, checks.CompletionError
				pair.Summary = "completion error: IBV_WC_RETRY_EXC_ERR"
			case crosses(there, far):
				low := v / 4
				pair.Value, pair.Status, pair.Class = &low, checks.StatusFail, checks.LowBandwidth
			}
			out = append(out, pair)
		}
		return out
	}
}

// synthRetester runs re-tests through synth.
type synthRetester struct {
	run    func(schedule.Round) []report.Pair
	rounds int
}

func (s *synthRetester) Retest(_ context.Context, round schedule.Round) ([]report.Pair, error) {
	s.rounds++
	return s.run(round), nil
}

// sweep is the all-pairs pairwise sweep of hosts through run.
func sweep(t *testing.T, rep *report.Report, hosts []string, run func(schedule.Round) []report.Pair) {
	t.Helper()
	all, err := schedule.AllPairs(hosts)
	if err != nil {
		t.Fatal(err)
	}
	for _, round := range all {
		rep.AddPairs(run(round)...)
	}
}

func suspects(rep *report.Report) []string {
	var out []string
	for _, s := range rep.Suspects {
		out = append(out, s.Component)
		for _, a := range s.Alternatives {
			out = append(out, "or "+a.Component)
		}
	}
	return out
}

// TestIBSymbolErrorsNameTheLink: on the lab's declared fabric
// (profiles/lab/ib.yaml), symbol errors raised on leaf-02 port 7 (ibsim
// PerformanceSet) and the pairs whose data or acknowledgements cross the
// uplink towards it lossy: the localiser names exactly that uplink. Both
// uplinks and the spine carry the same tests, so without the counters the
// pairwise outcomes alone cannot tell them apart.
func TestIBSymbolErrorsNameTheLink(t *testing.T) {
	ctx := context.Background()
	f, src := labSource(t, "../../profiles/lab/ib.yaml", "healthy", "symbol-errors-leaf-02-7")
	o := WithIBLocalize(f, fabricOptions(f, Options{}), src)
	if o.IBLocalize == nil || o.Topology == nil || len(o.Topology.LinksOf("ib-h1")) != 1 {
		t.Fatalf("WithIBLocalize: topology %v", o.Topology)
	}
	sc, routes := o.startCounters(ctx)
	if routes == nil {
		t.Fatal("no routes from the forwarding tables")
	}
	run := synth(t, o.Topology, routes, []fabric.Endpoint{{Device: "spine-01", Port: "2"}}, nil)
	rep := report.New("ib-lab", time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC), report.SuitePairwise)
	sweep(t, rep, []string{"ib-h1", "ib-h2", "ib-h3", "ib-h4"}, run)
	rt := &synthRetester{run: run}
	if err := LocalizeRouted(ctx, rep, o.Topology, routes, o.endpoint(), rt, 3, sc, localize.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := suspects(rep); !slices.Equal(got, []string{"link:leaf-02:7"}) {
		t.Fatalf("suspects %q, want exactly the uplink leaf-02:7 <-> spine-01:2", got)
	}
	if ev := strings.Join(rep.Suspects[0].Evidence, "; "); !strings.Contains(ev, "SymbolErrorCounter") {
		t.Errorf("evidence %q: want the counter", ev)
	}
	if sum := rep.SwitchCounters; sum == nil || len(sum.Read) != 8 || len(sum.Unread) != 0 {
		t.Errorf("counters read: %+v", sum)
	}

	// The same outcomes without the counters: the uplinks and the spine
	// stay alternatives (so the counters, not the outcomes, named it).
	bare := report.New("ib-lab", rep.Started, report.SuitePairwise)
	sweep(t, bare, []string{"ib-h1", "ib-h2", "ib-h3", "ib-h4"}, run)
	if err := LocalizeRouted(ctx, bare, o.Topology, routes, o.endpoint(), nil, 0, nil, localize.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := suspects(bare); len(got) < 2 || !slices.Contains(got, "or link:leaf-02:7") && got[0] != "link:leaf-02:7" {
		t.Errorf("without counters: suspects %q, want the uplinks as alternatives", got)
	}
}

// TestIBDegradedUplinkNamedByBandwidth: in a fat tree of three leaves and
// two spines (OpenSM spreads the routes over both), the uplink leaf-01:7
// <-> spine-01:1 trained at a lower width: no counter moves, only the
// tests whose data the forwarding tables send across it are slow. The
// routes name exactly that uplink, as running slowly without loss.
func TestIBDegradedUplinkNamedByBandwidth(t *testing.T) {
	ctx := context.Background()
	f, src := labSource(t, "testdata/ib-3leaf.yaml", "healthy")
	o := WithIBLocalize(f, fabricOptions(f, Options{}), src)
	sc, routes := o.startCounters(ctx)
	if routes == nil {
		t.Fatal("no routes from the forwarding tables")
	}
	run := synth(t, o.Topology, routes, nil, []fabric.Endpoint{{Device: "leaf-01", Port: "7"}})
	rep := report.New("ib-3leaf", time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC), report.SuitePairwise)
	sweep(t, rep, []string{"ib-h1", "ib-h2", "ib-h3", "ib-h4", "ib-h5", "ib-h6"}, run)
	rt := &synthRetester{run: run}
	if err := LocalizeRouted(ctx, rep, o.Topology, routes, o.endpoint(), rt, 3, sc, localize.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := suspects(rep); !slices.Equal(got, []string{"link:leaf-01:7"}) {
		t.Fatalf("suspects %q, want exactly the uplink leaf-01:7 <-> spine-01:1", got)
	}
	if ev := strings.Join(rep.Suspects[0].Evidence, "; "); !strings.Contains(ev, "slowly without loss") {
		t.Errorf("evidence %q", ev)
	}
}

// TestIBEndpoint: a host with several HCAs is cabled as HOST/HCA, and its
// tests are named so; a host with one is its own name.
func TestIBEndpoint(t *testing.T) {
	topo := topology.New([]topology.Node{{Name: "gpu-01/mlx5_0", Role: topology.RoleHost}, {Name: "gpu-01/mlx5_1", Role: topology.RoleHost},
		{Name: "gpu-02", Role: topology.RoleHost}, {Name: "leaf-01"}}, []topology.Link{
		{A: fabric.Endpoint{Device: "gpu-01/mlx5_0", Port: "1"}, B: fabric.Endpoint{Device: "leaf-01", Port: "1"}},
		{A: fabric.Endpoint{Device: "gpu-01/mlx5_1", Port: "1"}, B: fabric.Endpoint{Device: "leaf-01", Port: "2"}},
		{A: fabric.Endpoint{Device: "gpu-02", Port: "1"}, B: fabric.Endpoint{Device: "leaf-01", Port: "3"}}})
	name := IBEndpoint(topo)
	for _, c := range [][3]string{{"gpu-01", "mlx5_1", "gpu-01/mlx5_1"}, {"gpu-02", "mlx5_0", "gpu-02"}, {"gpu-02", "", "gpu-02"}} {
		if got := name(c[0], c[1]); got != c[2] {
			t.Errorf("%s %s: %q, want %q", c[0], c[1], got, c[2])
		}
	}
	if (Options{}).endpoint() != nil {
		t.Error("without IBLocalize the endpoint is not the host")
	}
}

// TestIBSourceUnreadable: an InfiniBand fabric that cannot be read leaves
// the localiser without routes and its counters unread, saying why.
func TestIBSourceUnreadable(t *testing.T) {
	f, err := fabric.Load("../../profiles/lab/ib.yaml", fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := NewIBSource(f, ibcheck.Options{Runner: replayRunner{dir: t.TempDir()}})
	sc, routes := StartIBCounters(context.Background(), src, nil)
	read, moved := sc.Evidence(context.Background(), topology.DeclaredIB(f))
	sum := sc.Summary()
	if routes != nil || len(read) != 0 || len(moved) != 0 || len(sum.Unread) != 1 || !strings.HasPrefix(sum.Unread[0], "infiniband: reading the subnet for localisation: ") {
		t.Errorf("routes %v, read %v, moved %v, summary %+v", routes, read, moved, sum)
	}
}

// TestRunLocalizesOverIBRoutes: Run with Options.IBLocalize on the lab's
// declared InfiniBand fabric reads the routes and counters before the
// pairwise sweep and again after it, and names exactly the uplink whose
// port counted symbol errors. The sweep's runs are synthesised (fakeFabric):
// lossy where the lab's routes carry the data or the acknowledgements out
// of spine-01 port 2.
func TestRunLocalizesOverIBRoutes(t *testing.T) {
	f, src := labSource(t, "../../profiles/lab/ib.yaml", "healthy", "symbol-errors-leaf-02-7")
	topo := topology.DeclaredIB(f)
	healthy, err := NewIBSource(f, ibcheck.Options{Runner: replayRunner{dir: filepath.Join("..", "ibcheck", "testdata", "localize", "ib-lab", "healthy")}})(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	bad := fabric.Endpoint{Device: "spine-01", Port: "2"}
	crosses := func(from, to string) bool {
		p, err := healthy.Routes.Path(topo, fabric.Endpoint{Device: from, Port: "1"}, fabric.Endpoint{Device: to, Port: "1"})
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(p, bad)
	}
	ff := &fakeFabric{t: t, lossy: func(server, client string) bool { return crosses(client, server) || crosses(server, client) }}
	var hosts []Host
	for _, h := range f.Spec.Hosts {
		hosts = append(hosts, Host{Intent: fabric.HostIntent{Host: h.Name, Address: h.Address, Labels: h.Labels}})
	}
	o := WithIBLocalize(f, Options{Suites: []report.Suite{report.SuitePairwise}, Checks: retestPolicy(nil), Launcher: ff}, src)
	rep, err := Run(t.Context(), "ib-lab", hosts, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := suspects(rep); !slices.Equal(got, []string{"link:leaf-02:7"}) {
		t.Fatalf("suspects %q, want exactly the uplink leaf-02:7 <-> spine-01:2", got)
	}
	if sum := rep.SwitchCounters; sum == nil || len(sum.Read) != 8 {
		t.Errorf("counters read: %+v", sum)
	}
}

// TestFabricIBLocalize: RunFabric's pairwise sweep on an InfiniBand fabric
// localises with the routes and counters read through the vantage host's
// agent; without pairwise tests, or with no vantage among the hosts, the
// options stay as they were.
func TestFabricIBLocalize(t *testing.T) {
	f, err := fabric.Load("../../profiles/lab/ib.yaml", fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	agentOf := agentclient.Local{Handler: &agent.Handler{}}
	hosts := []Host{{Intent: fabric.HostIntent{Host: f.IBVantage()}, Agent: agentOf}}
	pairwise := Options{Suites: []report.Suite{report.SuitePairwise}}
	o := fabricIBLocalize(f, hosts, pairwise)
	if o.IBLocalize == nil || o.Topology == nil || o.Topology != nil && len(o.Topology.Links) == 0 {
		t.Errorf("pairwise on %s through vantage %s: IBLocalize %v, topology %v; want both from the IB cabling", f.Metadata.Name, f.IBVantage(), o.IBLocalize != nil, o.Topology)
	}
	if o := fabricIBLocalize(f, hosts, Options{Suites: []report.Suite{report.SuitePreflight}}); o.IBLocalize != nil {
		t.Error("preflight alone: IB localisation set")
	}
	var said []string
	far := pairwise
	far.Progress = func(format string, a ...any) { said = append(said, fmt.Sprintf(format, a...)) }
	if o := fabricIBLocalize(f, []Host{{Intent: fabric.HostIntent{Host: "elsewhere"}, Agent: agentOf}}, far); o.IBLocalize != nil || len(said) != 1 || !strings.Contains(said[0], "no vantage host") {
		t.Errorf("no vantage among the hosts: IBLocalize %v, progress %q", o.IBLocalize != nil, said)
	}
	eth, err := fabric.Load("../../profiles/lab/fabric.yaml", fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o := fabricIBLocalize(eth, hosts, pairwise); o.IBLocalize != nil {
		t.Error("an Ethernet fabric got IB localisation")
	}
}
