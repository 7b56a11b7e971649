package report

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// Kind is the kind written next to apiVersion in JSON reports.
const Kind = "CheckReport"

// Suite names a group of checks selected with `fabricctl check --suite`.
type Suite string

// The suites, in the order reports list them.
const (
	SuitePreflight Suite = "preflight"
	SuiteLoopback  Suite = "loopback"
	SuitePairwise  Suite = "pairwise"
	SuiteNCCL      Suite = "nccl"
	// SuiteIncast is the congestion suite: incast rounds judged by the
	// ports' PFC, ECN and loss counters (checks/congestion; its results'
	// IDs are incast/lossless, incast/pfc…).
	SuiteIncast Suite = "incast"
	// SuiteIB is the InfiniBand fabric checks (checks/ibfabric).
	SuiteIB Suite = "ib"
)

var suiteRank = map[Suite]int{SuitePreflight: 0, SuiteLoopback: 1, SuitePairwise: 2, SuiteIncast: 3, SuiteNCCL: 4, SuiteIB: 5}

// compareSuites orders the known suites as above and unknown ones after them, by name.
func compareSuites(a, b Suite) int {
	ra, oka := suiteRank[a]
	rb, okb := suiteRank[b]
	switch {
	case oka && okb:
		return cmp.Compare(ra, rb)
	case oka:
		return -1
	case okb:
		return 1
	}
	return cmp.Compare(a, b)
}

// SuiteOf returns the suite of a check ID: the part before the first "/"
// ("preflight/port-active" → preflight). An ID without "/" is its own suite.
func SuiteOf(id string) Suite {
	s, _, _ := strings.Cut(id, "/")
	return Suite(s)
}

// HostOf returns the host part of a target: "gpu-01/mlx5_0" → "gpu-01",
// "gpu-01/mlx5_0->gpu-02/mlx5_0" → "gpu-01".
func HostOf(target string) string {
	t, _, _ := strings.Cut(target, "->")
	h, _, _ := strings.Cut(t, "/")
	return h
}

// Pair is one RDMA measurement between two hosts: A ran the server, B the
// client (perftest's roles), Test is the perftest test without its "ib_"
// prefix ("write_bw", "send_lat").
type Pair struct {
	A       string `json:"a"`                 // server host
	B       string `json:"b"`                 // client host
	DeviceA string `json:"deviceA,omitempty"` // RDMA device on A (mlx5_0), when known
	DeviceB string `json:"deviceB,omitempty"` // RDMA device on B
	Test    string `json:"test"`
	// Value is the measurement in Unit: bandwidth in Gb/s (higher is better)
	// or latency in µs (lower is better). Nil when the test produced no number
	// (the QP never came up, the peer was unreachable).
	Value    *float64            `json:"value,omitempty"`
	Unit     checks.Unit         `json:"unit"` // checks.UnitGbps or checks.UnitUsec
	Status   checks.Status       `json:"status"`
	Class    checks.FailureClass `json:"class,omitempty"`
	Summary  string              `json:"summary,omitempty"`
	Evidence []string            `json:"evidence,omitempty"`
	// Measurements are the test's other numbers (peak, message rate, wall
	// time, attempts, counter movements), as its Result carried them.
	Measurements []checks.Measurement `json:"measurements,omitempty"`
	// FlowLabel is the GRH flow label both sides carried
	// (spec.checks.pairwise.flowLabel: auto) and UDPSourcePort the RoCE v2
	// UDP source port it implies: what fixes the test's ECMP path
	// (docs/pinned-paths.md). fabricctl extension.
	FlowLabel     int    `json:"flowLabel,omitempty"`
	UDPSourcePort uint16 `json:"udpSourcePort,omitempty"`
	// CounterKinds are the kinds of the counters that moved beyond the
	// healthy baseline (checks.Result.CounterKinds). fabricctl extension.
	CounterKinds []string `json:"counterKinds,omitempty"`
}

// ID is the check ID of the pair, "pairwise/<test>", as a Result would carry it.
func (p Pair) ID() string { return string(SuitePairwise) + "/" + p.Test }

// Target names the pair the way checks.Result targets do: "a/dev->b/dev".
func (p Pair) Target() string {
	end := func(h, d string) string {
		if d == "" {
			return h
		}
		return h + "/" + d
	}
	return end(p.A, p.DeviceA) + "->" + end(p.B, p.DeviceB)
}

