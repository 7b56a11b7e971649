package nxos

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// stmt is one configuration statement with the statements indented under it.
type stmt struct {
	line int      // 1-based line number in the read-back
	f    []string // the statement's words
	kids []*stmt
}

func (s *stmt) text() string { return strings.Join(s.f, " ") }

// eachRoot calls fn with each top-level statement of a running-config,
// with the statements indented under it, once it is complete; comment
// lines ("!...") and blank lines are skipped. Only the roots read with
// their block (withBlock) get their statements built: memory holds one
// block at a time, not the whole configuration.
func eachRoot(text string, fn func(*stmt) error) error {
	type open struct {
		depth int
		s     *stmt
	}
	var (
		stack []open
		root  *stmt
		skip  bool // the current root's block is not read
		n     int
		words int // in the blocks read
	)
	for raw := range strings.Lines(text) {
		n++
		raw = strings.TrimRight(raw, "\r\n \t")
		t := strings.TrimSpace(raw)
		if t == "" || t[0] == '!' {
			continue
		}
		depth := len(raw) - len(strings.TrimLeft(raw, " \t"))
		for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			if root != nil {
				if err := fn(root); err != nil {
					return err
				}
			}
			root = &stmt{line: n, f: strings.Fields(t)}
			stack, skip = append(stack, open{depth, root}), !withBlock(root.f)
			continue
		}
		if skip {
			continue
		}
		s := &stmt{line: n, f: strings.Fields(t)}
		if words += len(s.f); words > maxBlockWords {
			return fmt.Errorf("line %d: more than %d words in the blocks read (interfaces, class and policy maps, system qos): no NX-OS configuration is that large", n, maxBlockWords)
		}
		parent := stack[len(stack)-1].s
		parent.kids = append(parent.kids, s)
		stack = append(stack, open{depth, s})
	}
	if root != nil {
		return fn(root)
	}
	return nil
}

// maxBlockWords is the most words the blocks eachRoot builds may hold: a
// chassis's interfaces and policies hold a few hundred thousand.
const maxBlockWords = 1 << 21

// withBlock reports whether global reads the block of a top-level
// statement (class and policy maps, system qos, interfaces).
func withBlock(f []string) bool {
	switch f[0] {
	case "class-map", "policy-map", "system", "interface":
		return true
	}
	return false
}

// classMap is a `class-map type qos` with the DSCP and CoS values it matches.
type classMap struct{ dscp, cos []int }

// policy is a policy-map: its classes in order, each with its statements.
type policy struct {
	classes []*stmt // "class NAME" / "class type queuing NAME" statements
}

// iface is the QoS of one Ethernet interface.
type iface struct {
	qos      bool   // any QoS statement
	mtu      int    // 0: not set
	pfcMode  string // on | off | auto | ""
	wdOn     string // priority-flow-control watch-dog-interval on|off
	qosIn    string // service-policy type qos input
	queueOut string // service-policy type queuing output
}

// runningConfig is what Parse keeps of `show running-config`.
type runningConfig struct {
	classMaps                  map[string]*classMap
	policies                   map[string]*policy // by "kind name"
	sysQoS, sysQueuing, sysNQ  string
	sysInQueuing               string // service-policy type queuing input (pause buffers)
	wdOn                       string
	wdInterval, wdShut, wdAuto int
	ports                      map[string]*iface
	// groupMaps are the qos-groups each user-defined network-qos and
	// queuing class-map matches, by "kind name" (Nexus 3000/5000).
	groupMaps map[string][]int
	// unread collects the top-level QoS statements not read, unparsed
	// lists them.
	unread   switchcfg.UnparsedLines
	unparsed []fabric.Unparsed
}

// Parse reads `show running-config` into the canonical intent. Classes come
// from the type qos policy the QoS-configured Ethernet ports use (all of them
// must use the same one), their scheduling and ECN from the queuing policy and
// their PFC from the network-qos policy attached under `system qos`. A
// configuration without QoS parses to an intent with no ports, classes or PFC.
func (d *Driver) Parse(rb switchcfg.Readback) (fabric.SwitchIntent, error) {
	return d.ParsePorts(rb, nil)
}

