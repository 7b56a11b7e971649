package nxos

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/internal/intset"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// notSupported reports something NX-OS cannot express (validate adds the
// platform name).
func notSupported(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), switchcfg.ErrNotSupported)
}

// PFC watchdog limits: the interval is 100..1000 ms, detection and
// restoration are multiples of it (shutdown-multiplier 1..10,
// auto-restore multiplier 0..100).
const (
	minWatchdogIntervalMs, maxWatchdogIntervalMs = 100, 1000
	maxShutdownMultiplier                        = 10
	maxRestoreMultiplier                         = 100
)

// classNameRE is what Render accepts as a class-map name.
var classNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$`)

// className is the class-map name of c: its own name, or TC<n> when it has none.
func className(c fabric.SwitchClass) string {
	if c.Name == "" {
		return "TC" + strconv.Itoa(c.TrafficClass)
	}
	return c.Name
}

// defaultClass returns the index of the class Render writes as the policy's
// class-default, or -1: the first unnamed class that takes exactly the DSCPs
// no other class matches (with pcp trust: whose priority is its qos-group).
// That is how Parse reads a class-default back.
func defaultClass(in fabric.SwitchIntent) int {
	for i, c := range in.Classes {
		if c.Name != "" {
			continue
		}
		if in.Trust == "pcp" {
			if c.Priority == c.TrafficClass {
				return i
			}
			continue
		}
		others := map[int]bool{}
		for j, o := range in.Classes {
			for _, d := range o.DSCP {
				others[d] = others[d] || j != i
			}
		}
		rest := 0
		for d := 0; d <= 63; d++ {
			if !others[d] {
				rest++
			}
		}
		if rest == len(c.DSCP) && !slices.ContainsFunc(c.DSCP, func(d int) bool { return others[d] }) {
			return i
		}
	}
	return -1
}

// queuingClass and nqClass name the system classes of queue / qos-group n (8q mode).
func queuingClass(n int) string {
	if n == 0 {
		return "c-out-8q-q-default"
	}
	return "c-out-8q-q" + strconv.Itoa(n)
}

func nqClass(n int) string {
	if n == 0 {
		return "c-8q-nq-default"
	}
	return "c-8q-nq" + strconv.Itoa(n)
}

// Render turns the intent into NX-OS configuration: class-maps and a type qos
// policy (classification to qos-groups), a type queuing policy (scheduling and
// ECN per c-out-8q queue), a type network-qos policy (MTU, pause pfc-cos),
// `system qos`, the PFC watchdog, and per port MTU, PFC mode and the input
// policy. Within what it manages the rendering is the full state: queues,
// network-qos classes and ports are written whole, with "no" commands for
// what the intent does not use. It is pure.
func (*Driver) Render(in fabric.SwitchIntent) (switchcfg.Config, error) {
	if err := validate(in); err != nil {
		return switchcfg.Config{}, err
	}
	var b strings.Builder
	line := func(indent int, format string, args ...any) {
		b.WriteString(strings.Repeat("  ", indent))
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	def := defaultClass(in)
	for i, c := range in.Classes {
		if i == def {
			continue
		}
		line(0, "class-map type qos match-any %s", className(c))
		// NX-OS takes `no match` with the values it removes (a bare `no
		// match cos` is invalid input): the other trust's match is what
		// this class would have under it.
		switch {
		case in.Trust == "pcp":
			line(1, "match cos %d", c.Priority)
			line(1, "no match dscp 0-63")
		case len(c.DSCP) > 0:
			line(1, "match dscp %s", dscpSpec(c.DSCP))
			line(1, "no match cos %d", c.Priority)
		default:
			line(1, "no match dscp 0-63")
			line(1, "no match cos %d", c.Priority)
		}
	}
	line(0, "policy-map type qos %s", QoSPolicy)
	for i, c := range in.Classes {
		if i != def {
			line(1, "class %s", className(c))
			line(2, "set qos-group %d", c.TrafficClass)
		}
	}
	if def >= 0 {
		line(1, "class class-default")
		line(2, "set qos-group %d", in.Classes[def].TrafficClass)
	}

	line(0, "policy-map type queuing %s", QueuingPolicy)
	for q := 7; q >= 0; q-- {
		line(1, "class type queuing %s", queuingClass(q))
		var c fabric.SwitchClass // a queue without class: no share, no ECN
		if i := slices.IndexFunc(in.Classes, func(c fabric.SwitchClass) bool { return c.Queue == q }); i >= 0 {
			c = in.Classes[i]
		}
		if c.Strict {
			line(2, "priority level 1")
			line(2, "no bandwidth remaining percent")
		} else {
			line(2, "no priority level 1")
			line(2, "bandwidth remaining percent %d", c.BandwidthPercent)
		}
		if e := c.ECN; e != nil {
			s := fmt.Sprintf("random-detect minimum-threshold %s maximum-threshold %s", threshold(e.MinBytes), threshold(e.MaxBytes))
			if e.MaxMarkProbability > 0 {
				s += fmt.Sprintf(" drop-probability %d", e.MaxMarkProbability)
			}
			line(2, "%s weight 0 ecn", s)
		} else {
			line(2, "no random-detect")
		}
	}

	line(0, "policy-map type network-qos %s", NetworkQoSPolicy)
	for g := 7; g >= 0; g-- {
		line(1, "class type network-qos %s", nqClass(g))
		if in.MTU > 0 {
			line(2, "mtu %d", in.MTU)
		}
		i := slices.IndexFunc(in.Classes, func(c fabric.SwitchClass) bool { return c.TrafficClass == g })
		if i >= 0 && slices.Contains(in.PFC.Priorities, in.Classes[i].Priority) {
			line(2, "pause pfc-cos %d", in.Classes[i].Priority)
		} else {
			// The value is required (`no pause pfc-cos 0`, as running
			// configurations print it): the class's own number.
			line(2, "no pause pfc-cos %d", g)
		}
	}
	pause := pauseBuffer(in)
	if pause != nil {
		// Cisco: above 100 m of cable the pause buffer thresholds are
		// mandatory, in an input queuing policy (Nexus 9000 QoS guide,
		// PFC guidelines; "Input queuing policy maps cannot have pause
		// buffer and priority/bandwidth together").
		line(0, "policy-map type queuing %s", InputQueuingPolicy)
		for _, q := range losslessQueues(in) {
			line(1, "class type queuing %s", inputQueuingClass(q))
			line(2, "pause buffer-size %d pause-threshold %d resume-threshold %d", pause.size, pause.pause, pause.resume)
		}
	}
	line(0, "system qos")
	line(1, "service-policy type network-qos %s", NetworkQoSPolicy)
	line(1, "service-policy type queuing output %s", QueuingPolicy)
	if pause != nil {
		line(1, "service-policy type queuing input %s", InputQueuingPolicy)
	}

	// An intent without a watchdog leaves the switch's as it is.
	if wd := in.PFC.Watchdog; wd != nil {
		line(0, "priority-flow-control watch-dog-interval %s", map[bool]string{true: "on", false: "off"}[wd.Enabled])
		if wd.PollIntervalMs > 0 {
			line(0, "priority-flow-control watch-dog interval %d", wd.PollIntervalMs)
			if wd.DetectionTimeMs > 0 {
				line(0, "priority-flow-control watch-dog shutdown-multiplier %d", wd.DetectionTimeMs/wd.PollIntervalMs)
			}
			if wd.RestorationTimeMs > 0 {
				line(0, "priority-flow-control auto-restore multiplier %d", wd.RestorationTimeMs/wd.PollIntervalMs)
			}
		}
	}
	for _, port := range in.Ports {
		line(0, "interface %s", port)
		if in.MTU > 0 {
			line(1, "mtu %d", in.MTU)
		}
		if len(in.PFC.Priorities) > 0 {
			line(1, "priority-flow-control mode on")
		} else {
			line(1, "no priority-flow-control mode on")
		}
		line(1, "service-policy type qos input %s", QoSPolicy)
	}
	return switchcfg.Config{Platform: Platform, Format: "commands", Text: b.String()}, nil
}

