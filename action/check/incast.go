package check

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/action/counters"
	"github.com/fabricctl/fabricctl/action/fleet"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/congestion"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/cumulus"
	"github.com/fabricctl/fabricctl/switchcfg/eos"
	"github.com/fabricctl/fabricctl/switchcfg/junos"
	"github.com/fabricctl/fabricctl/switchcfg/nxos"
	"github.com/fabricctl/fabricctl/switchcfg/sonic"
)

// The check IDs of the incast suite beyond the congestion verdicts, which
// Run reports as incast/lossless, incast/pfc, incast/ecn,
// incast/pause-storm and incast/pfc-engaged (congestion.IDLossless… with
// the suite's prefix).
const (
	IDIncastRound    = "incast/round"    // one round's flows: each sender's bandwidth
	IDIncastSchedule = "incast/schedule" // the rounds could not be planned, or the suite cannot run
	IDIncastCounters = "incast/counters" // a target's counters could not be read around a round
	IDIncastClass    = "incast/class"    // the RoCE traffic class is not a lossless priority
)

// IncastOptions configure the incast suite (report.SuiteIncast) beyond
// spec.checks.incast; RunFabric fills them from the fabric (FabricIncast).
type IncastOptions struct {
	// Switches, when set, reads every switch's congestion counters
	// (NewIncastSwitchSource: the drivers' switchcfg.CongestionReader)
	// before and after each round; the switch ports the round's traffic
	// crossed are judged with the hosts' (with a Topology, the ports cabled
	// to the round's hosts and every switch-to-switch port; without one,
	// the ports whose congestion counters moved).
	Switches IncastSwitchSource
	// SwitchFamily is each switch's counter namespace, by switch name
	// (FamilyOfPlatform); a switch without one is not judged.
	SwitchFamily map[string]congestion.Family
	// ECNMinKB, ECNMaxKB and PFCXoffKB are the profile's thresholds, named
	// in the warning "heavy pausing with no ECN marking" (0: unknown).
	ECNMinKB, ECNMaxKB, PFCXoffKB int
}

// IncastSwitchReading is one switch's congestion counters, read once.
type IncastSwitchReading struct {
	Switch string
	// Counters are by port, then by the NOS's name with the priority or
	// queue in place ("Tx PFC3", "pfc-stats 3 tx-pause-frames": the names
	// congestion.Table reads; switchcfg.CongestionReading.Of).
	Counters map[string]map[string]uint64
	// From is what was read (the commands), for the evidence.
	From string
	// Unread are the lines (or JSON fields) of the commands' outputs the
	// driver did not understand ("show pfc counters line 7: …: reason"):
	// their counters are absent, and the suite warns instead of passing
	// them over.
	Unread []string
	// Err is why the switch could not be read.
	Err error
}

// IncastSwitchSource reads every switch's congestion counters once; a
// switch that cannot be read comes back with Err.
type IncastSwitchSource func(ctx context.Context) []IncastSwitchReading

// NewIncastSwitchSource reads the congestion counters of f's switches
// (those of sw.Only, when set) through the drivers that implement
// switchcfg.CongestionReader, over the same sessions as plan and apply,
// every port the fabric file gives each switch.
func NewIncastSwitchSource(f *fabric.Fabric, sw fleet.Options) IncastSwitchSource {
	return func(ctx context.Context) []IncastSwitchReading {
		var out []IncastSwitchReading
		fleet.EachSwitch(f, sw, func(s fabric.SwitchIntent, d switchcfg.Driver, err error) func(*switchcfg.Target) func() {
			if err != nil {
				out = append(out, IncastSwitchReading{Switch: s.Name, Err: err})
				return nil
			}
			cr, ok := d.(switchcfg.CongestionReader)
			if !ok {
				out = append(out, IncastSwitchReading{Switch: s.Name, Err: fmt.Errorf("the %s driver reads no congestion counters", s.Platform)})
				return nil
			}
			return func(t *switchcfg.Target) func() {
				cmds := cr.CongestionCommands(s.Ports)
				r := IncastSwitchReading{Switch: s.Name, From: strings.Join(cmds, "; ")}
				rb, err := fleet.ReadBack(ctx, t, cmds)
				var cg switchcfg.CongestionReading
				if err == nil {
					cg, err = cr.ParseCongestion(rb)
				}
				if err != nil {
					r.Err = fmt.Errorf("reading congestion counters: %w", err)
				} else {
					r.Counters = map[string]map[string]uint64{}
					for _, p := range cg.Ports() {
						r.Counters[p] = cg.Of(p)
					}
					for _, u := range cg.Unread {
						r.Unread = append(r.Unread, unreadLine(u))
					}
				}
				return func() { out = append(out, r) }
			}
		})
		slices.SortFunc(out, func(a, b IncastSwitchReading) int { return strings.Compare(a.Switch, b.Switch) })
		return out
	}
}