// ParsePorts is Parse restricted to the given ports (nil: every port with
// QoS): the classes come from the policy these ports share and per-port
// settings count where all of them agree, so ports outside the list do not
// blur the result. A listed port without QoS makes those settings read as
// empty. The result's Ports are the listed ports that carry QoS.
func (*Driver) ParsePorts(rb switchcfg.Readback, ports []string) (fabric.SwitchIntent, error) {
	out, ok := rb[ReadbackRunningConfig]
	if !ok {
		return fabric.SwitchIntent{}, fmt.Errorf("parsing %s read-back: no output for %q", Platform, ReadbackRunningConfig)
	}
	rc, err := parseRunningConfig(string(out))
	if err != nil {
		return fabric.SwitchIntent{}, fmt.Errorf("parsing %s %s: %w", Platform, ReadbackRunningConfig, err)
	}
	return rc.intent(ports), nil
}

// otherCLIs are lines of the NOSes whose running-config looks like NX-OS's:
// EOS's "! device:" and "! Command:" banners, its QoS maps, management API
// and agents; Dell OS9 and IOS (switchcfg.OtherCLIs).
var otherCLIs = func() map[string]*regexp.Regexp {
	m := maps.Clone(switchcfg.OtherCLIs)
	m["EOS"] = regexp.MustCompile(`^(! device: |! Command: show|qos map (dscp|cos|traffic-class) .* to |transceiver qsfp default-mode|service routing protocols model|management api (http-commands|gnmi)|daemon TerminAttr)`)
	return m
}()