// higherIsBetter reports whether a bigger Value is a better one (bandwidth).
func higherIsBetter(u checks.Unit) bool { return u != checks.UnitUsec }

// Report is the outcome of one `fabricctl check` run. Results holds every
// check about a single target (preflight, loopback, NCCL); Pairs holds the
// measurements between two hosts. Build one with New and Add, or as a literal.
// The writers never modify a Report; they write a sorted copy.
type Report struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Fabric     string    `json:"fabric"`
	Started    time.Time `json:"started"`
	Finished   time.Time `json:"finished"`
	Suites     []Suite   `json:"suites"`
	// Generator is the fabricctl that ran the checks (nil: not recorded).
	Generator *Generator `json:"generator,omitempty"`
	// Criteria are the pass criteria the measuring suites judged by, one
	// per suite and test (nil: not recorded; the page then says so).
	Criteria []Criterion     `json:"criteria,omitempty"`
	Results  []checks.Result `json:"results"`
	Pairs    []Pair          `json:"pairs"`
	// Runs, when the sweep re-tested before its verdict, are every test
	// that ran, each with its own verdict: the first runs, then the
	// confirmation re-tests (a suspect host against known-good partners,
	// a bad pair once more). Pairs fold those re-tests into one verdict a
	// pair; the localiser weighs Runs, so that a pair lossy once and clean
	// on its re-test counts as both, and a host's failures with its good
	// partners count at all. Nil when nothing was re-tested: then Pairs
	// are the runs. No verdict or count includes them. fabricctl extension.
	Runs []Pair `json:"runs,omitempty"`
	// Localisation: the components blamed for failures, the topology they
	// sit in and its cabling findings (see localisation.go).
	Suspects []checks.Suspect `json:"suspects,omitempty"`
	// Possible, when tests failed and the localiser named no suspect, are
	// the likeliest components anyway (checks/localize's Result.Possible,
	// at most three, each with its alternatives and how likely it is):
	// where to look, not whom to blame. fabricctl extension.
	Possible []checks.Suspect   `json:"possible,omitempty"`
	Topology *topology.Topology `json:"topology,omitempty"`
	Cabling  []topology.Finding `json:"cabling,omitempty"`
	// Retests are the rounds of re-tests the localiser had run after the
	// sweep to split an ambiguity, and RetestStop why they stopped. They
	// feed the suspects only: no verdict and no count includes them.
	Retests    []RetestRound `json:"retests,omitempty"`
	RetestStop string        `json:"retestStop,omitempty"`
	// SwitchCounters says whose port error counters the localiser read:
	// the switches', and on Ethernet the hosts' own (nil: none was asked).
	SwitchCounters *SwitchCounters `json:"switchCounters,omitempty"`
	// Congestion says which counters the incast suite's verdicts were
	// judged from, per verdict and family of ports (see congestion.go).
	Congestion []CongestionProof `json:"congestion,omitempty"`
}

// SwitchCounters says which devices' port error counters — switches',
// and hosts' where check reads them too — were read before and after the
// tests and fed the localiser (Read), and which were not, each with why
// (Unread: "leaf-03: …"). A device not read is unknown to the localiser,
// not clean. NotWeighed says what was read but not weighed, one line per
// reason: a host's pause, retransmit and NIC discard counters, and the
// ports of a read host whose NIC counts no receive error (unknown, not
// clean). The table calls it PORT COUNTERS.
type SwitchCounters struct {
	Read       []string `json:"read"`
	Unread     []string `json:"unread,omitempty"`
	NotWeighed []string `json:"notWeighed,omitempty"`
}

// New starts a report for fabric covering suites.
func New(fabricName string, started time.Time, suites ...Suite) *Report {
	return &Report{APIVersion: fabric.APIVersion, Kind: Kind, Fabric: fabricName, Started: started,
		Suites: slices.Clone(suites)}
}

// Counts tallies statuses.
type Counts struct {
	Total int `json:"total"`
	Pass  int `json:"pass"`
	Warn  int `json:"warn"`
	Fail  int `json:"fail"`
	Skip  int `json:"skip"`
	Error int `json:"error"`
}

func (c *Counts) add(s checks.Status) {
	c.Total++
	switch s {
	case checks.StatusPass:
		c.Pass++
	case checks.StatusWarn:
		c.Warn++
	case checks.StatusFail:
		c.Fail++
	case checks.StatusSkip:
		c.Skip++
	case checks.StatusError:
		c.Error++
	}
}

