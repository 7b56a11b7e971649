package congestion

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
)

// The check IDs of the results.
const (
	IDLossless   = "congestion/lossless"    // the lossless class lost nothing
	IDPFC        = "congestion/pfc"         // PFC paused on the lossless priorities only
	IDECN        = "congestion/ecn"         // ECN marked and CNPs were handled
	IDPauseStorm = "congestion/pause-storm" // no port paused beyond the bound or without traffic
	IDEngaged    = "congestion/pfc-engaged" // the round made PFC pause somewhere
)

// Role is what a port did in the round.
type Role string

// The roles; "" for a port the traffic crossed (a switch port).
const (
	Receiver Role = "receiver"
	Sender   Role = "sender"
)

// Port is the counters of one port read before and after a congestion
// round.
type Port struct {
	Target string // host or switch name
	Port   string // "ens1f0np0/mlx5_0:1" on a host, the switch's port name on a switch
	Family Family // "" to Detect from the counter names (hosts only)
	Role   Role
	// Seconds is the time between the two readings; 0 when unknown
	// (pause durations then cannot be judged against the bound).
	Seconds float64
	// Before and After are the readings, by key: "source/name" on a host
	// ("ethtool/rx_prio3_pause", as action/counters keys them) or the bare
	// name; the table's names on a switch.
	Before, After evaluate.Counters
	// From says where each key was read (file or command), for evidence.
	From map[string]string
}

func (p Port) subject() string { return p.Target + "/" + p.Port }

// Intent is what the profile says the round must show.
type Intent struct {
	// Lossless are the PFC priorities; every other priority is lossy.
	Lossless []int
	// ECN: ECN marking (and DCQCN) is configured for the lossless class.
	ECN bool
	// The thresholds of the profile, in KB, for the explanation of a
	// warning (0 when the profile does not say).
	ECNMinKB, ECNMaxKB, PFCXoffKB int
	Bounds                        Bounds
}

// Bounds are the limits the verdicts use; zero fields take the defaults.
type Bounds struct {
	// MaxPausedFraction: a port paused (or pausing its peer) more than
	// this share of the round is in a pause storm. Default 0.5.
	MaxPausedFraction float64
	// HeavyPausedFraction: pausing this share of the round or more is
	// heavy. Default 0.05.
	HeavyPausedFraction float64
	// HeavyPauseFrames: without a duration counter, this many pause frames
	// or more is heavy. Default 10000.
	HeavyPauseFrames uint64
}

func (b Bounds) withDefaults() Bounds {
	if b.MaxPausedFraction <= 0 {
		b.MaxPausedFraction = 0.5
	}
	if b.HeavyPausedFraction <= 0 {
		b.HeavyPausedFraction = 0.05
	}
	if b.HeavyPauseFrames == 0 {
		b.HeavyPauseFrames = 10000
	}
	return b
}

// moved is one counter of a port, read against the table.
type moved struct {
	Name
	evaluate.Delta
}

