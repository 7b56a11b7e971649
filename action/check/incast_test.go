package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/congestion"
	"github.com/fabricctl/fabricctl/checks/rdma/rdmatest"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// incastFleet is four rxe fixture hosts with in-process agents; ethtool -S
// answers nothing. bump, when set, is called on every counter reading of a
// host (after its hw_counters were read) with the host's sysfs root and how
// many readings came before.
func incastFleet(t *testing.T, bump func(host, root string, n int)) []Host {
	t.Setenv("PATH", rdmatest.Path(t, "")+string(os.PathListSeparator)+os.Getenv("PATH"))
	var hosts []Host
	for _, n := range []string{"h1", "h2", "h3", "h4"} {
		var root string
		h, a := fixtureHost(t, n, func(r string) { root = r })
		var mu sync.Mutex
		calls := 0
		a.RunTool = func(context.Context, []string) ([]byte, error) {
			mu.Lock()
			defer mu.Unlock()
			if bump != nil {
				bump(n, root, calls)
			}
			calls++
			return nil, nil
		}
		hosts = append(hosts, h)
	}
	return hosts
}

func incastOptions(t *testing.T) Options {
	return Options{Suites: []report.Suite{report.SuiteIncast}, BasePort: rdmatest.FreePort(t), Timeout: 20 * time.Second,
		Checks: &fabric.Checks{Incast: &fabric.Incast{Duration: fabric.Duration(5 * time.Second)}}}
}

// fakeIncastSwitches is the incast tests' switch-counter source: each
// reading is at(n), n being how many readings came before it. The suite
// reads it before and after every round, from any goroutine.
type fakeIncastSwitches struct {
	mu    sync.Mutex
	reads int
	at    func(n int) []IncastSwitchReading
}

// read is the IncastSwitchSource.
func (f *fakeIncastSwitches) read(context.Context) []IncastSwitchReading {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.at(f.reads)
	f.reads++
	return r
}

// cumulusSwitches is incast options judging the named switches as Cumulus
// ones, read from a fakeIncastSwitches answering at.
func cumulusSwitches(at func(n int) []IncastSwitchReading, names ...string) IncastOptions {
	fam := map[string]congestion.Family{}
	for _, n := range names {
		fam[n] = congestion.Cumulus
	}
	return IncastOptions{SwitchFamily: fam, Switches: (&fakeIncastSwitches{at: at}).read}
}

func byIDTarget(rep *report.Report) map[string]checks.Result {
	m := map[string]checks.Result{}
	for _, r := range rep.Results {
		m[r.ID+" "+r.Target] = r
	}
	return m
}