// validate rejects malformed intents (switchcfg.CheckIntent) and what NX-OS
// cannot express; it reports every problem, joined, under the platform name.
func validate(in fabric.SwitchIntent) error {
	errs := switchcfg.For(info, checkPort).Check(in)
	names, groups := map[string]bool{}, map[int]string{}
	strict := 0
	for _, c := range in.Classes {
		name := className(c)
		if !classNameRE.MatchString(name) || strings.HasPrefix(name, "c-") || name == "class-default" {
			errs = append(errs, notSupported("class name %q is not a usable class-map name (letters, digits, _ . -, at most 40, not c-* or class-default)", name))
		}
		if names[name] {
			errs = append(errs, notSupported("two classes are named %q (one class-map each)", name))
		}
		names[name] = true
		if c.Queue != c.TrafficClass {
			errs = append(errs, notSupported("class %q: queue %d differs from traffic class %d; in 8q mode qos-group N is served by c-out-8q-qN", name, c.Queue, c.TrafficClass))
		}
		if other, dup := groups[c.TrafficClass]; dup {
			errs = append(errs, notSupported("classes %q and %q share qos-group %d", other, name, c.TrafficClass))
		}
		groups[c.TrafficClass] = name
		if in.Trust == "dscp" && !c.Lossless && c.Priority != c.TrafficClass {
			errs = append(errs, notSupported("class %q: priority %d differs from qos-group %d; with dscp trust NX-OS carries a priority only as the pfc-cos of a no-drop class", name, c.Priority, c.TrafficClass))
		}
		if c.Strict {
			strict++
			if c.BandwidthPercent > 0 {
				errs = append(errs, notSupported("class %q: a priority level 1 queue takes no bandwidth share (%d%%)", name, c.BandwidthPercent))
			}
		}
	}
	if strict > MaxStrictClasses {
		errs = append(errs, notSupported("%d strict-priority classes; at most %d (priority level 1)", strict, MaxStrictClasses))
	}
	if n := len(in.PFC.Priorities); n > MaxNoDropClasses {
		errs = append(errs, notSupported("%d no-drop priorities %v; at most %d no-drop classes", n, in.PFC.Priorities, MaxNoDropClasses))
	}
	errs = append(errs, validateWatchdog(in.PFC.Watchdog))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s: %w", Platform, err)
	}
	return nil
}