// line is the evidence line of a counter: "gpu-02/ens1f0np0/mlx5_0:1:
// ethtool/rx_prio3_pause +120 (pause-rx, priority 3; ethtool -S ens1f0np0)".
func (m moved) line(subject string, from map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s +%d (%s", subject, m.Key, m.Delta.Delta, m.Signal)
	if m.Priority >= 0 {
		fmt.Fprintf(&b, ", priority %d", m.Priority)
	}
	if m.Unit != "" {
		fmt.Fprintf(&b, ", %s", m.Unit)
	}
	if m.Reset {
		b.WriteString("; counter reset or wrapped during the round, so at least this much")
	}
	if f := from[m.Key]; f != "" {
		b.WriteString("; " + f)
	} else {
		b.WriteString("; " + m.Where)
	}
	b.WriteString(")")
	return b.String()
}

// view is a port's counters, by signal.
type view struct {
	p      Port
	family Family
	all    []moved
	// oneSided: keys of the family's table in the second reading only.
	oneSided []string
}

func newView(p Port) view {
	v := view{p: p, family: p.Family}
	if v.family == "" {
		v.family = Detect(slices.Collect(maps.Keys(p.After)))
	}
	for _, d := range evaluate.Deltas(p.Before, p.After) {
		if n, ok := Lookup(v.family, d.Name); ok {
			v.all = append(v.all, moved{n, d})
		}
	}
	for k := range p.After {
		if _, ok := p.Before[k]; !ok {
			if _, known := Lookup(v.family, k); known {
				v.oneSided = append(v.oneSided, k)
			}
		}
	}
	slices.Sort(v.oneSided)
	return v
}

// of returns the counters of a signal; prio < 0 takes every priority.
func (v view) of(s Signal, prio int) []moved {
	var out []moved
	for _, m := range v.all {
		if m.Signal == s && (prio < 0 || m.Priority == prio || m.Priority < 0) {
			out = append(out, m)
		}
	}
	return out
}

// perPrio returns the per-priority counters of a signal on prio only.
func (v view) perPrio(s Signal, prio int) []moved {
	var out []moved
	for _, m := range v.all {
		if m.Signal == s && m.Priority == prio {
			out = append(out, m)
		}
	}
	return out
}

func sum(ms []moved) uint64 {
	var n uint64
	for _, m := range ms {
		n += m.Delta.Delta
	}
	return n
}

func nonzero(ms []moved) []moved {
	var out []moved
	for _, m := range ms {
		if m.Delta.Delta > 0 {
			out = append(out, m)
		}
	}
	return out
}

func anyReset(ms []moved) bool { return slices.ContainsFunc(ms, func(m moved) bool { return m.Reset }) }

func keys(ms []moved) string {
	var ks []string
	for _, m := range ms {
		s := fmt.Sprintf("%s +%d", m.Key, m.Delta.Delta)
		if m.Reset {
			s = fmt.Sprintf("%s ≥+%d", m.Key, m.Delta.Delta)
		}
		ks = append(ks, s)
	}
	return strings.Join(ks, ", ")
}

func (v view) evidence(ms []moved) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.line(v.p.subject(), v.p.From))
	}
	return out
}

// notObservable is the summary of a verdict the port's counters cannot
// give, with the reason.
func notObservable(family Family, what, why string) string {
	if family == "" {
		family = "this port"
	}
	return fmt.Sprintf("%s not observable on %s: %s", what, family, why)
}

// Evaluate judges the ports of one congestion round against the intent:
// for every port, whether the lossless class held (IDLossless), PFC paused
// on the lossless priorities only (IDPFC), ECN marked (IDECN) and no pause
// storm (IDPauseStorm); then, once for the round, whether PFC engaged
// anywhere (IDEngaged). A verdict the port's counters cannot give (the
// family has no such counter, or the reading lacks it) is skip with
// "not observable" and the reason, never a pass. Results are sorted.
func Evaluate(in Intent, ports []Port) []checks.Result {
	in.Bounds = in.Bounds.withDefaults()
	var out []checks.Result
	engaged, pauseSeen := []string{}, false
	views := make([]view, len(ports))
	held := make([]checks.Result, len(ports))
	for i, p := range ports {
		v := newView(p)
		views[i], held[i] = v, lossless(in, v)
		out = append(out, pfc(in, v), ecn(in, v), storm(in, v))
		for _, prio := range in.Lossless {
			if len(v.perPrio(PauseRx, prio))+len(v.perPrio(PauseTx, prio)) > 0 {
				pauseSeen = true
			}
			if ms := nonzero(append(v.perPrio(PauseRx, prio), v.perPrio(PauseTx, prio)...)); len(ms) > 0 {
				engaged = append(engaged, p.subject())
				break
			}
		}
	}
	out = append(out, locateLoss(views, held)...)
	r := checks.Result{ID: IDEngaged, Target: "round"}
	switch {
	case len(engaged) > 0:
		r.Status = checks.StatusPass
		r.Summary = fmt.Sprintf("PFC engaged: %d of %d ports paused on a lossless priority", len(engaged), len(ports))
		r.Evidence = engaged
	case !pauseSeen:
		r.Status = checks.StatusSkip
		r.Summary = "PFC engagement not observable: no port has a per-priority pause counter"
	default:
		r.Status = checks.StatusWarn
		r.Class = checks.CounterEvidence
		r.Summary = fmt.Sprintf("PFC never engaged: no port paused on priority %s; the round did not congest, or PFC is off", prios(in.Lossless))
	}
	out = append(out, r)
	checks.Sort(out)
	return out
}