func (c Counts) plus(d Counts) Counts {
	return Counts{c.Total + d.Total, c.Pass + d.Pass, c.Warn + d.Warn, c.Fail + d.Fail, c.Skip + d.Skip, c.Error + d.Error}
}

// String reads "12 pass, 1 warn, 2 fail, 0 skip, 1 error".
func (c Counts) String() string {
	return fmt.Sprintf("%d pass, %d warn, %d fail, %d skip, %d error", c.Pass, c.Warn, c.Fail, c.Skip, c.Error)
}

// Summary is what a report adds up to.
type Summary struct {
	Status checks.Status `json:"status"` // the worst status of all results and pairs
	Checks Counts        `json:"checks"` // Results
	Pairs  Counts        `json:"pairs"`  // Pairs
	All    Counts        `json:"all"`    // both
}

// Summary counts the statuses of r's results and pairs.
func (r *Report) Summary() Summary {
	s := Summary{Status: checks.StatusPass}
	worst := func(st checks.Status) {
		if st.Worse(s.Status) {
			s.Status = st
		}
	}
	for _, res := range r.Results {
		s.Checks.add(res.Status)
		worst(res.Status)
	}
	for _, p := range r.Pairs {
		s.Pairs.add(p.Status)
		worst(p.Status)
	}
	s.All = s.Checks.plus(s.Pairs)
	return s
}

// ErrNotPair is returned by PairOf for a result whose target is not "a->b".
var ErrNotPair = errors.New("result is not about a pair of hosts")

// ErrInvalid is wrapped by Validate's errors.
var ErrInvalid = errors.New("invalid report")

// PairOf turns a pairwise Result (Target "a[/dev]->b[/dev]", ID "pairwise/<test>")
// into a Pair whose Value is the measurement called measurement, when present.
// The unit comes from that measurement, or from the test name when it is
// missing (…_lat → µs, otherwise Gb/s).
func PairOf(r checks.Result, measurement string) (Pair, error) {
	left, right, ok := strings.Cut(r.Target, "->")
	if !ok || left == "" || right == "" {
		return Pair{}, fmt.Errorf("reading pair from %s %q: %w", r.ID, r.Target, ErrNotPair)
	}
	_, test, ok := strings.Cut(r.ID, "/")
	if !ok || test == "" {
		test = r.ID
	}
	p := Pair{Test: test, Status: r.Status, Class: r.Class, Summary: r.Summary, Evidence: slices.Clone(r.Evidence),
		CounterKinds: slices.Clone(r.CounterKinds)}
	p.A, p.DeviceA, _ = strings.Cut(left, "/")
	p.B, p.DeviceB, _ = strings.Cut(right, "/")
	p.Unit = checks.UnitGbps
	if strings.HasSuffix(test, "_lat") {
		p.Unit = checks.UnitUsec
	}
	for _, m := range r.Measurements {
		if m.Name == measurement && p.Value == nil {
			v := m.Value
			p.Value, p.Unit = &v, m.Unit
			continue
		}
		p.Measurements = append(p.Measurements, m)
	}
	return p, nil
}

// Add appends results to the report.
func (r *Report) Add(results ...checks.Result) { r.Results = append(r.Results, results...) }

// AddPairs appends pair measurements to the report.
func (r *Report) AddPairs(pairs ...Pair) { r.Pairs = append(r.Pairs, pairs...) }

