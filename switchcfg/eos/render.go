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

// notSupported reports something EOS cannot express (validate adds the
// platform name).
func notSupported(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), switchcfg.ErrNotSupported)
}

// Watchdog timer ranges of EOS, in milliseconds (the CLI takes seconds).
const (
	minWatchdogTimeoutMs  = 10
	maxWatchdogTimeoutMs  = 60000
	minWatchdogPollMs     = 5
	maxWatchdogPollMs     = 30000
	maxMarkProbabilityEOS = 100
)

// The watchdog acts on a stuck queue by EOS's default (errdisable the
// port) unless told: globally `priority-flow-control pause watchdog action
// drop|no-drop`, per port `… port action drop|notify-only` (AVD's
// eos_cli_config_gen schema: priority_flow_control.watchdog.action takes
// drop and no-drop, the qos profiles' watchdog action drop and
// notify-only).
// The canonical actions map to: drop → global drop, forward → global
// no-drop, alert → per-port notify-only.
var (
	globalWatchdogActions = map[string]string{"drop": "drop", "forward": "no-drop"}
	portWatchdogActions   = map[string]string{"alert": "notify-only"}
)

// errdisable is how Parse names EOS's default watchdog action.
const errdisable = "errdisable"

// queueKeyword is the egress-queue command of the intent's model family.
func queueKeyword(in fabric.SwitchIntent) string {
	if m, err := info.Model(in.Model); err == nil && m.Name == ModelSand {
		return "tx-queue"
	}
	return "uc-tx-queue"
}

// Render turns the intent into EOS configuration commands, laid out as
// `show running-config` prints them: global maps and watchdog timers first,
// then one block per port. The rendering is the full state of what fabricctl
// manages: maps, PFC priorities and queues the intent does not use are
// reset with "no" commands, so pushing it also removes what drifted in. The
// queue commands follow the model family (uc-tx-queue on strata, tx-queue on
// sand). An intent without a watchdog leaves the switch's watchdog as it is;
// a disabled one switches it off on the intent's ports and writes nothing
// global (the global timers and action are the watchdog of every port, and
// `watchdog: {enabled: false}` resolves to an action no one asked for; AVD's
// eos_cli_config_gen writes nothing either). It is pure.
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
	queue := queueKeyword(in)
	for _, c := range classes {
		line(0, "qos map traffic-class %d to %s %d", c.TrafficClass, queue, c.Queue)
	}
	unmap("traffic-class", queue, unused(7, func(c fabric.SwitchClass) []int { return []int{c.TrafficClass} }))
	if len(in.PFC.Priorities) > 0 {
		line(0, "no priority-flow-control all off")
	}
	wd := in.PFC.Watchdog
	if wd != nil && wd.Enabled {
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
		if a, ok := globalWatchdogActions[wd.Action]; ok {
			line(0, "priority-flow-control pause watchdog action %s", a)
		} else {
			line(0, "no priority-flow-control pause watchdog action")
		}
	}

	// Every port gets the same block: write it once, then once per port.
	head := b.String()
	b.Reset()
	trust := map[string]string{"dscp": "dscp", "pcp": "cos"}[in.Trust]
	{
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
		switch {
		case wd == nil: // left as it is
		case wd.Enabled:
			line(3, "priority-flow-control pause watchdog")
			if a, ok := portWatchdogActions[wd.Action]; ok {
				line(3, "priority-flow-control pause watchdog port action %s", a)
			} else {
				line(3, "no priority-flow-control pause watchdog port action")
			}
			line(3, "no priority-flow-control pause watchdog port timer")
		default:
			// Off, and nothing else: a disabled watchdog's timers and
			// action act on nothing and are not written.
			line(3, "no priority-flow-control pause watchdog")
		}
		for q := 0; q <= 7; q++ {
			i := slices.IndexFunc(classes, func(c fabric.SwitchClass) bool { return c.Queue == q })
			if i < 0 {
				line(3, "no %s %d", queue, q)
				continue
			}
			c := classes[i]
			line(3, "%s %d", queue, q)
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
				s := fmt.Sprintf("random-detect ecn minimum-threshold %s maximum-threshold %s",
					threshold(e.MinBytes), threshold(e.MaxBytes))
				if e.MaxMarkProbability > 0 {
					s += fmt.Sprintf(" max-mark-probability %d", e.MaxMarkProbability)
				}
				line(6, "%s", s)
			} else {
				line(6, "no random-detect ecn")
			}
		}
	}
	block := b.String()
	b.Reset()
	b.Grow(len(head) + len(in.Ports)*(len(block)+32))
	b.WriteString(head)
	for _, port := range in.Ports {
		b.WriteString("interface ")
		b.WriteString(port)
		b.WriteByte('\n')
		b.WriteString(block)
	}
	return switchcfg.Config{Platform: Platform, Format: "commands", Text: b.String()}, nil
}

