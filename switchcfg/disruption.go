package switchcfg

import (
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// What a switch ASIC reprograms for each field Compare reports, and so
// which changes interrupt traffic (Changes marks them Disruptive and says
// why in Note). The same on every NOS fabricctl supports:
//
//   - the MTU: the port is reprogrammed and, on every lossless platform,
//     its lossless headroom is recomputed from it;
//   - trust: every packet is classified anew;
//   - the set of PFC-enabled priorities (pfc.priorities, a class becoming
//     lossless or lossy, a lossless class removed): priority groups and
//     their headroom are rebuilt and the port pauses briefly;
//   - the PFC cable length: the lossless headroom is recomputed;
//   - the DSCP → priority map where a DSCP that is lossless before or
//     after moves: that traffic changes class (and pause behaviour) in
//     flight;
//   - the traffic class or egress queue of a lossless priority: its
//     priority group and lossless queue buffers move.
//
// Not disruptive: the PFC watchdog's enablement, timers and action (a
// monitor of the queues), ECN/WRED thresholds, ETS weights and strict
// priority (scheduler parameters), the DSCP map or queue of a lossy class
// that stays lossy, and the classes playing the RoCE and CNP roles.

// disruption says why changing field (a Compare field without its
// port-group prefix) from old to new interrupts traffic, or "".
func (l losslessness) disruption(field, old, new string) string {
	switch field {
	case "mtu":
		return "changing the MTU reprograms the ports and their lossless headroom"
	case "trust":
		return "changing trust reclassifies all traffic"
	case "pfc.priorities":
		return "changing the PFC priorities rebuilds the ports' priority groups and headroom; the ports pause briefly"
	case "pfc.cableLengthMeters":
		return "the cable length sets the lossless headroom, which is reprogrammed"
	}
	class, setting, ok := classField(field)
	if !ok {
		return ""
	}
	switch {
	case setting == "":
		// A class on the device that the intent lacks: apply removes it.
		if slices.Contains(strings.Split(old, ", "), "lossless") {
			return "removing a lossless class turns PFC off for its priority and reclassifies its DSCPs"
		}
	case setting == "lossless":
		if (old == "true") != (new == "true") {
			if new == "true" {
				return "the class becomes lossless: PFC is turned on for its priority, whose buffers are reprogrammed"
			}
			return "the class becomes lossy: PFC is turned off for its priority, whose buffers are reprogrammed"
		}
	case strings.HasPrefix(setting, "dscp["):
		return "a lossless DSCP is classified into another class"
	case setting == "dscp":
		if moved := l.losslessDSCPs(symmetricDifference(parseSet(old), parseSet(new))); len(moved) > 0 {
			return "reclassifies lossless DSCP " + FormatIntSet(moved)
		}
	case setting == "trafficClass" || setting == "queue":
		if l.lossless(class) {
			return "moving a lossless priority to another " + map[string]string{"trafficClass": "traffic class", "queue": "queue"}[setting] +
				" reprograms its priority group and lossless buffers"
		}
	}
	return ""
}

// losslessness knows which classes and DSCPs are lossless on either side.
type losslessness struct {
	wantClass  map[string]fabric.SwitchClass // by class name as Compare names it
	gotPrio    map[int]bool                  // priorities lossless on the device (any port group)
	losslessDS map[int]bool                  // DSCPs lossless in the intent or on the device
}

func newLosslessness(want, got fabric.SwitchIntent) losslessness {
	l := losslessness{wantClass: map[string]fabric.SwitchClass{}, gotPrio: map[int]bool{}, losslessDS: map[int]bool{}}
	for _, c := range want.Classes {
		l.wantClass[className(c)] = c
		if c.Lossless {
			for _, d := range c.DSCP {
				l.losslessDS[d] = true
			}
		}
	}
	gotClasses := slices.Clone(got.Classes)
	for _, g := range got.PortGroups {
		gotClasses = append(gotClasses, g.Classes...)
	}
	for _, c := range gotClasses {
		if c.Lossless {
			l.gotPrio[c.Priority] = true
			for _, d := range c.DSCP {
				l.losslessDS[d] = true
			}
		}
	}
	return l
}

// lossless reports whether the class the intent names is lossless in the
// intent or its priority is on the device.
func (l losslessness) lossless(class string) bool {
	c, ok := l.wantClass[class]
	return ok && (c.Lossless || l.gotPrio[c.Priority])
}

func (l losslessness) losslessDSCPs(ds []int) []int {
	var out []int
	for _, d := range ds {
		if l.losslessDS[d] {
			out = append(out, d)
		}
	}
	return out
}

// classField splits "classes[roce].ecn.minBytes" into "roce" and
// "ecn.minBytes"; "classes[roce]" gives setting "".
func classField(field string) (class, setting string, ok bool) {
	rest, ok := strings.CutPrefix(field, "classes[")
	if !ok {
		return "", "", false
	}
	i := strings.Index(rest, "]")
	if i < 0 {
		return "", "", false
	}
	class, setting = rest[:i], strings.TrimPrefix(rest[i+1:], ".")
	return class, setting, true
}

// parseSet reads a FormatIntSet value; anything else (Missing) is empty.
func parseSet(s string) []int {
	v, err := ParseIntSet(s, 0, 63)
	if err != nil {
		return nil
	}
	return v
}

func symmetricDifference(a, b []int) []int {
	var out []int
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}