// locateLoss places the round's loss where it was counted. A sender's
// sequence-error NAKs and retransmits are the loss of its flows wherever
// on their path it happened: they do not say that the sender's port lost
// anything. Where another port of the round (the receiver, a switch port)
// failed on counters of its own, a sender whose failure rests on those
// echoes alone passes, naming where the loss was counted, and the echoes
// are added to the evidence of the ports that counted it. Without such a
// port the senders' failures stand: the loss is real and nothing else
// locates it.
func locateLoss(views []view, held []checks.Result) []checks.Result {
	var located []int
	for i, v := range views {
		if v.p.Role != Sender && held[i].Status == checks.StatusFail {
			located = append(located, i)
		}
	}
	if len(located) == 0 {
		return held
	}
	var names []string
	for _, i := range located {
		names = append(names, views[i].p.subject())
	}
	var echoes []string
	for i, v := range views {
		if v.p.Role != Sender || held[i].Status != checks.StatusFail || !echoesOnly(v) {
			continue
		}
		e := nonzero(append(v.of(SeqError, -1), v.of(Retransmit, -1)...))
		r := result(IDLossless, v)
		r.Status = checks.StatusPass
		r.Summary = fmt.Sprintf("no loss at this port: its flows' NAKs and retransmits (%s) are the loss counted at %s", keys(e), strings.Join(names, ", "))
		r.Evidence = append(v.evidence(e), "loss counted at: "+strings.Join(names, ", "))
		held[i] = r
		for _, l := range e {
			echoes = append(echoes, "seen by sender "+l.line(v.p.subject(), v.p.From))
		}
	}
	for _, i := range located {
		held[i].Evidence = append(held[i].Evidence, echoes...)
	}
	return held
}

// echoesOnly: the port lost nothing of its own (no drop, no
// out-of-sequence packet); only sequence-error NAKs and retransmits moved.
func echoesOnly(v view) bool {
	return len(nonzero(v.of(Drop, -1))) == 0 && len(nonzero(v.of(OutOfSequence, -1))) == 0 &&
		len(nonzero(append(v.of(SeqError, -1), v.of(Retransmit, -1)...))) > 0
}

func prios(ps []int) string {
	var s []string
	for _, p := range ps {
		s = append(s, fmt.Sprint(p))
	}
	return strings.Join(s, ",")
}

func result(id string, v view) checks.Result {
	return checks.Result{ID: id, Target: v.p.subject()}
}

