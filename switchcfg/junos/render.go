package junos

import (
	"errors"
	"fmt"
	"math"
	mathbits "math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// notSupported reports something Junos cannot express (validate adds the
// platform name).
func notSupported(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), switchcfg.ErrNotSupported)
}

// identRE is what Render accepts as a forwarding-class name. It also names
// the class's scheduler (NAME-sched) and drop profile (NAME-dp); Junos
// names are 1..64 characters, so a class name has at most 58.
var identRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,57}$`)

// fcName is the forwarding-class name of c: its own name, or tc<priority>.
func fcName(c fabric.SwitchClass) string {
	if c.Name == "" {
		return unnamedClassPrefix + strconv.Itoa(c.Priority)
	}
	return c.Name
}

// bits writes v as a binary code point of n digits.
func bits(v, n int) string { return fmt.Sprintf("%0*b", n, v) }

// list writes one value, or several in brackets.
func list(v []string) string {
	if len(v) == 1 {
		return v[0]
	}
	return "[ " + strings.Join(v, " ") + " ]"
}

// Render turns the intent into Junos delete and set statements: forwarding classes
// (queue-num, no-loss, pfc-priority), a DSCP or IEEE 802.1 classifier with
// binary code points, a congestion-notification-profile (PFC input and
// output, PFC watchdog), drop profiles in fill-level percent, schedulers
// (ECN, strict-high, transmit-rate) and their scheduler map, and per port the
// MTU and class-of-service bindings. It is pure.
func (d *Driver) Render(in fabric.SwitchIntent) (switchcfg.Config, error) {
	buffer := queueBuffer(in)
	if err := validate(in, buffer); err != nil {
		return switchcfg.Config{}, err
	}
	var b strings.Builder
	set := func(format string, args ...any) {
		b.WriteString("set ")
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	const cos = "class-of-service "
	kind := "dscp"
	if in.Trust == "pcp" {
		kind = "ieee-802.1"
	}
	lossless := func(c fabric.SwitchClass) bool { return c.Lossless }

	// Full state: first delete what fabricctl defines (its classifier, map,
	// profile, the classes' objects, the ports' bindings), then set it anew.
	// Both happen in one candidate, so `show | compare` shows only real
	// differences and stale leftovers disappear.
	del := func(format string, args ...any) {
		b.WriteString("delete ")
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	del(cos+"classifiers dscp %s", ClassifierName)
	del(cos+"classifiers ieee-802.1 %s", ClassifierName)
	del(cos+"scheduler-maps %s", SchedulerMapName)
	// The profile's PFC lists are rewritten whole; its watchdog only when
	// the intent has one (none: the switch's stays as it is).
	del(cos+"congestion-notification-profile %s input", CongestionProfile)
	del(cos+"congestion-notification-profile %s output", CongestionProfile)
	if in.PFC.Watchdog != nil {
		del(cos+"congestion-notification-profile %s pfc-watchdog", CongestionProfile)
	}
	for _, c := range in.Classes {
		del(cos+"forwarding-classes class %s", fcName(c))
		del(cos+"schedulers %s", fcName(c)+schedulerSuffix)
		del(cos+"drop-profiles %s", fcName(c)+dropProfileSuffix)
	}
	for _, port := range in.Ports {
		del(cos+"interfaces %s congestion-notification-profile", port)
		del(cos+"interfaces %s scheduler-map", port)
		for _, unit := range []string{wildcardUnit, "0"} {
			del(cos+"interfaces %s unit %s classifiers", port, unit)
		}
	}

	for _, c := range in.Classes {
		fc := fcName(c)
		set(cos+"forwarding-classes class %s queue-num %d", fc, c.Queue)
		if lossless(c) {
			set(cos+"forwarding-classes class %s no-loss", fc)
			if in.Trust == "dscp" {
				set(cos+"forwarding-classes class %s pfc-priority %d", fc, c.Priority)
			}
		}
	}
	for _, c := range in.Classes {
		var cps []string
		if in.Trust == "pcp" {
			cps = []string{bits(c.Priority, 3)}
		} else {
			for _, d := range distinct(c.DSCP) {
				cps = append(cps, bits(d, 6))
			}
		}
		if len(cps) > 0 {
			set(cos+"classifiers %s %s forwarding-class %s loss-priority %s code-points %s", kind, ClassifierName, fcName(c), defaultLossPriority, list(cps))
		}
	}
	for _, c := range in.Classes {
		if e := c.ECN; e != nil {
			dp := fcName(c) + dropProfileSuffix
			lo, hi, _ := fillLevels(*e, buffer, fillScale(in))
			set(cos+"drop-profiles %s interpolate fill-level [ %s %s ]", dp, formatFill(lo), formatFill(hi))
			set(cos+"drop-profiles %s interpolate drop-probability [ 0 %d ]", dp, e.MaxMarkProbability)
		}
	}
	for _, c := range in.Classes {
		s := fcName(c) + schedulerSuffix
		if c.BandwidthPercent > 0 {
			set(cos+"schedulers %s transmit-rate percent %d", s, c.BandwidthPercent)
		}
		if c.Strict {
			set(cos+"schedulers %s priority strict-high", s)
		} else if c.BandwidthPercent == 0 && c.ECN == nil {
			set(cos+"schedulers %s priority low", s) // a scheduler needs one statement to exist
		}
		if c.ECN != nil {
			set(cos+"schedulers %s drop-profile-map loss-priority any protocol any drop-profile %s", s, fcName(c)+dropProfileSuffix)
			set(cos+"schedulers %s explicit-congestion-notification", s)
		}
	}
	for _, c := range in.Classes {
		set(cos+"scheduler-maps %s forwarding-class %s scheduler %s", SchedulerMapName, fcName(c), fcName(c)+schedulerSuffix)
	}

	pfc := len(in.PFC.Priorities) > 0
	if pfc {
		// Lossless traffic needs its own shared-buffer partitions, with
		// headroom for PFC: the split of Juniper's AI/ML validated design
		// (JVD aiml_multitenancy_backend rdma-rocev2-lossless: ingress
		// lossless 66 %, lossless-headroom 24 %, lossy 10 %; egress
		// lossless 66 %, lossy 10 %; ingress and egress lossless equal, as
		// QFX5220/5230 require).
		del(cos + "shared-buffer")
		for _, p := range sharedBuffer {
			set(cos+"shared-buffer %s buffer-partition %s percent %d", p.dir, p.partition, p.percent)
		}
		for _, c := range in.Classes {
			if !lossless(c) {
				continue
			}
			if in.Trust == "pcp" {
				set(cos+"congestion-notification-profile %s input ieee-802.1 code-point %s pfc", CongestionProfile, bits(c.Priority, 3))
			} else {
				for _, d := range distinct(c.DSCP) {
					set(cos+"congestion-notification-profile %s input dscp code-point %s pfc", CongestionProfile, bits(d, 6))
				}
			}
			set(cos+"congestion-notification-profile %s output ieee-802.1 code-point %s flow-control-queue %d", CongestionProfile, bits(c.Priority, 3), c.Queue)
		}
		if wd := in.PFC.Watchdog; wd != nil && wd.Enabled {
			p := cos + "congestion-notification-profile " + CongestionProfile + " pfc-watchdog"
			set("%s", p)
			if wd.PollIntervalMs > 0 {
				set("%s poll-interval %d", p, wd.PollIntervalMs)
				if wd.DetectionTimeMs > 0 {
					set("%s detection %d", p, wd.DetectionTimeMs/wd.PollIntervalMs)
				}
			}
			if wd.RestorationTimeMs > 0 {
				set("%s recovery %d", p, wd.RestorationTimeMs)
			}
			if wd.Action != "" {
				set("%s watchdog-action %s", p, wd.Action)
			}
		}
	}
	for _, port := range in.Ports {
		if in.MTU > 0 {
			set("interfaces %s mtu %d", port, in.MTU)
		}
		if pfc {
			set(cos+"interfaces %s congestion-notification-profile %s", port, CongestionProfile)
		}
		set(cos+"interfaces %s scheduler-map %s", port, SchedulerMapName)
		set(cos+"interfaces %s unit %s classifiers %s %s", port, wildcardUnit, kind, ClassifierName)
	}
	return switchcfg.Config{Platform: Platform, Format: "set", Text: b.String()}, nil
}

// sharedBuffer is the shared-buffer partitioning rendered with PFC.
var sharedBuffer = []struct {
	dir, partition string
	percent        int
}{
	{"ingress", "lossless", 66}, {"ingress", "lossless-headroom", 24}, {"ingress", "lossy", 10},
	{"egress", "lossless", 66}, {"egress", "lossy", 10},
}

// fillScale is how finely the switch's drop profiles write fill levels, in
// steps per percent: hundredths on Junos OS Evolved, whose configuration
// schema types a fill level as a decimal (decimal64, 0..100, nine fraction
// digits; two keep a step below 20 KB of the largest buffer), whole
// percents on classic Junos (uint32 0..100).
func fillScale(si fabric.SwitchIntent) int64 {
	if Evolved(si.Model) {
		return 100
	}
	return 1
}

// fillLevels are the ECN thresholds as the drop profile's two fill levels
// of the queue buffer, in nano-percent: each rounded half up to whole
// steps of 1/scale percent, a threshold above zero at least one step.
// Junos needs the two different (its schema refuses a repeated value,
// `fill-level [ 1 1 ]`, and the ramp would be lost), so when both land on
// the same step k the one that lies beyond k moves one step out: the
// maximum up to k+1 when it is at least k (and k is below 100 %), else the
// minimum down to k-1. Either way each level stays within one step of its
// threshold (what drift allows, ThresholdQuantumFor). ok is false when
// that would take the minimum to 0 (both thresholds below the first
// step): a reading of fill level 0 is no threshold, so validate refuses it
// (fillRamp).
func fillLevels(e fabric.SwitchECN, buffer, scale int64) (lo, hi int64, ok bool) {
	step := nanoPerPercent / scale
	// round gives b in steps, and whether b lies below the step it
	// rounds to.
	round := func(b int64) (steps int64, below bool) {
		steps, rem := mulDivRem(b, 100*scale, buffer)
		if below = 2*rem >= buffer; below {
			steps++
		}
		if steps == 0 && b > 0 {
			steps, below = 1, true
		}
		return steps, below
	}
	l, _ := round(e.MinBytes)
	h, maxBelow := round(e.MaxBytes)
	if k := h; l >= k {
		switch {
		case !maxBelow && k < 100*scale:
			h = k + 1
		case k >= 2:
			l = k - 1
		default:
			return l * step, h * step, false
		}
	}
	return l * step, h * step, true
}

// fillRamp refuses ECN thresholds that have no two fill levels within one
// step of them: both below the first step of the queue buffer.
func fillRamp(in fabric.SwitchIntent, name string, e fabric.SwitchECN, buffer int64) error {
	scale := fillScale(in)
	if _, _, ok := fillLevels(e, buffer, scale); ok {
		return nil
	}
	step, rem := mulDivRem(buffer, 1, 100*scale)
	if rem > 0 {
		step++
	}
	whose := fmt.Sprintf("the profile's %d B queueBuffer", buffer)
	if in.QueueBufferBytes <= 0 {
		m, _ := info.Model(in.Model)
		whose = fmt.Sprintf("the %d B queue buffer of model %s", buffer, m.Name)
	}
	sw := ""
	if in.Name != "" {
		sw = fmt.Sprintf(" on switch %q", in.Name)
	}
	unit := "whole percents"
	if scale > 1 {
		unit = fmt.Sprintf("steps of %s %%", formatFill(nanoPerPercent/scale))
	}
	return notSupported("class %q%s: ECN thresholds %d B and %d B both lie below the first fill-level step (%s %%, %d B) of %s: Junos drop profiles take %s of it and need two different fill levels above 0, so the ECN ramp would be lost; set maxThreshold to at least %d B",
		name, sw, e.MinBytes, e.MaxBytes, formatFill(nanoPerPercent/scale), step, whose, unit, step)
}

// validate rejects malformed intents (switchcfg.CheckIntent) and what Junos
// cannot express; it reports every problem, joined, under the platform name.
func validate(in fabric.SwitchIntent, buffer int64) error {
	errs := switchcfg.For(info, checkPort).Check(in)
	read := intentPriorities(in)
	if len(in.Classes) > maxForwardingClasses {
		errs = append(errs, notSupported("%d classes; Junos has %d unicast queues", len(in.Classes), maxForwardingClasses))
	}
	names := map[string]bool{}
	noLoss := 0
	for _, c := range in.Classes {
		name := fcName(c)
		if !identRE.MatchString(name) {
			errs = append(errs, notSupported("class name %q cannot name a forwarding class (a letter, then letters, digits, _ or -, at most 58 characters: Junos names are at most 64, and the class's scheduler is NAME%s)", name, schedulerSuffix))
		}
		if names[name] {
			errs = append(errs, notSupported("two classes are named %q (one forwarding class each)", name))
		}
		names[name] = true
		if c.TrafficClass != c.Priority {
			errs = append(errs, notSupported("class %q: traffic class %d differs from priority %d; Junos has forwarding classes and queues, no separate traffic class", name, c.TrafficClass, c.Priority))
		}
		switch {
		case c.Lossless:
			noLoss++
			if in.Trust == "dscp" && len(c.DSCP) == 0 {
				errs = append(errs, notSupported("lossless class %q has no DSCP: DSCP-based PFC pauses by code point", name))
			}
		case in.Trust == "dscp" && read[name] != c.Priority:
			errs = append(errs, notSupported("class %q: with dscp trust Junos carries a priority only as the pfc-priority of a no-loss class; this lossy class reads back as priority %d (its lowest DSCP's class selector, else its queue): give it priority %d",
				name, read[name], read[name]))
		}
		if e := c.ECN; e != nil {
			if e.MaxBytes > buffer {
				errs = append(errs, notSupported("class %q: ECN maximum threshold %d B exceeds the %d B queue buffer that fill levels are a percentage of (the model's, or the profile's queueBuffer)", name, e.MaxBytes, buffer))
			} else if err := fillRamp(in, name, *e, buffer); err != nil {
				errs = append(errs, err)
			}
			if e.MaxMarkProbability <= 0 {
				errs = append(errs, notSupported("class %q: ECN mark probability 0; Junos writes the ramp as drop-probability [ 0 P ] and needs P above 0", name))
			}
		}
	}
	if noLoss > MaxNoLossClasses {
		errs = append(errs, notSupported("%d no-loss classes; at most %d", noLoss, MaxNoLossClasses))
	}
	if wd := in.PFC.Watchdog; wd != nil {
		if wd.Action != "" && wd.Action != "drop" && wd.Action != "forward" {
			errs = append(errs, fabric.AtField("pfc.watchdog.action", notSupported("PFC watchdog action %q; Junos knows drop and forward", wd.Action)))
		}
		if wd.DetectionTimeMs < 0 || wd.PollIntervalMs < 0 || wd.RestorationTimeMs < 0 {
			errs = append(errs, fmt.Errorf("%w: negative PFC watchdog time", switchcfg.ErrInvalidIntent))
		}
		if wd.DetectionTimeMs > 0 && (wd.PollIntervalMs <= 0 || wd.DetectionTimeMs%wd.PollIntervalMs != 0) {
			errs = append(errs, fabric.AtField("pfc.watchdog.detectionTime", notSupported("PFC watchdog detection %d ms is not a whole number of %d ms poll intervals", wd.DetectionTimeMs, wd.PollIntervalMs)))
		}
		// poll-interval and recovery are uint16 milliseconds in Juniper's
		// YANG (junos-qfx-conf-class-of-service and junos-conf-class-of-
		// service, 24.4R1).
		for _, t := range []struct {
			what, field string
			ms          int
		}{{"poll interval", "pfc.watchdog.pollInterval", wd.PollIntervalMs}, {"restoration time", "pfc.watchdog.restorationTime", wd.RestorationTimeMs}} {
			if t.ms > maxWatchdogMs {
				errs = append(errs, fabric.AtField(t.field, notSupported("PFC watchdog %s %d ms above %d ms (a uint16 in Juniper's YANG)", t.what, t.ms, maxWatchdogMs)))
			}
		}
		if wd.Enabled && len(in.PFC.Priorities) == 0 {
			errs = append(errs, notSupported("a PFC watchdog without PFC: Junos configures it in the congestion-notification-profile"))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s: %w", Platform, err)
	}
	return nil
}

// nanoPerPercent is the unit fill levels are held in: a billionth of a
// percent, the finest a Junos OS Evolved fill level is written in.
const nanoPerPercent = 1_000_000_000

// formatFill writes a fill level (nano-percent) as Junos does: a whole
// number, or a decimal without trailing zeros.
func formatFill(nano int64) string {
	s := strconv.FormatInt(nano/nanoPerPercent, 10)
	if frac := nano % nanoPerPercent; frac != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
	}
	return s
}

// parseFill reads a fill level, a percent of 0..100 with at most nine
// fraction digits, as nano-percent.
func parseFill(s string) (int64, error) {
	whole, frac, dot := strings.Cut(s, ".")
	w, err := strconv.Atoi(whole)
	ok := err == nil && whole != "" && whole[0] != '+' && whole[0] != '-' && w >= 0 && w <= 100
	var f int64
	if ok && dot {
		ok = frac != "" && len(frac) <= 9 && strings.Trim(frac, "0123456789") == ""
		if ok {
			v, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
			f = v
		}
	}
	n := int64(w)*nanoPerPercent + f
	if !ok || n > 100*nanoPerPercent {
		return 0, fmt.Errorf("%s is not a number in 0..100 (a fill-level percent, at most 9 decimals)", fabric.Clip(s))
	}
	return n, nil
}

// fillBytes is a fill level (nano-percent) of the queue buffer in bytes,
// rounded down.
func fillBytes(nano, buffer int64) int64 {
	b, _ := mulDivRem(nano, buffer, 100*nanoPerPercent)
	return b
}

// mulDivRem is a*b/c and its remainder, for a, b >= 0 and c > 0, without
// overflowing in between; a quotient beyond int64 saturates (remainder 0).
func mulDivRem(a, b, c int64) (q, r int64) {
	if a < 0 || b < 0 || c <= 0 {
		return 0, 0
	}
	hi, lo := mathbits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64, 0
	}
	uq, ur := mathbits.Div64(hi, lo, uint64(c))
	if uq > math.MaxInt64 {
		return math.MaxInt64, 0
	}
	return int64(uq), int64(ur)
}

// distinct is v in order without repeats: a code point written twice in a
// leaf-list is an error to Junos's schema.
func distinct(v []int) []int {
	var out []int
	for _, x := range v {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