// FamilyOfPlatform is the congestion.Family of a switch platform ("" for
// a platform whose counters congestion.Table does not name).
func FamilyOfPlatform(platform string) congestion.Family {
	return map[string]congestion.Family{sonic.Platform: congestion.SONiC, cumulus.Platform: congestion.Cumulus,
		eos.Platform: congestion.EOS, junos.Platform: congestion.Junos, nxos.Platform: congestion.NXOS}[platform]
}

// FabricIncast is o with what the fabric says about the incast suite: its
// switches' counters (read over the plan/apply sessions that sw reaches),
// their families, and the ECN thresholds of the RoCE class. o's fields
// already set are kept.
func FabricIncast(f *fabric.Fabric, sw fleet.Options, o IncastOptions) IncastOptions {
	r := f.Resolve()
	if o.Switches == nil && len(r.Switches) > 0 {
		o.Switches = NewIncastSwitchSource(f, sw)
	}
	if o.SwitchFamily == nil {
		o.SwitchFamily = map[string]congestion.Family{}
		for _, s := range r.Switches {
			if fam := FamilyOfPlatform(s.Platform); fam != "" {
				o.SwitchFamily[s.Name] = fam
			}
		}
	}
	if o.ECNMinKB == 0 && o.ECNMaxKB == 0 {
		for _, h := range f.Spec.Hosts {
			p := f.Profiles[h.Profile]
			if p == nil || p.Spec.Ethernet == nil || p.Spec.Ethernet.RoCE == nil {
				continue
			}
			e := p.Spec.Ethernet
			for _, c := range e.Classes {
				if c.Name == e.RoCE.Class && c.ECN != nil && !c.ECN.Off {
					o.ECNMinKB, o.ECNMaxKB = int(c.ECN.MinThreshold/1000), int(c.ECN.MaxThreshold/1000)
				}
			}
			break
		}
	}
	return o
}

// IncastTest is the perftest of the fabric's spec.checks.incast: write_bw
// of messageSize with qps queue pairs for duration.
func IncastTest(c *fabric.Checks) rdma.Test {
	in := c.IncastOrDefault()
	t := test("write_bw", in.MessageSize, in.Duration, in.Retries, in.QPTimeout)
	t.QPs = in.QPs
	return t
}

// incastTest is IncastTest with the run's options and the traffic class.
func incastTest(o Options, tclass *int) rdma.Test {
	t := IncastTest(o.Checks)
	t.Timeout, t.TClass = o.Timeout, tclass
	return t
}

// IncastPlan is the incast suite's schedule over hosts (intents, in
// order): each host's leaf from the Topology's cabling, else its leaf
// label; when a host has neither, the hosts are one leaf.
func IncastPlan(c *fabric.Checks, intents []fabric.HostIntent, topo *topology.Topology) ([]schedule.IncastRound, error) {
	in := c.IncastOrDefault()
	sh := make([]schedule.Host, len(intents))
	all := true
	for i, h := range intents {
		sh[i] = schedule.Host{Name: h.Host}
		if l := incastLeafOf(h, topo); l != "" {
			sh[i].Labels = map[string]string{schedule.LeafLabel: l}
		} else {
			all = false
		}
	}
	if !all {
		// A host of unknown leaf: the hosts are one leaf.
		for i := range sh {
			sh[i].Labels = nil
		}
	}
	cross := in.CrossLeaf == nil || *in.CrossLeaf
	return schedule.Incast(sh, schedule.LeafLabel, schedule.IncastOptions{Senders: in.Senders, ReceiversPerLeaf: in.ReceiversPerLeaf, CrossLeaf: cross})
}