// lossless: no drop on a lossless priority, no out-of-sequence, NAK or
// retransmit.
func lossless(in Intent, v view) checks.Result {
	r := result(IDLossless, v)
	var watched, prioDrops, portDrops []moved
	for _, prio := range in.Lossless {
		prioDrops = append(prioDrops, v.perPrio(Drop, prio)...)
	}
	for _, m := range v.of(Drop, -1) {
		if m.Priority < 0 {
			portDrops = append(portDrops, m)
		}
	}
	transport := append(append(v.of(OutOfSequence, -1), v.of(SeqError, -1)...), v.of(Retransmit, -1)...)
	watched = append(append(watched, prioDrops...), transport...)
	hasPrioDrop := len(prioDrops) > 0
	if !hasPrioDrop {
		// Without a per-priority drop counter, the port's drops stand for
		// the class's: the round's traffic is on the lossless class.
		watched = append(watched, portDrops...)
	}
	if len(watched) == 0 {
		r.Status = checks.StatusSkip
		r.Summary = notObservable(v.family, "losslessness", "the reading has no drop, sequence or retransmit counter")
		r.Evidence = v.oneSidedLines()
		return r
	}
	if !Documents(v.family, PauseRx) && !Documents(v.family, PauseTx) && !v.family.Switch() {
		r.Evidence = append(r.Evidence, notObservable(v.family, "PFC activity", "losslessness judged from retransmits and sequence errors only"))
	}
	lost := nonzero(watched)
	if len(lost) > 0 {
		r.Status, r.Class = checks.StatusFail, checks.CounterEvidence
		role := ""
		if v.p.Role != "" {
			role = string(v.p.Role) + " "
		}
		r.Summary = fmt.Sprintf("lossless class (priority %s) lost packets at %s%s: %s", prios(in.Lossless), role, v.p.subject(), keys(lost))
		r.Evidence = append(r.Evidence, v.evidence(lost)...)
		return r
	}
	if hasPrioDrop {
		if d := nonzero(portDrops); len(d) > 0 {
			r.Status, r.Class = checks.StatusWarn, checks.CounterEvidence
			r.Summary = fmt.Sprintf("lossless class held, but the port dropped on other priorities: %s", keys(d))
			r.Evidence = append(r.Evidence, v.evidence(d)...)
			return r
		}
	}
	if anyReset(watched) {
		r.Status, r.Class = checks.StatusWarn, checks.CounterEvidence
		var reset []string
		for _, m := range watched {
			if m.Reset {
				reset = append(reset, m.Key)
			}
		}
		r.Summary = fmt.Sprintf("no loss counted, but %s reset or wrapped during the round: loss cannot be ruled out; run the round again", strings.Join(reset, ", "))
		return r
	}
	r.Status = checks.StatusPass
	var names []string
	for _, m := range watched {
		names = append(names, m.Key)
	}
	r.Summary = fmt.Sprintf("lossless class held: %d loss %s did not move", len(watched), plural(len(watched), "counter"))
	r.Evidence = append(r.Evidence, v.p.subject()+": unmoved: "+strings.Join(names, ", "))
	return r
}

func (v view) oneSidedLines() []string {
	if len(v.oneSided) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: in one reading only, not compared: %s", v.p.subject(), strings.Join(v.oneSided, ", "))}
}

// pfc: pause on the lossless priorities is PFC at work; pause on a lossy
// priority, or 802.3x global pause, is a misconfigured port.
func pfc(in Intent, v view) checks.Result {
	r := result(IDPFC, v)
	pauses := append(v.of(PauseRx, -1), v.of(PauseTx, -1)...)
	global := v.of(GlobalPause, -1)
	if len(pauses) == 0 && len(global) == 0 {
		r.Status = checks.StatusSkip
		why := "the reading has no pause counter"
		if !Documents(v.family, PauseRx) && !Documents(v.family, PauseTx) {
			why = "the driver has no pause counter; losslessness judged from retransmits and sequence errors only"
		}
		r.Summary = notObservable(v.family, "PFC activity", why)
		return r
	}
	var onLossy, onLossless []moved
	for _, m := range nonzero(pauses) {
		switch {
		case m.Priority < 0:
			onLossless = append(onLossless, m) // all priorities together (NX-OS RxPPP)
		case slices.Contains(in.Lossless, m.Priority):
			onLossless = append(onLossless, m)
		default:
			onLossy = append(onLossy, m)
		}
	}
	if g := nonzero(global); len(g) > 0 {
		r.Status, r.Class = checks.StatusFail, checks.CounterEvidence
		r.Summary = fmt.Sprintf("misconfigured port %s: 802.3x global pause (%s) instead of PFC on priority %s: every priority stops", v.p.subject(), keys(g), prios(in.Lossless))
		r.Evidence = v.evidence(g)
		return r
	}
	if len(onLossy) > 0 {
		var ps []string
		for _, m := range onLossy {
			if s := fmt.Sprint(m.Priority); !slices.Contains(ps, s) {
				ps = append(ps, s)
			}
		}
		r.Status, r.Class = checks.StatusFail, checks.CounterEvidence
		r.Summary = fmt.Sprintf("misconfigured port %s: pause frames on priority %s, which the profile makes lossy: %s", v.p.subject(), strings.Join(ps, ","), keys(onLossy))
		r.Evidence = v.evidence(onLossy)
		return r
	}
	if len(onLossless) > 0 {
		r.Status = checks.StatusPass
		r.Summary = "PFC engaged on priority " + prios(in.Lossless) + ": " + keys(onLossless)
		r.Evidence = v.evidence(onLossless)
		return r
	}
	r.Status = checks.StatusPass
	r.Summary = fmt.Sprintf("no pause on this port: not congested here, or ECN kept the queue below the PFC threshold (%d pause counters unmoved)", len(pauses))
	return r
}

