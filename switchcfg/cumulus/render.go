package cumulus

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// Render turns the intent into `nv set` / `nv unset` commands, one per line,
// without `nv config apply` (Push applies them as one revision). Pure.
//
// The rendering is the whole managed state, not a delta: it first unsets the
// default-global QoS profiles and the RoCE recipe, then sets every knob, so
// NVUE's own diff (`nv config diff`) is empty when the switch already matches.
// When the intent is exactly what `nv set qos roce mode lossless` (or lossy)
// installs, it renders that one line instead of the knobs.
func (d *Driver) Render(si fabric.SwitchIntent) (switchcfg.Config, error) {
	if err := validate(si); err != nil {
		return switchcfg.Config{}, fmt.Errorf("rendering %s: %w", Platform, err)
	}
	var w lines
	if mode, ok := recipeMode(si); ok {
		w.unsetManaged()
		w.add("nv set qos roce mode %s", mode)
	} else {
		w.unsetManaged()
		w.explicit(si)
	}
	if si.PFC.Watchdog != nil { // none in the intent: the switch's stays
		w.watchdog(si)
	}
	w.ports(si)
	return switchcfg.Config{Platform: Platform, Format: "commands", Text: strings.Join(w, "\n") + "\n"}, nil
}

// notSupported wraps switchcfg.ErrNotSupported with the platform's reason.
func notSupported(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{switchcfg.ErrNotSupported}, args...)...)
}

