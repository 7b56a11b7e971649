package junos

import (
	"errors"
	"fmt"
	"regexp"
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

// identRE is what Render accepts as a forwarding-class name (it also names
// the class's scheduler and drop profile).
var identRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,58}$`)

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
			for _, d := range c.DSCP {
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
			set(cos+"drop-profiles %s interpolate fill-level [ %d %d ]", dp, fillLevel(e.MinBytes, buffer), fillLevel(e.MaxBytes, buffer))
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
				for _, d := range c.DSCP {
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

// fillLevel is a threshold in whole percents of the queue buffer, rounded
// half up; a threshold above zero stays at least 1 %.
func fillLevel(b, buffer int64) int {
	p := bytesToPercent(b, buffer)
	if p == 0 && b > 0 {
		return 1
	}
	return p
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
			errs = append(errs, notSupported("class name %q cannot name a forwarding class (a letter, then letters, digits, _ or -)", name))
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
		if e := c.ECN; e != nil && e.MaxBytes > buffer {
			errs = append(errs, notSupported("class %q: ECN maximum threshold %d B exceeds the %d B queue buffer that fill levels are a percentage of (the model's, or the profile's queueBuffer)", name, e.MaxBytes, buffer))
		}
	}
	if noLoss > MaxNoLossClasses {
		errs = append(errs, notSupported("%d no-loss classes; at most %d", noLoss, MaxNoLossClasses))
	}
	if wd := in.PFC.Watchdog; wd != nil {
		if wd.Action != "" && wd.Action != "drop" && wd.Action != "forward" {
			errs = append(errs, notSupported("PFC watchdog action %q; Junos knows drop and forward", wd.Action))
		}
		if wd.DetectionTimeMs < 0 || wd.PollIntervalMs < 0 || wd.RestorationTimeMs < 0 {
			errs = append(errs, fmt.Errorf("%w: negative PFC watchdog time", switchcfg.ErrInvalidIntent))
		}
		if wd.DetectionTimeMs > 0 && (wd.PollIntervalMs <= 0 || wd.DetectionTimeMs%wd.PollIntervalMs != 0) {
			errs = append(errs, notSupported("PFC watchdog detection %d ms is not a whole number of %d ms poll intervals", wd.DetectionTimeMs, wd.PollIntervalMs))
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