// ecn: marked packets and CNPs, or ECN not configured; heavy pausing with no
// marking warns.
func ecn(in Intent, v view) checks.Result {
	r := result(IDECN, v)
	if !in.ECN {
		r.Status = checks.StatusSkip
		r.Summary = "ECN not configured in the profile"
		return r
	}
	marked, sent := v.of(ECNMarked, -1), v.of(CNPSent, -1)
	handled, ignored := v.of(CNPHandled, -1), v.of(CNPIgnored, -1)
	if v.family.Switch() {
		var ms []moved
		for _, prio := range in.Lossless {
			ms = append(ms, v.perPrio(ECNMarked, prio)...)
		}
		marked = ms
	}
	if len(marked)+len(sent)+len(handled) == 0 {
		r.Status = checks.StatusSkip
		why := "the reading has no ECN-mark or CNP counter"
		if !Documents(v.family, ECNMarked) && !Documents(v.family, CNPHandled) {
			why = "the driver has no ECN-mark or CNP counter"
		}
		r.Summary = notObservable(v.family, "ECN activity", why)
		return r
	}
	notified := sum(marked) + sum(sent) + sum(handled)
	heavy, pauseLines := heavyPause(in, v)
	if notified == 0 && heavy {
		r.Status, r.Class = checks.StatusWarn, checks.CounterEvidence
		r.Summary = fmt.Sprintf("heavy pausing with no ECN marking at %s: ECN thresholds above the PFC threshold%s, so PFC, not DCQCN, controls congestion", v.p.subject(), thresholds(in))
		r.Evidence = append(pauseLines, v.evidence(append(append(marked, sent...), handled...))...)
		return r
	}
	if sum(marked) > 0 && len(sent) > 0 && sum(sent) == 0 && !v.family.Switch() {
		r.Status, r.Class = checks.StatusWarn, checks.CounterEvidence
		r.Summary = fmt.Sprintf("%s received ECN-marked packets but sent no CNP: the notification point is off", v.p.subject())
		r.Evidence = v.evidence(append(marked, sent...))
		return r
	}
	if sum(ignored) > 0 && sum(handled) == 0 && len(handled) > 0 {
		r.Status, r.Class = checks.StatusWarn, checks.CounterEvidence
		r.Summary = fmt.Sprintf("%s ignored every CNP it received: the reaction point is off, so senders do not slow down", v.p.subject())
		r.Evidence = v.evidence(append(ignored, handled...))
		return r
	}
	r.Status = checks.StatusPass
	if notified == 0 {
		r.Summary = "no ECN marking or CNP on this port, and no heavy pausing"
		return r
	}
	r.Summary = "ECN engaged: " + keys(nonzero(append(append(marked, sent...), handled...)))
	r.Evidence = v.evidence(nonzero(append(append(marked, sent...), handled...)))
	return r
}

func thresholds(in Intent) string {
	if in.ECNMinKB == 0 || in.PFCXoffKB == 0 {
		return ""
	}
	return fmt.Sprintf(" (ECN min %d KB, PFC xoff %d KB)", in.ECNMinKB, in.PFCXoffKB)
}

// heavyPause reports whether the port was paused heavily on a lossless
// priority: a host paused by its switch (pause received), a switch port
// pausing its peer (pause sent, its queue past xoff).
func heavyPause(in Intent, v view) (bool, []string) {
	frames, dur := PauseRx, PauseDurationRx
	if v.family.Switch() {
		frames, dur = PauseTx, PauseDurationTx
	}
	var lines []string
	heavy := false
	for _, prio := range in.Lossless {
		if ds := v.perPrio(dur, prio); len(ds) > 0 && v.p.Seconds > 0 {
			if f := fraction(ds, v.p.Seconds); f >= in.Bounds.HeavyPausedFraction {
				heavy = true
				lines = append(lines, v.evidence(ds)...)
				lines = append(lines, fmt.Sprintf("%s: paused %.0f%% of the round on priority %d", v.p.subject(), 100*f, prio))
			}
			continue
		}
		if fs := v.perPrio(frames, prio); sum(fs) >= in.Bounds.HeavyPauseFrames {
			heavy = true
			lines = append(lines, v.evidence(fs)...)
		}
	}
	return heavy, lines
}