func validateWatchdog(wd *fabric.SwitchPFCWatchdog) error {
	if wd == nil {
		return nil
	}
	if wd.Action != "" && wd.Action != "drop" {
		return fabric.AtField("pfc.watchdog.action", notSupported("PFC watchdog action %q; the NX-OS watchdog drops", wd.Action))
	}
	poll := wd.PollIntervalMs
	if poll == 0 {
		if wd.DetectionTimeMs != 0 || wd.RestorationTimeMs != 0 {
			return fabric.AtField("pfc.watchdog.pollInterval", notSupported("PFC watchdog times need a poll interval: NX-OS sets them as multiples of it"))
		}
		return nil
	}
	if poll < minWatchdogIntervalMs || poll > maxWatchdogIntervalMs {
		return fabric.AtField("pfc.watchdog.pollInterval", notSupported("PFC watchdog interval %d ms outside %d..%d ms", poll, minWatchdogIntervalMs, maxWatchdogIntervalMs))
	}
	if d := wd.DetectionTimeMs; d < 0 || d%poll != 0 || d/poll > maxShutdownMultiplier {
		return fabric.AtField("pfc.watchdog.detectionTime", notSupported("PFC watchdog detection time %d ms is not 1..%d times the %d ms interval", d, maxShutdownMultiplier, poll))
	}
	if r := wd.RestorationTimeMs; r < 0 || r%poll != 0 || r/poll > maxRestoreMultiplier {
		return fabric.AtField("pfc.watchdog.restorationTime", notSupported("PFC watchdog restoration time %d ms is not 0..%d times the %d ms interval", r, maxRestoreMultiplier, poll))
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

// dscpSpec writes a DSCP list the way `match dscp` takes it: "0-25,27-47".
func dscpSpec(v []int) string {
	return intset.Format(v)
}

// Pause buffer thresholds for long cables. Cisco makes them mandatory above
// 100 m and leaves them optional below (Nexus 9000 NX-OS QoS Configuration
// Guide, "Configuring Priority Flow Control", guidelines); fabricctl writes
// them only above 100 m and leaves the switch's alone otherwise.
//
// The headroom above the pause threshold holds what arrives after the pause
// is sent (IEEE 802.1Qbb's delay budget): the cable's round trip, 5 ns/m
// each way, at the fastest port speed fabricctl assumes (800 Gb/s: 1000 B per
// metre of cable), plus one largest frame in flight at each end (2 × 9216 B)
// and the peer's response time (3840 B, 802.1Qbb's allowance for a pause
// frame being sent and acted on). The pause threshold is four largest frames
// of occupancy, resume two frames below it.
const (
	longCableMeters     = 100
	headroomBytesPerM   = 1000
	headroomFixedBytes  = 2*9216 + 3840
	pauseThresholdBytes = 4 * 9216
	resumeThresholdByte = 2 * 9216
)

// pause is one pause buffer-size / pause-threshold / resume-threshold triple.
type pause struct{ size, pause, resume int }

// pauseBuffer returns the thresholds the intent's cable length needs, or
// nil (no PFC, or 100 m and less).
func pauseBuffer(in fabric.SwitchIntent) *pause {
	if len(in.PFC.Priorities) == 0 || in.PFC.CableLengthMeters <= longCableMeters {
		return nil
	}
	headroom := in.PFC.CableLengthMeters*headroomBytesPerM + headroomFixedBytes
	return &pause{size: pauseThresholdBytes + headroom, pause: pauseThresholdBytes, resume: resumeThresholdByte}
}

// cableFromPause inverts pauseBuffer: the cable length a buffer-size and
// pause-threshold were computed for, or 0 when they were not computed so.
func cableFromPause(size, pauseAt int) int {
	h := size - pauseAt - headroomFixedBytes
	if pauseAt != pauseThresholdBytes || h <= 0 || h%headroomBytesPerM != 0 {
		return 0
	}
	return h / headroomBytesPerM
}

// losslessQueues are the queues of the lossless classes, ascending.
func losslessQueues(in fabric.SwitchIntent) []int {
	var qs []int
	for _, c := range in.Classes {
		if c.Lossless && !slices.Contains(qs, c.Queue) {
			qs = append(qs, c.Queue)
		}
	}
	slices.Sort(qs)
	return qs
}

// inputQueuingClass names the system ingress queuing class of queue n (8q mode).
func inputQueuingClass(n int) string {
	if n == 0 {
		return "c-in-q-default"
	}
	return "c-in-q" + strconv.Itoa(n)
}