// incastLeafOf is the switch a host's first cable reaches, else its leaf label.
func incastLeafOf(h fabric.HostIntent, topo *topology.Topology) string {
	if topo != nil {
		for _, l := range topo.LinksOf(h.Host) {
			if l.Kind == topology.Access && l.A.Device == h.Host {
				return l.B.Device
			}
		}
	}
	return h.Labels[schedule.LeafLabel]
}

// incastIntent is what the hosts' intents say the rounds must show: the
// lossless priorities (every host's PFC priorities), whether ECN is on for
// the RoCE class, the RoCE ToS the writes carry, and the note that the
// class is lossy when it is.
func incastIntent(hosts []Host, in fabric.Incast, io IncastOptions) (congestion.Intent, *int, *checks.Result) {
	it := congestion.Intent{ECNMinKB: io.ECNMinKB, ECNMaxKB: io.ECNMaxKB, PFCXoffKB: io.PFCXoffKB}
	if b := in.Bounds; b != nil {
		it.Bounds = congestion.Bounds{MaxPausedFraction: b.MaxPausedPercent / 100, HeavyPausedFraction: b.HeavyPausedPercent / 100,
			HeavyPauseFrames: uint64(b.HeavyPauseFrames)}
	}
	var tclass *int
	roce := -1 // the RoCE class's priority
	for _, h := range hosts {
		for _, ii := range h.Intent.Interfaces {
			for _, p := range ii.PFC.Priorities {
				if !slices.Contains(it.Lossless, p) {
					it.Lossless = append(it.Lossless, p)
				}
			}
			if tclass != nil || (ii.RoCE.ToS == 0 && len(ii.DSCPMap) == 0) {
				continue
			}
			tos := ii.RoCE.ToS
			tclass = &tos
			for _, m := range ii.DSCPMap {
				if int(m.DSCP) == tos>>2 {
					roce = int(m.Priority)
				}
			}
			it.ECN = slices.ContainsFunc(ii.ECN.Priorities, func(p int) bool { return p == roce || roce < 0 && slices.Contains(ii.PFC.Priorities, p) })
		}
	}
	slices.Sort(it.Lossless)
	var note *checks.Result
	if roce >= 0 && len(it.Lossless) > 0 && !slices.Contains(it.Lossless, roce) {
		note = &checks.Result{ID: IDIncastClass, Target: "fleet", Status: checks.StatusWarn,
			Summary: fmt.Sprintf("the RoCE traffic class (ToS %d, DSCP %d) maps to priority %d, which is not lossless (PFC on %s): PFC cannot engage for the rounds' traffic", *tclass, *tclass>>2, roce, incastInts(it.Lossless))}
	}
	return it, tclass, note
}

func incastInts(ps []int) string {
	var s []string
	for _, p := range ps {
		s = append(s, strconv.Itoa(p))
	}
	return strings.Join(s, ",")
}

// incastReading is one read of the round's hosts and the switches.
type incastReading struct {
	rep      *counters.Report // the hosts
	switches map[string]IncastSwitchReading
	at       time.Time
}

