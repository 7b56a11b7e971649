package eos

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// errIntent marks intents that are malformed (out-of-range values), as
// opposed to well-formed intents EOS cannot express (switchcfg.ErrNotSupported).
var errIntent = errors.New("invalid switch intent")

func notSupported(format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", Platform, fmt.Sprintf(format, args...), switchcfg.ErrNotSupported)
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", Platform, fmt.Sprintf(format, args...), errIntent)
}

// Watchdog timer ranges of EOS, in milliseconds (the CLI takes seconds).
const (
	minWatchdogTimeoutMs  = 10
	maxWatchdogTimeoutMs  = 60000
	minWatchdogPollMs     = 5
	maxWatchdogPollMs     = 30000
	maxMarkProbabilityEOS = 100
)

// watchdogActions maps the canonical action to the EOS keyword.
var watchdogActions = map[string]string{"drop": "drop", "forward": "no-drop", "alert": "notify-only"}

// Render turns the intent into EOS configuration commands, laid out as
// `show running-config` prints them: global maps and watchdog timers first,
// then one block per port. The rendering is the full state of what fabricctl
// manages: maps, PFC priorities and tx-queues the intent does not use are
// reset with "no" commands, so pushing it also removes what drifted in. It
// is pure.
func (*Driver) Render(in fabric.SwitchIntent) (switchcfg.Config, error) {
	if err := validate(in); err != nil {
		return switchcfg.Config{}, err
	}
	classes := append([]fabric.SwitchClass(nil), in.Classes...)
	sort.Slice(classes, func(i, j int) bool { return classes[i].TrafficClass < classes[j].TrafficClass })

	var b strings.Builder
	line := func(indent int, format string, args ...any) {
		b.WriteString(strings.Repeat(" ", indent))
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	// unused lists 0..max without the values get returns for the classes.
	unused := func(max int, get func(fabric.SwitchClass) []int) []int {
		var out []int
		for v := 0; v <= max; v++ {
			if !slices.ContainsFunc(classes, func(c fabric.SwitchClass) bool { return slices.Contains(get(c), v) }) {
				out = append(out, v)
			}
		}
		return out
	}
	// unmap removes explicit map entries of values no class uses, whatever
	// they map to: the full "no qos map KIND VALUES to TARGET N" form, once
	// per possible target.
	unmap := func(kind, target string, values []int) {
		for t := 0; len(values) > 0 && t <= 7; t++ {
			line(0, "no qos map %s %s to %s %d", kind, joinInts(values), target, t)
		}
	}
	for _, c := range classes {
		line(0, "qos map cos %d to traffic-class %d", c.Priority, c.TrafficClass)
	}
	unmap("cos", "traffic-class", unused(7, func(c fabric.SwitchClass) []int { return []int{c.Priority} }))
	for _, c := range classes {
		if len(c.DSCP) > 0 {
			line(0, "qos map dscp %s to traffic-class %d", joinInts(c.DSCP), c.TrafficClass)
		}
	}
	unmap("dscp", "traffic-class", unused(63, func(c fabric.SwitchClass) []int { return c.DSCP }))
	for _, c := range classes {
		line(0, "qos map traffic-class %d to tx-queue %d", c.TrafficClass, c.Queue)
	}
	unmap("traffic-class", "tx-queue", unused(7, func(c fabric.SwitchClass) []int { return []int{c.TrafficClass} }))
	if len(in.PFC.Priorities) > 0 {
		line(0, "no priority-flow-control all off")
	}
	wd := in.PFC.Watchdog
	if wd == nil {
		wd = &fabric.SwitchPFCWatchdog{}
	}
	for _, t := range []struct {
		setting string
		ms      int
	}{{"timeout", wd.DetectionTimeMs}, {"polling-interval", wd.PollIntervalMs}, {"recovery-time", wd.RestorationTimeMs}} {
		if t.ms > 0 {
			line(0, "priority-flow-control pause watchdog default %s %s", t.setting, seconds(t.ms))
		} else {
			line(0, "no priority-flow-control pause watchdog default %s", t.setting)
		}
	}
	if wd.Action != "" {
		line(0, "priority-flow-control pause watchdog action %s", watchdogActions[wd.Action])
	} else {
		line(0, "no priority-flow-control pause watchdog action")
	}

	trust := map[string]string{"dscp": "dscp", "pcp": "cos"}[in.Trust]
	for _, port := range in.Ports {
		line(0, "interface %s", port)
		if in.MTU > 0 {
			line(3, "mtu %d", in.MTU)
		}
		line(3, "no service-profile")
		line(3, "qos trust %s", trust)
		if len(in.PFC.Priorities) > 0 {
			line(3, "priority-flow-control on")
			for p := 0; p <= 7; p++ {
				if slices.Contains(in.PFC.Priorities, p) {
					line(3, "priority-flow-control priority %d no-drop", p)
				} else {
					line(3, "no priority-flow-control priority %d", p)
				}
			}
		} else {
			line(3, "no priority-flow-control on")
		}
		if wd.Enabled {
			line(3, "priority-flow-control pause watchdog")
			line(3, "no priority-flow-control pause watchdog port action")
			line(3, "no priority-flow-control pause watchdog port timer")
		} else {
			line(3, "no priority-flow-control pause watchdog")
		}
		for q := 0; q <= 7; q++ {
			i := slices.IndexFunc(classes, func(c fabric.SwitchClass) bool { return c.Queue == q })
			if i < 0 {
				line(3, "no tx-queue %d", q)
				continue
			}
			c := classes[i]
			line(3, "tx-queue %d", q)
			if c.Strict {
				line(6, "priority strict")
			} else {
				line(6, "no priority")
			}
			if c.BandwidthPercent > 0 {
				line(6, "bandwidth percent %d", c.BandwidthPercent)
			} else {
				line(6, "no bandwidth percent")
			}
			if e := c.ECN; e != nil {
				s := fmt.Sprintf("random-detect ecn minimum-threshold %d kbytes maximum-threshold %d kbytes",
					kbytes(e.MinBytes), kbytes(e.MaxBytes))
				if e.MaxMarkProbability > 0 {
					s += fmt.Sprintf(" max-mark-probability %d", e.MaxMarkProbability)
				}
				line(6, "%s", s)
			} else {
				line(6, "no random-detect ecn")
			}
		}
	}
	return switchcfg.Config{Platform: Platform, Format: "commands", Text: b.String()}, nil
}

// validate rejects malformed intents and what EOS cannot express.
func validate(in fabric.SwitchIntent) error {
	if in.Trust != "dscp" && in.Trust != "pcp" {
		return invalid("trust %q is neither dscp nor pcp", in.Trust)
	}
	for _, p := range in.Ports {
		if err := checkPort(p); err != nil {
			return fmt.Errorf("%s: %w", Platform, err)
		}
	}
	if in.MTU < 0 || in.MTU > MaxMTU || (in.MTU > 0 && in.MTU < 68) {
		if in.MTU > MaxMTU {
			return notSupported("mtu %d exceeds the EOS maximum of %d", in.MTU, MaxMTU)
		}
		return invalid("mtu %d out of range", in.MTU)
	}
	seenTC, seenPrio, seenQueue, seenDSCP := map[int]string{}, map[int]string{}, map[int]string{}, map[int]string{}
	for _, c := range in.Classes {
		if c.Priority < 0 || c.Priority > 7 || c.TrafficClass < 0 || c.TrafficClass > 7 || c.Queue < 0 || c.Queue > 7 {
			return invalid("class %q: priority %d, traffic class %d, tx-queue %d: each must be 0..7", c.Name, c.Priority, c.TrafficClass, c.Queue)
		}
		if other, dup := seenTC[c.TrafficClass]; dup {
			return notSupported("classes %q and %q share traffic class %d; EOS classes are traffic classes", other, c.Name, c.TrafficClass)
		}
		seenTC[c.TrafficClass] = c.Name
		if other, dup := seenQueue[c.Queue]; dup {
			return notSupported("classes %q and %q share tx-queue %d; scheduling and ECN live on the queue", other, c.Name, c.Queue)
		}
		seenQueue[c.Queue] = c.Name
		if other, dup := seenPrio[c.Priority]; dup {
			return notSupported("classes %q and %q share priority %d; the EOS cos map sends one priority to one traffic class", other, c.Name, c.Priority)
		}
		seenPrio[c.Priority] = c.Name
		for _, d := range c.DSCP {
			if d < 0 || d > 63 {
				return invalid("class %q: dscp %d out of range 0..63", c.Name, d)
			}
			if other, dup := seenDSCP[d]; dup {
				return invalid("dscp %d is in classes %q and %q", d, other, c.Name)
			}
			seenDSCP[d] = c.Name
		}
		if c.BandwidthPercent < 0 || c.BandwidthPercent > 100 {
			return invalid("class %q: bandwidth %d%% out of range 0..100", c.Name, c.BandwidthPercent)
		}
		if e := c.ECN; e != nil {
			if e.MinBytes < 0 || e.MaxBytes < e.MinBytes {
				return invalid("class %q: ECN thresholds %d..%d bytes are not ascending", c.Name, e.MinBytes, e.MaxBytes)
			}
			if e.MaxMarkProbability < 0 || e.MaxMarkProbability > maxMarkProbabilityEOS {
				return invalid("class %q: max mark probability %d out of range 0..100", c.Name, e.MaxMarkProbability)
			}
		}
	}
	for _, s := range in.Classes {
		for _, r := range in.Classes {
			if s.Strict && !r.Strict && s.Queue <= r.Queue {
				return notSupported("strict class %q (tx-queue %d) must sit above round-robin class %q (tx-queue %d): "+
					"`no priority` on a tx-queue makes every lower queue round-robin too", s.Name, s.Queue, r.Name, r.Queue)
			}
		}
	}
	if n := len(in.PFC.Priorities); n > MaxNoDropPriorities {
		return notSupported("%d no-drop priorities %v; at most %d are supported", n, in.PFC.Priorities, MaxNoDropPriorities)
	}
	for _, p := range in.PFC.Priorities {
		if p < 0 || p > 7 {
			return invalid("PFC priority %d out of range 0..7", p)
		}
	}
	if wd := in.PFC.Watchdog; wd != nil {
		if _, ok := watchdogActions[wd.Action]; !ok && wd.Action != "" {
			return notSupported("PFC watchdog action %q (EOS knows drop, forward as no-drop, alert as notify-only)", wd.Action)
		}
		for _, t := range []struct {
			what       string
			ms, lo, hi int
		}{
			{"detection time", wd.DetectionTimeMs, minWatchdogTimeoutMs, maxWatchdogTimeoutMs},
			{"restoration time", wd.RestorationTimeMs, minWatchdogTimeoutMs, maxWatchdogTimeoutMs},
			{"poll interval", wd.PollIntervalMs, minWatchdogPollMs, maxWatchdogPollMs},
		} {
			if t.ms < 0 || (t.ms > 0 && (t.ms < t.lo || t.ms > t.hi)) {
				return notSupported("PFC watchdog %s %d ms outside %d..%d ms", t.what, t.ms, t.lo, t.hi)
			}
		}
	}
	return nil
}

// kbytes converts bytes to whole EOS kbytes (BytesPerKbyte), rounding half up.
func kbytes(b int64) int64 { return (b + BytesPerKbyte/2) / BytesPerKbyte }

// seconds formats milliseconds as the decimal seconds EOS timers take.
func seconds(ms int) string { return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) }

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, " ")
}