// Validate reports the first problem that would make the report unreadable:
// an unknown status, a pair without hosts or test, a unit other than Gb/s or
// µs, a value that is not a finite number, a test measured in two units.
// Errors name the offending entry ("pairs[3]: …") and wrap ErrInvalid.
func (r *Report) Validate() error {
	for i, res := range r.Results {
		if !res.Status.Valid() {
			return fmt.Errorf("results[%d] %s %s: status %q: %w", i, res.ID, res.Target, res.Status, ErrInvalid)
		}
		for _, m := range res.Measurements {
			if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
				return fmt.Errorf("results[%d] %s %s: measurement %s is %v: %w", i, res.ID, res.Target, m.Name, m.Value, ErrInvalid)
			}
		}
	}
	units := map[string]checks.Unit{}
	for i, p := range slices.Concat(r.Pairs, r.Runs) {
		where := fmt.Sprintf("pairs[%d] %s %s", i, p.ID(), p.Target())
		if i >= len(r.Pairs) {
			where = fmt.Sprintf("runs[%d] %s %s", i-len(r.Pairs), p.ID(), p.Target())
		}
		switch {
		case p.A == "" || p.B == "":
			return fmt.Errorf("%s: a pair needs both hosts: %w", where, ErrInvalid)
		case p.Test == "":
			return fmt.Errorf("%s: test is empty: %w", where, ErrInvalid)
		case !p.Status.Valid():
			return fmt.Errorf("%s: status %q: %w", where, p.Status, ErrInvalid)
		case p.Unit != checks.UnitGbps && p.Unit != checks.UnitUsec:
			return fmt.Errorf("%s: unit %q is neither %s nor %s: %w", where, p.Unit, checks.UnitGbps, checks.UnitUsec, ErrInvalid)
		case p.Value != nil && (math.IsNaN(*p.Value) || math.IsInf(*p.Value, 0)):
			return fmt.Errorf("%s: value %v is not a finite number: %w", where, *p.Value, ErrInvalid)
		}
		if u, ok := units[p.Test]; ok && u != p.Unit {
			return fmt.Errorf("%s: test %s measured in %s and %s: %w", where, p.Test, u, p.Unit, ErrInvalid)
		}
		units[p.Test] = p.Unit
	}
	for i, c := range r.Criteria {
		if c.Suite == "" || c.Test == "" {
			return fmt.Errorf("criteria[%d]: a criterion needs a suite and a test: %w", i, ErrInvalid)
		}
		for _, v := range []float64{c.PortRateGbps, c.MinPercentOfPortRate, c.MinPercentOfBest, c.MaxLatencyUsec, c.CounterSigma} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("criteria[%d] %s/%s: threshold %v is not a finite number ≥ 0: %w", i, c.Suite, c.Test, v, ErrInvalid)
			}
		}
	}
	for i, p := range r.Congestion {
		if p.Check == "" || len(p.Ports) == 0 {
			return fmt.Errorf("congestion[%d]: a proof needs a check and ports: %w", i, ErrInvalid)
		}
	}
	return r.validateLocalization()
}

// sorted validates r and returns a copy with stable order: suites in
// preflight, loopback, pairwise, nccl order (plus any suite a result names),
// results by target then ID, pairs by test, A, B and devices, times in UTC.
func (r *Report) sorted() (*Report, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	c := *r
	c.APIVersion = cmp.Or(c.APIVersion, fabric.APIVersion)
	c.Kind = cmp.Or(c.Kind, Kind)
	c.Started, c.Finished = c.Started.UTC(), c.Finished.UTC()
	c.Suites = slices.Clone(r.Suites)
	for _, res := range r.Results {
		c.Suites = append(c.Suites, SuiteOf(res.ID))
	}
	if len(r.Pairs) > 0 {
		c.Suites = append(c.Suites, SuitePairwise)
	}
	slices.SortFunc(c.Suites, compareSuites)
	c.Suites = slices.Compact(c.Suites)
	if c.Suites == nil {
		c.Suites = []Suite{}
	}
	if r.Generator != nil {
		g := *r.Generator
		c.Generator = &g
	}
	c.Criteria = slices.Clone(r.Criteria)
	slices.SortStableFunc(c.Criteria, func(a, b Criterion) int {
		return cmp.Or(compareSuites(a.Suite, b.Suite), cmp.Compare(a.Test, b.Test))
	})
	c.Results = slices.Clone(r.Results)
	if c.Results == nil {
		c.Results = []checks.Result{}
	}
	slices.SortStableFunc(c.Results, func(a, b checks.Result) int {
		return cmp.Or(cmp.Compare(a.Target, b.Target), cmp.Compare(a.ID, b.ID))
	})
	c.Pairs = slices.Clone(r.Pairs)
	if c.Pairs == nil {
		c.Pairs = []Pair{}
	}
	slices.SortStableFunc(c.Pairs, func(a, b Pair) int {
		return cmp.Or(cmp.Compare(a.Test, b.Test), cmp.Compare(a.A, b.A), cmp.Compare(a.B, b.B),
			cmp.Compare(a.DeviceA, b.DeviceA), cmp.Compare(a.DeviceB, b.DeviceB))
	})
	c.sortLocalization()
	c.sortCongestion()
	return &c, nil
}

// tests returns the names of the pair tests in r, sorted.
func (r *Report) tests() []string {
	var ts []string
	for _, p := range r.Pairs {
		ts = append(ts, p.Test)
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}