// readIncast reads the named hosts' counters (action/counters' reading:
// the agents' port-counters op) while the switches are read.
func readIncast(ctx context.Context, names []string, agents map[string]Host, switches IncastSwitchSource) incastReading {
	out := incastReading{switches: map[string]IncastSwitchReading{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if switches == nil {
			return
		}
		for _, s := range switches(ctx) {
			out.switches[s.Switch] = s
		}
	}()
	var ha []counters.HostAgent
	for _, n := range names {
		ha = append(ha, counters.HostAgent{Name: n, Agent: agents[n].Agent})
	}
	rep, err := counters.Run(ctx, "incast", ha, nil, counters.Options{})
	if err != nil {
		rep = &counters.Report{}
		for _, n := range names {
			rep.Unread = append(rep.Unread, counters.Unread{Target: n, Error: err.Error()})
		}
	}
	<-done
	out.rep, out.at = rep, time.Now()
	return out
}

// hostPort finds e's port in a reading.
func (r incastReading) hostPort(e rdma.Endpoint) (counters.Port, bool) {
	port := max(e.Port, 1)
	for _, p := range r.rep.Ports {
		if p.Tier == counters.Host && p.Target == e.Host && p.Device == e.Device && p.PortNum == port {
			return p, true
		}
	}
	return counters.Port{}, false
}

// unread is why target could not be read ("" when it was).
func (r incastReading) unread(target string) string {
	var why []string
	for _, u := range r.rep.Unread {
		if u.Target == target {
			why = append(why, u.Error)
		}
	}
	return strings.Join(why, "; ")
}

// incastValues are a host port's counters without the ignored ones, and where
// each was read.
func incastValues(p counters.Port, ignore []string) (evaluate.Counters, map[string]string) {
	cs, from := evaluate.Counters{}, map[string]string{}
	for k, c := range p.Counters {
		_, name, _ := strings.Cut(k, "/")
		if slices.Contains(ignore, name) {
			continue
		}
		cs[k], from[k] = c.Value, c.From
	}
	return cs, from
}

// incastRun is the state of the suite across its rounds.
type incastRun struct {
	o       Options
	cfg     fabric.Incast
	intent  congestion.Intent
	agents  map[string]Host
	eps     map[string]rdma.Endpoint
	verdict map[[2]string]*incastVerdict // by ID and target
	order   [][2]string
	proofs  map[string]*incastProof   // by port subject
	unread  map[string]*incastVerdict // by target
	results []checks.Result           // per round
}

// incastVerdict is one port's verdict across the rounds that judged it.
type incastVerdict struct {
	worst  checks.Result
	round  int
	rounds []string // "2 receiver"
}

// incastProof is what one port's readings held, for the CONGESTION section.
type incastProof struct {
	family congestion.Family
	keys   map[string]bool
	skip   map[string]string // verdict ID → why not observable
}

// runIncast runs the incast suite: every round of IncastPlan, each
// sender's write_bw to its receiver at once, the participating hosts' (and
// the switches') counters read before and after, judged by
// congestion.Evaluate against the hosts' intent.
func runIncast(ctx context.Context, hosts []Host, eps []rdma.Endpoint, rep *report.Report, o Options) {
	if o.Launcher != nil {
		rep.Add(checks.Result{ID: IDIncastSchedule, Target: "fleet", Status: checks.StatusSkip,
			Summary: "the incast suite reads each host's counters through its agent, which a workload manager's launcher does not run: check over SSH"})
		return
	}
	run := &incastRun{o: o, cfg: o.Checks.IncastOrDefault(), agents: map[string]Host{}, eps: map[string]rdma.Endpoint{},
		verdict: map[[2]string]*incastVerdict{}, proofs: map[string]*incastProof{}, unread: map[string]*incastVerdict{}}
	var intents []fabric.HostIntent
	var left []string
	for i, h := range hosts {
		if p := eps[i].Problem; p != nil {
			left = append(left, fmt.Sprintf("%s: %s %s", h.Intent.Host, p.ID, p.Summary))
			continue
		}
		intents = append(intents, h.Intent)
		run.agents[h.Intent.Host], run.eps[h.Intent.Host] = h, eps[i]
	}
	intent, tclass, note := incastIntent(hosts, run.cfg, o.Incast)
	run.intent = intent
	if note != nil {
		rep.Add(*note)
	}
	plan, err := IncastPlan(o.Checks, intents, o.Topology)
	if err != nil {
		r := checks.Result{ID: IDIncastSchedule, Target: "fleet", Status: checks.StatusError, Summary: fmt.Sprintf("planning the incast rounds: %v", err), Evidence: left}
		if len(intents) < 2 {
			r.Summary = fmt.Sprintf("an incast needs two hosts with a usable RDMA port; %d have one", len(intents))
		}
		rep.Add(r)
		return
	}
	if len(left) > 0 {
		rep.Add(checks.Result{ID: IDIncastSchedule, Target: "fleet", Status: checks.StatusWarn,
			Summary: fmt.Sprintf("%d host(s) left out of the incast rounds: no usable RDMA port", len(left)), Evidence: left})
	}
	sw := rdma.Sweep{Test: incastTest(o, tclass), BasePort: o.BasePort}
	sw.Progress = func(done, total int, r rdma.PairRun) {
		o.progress("incast %d/%d %s: %s", done, total, r.Target(), short(rdma.Judge(r, rdma.Thresholds{})))
	}
	for k, round := range plan {
		if ctx.Err() != nil {
			break
		}
		run.round(ctx, k, len(plan), round, sw, rep)
	}
	run.finish(rep)
}

// round runs and judges one round.
func (run *incastRun) round(ctx context.Context, k, total int, round schedule.IncastRound, sw rdma.Sweep, rep *report.Report) {
	o := run.o
	names := append(round.Receivers(), round.Senders()...)
	o.progress("incast round %d/%d (%s): %s", k+1, total, round.Kind, incastDescribe(round))
	base := o.BasePort
	if base <= 0 {
		base = rdma.DefaultBasePort
	}
	jobs := make([]rdma.Job, len(round.Flows))
	for i, f := range round.Flows {
		jobs[i] = rdma.Job{Server: run.eps[f.Server], Client: run.eps[f.Client], Test: sw.Test, TCPPort: base + i}
	}
	before := readIncast(ctx, names, run.agents, o.Incast.Switches)
	runs, err := sw.Incast(ctx, jobs)
	after := readIncast(ctx, names, run.agents, o.Incast.Switches)
	target := fmt.Sprintf("round %d", k+1)
	if err != nil {
		rep.Add(checks.Result{ID: IDIncastRound, Target: target, Status: checks.StatusError, Summary: fmt.Sprintf("running %s: %v", incastDescribe(round), err)})
		return
	}
	res, moved := incastRoundResult(target, round, jobs, runs)
	rep.Add(res)
	if !moved {
		return // no traffic: the counters say nothing about congestion
	}
	var ports []congestion.Port
	role := map[string]string{}
	for _, n := range round.Receivers() {
		role[n] = string(congestion.Receiver)
	}
	for _, n := range round.Senders() {
		role[n] = string(congestion.Sender)
	}
	secs := after.at.Sub(before.at).Seconds()
	for _, n := range names {
		e := run.eps[n]
		why := strings.Join(incastNonEmpty(before.unread(n), after.unread(n)), "; ")
		pb, okb := before.hostPort(e)
		pa, oka := after.hostPort(e)
		if why == "" && (!okb || !oka) {
			why = fmt.Sprintf("port %s:%d not in the reading", e.Device, max(e.Port, 1))
		}
		if why != "" {
			run.noteUnread(n, k, checks.StatusError, fmt.Sprintf("%s's counters could not be read around the round, so its port is not judged: %s", n, why))
			continue
		}
		b, from := incastValues(pb, run.cfg.Ignore)
		a, fromA := incastValues(pa, run.cfg.Ignore)
		maps.Copy(from, fromA)
		ports = append(ports, congestion.Port{Target: n, Port: pa.Port, Role: congestion.Role(role[n]), Seconds: secs, Before: b, After: a, From: from})
	}
	ports = append(ports, run.switchPorts(k, round, before, after)...)
	results := congestion.Evaluate(run.intent, ports)
	for i := range results {
		results[i].ID = incastID(results[i].ID)
	}
	run.proof(ports, results)
	for _, r := range results {
		if r.Target == "round" {
			r.Target = target
			run.results = append(run.results, r)
			continue
		}
		run.add(r, k, role[strings.SplitN(r.Target, "/", 2)[0]])
	}
}

// incastID is a congestion verdict's ID in the incast suite:
// congestion/lossless → incast/lossless.
func incastID(id string) string {
	return string(report.SuiteIncast) + "/" + strings.TrimPrefix(id, "congestion/")
}

func incastNonEmpty(ss ...string) []string {
	return slices.DeleteFunc(ss, func(s string) bool { return s == "" })
}

// switchPorts are the switch ports of the round: with a Topology, the
// ports cabled to its hosts and every switch-to-switch port; without, the
// ports whose congestion counters moved (an idle port says nothing).
func (run *incastRun) switchPorts(k int, round schedule.IncastRound, before, after incastReading) []congestion.Port {
	if run.o.Incast.Switches == nil {
		return nil
	}
	topo := run.o.Topology
	var want map[fabric.Endpoint]bool
	if topo != nil && len(topo.Links) > 0 {
		want = map[fabric.Endpoint]bool{}
		hosts := append(round.Receivers(), round.Senders()...)
		for _, l := range topo.Links {
			switch {
			case l.Kind == topology.Fabric:
				want[l.A], want[l.B] = true, true
			case slices.Contains(hosts, l.A.Device):
				want[l.B] = true
			}
		}
	}
	var out []congestion.Port
	secs := after.at.Sub(before.at).Seconds()
	for _, name := range slices.Sorted(maps.Keys(after.switches)) {
		sa, sb := after.switches[name], before.switches[name]
		if err := cmp.Or(sb.Err, sa.Err); err != nil || sb.Switch == "" {
			why := "not read before the round"
			if err != nil {
				why = err.Error()
			}
			run.noteUnread(name, k, checks.StatusSkip, fmt.Sprintf("%s: its counters could not be read around the round, so its ports are not judged: %s", name, why))
			continue
		}
		if len(sa.Unread) > 0 {
			run.noteUnread(name, k, checks.StatusWarn, fmt.Sprintf("%s: %d line(s) of its congestion counters were not understood, so what they held is not judged; the first: %s",
				name, len(sa.Unread), sa.Unread[0]))
		}
		fam := run.o.Incast.SwitchFamily[name]
		if fam == "" {
			run.noteUnread(name, k, checks.StatusSkip, fmt.Sprintf("%s: its platform's congestion counters are not known (congestion.Table), so its ports are not judged", name))
			continue
		}
		for _, port := range slices.Sorted(maps.Keys(sa.Counters)) {
			if want != nil && !want[fabric.Endpoint{Device: name, Port: port}] {
				continue
			}
			pb, ok := sb.Counters[port]
			if !ok {
				continue
			}
			b, a := incastSwitchValues(pb, run.cfg.Ignore), incastSwitchValues(sa.Counters[port], run.cfg.Ignore)
			if want == nil && !incastMoved(fam, b, a) {
				continue
			}
			from := map[string]string{}
			for n := range a {
				from[n] = sa.From
			}
			out = append(out, congestion.Port{Target: name, Port: port, Family: fam, Seconds: secs, Before: b, After: a, From: from})
		}
	}
	return out
}

// incastSwitchValues are a switch port's counters without the ignored ones.
func incastSwitchValues(cs map[string]uint64, ignore []string) evaluate.Counters {
	out := evaluate.Counters{}
	for n, v := range cs {
		if !slices.Contains(ignore, n) {
			out[n] = v
		}
	}
	return out
}

// incastMoved reports whether a counter the family's table names moved.
func incastMoved(fam congestion.Family, b, a evaluate.Counters) bool {
	for _, d := range evaluate.Deltas(b, a) {
		if _, ok := congestion.Lookup(fam, d.Name); ok && d.Delta > 0 {
			return true
		}
	}
	return false
}

// incastRoundResult is the round's own result: each sender's bandwidth, an
// error naming the host and the command of a run that did not start, a
// failure of a run that broke under the congestion; moved says whether any
// flow moved data.
func incastRoundResult(target string, round schedule.IncastRound, jobs []rdma.Job, runs []rdma.PairRun) (checks.Result, bool) {
	res := checks.Result{ID: IDIncastRound, Target: target, Status: checks.StatusPass}
	var total float64
	var bws []string
	moved, bad := false, 0
	for i, r := range runs {
		j := rdma.Judge(r, rdma.Thresholds{})
		flow := r.Client.Name() + "->" + r.Server.Name()
		if bw, ok := j.Measurement(rdma.MeasBWAverage); ok {
			total += bw.Value
			moved = moved || bw.Value > 0
			bws = append(bws, fmt.Sprintf("%s %.3f", r.Client.Host, bw.Value))
			res.Measurements = append(res.Measurements, checks.Measurement{Name: rdma.MeasBWAverage + " " + flow, Value: bw.Value, Unit: checks.UnitGbps})
		}
		if j.Status == checks.StatusPass {
			continue
		}
		bad++
		if j.Status.Worse(res.Status) {
			res.Status, res.Class = j.Status, j.Class
		}
		line := fmt.Sprintf("%s: %s %s", flow, j.Status, j.Summary)
		if j.Status == checks.StatusError {
			host, argv := r.Client.Host, incastArgv(r.ClientOut, jobs[i].ClientSpec())
			if r.ClientOut == nil {
				host, argv = r.Server.Host, incastArgv(r.ServerOut, jobs[i].ServerSpec())
			}
			line = fmt.Sprintf("%s did not start on %s (%s): %s", flow, host, argv, j.Summary)
		}
		res.Evidence = append(res.Evidence, line)
		res.Evidence = append(res.Evidence, j.Evidence...)
	}
	res.Measurements = append([]checks.Measurement{{Name: "bw_total", Value: total, Unit: checks.UnitGbps}}, res.Measurements...)
	res.Summary = fmt.Sprintf("%s: %s Gb/s", incastDescribe(round), strings.Join(bws, ", "))
	if res.Status != checks.StatusPass {
		res.Summary = fmt.Sprintf("%s: %d of %d flows did not run through: %s", incastDescribe(round), bad, len(runs), res.Evidence[0])
		for _, e := range res.Evidence {
			if strings.Contains(e, " did not start on ") {
				res.Summary = incastDescribe(round) + ": " + e
				break
			}
		}
	}
	return res, moved
}

// incastArgv is the perftest command a side ran, or would have.
func incastArgv(o *rdma.Outcome, spec perftest.Spec) string {
	if o != nil && len(o.Argv) > 0 {
		return strings.Join(o.Argv, " ")
	}
	argv, err := perftest.Args(spec)
	if err != nil {
		return spec.Test.Binary()
	}
	return strings.Join(argv, " ")
}

// incastDescribe says what a round does: "lab-h3, lab-h4, lab-h2 → lab-h1
// (incast on leaf-01)", "4 flows lab-h1 → lab-h3, … (cross-leaf)".
func incastDescribe(r schedule.IncastRound) string {
	if r.Kind == schedule.IncastDownlink {
		s := strings.Join(r.Senders(), ", ") + " → " + r.Receiver + " (incast"
		if r.Leaf != "" {
			s += " on " + r.Leaf
		}
		return s + ")"
	}
	var fs []string
	for _, f := range r.Flows {
		fs = append(fs, f.Client+" → "+f.Server)
	}
	return strings.Join(fs, ", ") + " (cross-leaf)"
}

// add keeps a port's worst verdict across the rounds.
func (run *incastRun) add(r checks.Result, k int, role string) {
	key := [2]string{r.ID, r.Target}
	a := run.verdict[key]
	if a == nil {
		a = &incastVerdict{worst: r, round: k}
		run.verdict[key] = a
		run.order = append(run.order, key)
	} else if r.Status.Worse(a.worst.Status) {
		a.worst, a.round = r, k
	}
	if role == "" {
		role = "crossed"
	}
	a.rounds = append(a.rounds, fmt.Sprintf("%d %s", k+1, role))
}

// unreadLine says where a driver's unread line is and why.
func unreadLine(u switchcfg.UnreadLine) string {
	at := u.Command
	if u.Line > 0 {
		at += " line " + strconv.Itoa(u.Line)
	}
	return fmt.Sprintf("%s: %q: %s", at, u.Text, u.Reason)
}

// noteUnread records that a target could not be judged in a round.
func (run *incastRun) noteUnread(target string, k int, st checks.Status, why string) {
	a := run.unread[target]
	if a == nil {
		a = &incastVerdict{worst: checks.Result{ID: IDIncastCounters, Target: target, Status: st, Summary: why}}
		run.unread[target] = a
	}
	a.rounds = append(a.rounds, strconv.Itoa(k+1))
}

// proof records which counters each port's readings held, and the
// verdicts its counters could not give.
func (run *incastRun) proof(ports []congestion.Port, results []checks.Result) {
	for _, p := range ports {
		subject := p.Target + "/" + p.Port
		pp := run.proofs[subject]
		if pp == nil {
			fam := p.Family
			if fam == "" {
				fam = congestion.Detect(slices.Collect(maps.Keys(p.After)))
			}
			pp = &incastProof{family: fam, keys: map[string]bool{}, skip: map[string]string{}}
			run.proofs[subject] = pp
		}
		for k := range p.After {
			if _, ok := p.Before[k]; ok {
				pp.keys[k] = true
			}
		}
	}
	for _, r := range results {
		if pp := run.proofs[r.Target]; pp != nil && r.Status == checks.StatusSkip && strings.Contains(r.Summary, "not observable") {
			pp.skip[r.ID] = r.Summary
		}
	}
}

// incastSignals are the signals each verdict reads (congestion.Evaluate).
var incastSignals = map[string][]congestion.Signal{
	congestion.IDLossless:   {congestion.Drop, congestion.OutOfSequence, congestion.SeqError, congestion.Retransmit},
	congestion.IDPFC:        {congestion.PauseRx, congestion.PauseTx, congestion.GlobalPause},
	congestion.IDECN:        {congestion.ECNMarked, congestion.CNPSent, congestion.CNPHandled, congestion.CNPIgnored},
	congestion.IDPauseStorm: {congestion.PauseDurationRx, congestion.PauseDurationTx, congestion.PauseStormWarn, congestion.PauseStormError, congestion.PauseTx, congestion.Traffic},
}

// finish adds the ports' verdicts (the worst of their rounds), the
// per-round results and the CONGESTION proofs to the report.
func (run *incastRun) finish(rep *report.Report) {
	for _, key := range run.order {
		a := run.verdict[key]
		r := a.worst
		if r.Status == checks.StatusWarn || r.Status == checks.StatusFail || r.Status == checks.StatusError {
			r.Summary += fmt.Sprintf(" (round %d)", a.round+1)
		}
		r.Evidence = append(slices.Clone(r.Evidence), "judged in rounds: "+strings.Join(a.rounds, ", "))
		rep.Add(r)
	}
	rep.Add(run.results...)
	for _, t := range slices.Sorted(maps.Keys(run.unread)) {
		a := run.unread[t]
		r := a.worst
		r.Summary += " (round " + strings.Join(a.rounds, ", ") + ")"
		rep.Add(r)
	}
	type group struct{ check, family, what string }
	groups := map[group]*report.CongestionProof{}
	for _, subject := range slices.Sorted(maps.Keys(run.proofs)) {
		pp := run.proofs[subject]
		for _, id := range []string{congestion.IDLossless, congestion.IDPFC, congestion.IDECN, congestion.IDPauseStorm} {
			check := incastID(id)
			var keys []string
			for k := range pp.keys {
				if n, ok := congestion.Lookup(pp.family, k); ok && slices.Contains(incastSignals[id], n.Signal) {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			g := group{check, string(pp.family), strings.Join(keys, ",")}
			why := pp.skip[check]
			if why != "" {
				g.what, keys = "skip:"+why, nil
			} else if len(keys) == 0 {
				continue
			}
			p := groups[g]
			if p == nil {
				p = &report.CongestionProof{Check: check, Family: string(pp.family), Counters: keys, NotObservable: why}
				groups[g] = p
			}
			p.Ports = append(p.Ports, subject)
		}
	}
	for _, p := range groups {
		rep.Congestion = append(rep.Congestion, *p)
	}
}