// fraction is the share of the round the durations (microseconds) cover.
func fraction(ds []moved, seconds float64) float64 {
	var f float64
	for _, d := range ds {
		if x := float64(d.Delta.Delta) / (seconds * 1e6); x > f {
			f = x
		}
	}
	return f
}

// storm: the NIC's storm detector, pause longer than the bound, or a port
// sending pause on a priority it received no traffic on.
func storm(in Intent, v view) checks.Result {
	r := result(IDPauseStorm, v)
	warnEv, errEv := v.of(PauseStormWarn, -1), v.of(PauseStormError, -1)
	if e := nonzero(errEv); len(e) > 0 {
		r.Status, r.Class = checks.StatusFail, checks.CounterEvidence
		r.Summary = fmt.Sprintf("pause storm at %s: the NIC's stall detector passed its critical mark (%s) and stopped sending pause", v.p.subject(), keys(e))
		r.Evidence = v.evidence(e)
		return r
	}
	observed := len(warnEv)+len(errEv) > 0
	for prio := 0; prio < 8; prio++ {
		for _, pair := range [][2]Signal{{PauseDurationRx, PauseRx}, {PauseDurationTx, PauseTx}} {
			ds := v.perPrio(pair[0], prio)
			if len(ds) == 0 {
				continue
			}
			observed = true
			if v.p.Seconds <= 0 {
				continue
			}
			if f := fraction(ds, v.p.Seconds); f > in.Bounds.MaxPausedFraction {
				r.Status, r.Class = checks.StatusFail, checks.CounterEvidence
				r.Summary = fmt.Sprintf("pause storm at %s: %s %.0f%% of the %.0fs round on priority %d (bound %.0f%%)",
					v.p.subject(), map[Signal]string{PauseDurationRx: "paused", PauseDurationTx: "pausing its peer"}[pair[0]],
					100*f, v.p.Seconds, prio, 100*in.Bounds.MaxPausedFraction)
				r.Evidence = v.evidence(append(ds, v.perPrio(pair[1], prio)...))
				return r
			}
		}
		// Pausing with no traffic: the port asks its peer to stop on a
		// priority it received nothing on — a stuck receiver.
		tx := nonzero(v.perPrio(PauseTx, prio))
		var rxTraffic []moved
		for _, m := range v.perPrio(Traffic, prio) {
			if strings.HasPrefix(bare(m.Key), "rx") {
				rxTraffic = append(rxTraffic, m)
			}
		}
		if len(tx) > 0 && len(rxTraffic) > 0 {
			observed = true
			if sum(rxTraffic) == 0 && !anyReset(rxTraffic) {
				r.Status, r.Class = checks.StatusFail, checks.CounterEvidence
				r.Summary = fmt.Sprintf("pause storm at %s: sent pause on priority %d while receiving no traffic on it (%s, %s): a stuck receiver", v.p.subject(), prio, keys(tx), keys(rxTraffic))
				r.Evidence = v.evidence(append(tx, rxTraffic...))
				return r
			}
		}
	}
	if w := nonzero(warnEv); len(w) > 0 {
		r.Status, r.Class = checks.StatusWarn, checks.CounterEvidence
		r.Summary = fmt.Sprintf("%s: the NIC's stall detector passed its warning mark (%s)", v.p.subject(), keys(w))
		r.Evidence = v.evidence(w)
		return r
	}
	if !observed {
		r.Status = checks.StatusSkip
		r.Summary = notObservable(v.family, "pause storms", "no pause-duration, storm-detector or per-priority traffic counter")
		return r
	}
	r.Status = checks.StatusPass
	r.Summary = "no pause storm"
	if v.p.Seconds <= 0 && len(v.of(PauseDurationRx, -1))+len(v.of(PauseDurationTx, -1)) > 0 {
		r.Summary += " (round length unknown: pause durations not judged)"
	}
	return r
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}