func parseRunningConfig(text string) (*runningConfig, error) {
	if err := switchcfg.CheckLineLength("NX-OS", text); err != nil {
		return nil, err
	}
	text = switchcfg.Dedent(text)
	if err := switchcfg.CheckCLIFormat("NX-OS", text, "!", topLevel); err != nil {
		return nil, err
	}
	if err := switchcfg.CheckForeign("NX-OS", text, otherCLIs); err != nil {
		return nil, err
	}
	rc := &runningConfig{classMaps: map[string]*classMap{}, policies: map[string]*policy{}, ports: map[string]*iface{},
		groupMaps: map[string][]int{}}
	err := eachRoot(text, func(s *stmt) error {
		if err := rc.global(s); err != nil {
			return fmt.Errorf("line %d: %s: %w", s.line, fabric.Clip(s.text()), err)
		}
		if len(rc.classMaps)+len(rc.policies)+len(rc.groupMaps)+len(rc.ports) > switchcfg.MaxBlocks {
			return fmt.Errorf("line %d: %w", s.line, switchcfg.ErrTooManyBlocks)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rc.unparsed = rc.unread.Lines()
	return rc, nil
}

func (rc *runningConfig) global(s *stmt) error {
	f := s.f
	switch {
	case len(f) >= 4 && f[0] == "class-map" && f[1] == "type" && f[2] == "qos":
		cm := &classMap{}
		rc.classMaps[f[len(f)-1]] = cm
		for _, k := range s.kids {
			if err := cm.match(k.f); err != nil {
				return fmt.Errorf("line %d: %w", k.line, err)
			}
		}
	case len(f) >= 4 && f[0] == "class-map" && f[1] == "type" && (f[2] == "network-qos" || f[2] == "queuing"):
		// A user-defined system class (Nexus 3000/5000 QoS configuration
		// guides, "Configuring Class Maps": a network-qos or queuing
		// class-map identifies a system class by its qos-group).
		key := f[2] + " " + f[len(f)-1]
		rc.groupMaps[key] = []int{}
		for _, k := range s.kids {
			if len(k.f) >= 3 && k.f[0] == "match" && k.f[1] == "qos-group" {
				g, err := valueList(rc.groupMaps[key], k.f[2:], 7)
				if err != nil {
					return fmt.Errorf("line %d: %w", k.line, err)
				}
				rc.groupMaps[key] = g
			} else if len(k.f) > 0 && k.f[0] == "match" {
				rc.unread.Add(fabric.Unparsed{Line: k.line, Text: k.text(),
					Reason: "a " + f[2] + " class-map is read by its qos-group only"})
			}
		}
	case len(f) >= 4 && f[0] == "policy-map" && f[1] == "type":
		p := &policy{}
		for _, k := range s.kids {
			if len(k.f) >= 2 && k.f[0] == "class" {
				p.classes = append(p.classes, k)
				for _, st := range k.kids {
					if err := checkClassNumbers(st); err != nil {
						return fmt.Errorf("line %d: %w", st.line, err)
					}
				}
			}
		}
		rc.policies[f[2]+" "+f[len(f)-1]] = p
	case len(f) == 2 && f[0] == "system" && f[1] == "qos":
		for _, k := range s.kids {
			kind, name, ok := servicePolicy(k.f)
			switch {
			case !ok:
			case kind == "qos":
				rc.sysQoS = name
			case kind == "queuing" && slices.Contains(k.f, "input"):
				rc.sysInQueuing = name
			case kind == "queuing":
				rc.sysQueuing = name
			case kind == "network-qos":
				rc.sysNQ = name
			}
		}
	case len(f) >= 2 && f[0] == "interface":
		names, ok := switchcfg.ExpandEthernetRange(f[1:], portRE.MatchString)
		if !ok {
			if slices.ContainsFunc(s.kids, func(k *stmt) bool {
				return len(k.f) > 0 && (k.f[0] == "service-policy" || k.f[0] == "priority-flow-control")
			}) || strings.HasPrefix(strings.ToLower(f[1]), "eth") {
				rc.unread.Add(fabric.Unparsed{Line: s.line, Text: s.text(),
					Reason: "QoS of an interface that is not an Ethernet port (or a range fabricctl does not read) is not read"})
			}
			break
		}
		for _, name := range names {
			p := rc.ports[name]
			if p == nil {
				p = &iface{}
				rc.ports[name] = p
			}
			for _, k := range s.kids {
				if err := p.statement(k.f); err != nil {
					return fmt.Errorf("line %d: %w", k.line, err)
				}
			}
		}
	case len(f) == 3 && f[0] == "priority-flow-control" && f[1] == "watch-dog-interval":
		rc.wdOn = f[2]
	case len(f) == 4 && f[0] == "priority-flow-control" && f[1] == "watch-dog" && f[2] == "interval":
		return setInt(&rc.wdInterval, f[3], 1, 100000)
	case len(f) == 4 && f[0] == "priority-flow-control" && f[1] == "watch-dog" && f[2] == "shutdown-multiplier":
		return setInt(&rc.wdShut, f[3], 0, 1000)
	case len(f) == 4 && f[0] == "priority-flow-control" && f[1] == "auto-restore" && f[2] == "multiplier":
		return setInt(&rc.wdAuto, f[3], 0, 1000)
	default:
		if why := unreadGlobal(f); why != "" {
			rc.unread.Add(fabric.Unparsed{Line: s.line, Text: s.text(), Reason: why})
		}
	}
	return nil
}

// unreadGlobal says why a top-level statement that can affect QoS is not
// read, "" when it cannot or is read elsewhere: class-maps of other types,
// other PFC and QoS globals.
func unreadGlobal(f []string) string {
	switch {
	case len(f) >= 3 && f[0] == "class-map" && f[1] == "type":
		return "a class-map of type " + f[2] + " is not read"
	case f[0] == "priority-flow-control", f[0] == "qos", len(f) >= 2 && f[0] == "hardware" && f[1] == "qos":
		return "a global QoS setting fabricctl does not read"
	}
	return ""
}

// servicePolicy reads "service-policy type KIND [input|output] NAME".
func servicePolicy(f []string) (kind, name string, ok bool) {
	if len(f) < 4 || f[0] != "service-policy" || f[1] != "type" {
		return "", "", false
	}
	return f[2], f[len(f)-1], true
}

// match reads one statement of a qos class-map.
func (cm *classMap) match(f []string) error {
	if len(f) < 3 || f[0] != "match" {
		return nil
	}
	var err error
	switch f[1] {
	case "dscp":
		cm.dscp, err = valueList(cm.dscp, f[2:], 63)
	case "cos":
		cm.cos, err = valueList(cm.cos, f[2:], 7)
	}
	return err
}

func (p *iface) statement(f []string) error {
	switch {
	case len(f) == 2 && f[0] == "mtu":
		// The MTU is part of the intent: a port that sets only its MTU
		// is a port the reading describes.
		if err := setInt(&p.mtu, f[1], MinMTU, 65535); err != nil {
			return err
		}
	case len(f) >= 3 && f[0] == "priority-flow-control" && f[1] == "mode":
		p.pfcMode = f[2]
	case len(f) == 3 && f[0] == "priority-flow-control" && f[1] == "watch-dog-interval":
		p.wdOn = f[2]
	case len(f) >= 1 && f[0] == "priority-flow-control":
	default:
		kind, name, ok := servicePolicy(f)
		switch {
		case !ok:
			return nil
		case kind == "qos":
			p.qosIn = name
		case kind == "queuing" && f[3] == "output":
			p.queueOut = name
		}
	}
	p.qos = true
	return nil
}

// onlyPolicy returns the name of the only policy-map of kind, or "".
func (rc *runningConfig) onlyPolicy(kind string) string {
	name := ""
	for key := range rc.policies {
		k, n, _ := strings.Cut(key, " ")
		if k == kind {
			if name != "" {
				return ""
			}
			name = n
		}
	}
	return name
}

// systemClassRE matches the system classes of queuing (c-out-8q-q3,
// c-out-q3 in 4q mode) and network-qos (c-8q-nq3, c-nq3) policies.
var (
	queuingRE = regexp.MustCompile(`^c-out-(?:8q-)?q(\d|-default)$`)
	nqRE      = regexp.MustCompile(`^c-(?:8q-)?nq(\d|-default)$`)
)

// systemClass returns the policy's statements for the class of number n.
func (p *policy) systemClass(re *regexp.Regexp, n int) *stmt {
	if p == nil {
		return nil
	}
	for _, c := range p.classes {
		m := re.FindStringSubmatch(c.f[len(c.f)-1])
		if m != nil && (m[1] == strconv.Itoa(n) || (n == 0 && m[1] == "-default")) {
			return c
		}
	}
	return nil
}

// classFor returns policy p's class for qos-group n: a system class (re),
// a user-defined class-map of kind that matches the group, or, for group
// 0 when none does, class-default.
func (rc *runningConfig) classFor(p *policy, kind string, re *regexp.Regexp, n int) *stmt {
	if p == nil {
		return nil
	}
	if s := p.systemClass(re, n); s != nil {
		return s
	}
	var def *stmt
	for _, c := range p.classes {
		name := c.f[len(c.f)-1]
		if slices.Contains(rc.groupMaps[kind+" "+name], n) {
			return c
		}
		if name == "class-default" {
			def = c
		}
	}
	if n == 0 {
		return def
	}
	return nil
}

// pausedCoS reads the CoS values a network-qos statement pauses:
// `pause pfc-cos N…` or `pause no-drop pfc-cos N…`; nil for any other.
// A malformed value is an error (parseRunningConfig reports it with its
// line), so the readers of a parsed policy take the values as valid.
func pausedCoS(k *stmt) ([]int, error) {
	switch f := k.f; {
	case len(f) >= 3 && f[0] == "pause" && f[1] == "pfc-cos":
		return valueList(nil, f[2:], 7)
	case len(f) >= 4 && f[0] == "pause" && f[1] == "no-drop" && f[2] == "pfc-cos":
		return valueList(nil, f[3:], 7)
	}
	return nil, nil
}

// checkClassNumbers refuses a malformed number in a statement of a
// policy's class — paused CoS values, bandwidth percents, ECN thresholds
// and probability, MTU, pause buffers — so that the readers of a parsed
// policy may take them as valid.
func checkClassNumbers(k *stmt) error {
	if _, err := pausedCoS(k); err != nil {
		return err
	}
	var n int
	f := k.f
	switch {
	case len(f) == 4 && f[0] == "bandwidth" && f[1] == "remaining" && f[2] == "percent",
		len(f) == 3 && f[0] == "bandwidth" && f[1] == "percent":
		return setInt(&n, f[len(f)-1], 0, 100)
	case len(f) == 2 && f[0] == "mtu":
		return setInt(&n, f[1], MinMTU, 65535)
	case len(f) == 7 && f[0] == "pause" && f[1] == "buffer-size":
		for _, i := range []int{2, 4, 6} {
			if err := setInt(&n, f[i], 0, math.MaxInt32); err != nil {
				return err
			}
		}
	case f[0] == "random-detect":
		for i := 1; i+1 < len(f); i++ {
			switch f[i] {
			case "minimum-threshold", "maximum-threshold":
				if err := setInt(&n, f[i+1], 0, math.MaxInt32); err != nil {
					return err
				}
			case "drop-probability":
				if err := setInt(&n, f[i+1], 0, 100); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// nqClasses returns the classes of the network-qos policy, none when off.
func nqClasses(nq *policy, on bool) []*stmt {
	if nq == nil || !on {
		return nil
	}
	return nq.classes
}

// uniform returns the value every port yields, or the zero value and false.
func uniform[T comparable](ports []*iface, get func(*iface) T) (T, bool) {
	var zero T
	if len(ports) == 0 {
		return zero, false
	}
	v := get(ports[0])
	for _, p := range ports[1:] {
		if get(p) != v {
			return zero, false
		}
	}
	return v, true
}

func (rc *runningConfig) intent(only []string) fabric.SwitchIntent {
	in := fabric.SwitchIntent{APIVersion: fabric.APIVersion, Platform: Platform, Ports: []string{}, Classes: []fabric.SwitchClass{},
		Unparsed: rc.unparsed}
	in.PFC.Priorities = []int{}
	names := slices.Clone(only)
	if names == nil {
		for name := range rc.ports {
			names = append(names, name)
		}
	}
	slices.SortFunc(names, portOrder)
	var ports []*iface
	for _, name := range slices.Compact(names) {
		p := rc.ports[name]
		if p == nil {
			p = &iface{}
		}
		// Every Ethernet port is a port of the reading, those without QoS
		// too (parseGrouped gives them their own group); asked for ports,
		// the ones that carry QoS.
		if p.qos || (only == nil && rc.ports[name] != nil) {
			in.Ports = append(in.Ports, name)
		}
		if p.qos || only != nil {
			ports = append(ports, p)
		}
	}

	qosName := rc.sysQoS
	if len(ports) > 0 {
		var ok bool
		qosName, ok = uniform(ports, func(p *iface) string {
			if p.qosIn != "" {
				return p.qosIn
			}
			return rc.sysQoS
		})
		if !ok {
			qosName = ""
		}
	} else if qosName == "" {
		qosName = rc.onlyPolicy("qos") // nothing attached: the one defined, if only one
	}
	// The egress policy of a port is its own output queuing policy or the
	// system one; ports that differ leave the classes without scheduling.
	queuingName, ok := uniform(ports, func(p *iface) string {
		if p.queueOut != "" {
			return p.queueOut
		}
		return rc.sysQueuing
	})
	if !ok && len(ports) == 0 {
		queuingName = rc.sysQueuing
	}
	queuing := rc.policies["queuing "+queuingName]
	nq := rc.policies["network-qos "+rc.sysNQ]

	// PFC is active where every port has `priority-flow-control mode on`,
	// or `mode auto` (NX-OS's default: PFC on the no-drop classes, agreed
	// with the peer through DCBX).
	pfcOn, _ := uniform(ports, func(p *iface) bool { return p.pfcMode == "on" || p.pfcMode == "auto" })
	if len(rc.ports) == 0 {
		// No interface at all (a QoS fragment): the reading is the
		// system's, whose no-drop classes pause where PFC is on.
		pfcOn = true
	}
	// A no-drop class pauses its pfc-cos values; Nexus 5000's `pause
	// no-drop` without pfc-cos pauses the CoS the class is classified by
	// (Nexus 5000 QoS configuration guide, "Policy Types": pfc-cos is for
	// a no-drop class not mapped purely on CoS), or the CoS the class's
	// `set cos` marks.
	pfcCos := func(group int) (cos []int, noDrop *stmt) {
		s := rc.classFor(nq, "network-qos", nqRE, group)
		if s == nil {
			return nil, nil
		}
		var set []int
		for _, k := range s.kids {
			if v, _ := pausedCoS(k); v != nil { // checked at parse time
				return v, nil
			}
			switch {
			case len(k.f) == 2 && k.f[0] == "pause" && k.f[1] == "no-drop":
				noDrop = k
			case len(k.f) == 3 && k.f[0] == "set" && k.f[1] == "cos":
				set, _ = valueList(nil, k.f[2:], 7)
			}
		}
		if noDrop != nil && len(set) > 0 {
			return set, nil
		}
		return nil, noDrop
	}

	in.MTU = rc.mtu(ports, nq)
	in.PFC.Watchdog = rc.watchdog(ports)
	classes, trust := rc.classes(rc.policies["qos "+qosName])
	in.Trust = trust
	for _, c := range classes {
		c.Queue = c.TrafficClass
		cos, noDrop := pfcCos(c.TrafficClass)
		if noDrop != nil && trust == "pcp" {
			cos = []int{c.Priority}
		} else if noDrop != nil && pfcOn {
			in.Unparsed = append(in.Unparsed, fabric.Unparsed{Line: noDrop.line, Text: noDrop.text(),
				Reason: fmt.Sprintf("qos-group %d is no-drop, but its traffic is not classified by CoS and no pfc-cos or set cos names the priority PFC pauses", c.TrafficClass)})
		}
		if pfcOn && len(cos) > 0 {
			for _, p := range cos {
				if !slices.Contains(in.PFC.Priorities, p) {
					in.PFC.Priorities = append(in.PFC.Priorities, p)
				}
			}
			c.Lossless = true
			if trust != "pcp" {
				c.Priority = cos[0]
			}
		}
		scheduling(&c, rc.classFor(queuing, "queuing", queuingRE, c.Queue))
		in.Classes = append(in.Classes, c)
	}
	// PFC pauses the no-drop classes' CoS on a port with PFC on, whether or
	// not the port's own classification sends traffic to them (a
	// port-channel member without a qos policy still pauses CoS 3).
	// A network-qos class names the CoS it pauses even where no class-map
	// says which qos-group it is (generated configs omit them).
	for _, c := range nqClasses(nq, pfcOn) {
		for _, k := range c.kids {
			cos, _ := pausedCoS(k) // checked at parse time
			for _, p := range cos {
				if !slices.Contains(in.PFC.Priorities, p) {
					in.PFC.Priorities = append(in.PFC.Priorities, p)
				}
			}
		}
	}
	slices.Sort(in.PFC.Priorities)
	for i := range in.Classes {
		in.Classes[i].Lossless = in.Classes[i].Lossless || slices.Contains(in.PFC.Priorities, in.Classes[i].Priority)
	}
	if len(in.PFC.Priorities) > 0 {
		in.PFC.CableLengthMeters = rc.cableLength(in.Classes)
	}
	slices.SortStableFunc(in.Classes, func(a, b fabric.SwitchClass) int {
		if a.Priority != b.Priority {
			return a.Priority - b.Priority
		}
		return a.TrafficClass - b.TrafficClass
	})
	return in
}

// classes turns the type qos policy into classes (one per qos-group) and the
// trust mode its class-maps imply: "dscp" when they match DSCP only, "pcp"
// when they match CoS only, "" otherwise.
func (rc *runningConfig) classes(p *policy) ([]fabric.SwitchClass, string) {
	if p == nil {
		return nil, ""
	}
	var out []fabric.SwitchClass
	byGroup := map[int]int{}
	matched := map[int]bool{}
	defaultGroup := -1
	anyDSCP, anyCoS := false, false
	for _, c := range p.classes {
		group := -1
		for _, k := range c.kids {
			if len(k.f) == 3 && k.f[0] == "set" && k.f[1] == "qos-group" {
				if g, err := strconv.Atoi(k.f[2]); err == nil && g >= 0 && g <= 7 {
					group = g
				}
			}
		}
		if group < 0 {
			continue
		}
		name := c.f[len(c.f)-1]
		if name == "class-default" {
			defaultGroup = group
			name = ""
		}
		i, ok := byGroup[group]
		if !ok {
			i = len(out)
			byGroup[group] = i
			out = append(out, fabric.SwitchClass{Name: name, Priority: group, TrafficClass: group, DSCP: []int{}})
		}
		if cm := rc.classMaps[name]; cm != nil {
			anyDSCP = anyDSCP || len(cm.dscp) > 0
			anyCoS = anyCoS || len(cm.cos) > 0
			for _, d := range cm.dscp {
				if !matched[d] {
					matched[d] = true
					out[i].DSCP = append(out[i].DSCP, d)
				}
			}
			if len(cm.cos) > 0 {
				out[i].Priority = cm.cos[0]
				if slices.Contains(cm.cos, group) {
					out[i].Priority = group
				}
			}
		}
	}
	trust := ""
	switch {
	case anyDSCP && !anyCoS:
		trust = "dscp"
	case anyCoS && !anyDSCP:
		trust = "pcp"
	}
	if defaultGroup >= 0 && trust == "dscp" {
		i := byGroup[defaultGroup]
		for d := 0; d <= 63; d++ {
			if !matched[d] {
				out[i].DSCP = append(out[i].DSCP, d)
			}
		}
	}
	for i := range out {
		slices.Sort(out[i].DSCP)
	}
	return out, trust
}

// scheduling applies a queuing class's statements to c.
func scheduling(c *fabric.SwitchClass, q *stmt) {
	if q == nil {
		return
	}
	for _, k := range q.kids {
		f := k.f
		switch {
		case f[0] == "priority":
			c.Strict = true
		case len(f) == 4 && f[0] == "bandwidth" && f[1] == "remaining" && f[2] == "percent",
			len(f) == 3 && f[0] == "bandwidth" && f[1] == "percent":
			if v, err := strconv.Atoi(f[len(f)-1]); err == nil && v >= 0 && v <= 100 {
				c.BandwidthPercent = v
			}
		case f[0] == "random-detect" && f[len(f)-1] == "ecn":
			c.ECN = randomDetect(f[1:])
		}
	}
}

// unitBytes are the NX-OS threshold units that convert to bytes.
var unitBytes = map[string]int64{"bytes": 1, "kbytes": BytesPerKbyte, "mbytes": BytesPerKbyte * BytesPerKbyte}

// randomDetect reads "minimum-threshold A U maximum-threshold B U
// [drop-probability P] [weight W] ecn"; nil when a threshold is not in a byte
// unit (packets, us, ms) or a value is malformed.
func randomDetect(f []string) *fabric.SwitchECN {
	e := &fabric.SwitchECN{}
	seen := 0
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case "minimum-threshold", "maximum-threshold":
			if i+2 >= len(f) {
				return nil
			}
			v, err := strconv.ParseInt(f[i+1], 10, 64)
			mult, ok := unitBytes[f[i+2]]
			if err != nil || !ok || v < 0 || v > math.MaxInt32 {
				return nil
			}
			if f[i] == "minimum-threshold" {
				e.MinBytes = v * mult
			} else {
				e.MaxBytes = v * mult
			}
			seen++
			i += 2
		case "drop-probability":
			if i+1 >= len(f) {
				return nil
			}
			v, err := strconv.Atoi(f[i+1])
			if err != nil || v < 0 || v > 100 {
				return nil
			}
			e.MaxMarkProbability = v
			i++
		}
	}
	if seen != 2 {
		return nil
	}
	return e
}

// mtu is the MTU every QoS port sets; when no port sets one, the MTU every
// network-qos class sets.
func (rc *runningConfig) mtu(ports []*iface, nq *policy) int {
	if v, ok := uniform(ports, func(p *iface) int { return p.mtu }); ok && v > 0 {
		return v
	}
	if slices.ContainsFunc(ports, func(p *iface) bool { return p.mtu > 0 }) || nq == nil {
		return 0
	}
	mtu := 0
	for _, c := range nq.classes {
		for _, k := range c.kids {
			if len(k.f) == 2 && k.f[0] == "mtu" {
				v, err := strconv.Atoi(k.f[1])
				if err != nil || (mtu != 0 && v != mtu) {
					return 0
				}
				mtu = v
			}
		}
	}
	return mtu
}

// watchdog reads the global PFC watchdog; it is enabled globally or on every
// QoS port. Detection and restoration are the interval times the shutdown and
// auto-restore multipliers; the NX-OS watchdog always drops.
func (rc *runningConfig) watchdog(ports []*iface) *fabric.SwitchPFCWatchdog {
	perPort, _ := uniform(ports, func(p *iface) string { return p.wdOn })
	if rc.wdOn == "" && rc.wdInterval == 0 && rc.wdShut == 0 && rc.wdAuto == 0 && perPort == "" {
		return nil
	}
	wd := &fabric.SwitchPFCWatchdog{
		Enabled:           rc.wdOn == "on" || perPort == "on",
		PollIntervalMs:    rc.wdInterval,
		DetectionTimeMs:   rc.wdInterval * rc.wdShut,
		RestorationTimeMs: rc.wdInterval * rc.wdAuto,
		Action:            "drop",
	}
	if !wd.Enabled && wd.PollIntervalMs == 0 && rc.wdOn != "off" && perPort != "off" {
		return nil // nothing about the watchdog configured
	}
	return wd
}

// valueList appends the values of "3", "0-25,27-47" or "1 2 3" to v.
func valueList(v []int, words []string, max int) ([]int, error) {
	for _, w := range words {
		for _, part := range strings.Split(w, ",") {
			if part == "" {
				continue
			}
			lo, hi, isRange := strings.Cut(part, "-")
			a, err := strconv.Atoi(lo)
			b := a
			if err == nil && isRange {
				b, err = strconv.Atoi(hi)
			}
			if err != nil || a < 0 || b < a || b > max {
				return v, fmt.Errorf("%s is not a value or range in 0..%d", fabric.Clip(part), max)
			}
			for x := a; x <= b; x++ {
				if !slices.Contains(v, x) {
					v = append(v, x)
				}
			}
		}
	}
	return v, nil
}

func setInt(dst *int, s string, lo, hi int) error {
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return fmt.Errorf("%s is not a number in %d..%d", fabric.Clip(s), lo, hi)
	}
	*dst = v
	return nil
}

// cableLength reads the cable length back from the pause buffer thresholds
// of the lossless queues in the system input queuing policy (Render writes
// them for cables above 100 m); 0 when there are none, or they disagree,
// or they were not computed as Render computes them.
func (rc *runningConfig) cableLength(classes []fabric.SwitchClass) int {
	p := rc.policies["queuing "+rc.sysInQueuing]
	if p == nil {
		return 0
	}
	inRE := regexp.MustCompile(`^c-in-(?:8q-)?q(\d|-default)$`)
	cable := 0
	for _, c := range classes {
		if !c.Lossless {
			continue
		}
		q := rc.classFor(p, "queuing", inRE, c.Queue)
		if q == nil {
			return 0
		}
		for _, k := range q.kids {
			f := k.f
			if len(f) == 7 && f[0] == "pause" && f[1] == "buffer-size" && f[3] == "pause-threshold" && f[5] == "resume-threshold" {
				size, err1 := strconv.Atoi(f[2])
				at, err2 := strconv.Atoi(f[4])
				if err1 != nil || err2 != nil {
					return 0
				}
				m := cableFromPause(size, at)
				if m == 0 || (cable != 0 && m != cable) {
					return 0
				}
				cable = m
			}
		}
	}
	return cable
}

// topLevel are NX-OS global configuration commands (Cisco Nexus 9000/3000
// command references, the running-config's top level); a capture must have
// one to be read as NX-OS.
var topLevel = switchcfg.WordSet("aaa", "banner", "boot", "cfs", "class-map", "cli", "clock", "control-plane", "copp",
	"errdisable", "event", "evpn", "fabric", "feature", "hardware", "hostname", "install", "interface", "ip",
	"ipv6", "lacp", "license", "line", "logging", "mac", "no", "ntp", "nv", "policy-map", "port-channel",
	"power", "priority-flow-control", "qos", "radius-server", "rmon", "role", "route-map", "router", "service",
	"snmp-server", "spanning-tree", "ssh", "switchname", "system", "tacacs-server", "username", "version", "vlan",
	"vpc", "vrf", "end")