// validate rejects malformed intents (switchcfg.CheckIntent) and what EOS
// cannot express; it reports every problem, joined, under the platform name.
func validate(in fabric.SwitchIntent) error {
	errs := switchcfg.For(info, checkPort).Check(in)
	byTC := map[int]string{}
	for _, c := range in.Classes {
		if other, dup := byTC[c.TrafficClass]; dup {
			errs = append(errs, notSupported("classes %q and %q share traffic class %d; EOS classes are traffic classes", other, c.Name, c.TrafficClass))
		}
		byTC[c.TrafficClass] = c.Name
		for _, r := range in.Classes {
			if c.Strict && !r.Strict && c.Queue <= r.Queue {
				errs = append(errs, notSupported("strict class %q (tx-queue %d) must sit above round-robin class %q (tx-queue %d): "+
					"`no priority` on a tx-queue makes every lower queue round-robin too", c.Name, c.Queue, r.Name, r.Queue))
			}
		}
	}
	if n := len(in.PFC.Priorities); n > MaxNoDropPriorities {
		errs = append(errs, notSupported("%d no-drop priorities %v; at most %d are supported", n, in.PFC.Priorities, MaxNoDropPriorities))
	}
	if wd := in.PFC.Watchdog; wd != nil {
		_, global := globalWatchdogActions[wd.Action]
		_, port := portWatchdogActions[wd.Action]
		if !global && !port && wd.Action != "" {
			errs = append(errs, fabric.AtField("pfc.watchdog.action", notSupported("PFC watchdog action %q (EOS knows drop, forward as no-drop, alert as the ports' notify-only)", wd.Action)))
		}
		for _, t := range []struct {
			what, field string
			ms, lo, hi  int
			// step is the timer's resolution: EOS (and AVD's schema)
			// take timeout and recovery-time in hundredths of a second,
			// the polling interval in thousandths.
			step int
		}{
			{"detection time", "pfc.watchdog.detectionTime", wd.DetectionTimeMs, minWatchdogTimeoutMs, maxWatchdogTimeoutMs, 10},
			{"restoration time", "pfc.watchdog.restorationTime", wd.RestorationTimeMs, minWatchdogTimeoutMs, maxWatchdogTimeoutMs, 10},
			{"poll interval", "pfc.watchdog.pollInterval", wd.PollIntervalMs, minWatchdogPollMs, maxWatchdogPollMs, 1},
		} {
			switch {
			case t.ms < 0 || (t.ms > 0 && (t.ms < t.lo || t.ms > t.hi)):
				errs = append(errs, fabric.AtField(t.field, notSupported("PFC watchdog %s %d ms outside %d..%d ms", t.what, t.ms, t.lo, t.hi)))
			case t.ms%t.step != 0:
				errs = append(errs, fabric.AtField(t.field, notSupported("PFC watchdog %s %d ms: EOS takes it in steps of %d ms (seconds with two decimals)", t.what, t.ms, t.step)))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s: %w", Platform, err)
	}
	return nil
}

// threshold writes a byte count in whole kbytes (BytesPerKbyte) when it is
// one, else in bytes, so that it reads back exactly.
func threshold(b int64) string {
	if b%BytesPerKbyte == 0 {
		return strconv.FormatInt(b/BytesPerKbyte, 10) + " kbytes"
	}
	return strconv.FormatInt(b, 10) + " bytes"
}

// seconds formats milliseconds as the decimal seconds EOS timers take.
func seconds(ms int) string { return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) }

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, " ")
}