// validate checks the intent against NVUE's and Spectrum's limits:
//   - trust is dscp (NVUE l3) or pcp (l2);
//   - an egress queue is a traffic class on Spectrum, so queue must equal
//     trafficClass;
//   - DWRR bandwidth 1..100 (NVUE bw-percent), ECN probability 1..100;
//   - MTU 552..9216 (NVUE link mtu);
//   - the watchdog acts by dropping only, polls every 100..5000 ms, and detects
//     after a whole number (1..1000) of polls (NVUE robustness); Cumulus has no
//     restoration timer (the queue is restored when the storm stops), so
//     restorationTime is accepted and not rendered.
//
// Several lossless priorities are accepted (NVUE takes a list); each needs its
// own traffic class, which CheckIntent's queue rules already ensure.
func validate(si fabric.SwitchIntent) error {
	errs := switchcfg.For(info, checkPort).Check(si)
	for _, c := range si.Classes {
		if c.Queue != c.TrafficClass {
			errs = append(errs, notSupported("class %q: queue %d differs from traffic class %d (a Spectrum egress queue is the traffic class)",
				c.Name, c.Queue, c.TrafficClass))
		}
		if !c.Strict && (c.BandwidthPercent < 1 || c.BandwidthPercent > 100) {
			errs = append(errs, notSupported("class %q: DWRR bandwidth %d%% outside NVUE's 1..100", c.Name, c.BandwidthPercent))
		}
		if c.ECN != nil && (c.ECN.MaxMarkProbability < 1 || c.ECN.MaxMarkProbability > 100) {
			errs = append(errs, notSupported("class %q: ECN probability %d outside NVUE's 1..100", c.Name, c.ECN.MaxMarkProbability))
		}
	}
	if wd := si.PFC.Watchdog; wd != nil && wd.Enabled {
		if wd.Action != "" && wd.Action != "drop" {
			errs = append(errs, notSupported("PFC watchdog action %q (Cumulus drops only)", wd.Action))
		}
		if _, _, err := watchdogTimers(wd); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// watchdogTimers returns NVUE's polling-interval and robustness for wd
// (0 = leave the default).
func watchdogTimers(wd *fabric.SwitchPFCWatchdog) (poll, robustness int, err error) {
	poll = wd.PollIntervalMs
	if poll != 0 && (poll < 100 || poll > 5000) {
		return 0, 0, fabric.AtField("pfc.watchdog.pollInterval", notSupported("PFC watchdog poll interval %d ms outside 100..5000", poll))
	}
	if wd.DetectionTimeMs == 0 {
		return poll, 0, nil
	}
	base := poll
	if base == 0 {
		base = defaultWDPollMs
	}
	if wd.DetectionTimeMs%base != 0 || wd.DetectionTimeMs/base > 1000 {
		return 0, 0, fabric.AtField("pfc.watchdog.detectionTime", notSupported("PFC watchdog detection time %d ms is not 1..1000 polls of %d ms", wd.DetectionTimeMs, base))
	}
	return poll, wd.DetectionTimeMs / base, nil
}

// recipeIntent is the canonical intent `nv set qos roce mode <mode>` installs.
func recipeIntent(mode string) fabric.SwitchIntent {
	m := newModel()
	m.applyRecipe(mode)
	return m.intent()
}

// recipeMode reports whether si equals an NVUE RoCE recipe (ports, MTU and
// the watchdog aside, which are rendered either way), and which.
func recipeMode(si fabric.SwitchIntent) (string, bool) {
	exact := switchcfg.CompareOptions{QuantumBytes: 1, RelativeTolerance: 1e-12}
	for _, mode := range []string{"lossless", "lossy"} {
		r := recipeIntent(mode)
		r.MTU, r.PFC.Watchdog = si.MTU, si.PFC.Watchdog
		if len(exact.Compare(si, r)) == 0 {
			return mode, true
		}
	}
	return "", false
}

// lines collects commands.
type lines []string

func (w *lines) add(format string, args ...any) { *w = append(*w, fmt.Sprintf(format, args...)) }

// unsetManaged returns everything fabricctl manages to the platform default.
func (w *lines) unsetManaged() {
	w.add("nv unset qos roce")
	for _, section := range []string{"mapping", "egress-queue-mapping", "pfc", "congestion-control", "egress-scheduler"} {
		w.add("nv unset qos %s %s", section, profile)
	}
	for _, pool := range []string{losslessPool, lossyPool} {
		w.add("nv unset qos traffic-pool %s", pool)
	}
}

// explicit renders every knob of the intent on the default-global profiles.
func (w *lines) explicit(si fabric.SwitchIntent) {
	q := "nv set qos "
	if si.Trust == "pcp" {
		w.add(q+"mapping %s trust l2", profile)
	} else {
		w.add(q+"mapping %s trust l3", profile)
	}
	if si.Trust == "pcp" {
		w.pcpMap(si.Classes) // DSCP does not classify under PCP trust
	} else {
		for _, c := range si.Classes {
			if len(c.DSCP) > 0 {
				w.add(q+"mapping %s dscp %s switch-priority %d", profile, switchcfg.FormatIntSet(c.DSCP), c.Priority)
			}
		}
	}
	for _, g := range groupTC(si.Classes, func(c fabric.SwitchClass) string { return strconv.Itoa(c.TrafficClass) }) {
		w.add(q+"egress-queue-mapping %s switch-priority %s traffic-class %s", profile, g.prios, g.key)
	}
	if len(si.PFC.Priorities) > 0 {
		// "Before configuring PFC, first modify the switch buffer
		// allocation": Cumulus gives 100 % of the buffer to the lossy pool
		// by default, so PFC without a lossless pool pauses from lossy
		// buffers (Cumulus Linux QoS, "Flow Control Buffers"; 50/50 is the
		// documentation's example).
		w.add(q+"traffic-pool %s memory-percent %d", losslessPool, poolPercent)
		w.add(q+"traffic-pool %s switch-priority %s", losslessPool, switchcfg.FormatIntSet(si.PFC.Priorities))
		w.add(q+"traffic-pool %s memory-percent %d", lossyPool, 100-poolPercent)
		w.add(q+"pfc %s switch-priority %s", profile, switchcfg.FormatIntSet(si.PFC.Priorities))
		cable := si.PFC.CableLengthMeters
		if cable == 0 {
			cable = defaultCableLength // written anyway: the read-back reports it
		}
		w.add(q+"pfc %s cable-length %d", profile, cable)
		w.add(q+"pfc %s tx enable", profile)
		w.add(q+"pfc %s rx enable", profile)
	}
	cc := q + "congestion-control " + profile + " traffic-class %s "
	for _, g := range groupTC(si.Classes, ecnKey) {
		if g.key == "off" {
			w.add(cc+"ecn disable", g.tcs)
			continue
		}
		e := g.first.ECN
		w.add(cc+"ecn enable", g.tcs)
		w.add(cc+"min-threshold %d", g.tcs, e.MinBytes)
		w.add(cc+"max-threshold %d", g.tcs, e.MaxBytes)
		w.add(cc+"probability %d", g.tcs, e.MaxMarkProbability)
	}
	es := q + "egress-scheduler " + profile + " traffic-class %s "
	for _, g := range groupTC(si.Classes, modeKey) {
		w.add(es+"mode %s", g.tcs, g.key)
	}
	for _, g := range groupTC(si.Classes, bandwidthKey) {
		if g.key != "" {
			w.add(es+"bw-percent %s", g.tcs, g.key)
		}
	}
	// Traffic classes no class uses keep Cumulus's default DWRR weights
	// (12/13 %) unless told: with the classes' shares those would total
	// more than 100 %. They carry nothing, so they get none.
	if unused := unusedTCs(si.Classes); len(unused) > 0 {
		w.add(es+"mode dwrr", switchcfg.FormatIntSet(unused))
		w.add(es+"bw-percent 0", switchcfg.FormatIntSet(unused))
	}
}

// unusedTCs are the traffic classes no class of the intent uses.
func unusedTCs(classes []fabric.SwitchClass) []int {
	var used [8]bool
	for _, c := range classes {
		if c.TrafficClass >= 0 && c.TrafficClass < 8 {
			used[c.TrafficClass] = true
		}
	}
	var out []int
	for tc, u := range used {
		if !u {
			out = append(out, tc)
		}
	}
	return out
}

// pcpMap maps each class's PCP to its priority and every unclaimed PCP to the
// default class: the one holding DSCP 0, else the lowest lossy DWRR class.
func (w *lines) pcpMap(classes []fabric.SwitchClass) {
	claimed := map[int]bool{}
	for _, c := range classes {
		claimed[c.Priority] = true
		w.add("nv set qos mapping %s pcp %d switch-priority %d", profile, c.Priority, c.Priority)
	}
	var rest []int
	for p := 0; p < 8; p++ {
		if !claimed[p] {
			rest = append(rest, p)
		}
	}
	if def, ok := switchcfg.DefaultClass(classes); ok && len(rest) > 0 {
		w.add("nv set qos mapping %s pcp %s switch-priority %d", profile, switchcfg.FormatIntSet(rest), def.Priority)
	}
}

func ecnKey(c fabric.SwitchClass) string {
	if c.ECN == nil {
		return "off"
	}
	return fmt.Sprintf("%d/%d/%d", c.ECN.MinBytes, c.ECN.MaxBytes, c.ECN.MaxMarkProbability)
}

func modeKey(c fabric.SwitchClass) string {
	if c.Strict {
		return "strict"
	}
	return "dwrr"
}

func bandwidthKey(c fabric.SwitchClass) string {
	if c.Strict {
		return ""
	}
	return strconv.Itoa(c.BandwidthPercent)
}

// tcGroup is a set of traffic classes, and the switch priorities in them,
// sharing one value.
type tcGroup struct {
	key   string
	tcs   string // traffic classes, NVUE list syntax
	prios string // switch priorities, NVUE list syntax
	first fabric.SwitchClass
}

// groupTC groups the intent's traffic classes by key(class) — one class per
// traffic class is enough, CheckIntent made classes sharing one agree —
// ordered by the lowest traffic class.
func groupTC(classes []fabric.SwitchClass, key func(fabric.SwitchClass) string) []tcGroup {
	type acc struct {
		tcs, prios []int
		first      fabric.SwitchClass
		order      int
	}
	groups := map[string]*acc{}
	seenTC := map[int]bool{}
	sorted := append([]fabric.SwitchClass(nil), classes...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].TrafficClass < sorted[j].TrafficClass })
	for _, c := range sorted {
		k := key(c)
		g, ok := groups[k]
		if !ok {
			g = &acc{first: c, order: len(groups)}
			groups[k] = g
		}
		g.prios = append(g.prios, c.Priority)
		if !seenTC[c.TrafficClass] {
			seenTC[c.TrafficClass] = true
			g.tcs = append(g.tcs, c.TrafficClass)
		}
	}
	out := make([]tcGroup, len(groups))
	for k, g := range groups {
		out[g.order] = tcGroup{key: k, tcs: switchcfg.FormatIntSet(g.tcs), prios: switchcfg.FormatIntSet(g.prios), first: g.first}
	}
	return out
}