// TestIncastHealthy: one round, h2, h3 and h4 writing to h1 (no leaves,
// three senders) on rxe, no counter moving: each port's lossless verdict
// passes, judged from rxe's sequence and retransmit counters; PFC, ECN and
// pause storms are "not observable on rxe", never a pass; the round
// measures every sender; the CONGESTION section says which counters
// proved it.
func TestIncastHealthy(t *testing.T) {
	hosts := incastFleet(t, nil)
	rep, err := Run(t.Context(), "test", hosts, incastOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	got := byIDTarget(rep)
	round := got["incast/round round 1"]
	if round.Status != checks.StatusPass || len(round.Measurements) != 4 || !strings.Contains(round.Summary, "h2, h3, h4 → h1") {
		t.Fatalf("round: %+v", round)
	}
	if m, _ := round.Measurement("bw_total"); m.Value != 0.75 {
		t.Errorf("total %v Gb/s, want 3 × 0.25", m.Value)
	}
	for _, h := range []string{"h1", "h2", "h3", "h4"} {
		port := h + "/enp0s3/rxe0:1"
		l := got["incast/lossless "+port]
		if l.Status != checks.StatusPass || !strings.Contains(strings.Join(l.Evidence, "\n"), "hw_counters/rcvd_seq_err") ||
			!strings.Contains(strings.Join(l.Evidence, "\n"), "PFC activity not observable on rxe: losslessness judged from retransmits and sequence errors only") {
			t.Errorf("%s lossless: %+v", port, l)
		}
		role := map[bool]string{true: "1 receiver", false: "1 sender"}[h == "h1"]
		if !strings.Contains(strings.Join(l.Evidence, "\n"), "judged in rounds: "+role) {
			t.Errorf("%s: evidence does not say its role %q: %v", port, role, l.Evidence)
		}
		for _, id := range []string{"incast/pfc", "incast/ecn", "incast/pause-storm"} {
			if r := got[id+" "+port]; r.Status != checks.StatusSkip || !strings.Contains(r.Summary, "not observable on rxe") {
				t.Errorf("%s %s: %s %q, want a skip: not observable on rxe", id, port, r.Status, r.Summary)
			}
		}
	}
	if e := got["incast/pfc-engaged round 1"]; e.Status != checks.StatusSkip {
		t.Errorf("pfc-engaged: %+v", e)
	}
	if w := checks.Worst(rep.Results); w != checks.StatusPass && w != checks.StatusSkip {
		t.Errorf("a healthy round is %s: %+v", w, rep.Results)
	}
	for name, w := range map[string]func(io.Writer, *report.Report) error{"html": report.WriteHTML, "junit": report.WriteJUnit, "json": report.WriteJSON} {
		var out strings.Builder
		if err := w(&out, rep); err != nil || !strings.Contains(out.String(), "incast/lossless") {
			t.Errorf("%s: %v", name, err)
		}
	}
	var b strings.Builder
	if err := report.WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CONGESTION: which counters proved what (incast)",
		"incast/lossless on h1/enp0s3/rxe0:1, h2/enp0s3/rxe0:1, h3/enp0s3/rxe0:1, h4/enp0s3/rxe0:1 (rxe): hw_counters/completer_retry_err, hw_counters/duplicate_request, hw_counters/out_of_seq_request, hw_counters/rcvd_rnr_err, hw_counters/rcvd_seq_err,",
		"incast/pfc on h1/enp0s3/rxe0:1, h2/enp0s3/rxe0:1, h3/enp0s3/rxe0:1, h4/enp0s3/rxe0:1 (rxe): not judged: PFC activity not observable on rxe"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestIncastReceiverLoses: the receiver's rxe counts sequence errors and
// out-of-sequence requests during the round: its lossless verdict fails,
// naming the receiver's port and the counters; the senders pass.
func TestIncastReceiverLoses(t *testing.T) {
	hosts := incastFleet(t, func(host, root string, n int) {
		if host != "h1" || n != 0 {
			return
		}
		dir := filepath.Join(root, "devices/virtual/infiniband/rxe0/ports/1/hw_counters")
		os.WriteFile(filepath.Join(dir, "rcvd_seq_err"), []byte("18\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "out_of_seq_request"), []byte("41\n"), 0o644)
	})
	rep, err := Run(t.Context(), "test", hosts, incastOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	got := byIDTarget(rep)
	l := got["incast/lossless h1/enp0s3/rxe0:1"]
	if l.Status != checks.StatusFail || l.Class != checks.CounterEvidence ||
		!strings.Contains(l.Summary, "lost packets at receiver h1/enp0s3/rxe0:1") ||
		!strings.Contains(l.Summary, "hw_counters/rcvd_seq_err +17") || !strings.Contains(l.Summary, "hw_counters/out_of_seq_request +") ||
		!strings.HasSuffix(l.Summary, "(round 1)") {
		t.Errorf("receiver: %+v", l)
	}
	if !strings.Contains(strings.Join(l.Evidence, "\n"), "h1/enp0s3/rxe0:1: hw_counters/rcvd_seq_err +17 (sequence-error") {
		t.Errorf("evidence does not name the counter and its movement: %v", l.Evidence)
	}
	for _, h := range []string{"h2", "h3", "h4"} {
		if r := got["incast/lossless "+h+"/enp0s3/rxe0:1"]; r.Status != checks.StatusPass {
			t.Errorf("sender %s: %+v", h, r)
		}
	}
	var b strings.Builder
	report.WriteTable(&b, rep)
	if !strings.Contains(b.String(), "FAIL incast/lossless h1/enp0s3/rxe0:1") {
		t.Errorf("the table's evidence does not name the port:\n%s", b.String())
	}
}

// TestIncastRoundThatDidNotStart: without ib_write_bw on the hosts no flow
// starts: the round is an error naming the host and the command, not a
// pass, and no congestion verdict is given on counters nothing moved.
func TestIncastRoundThatDidNotStart(t *testing.T) {
	hosts := incastFleet(t, nil)
	t.Setenv("PATH", t.TempDir())
	o := incastOptions(t)
	o.Checks.Incast.Retries = new(int)
	rep, err := Run(t.Context(), "test", hosts, o)
	if err != nil {
		t.Fatal(err)
	}
	got := byIDTarget(rep)
	r := got["incast/round round 1"]
	if r.Status != checks.StatusError || !strings.Contains(r.Summary, "did not start on h1") || !strings.Contains(r.Summary, "ib_write_bw -d rxe0") {
		t.Errorf("round: %+v", r)
	}
	for _, res := range rep.Results {
		if strings.HasPrefix(res.ID, "incast/lossless") {
			t.Errorf("a verdict on a round that moved nothing: %+v", res)
		}
	}
}

// TestIncastUnderLauncher: the suite needs the agents: a skip that says so.
func TestIncastUnderLauncher(t *testing.T) {
	hosts := []Host{{Intent: fabric.HostIntent{Host: "n1"}}, {Intent: fabric.HostIntent{Host: "n2"}}}
	rep, err := Run(t.Context(), "test", hosts, Options{Suites: []report.Suite{report.SuiteIncast}, Launcher: noLauncher{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].ID != IDIncastSchedule || rep.Results[0].Status != checks.StatusSkip {
		t.Errorf("%+v", rep.Results)
	}
}

// TestIncastIntent: the RoCE ToS of the hosts' intent is the traffic
// class, PFC priorities the lossless ones, ECN on when the RoCE priority
// has it; a RoCE class on a lossy priority warns.
func TestIncastIntent(t *testing.T) {
	dscp := func(prio uint8) []fabric.DSCPEntry {
		var m []fabric.DSCPEntry
		for d := range 64 {
			p := uint8(0)
			if d == 26 {
				p = prio
			}
			m = append(m, fabric.DSCPEntry{DSCP: uint8(d), Priority: p})
		}
		return m
	}
	host := func(prio uint8, ecn []int) Host {
		return Host{Intent: fabric.HostIntent{Host: "h", Interfaces: []fabric.InterfaceIntent{{Name: "eth0",
			PFC: fabric.HostPFC{Priorities: []int{3}}, ECN: fabric.HostECN{Priorities: ecn}, RoCE: fabric.HostRoCE{ToS: 106}, DSCPMap: dscp(prio)}}}}
	}
	in, tc, note := incastIntent([]Host{host(3, []int{3})}, fabric.Incast{Bounds: &fabric.IncastBounds{MaxPausedPercent: 40}}, IncastOptions{ECNMinKB: 150})
	if tc == nil || *tc != 106 || len(in.Lossless) != 1 || in.Lossless[0] != 3 || !in.ECN || note != nil || in.Bounds.MaxPausedFraction != 0.4 || in.ECNMinKB != 150 {
		t.Errorf("intent %+v tclass %v note %v", in, tc, note)
	}
	in, _, _ = incastIntent([]Host{host(3, nil)}, fabric.Incast{}, IncastOptions{})
	if in.ECN {
		t.Error("ECN on without ECN priorities")
	}
	if _, _, note = incastIntent([]Host{host(0, nil)}, fabric.Incast{}, IncastOptions{}); note == nil || note.Status != checks.StatusWarn || !strings.Contains(note.Summary, "priority 0, which is not lossless") {
		t.Errorf("lossy RoCE class: %+v", note)
	}
}

// TestIncastEstimate: the incast rounds count in the estimate, its line
// and the derived time limit. The two-leaf lab: two receivers on each leaf
// and the two cross-leaf rounds, 6 × (5 s + 5 s set-up) = 1m; limit
// 3 × 1m + 2m preflight + 30s clean-up + 1m = 6m30s, rounded up to 7m.
// Forty hosts without leaves, two receivers, 20 s: 2 rounds of 25 s after
// the 39 pairwise rounds of 10 s, 7m20s.
func TestIncastEstimate(t *testing.T) {
	f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), "profiles/lab/two-leaf.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e := EstimateFabric(f, nil, Options{Suites: []report.Suite{report.SuiteIncast}})
	line := "check: 4 hosts, incast (6 rounds: 4 of 3 → 1, 2 cross-leaf; write_bw 5s, 2 QPs), about 1m (with 5s of set-up a round)"
	if e.String() != line || e.Sweep() != time.Minute || e.Limit() != 7*time.Minute {
		t.Errorf("two-leaf:\n got %s (%s, limit %s)\nwant %s (1m, limit 7m)", e, e.Sweep(), e.Limit(), line)
	}
	if len(e.IncastRounds) != 6 || e.IncastRounds[0].Leaf != "leaf-01" || e.IncastRounds[1].Leaf != "leaf-02" {
		t.Errorf("rounds %+v", e.IncastRounds)
	}
	var forty []fabric.HostIntent
	for i := range 40 {
		forty = append(forty, fabric.HostIntent{Host: fmt.Sprintf("gpu-%02d", i+1)})
	}
	c := &fabric.Checks{Incast: &fabric.Incast{Senders: 8, ReceiversPerLeaf: 2, Duration: fabric.Duration(20 * time.Second), QPs: 1}}
	e = EstimateRun(forty, Options{Checks: c, Suites: []report.Suite{report.SuitePairwise, report.SuiteIncast}})
	if !strings.Contains(e.String(), "+ incast (2 rounds: 2 of 8 → 1; write_bw 20s), about 7m20s") {
		t.Errorf("forty: %s", e)
	}
	e = EstimateRun(forty[:1], Options{Suites: []report.Suite{report.SuiteIncast}})
	if !strings.Contains(e.String(), "incast (not run: planning the incast rounds: too few hosts") || e.Sweep() != 0 {
		t.Errorf("one host: %s", e)
	}
}

// TestIncastSwitchPorts: switch counters read around the round are judged
// by the switch's family: a port that paused on the lossless priority
// passes (and PFC engaged), one that paused on a lossy priority is a
// misconfigured port; a port whose counters did not move is not judged
// (no Topology says the traffic crossed it); a switch that could not be
// read is a skip saying why.
func TestIncastSwitchPorts(t *testing.T) {
	hosts := incastFleet(t, nil)
	o := incastOptions(t)
	o.Incast = cumulusSwitches(func(n int) []IncastSwitchReading {
		v := uint64(100 * n)
		return []IncastSwitchReading{
			{Switch: "leaf-01", From: "nv show interface swp1 counters qos -o json", Counters: map[string]map[string]uint64{
				"swp1": {"pfc-stats 3 tx-pause-frames": v},
				"swp2": {"pfc-stats 0 rx-pause-frames": v},
				"swp3": {"pfc-stats 3 tx-pause-frames": 7},
			}},
			{Switch: "leaf-02", Err: errors.New("dial tcp 192.0.2.2:22: connection refused")},
		}
	}, "leaf-01")
	rep, err := Run(t.Context(), "test", hosts, o)
	if err != nil {
		t.Fatal(err)
	}
	got := byIDTarget(rep)
	if r := got["incast/pfc leaf-01/swp1"]; r.Status != checks.StatusPass || !strings.Contains(r.Summary, "PFC engaged on priority 3: pfc-stats 3 tx-pause-frames +100") {
		t.Errorf("swp1: %+v", r)
	}
	if r := got["incast/pfc leaf-01/swp2"]; r.Status != checks.StatusFail || !strings.Contains(r.Summary, "misconfigured port leaf-01/swp2: pause frames on priority 0") {
		t.Errorf("swp2: %+v", r)
	}
	if r, ok := got["incast/pfc leaf-01/swp3"]; ok {
		t.Errorf("an idle port was judged: %+v", r)
	}
	if r := got["incast/pfc-engaged round 1"]; r.Status != checks.StatusPass || !strings.Contains(strings.Join(r.Evidence, " "), "leaf-01/swp1") {
		t.Errorf("engaged: %+v", r)
	}
	if r := got["incast/counters leaf-02"]; r.Status != checks.StatusSkip || !strings.Contains(r.Summary, "connection refused") || !strings.HasSuffix(r.Summary, "(round 1)") {
		t.Errorf("unread switch: %+v", r)
	}
}

// TestIncastSwitchPortsByTopology: with cabling, the leaves come from it
// (two downlink rounds and two cross-leaf rounds) and the switch ports
// judged are those cabled to the round's hosts and the inter-leaf ports,
// moved or not; an uncabled port is not judged even when it moved.
func TestIncastSwitchPortsByTopology(t *testing.T) {
	hosts := incastFleet(t, nil)
	o := incastOptions(t)
	nodes := []topology.Node{{Name: "h1", Role: topology.RoleHost}, {Name: "h2", Role: topology.RoleHost}, {Name: "h3", Role: topology.RoleHost},
		{Name: "h4", Role: topology.RoleHost}, {Name: "leaf-01", Role: topology.RoleLeaf}, {Name: "leaf-02", Role: topology.RoleLeaf}}
	cable := func(a, ap, b, bp string) topology.Link {
		return topology.Link{A: fabric.Endpoint{Device: a, Port: ap}, B: fabric.Endpoint{Device: b, Port: bp}}
	}
	o.Topology = topology.New(nodes, []topology.Link{cable("h1", "enp0s3", "leaf-01", "swp1"), cable("h2", "enp0s3", "leaf-01", "swp2"),
		cable("h3", "enp0s3", "leaf-02", "swp1"), cable("h4", "enp0s3", "leaf-02", "swp2"), cable("leaf-01", "swp49", "leaf-02", "swp49")})
	o.Incast = cumulusSwitches(func(n int) []IncastSwitchReading {
		port := func(v uint64) map[string]uint64 { return map[string]uint64{"pfc-stats 3 tx-pause-frames": v} }
		return []IncastSwitchReading{
			{Switch: "leaf-01", Counters: map[string]map[string]uint64{"swp1": port(0), "swp3": port(uint64(n + 1)), "swp49": port(0)}},
			{Switch: "leaf-02", Counters: map[string]map[string]uint64{"swp1": port(0), "swp49": port(0)}},
		}
	}, "leaf-01", "leaf-02")
	rep, err := Run(t.Context(), "test", hosts, o)
	if err != nil {
		t.Fatal(err)
	}
	got := byIDTarget(rep)
	for _, r := range []string{"round 1", "round 2", "round 3", "round 4"} {
		if res := got["incast/round "+r]; res.Status != checks.StatusPass {
			t.Errorf("%s: %+v", r, res)
		}
	}
	if !strings.Contains(got["incast/round round 1"].Summary, "h3, h4, h2 → h1 (incast on leaf-01)") {
		t.Errorf("round 1: %s", got["incast/round round 1"].Summary)
	}
	for _, p := range []string{"leaf-01/swp1", "leaf-01/swp49", "leaf-02/swp1", "leaf-02/swp49"} {
		if r := got["incast/pfc "+p]; r.Status != checks.StatusPass {
			t.Errorf("%s: %+v", p, r)
		}
	}
	if r, ok := got["incast/pfc leaf-01/swp3"]; ok {
		t.Errorf("an uncabled port was judged: %+v", r)
	}
}

// TestIncastSwitchUnreadLines: lines of a switch's congestion output the
// driver did not understand make a warning naming the switch and the
// first line; the ports it did read are still judged.
func TestIncastSwitchUnreadLines(t *testing.T) {
	hosts := incastFleet(t, nil)
	o := incastOptions(t)
	o.Incast = cumulusSwitches(func(n int) []IncastSwitchReading {
		return []IncastSwitchReading{{Switch: "leaf-01",
			Counters: map[string]map[string]uint64{"swp1": {"pfc-stats 3 tx-pause-frames": uint64(100 * (n + 1))}},
			Unread:   []string{unreadLine(switchcfg.UnreadLine{Command: "show pfc counters", Line: 7, Text: "Port Rx PFCX", Reason: "no priority column"})}}}
	}, "leaf-01")
	rep, err := Run(t.Context(), "test", hosts, o)
	if err != nil {
		t.Fatal(err)
	}
	got := byIDTarget(rep)
	r := got["incast/counters leaf-01"]
	if r.Status != checks.StatusWarn || !strings.Contains(r.Summary, `show pfc counters line 7: "Port Rx PFCX": no priority column`) {
		t.Errorf("unread lines: %+v", r)
	}
	if r := got["incast/pfc leaf-01/swp1"]; r.Status != checks.StatusPass {
		t.Errorf("the port it read was not judged: %+v", r)
	}
}