// watchdog renders the global PFC watchdog timers of an intent that has a
// watchdog (a disabled one leaves the timers at their defaults).
func (w *lines) watchdog(si fabric.SwitchIntent) {
	wd := si.PFC.Watchdog
	w.add("nv unset qos pfc-watchdog")
	if !wd.Enabled {
		return
	}
	poll, rob, _ := watchdogTimers(wd)
	// Defaults are written too, so that rendering a read-back gives the same lines.
	if poll == 0 {
		poll = defaultWDPollMs
	}
	if rob == 0 {
		rob = defaultWDRobustness
	}
	w.add("nv set qos pfc-watchdog polling-interval %d", poll)
	w.add("nv set qos pfc-watchdog robustness %d", rob)
}

// ports renders per-interface settings on the intent's ports.
func (w *lines) ports(si fabric.SwitchIntent) {
	if len(si.Ports) == 0 {
		return
	}
	list := CompressInterfaces(si.Ports)
	if wd := si.PFC.Watchdog; wd != nil {
		w.add("nv unset interface %s qos pfc-watchdog", list)
		if wd.Enabled {
			// Said on, not merely present: NVIDIA's docs enable it by its
			// presence, but NVUE's 5.12 OpenAPI schema gives the
			// interface watchdog's state the default "disable"; the
			// explicit state is right under either reading.
			w.add("nv set interface %s qos pfc-watchdog state enable", list)
		} else {
			// Said off, not merely unset (Cumulus Linux QoS, PFC Watchdog:
			// "nv set interface <interface> qos pfc-watchdog state disable").
			w.add("nv set interface %s qos pfc-watchdog state disable", list)
		}
	}
	if si.MTU > 0 {
		w.add("nv set interface %s link mtu %d", list, si.MTU)
	}
}
