package junos

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// forwardingClass is one `forwarding-classes class NAME ...`.
type forwardingClass struct {
	queue       int
	noLoss      bool
	pfcPriority int // -1: none
}

// cnProfile is one congestion-notification-profile.
type cnProfile struct {
	inDSCP, inPCP []int       // input code-points with pfc
	out           map[int]int // output ieee-802.1 code-point → flow-control-queue
	watchdog      bool
	poll, detect  int // detect in polling intervals
	recovery      int
	action        string
}

// scheduler is one `schedulers NAME`.
type scheduler struct {
	strict      bool
	percent     int
	ecn         bool
	dropProfile string
}

// binding is the class-of-service of one interface entry (a port or a wildcard).
type binding struct {
	cnp, schedMap  string
	classifierKind string // dscp | ieee-802.1
	classifier     string
}

// cosConfig is what Parse keeps of the configuration.
type cosConfig struct {
	classifiers map[string]map[string]map[string][]int // kind → name → forwarding class → code-points
	fcs         map[string]*forwardingClass
	cnps        map[string]*cnProfile
	fill        map[string][]int64 // drop profile → interpolate fill levels (nano-percent)
	prob        map[string][]int   // drop profile → interpolate drop probabilities
	schedulers  map[string]*scheduler
	schedMaps   map[string]map[string]string // map → forwarding class → scheduler
	bindings    map[string]*binding          // class-of-service interfaces, by name or wildcard
	mtu         map[string]int               // interfaces NAME mtu
	physical    map[string]bool              // interfaces present in the interfaces hierarchy
	channelized map[string]bool              // interfaces split into channels (number-of-sub-ports)
	// aliases are the user-defined code-point aliases, "KIND NAME" → bits.
	aliases map[string]string
	// ranges are the interface-ranges' members, rangeSettings their other
	// statements (applied to the members once all are known).
	ranges        map[string][]string
	rangeSettings map[string][][]string
	// line is the statement being filed; unparsed the QoS statements not read.
	line     int
	unparsed switchcfg.UnparsedLines
	// wild caches wildcards().
	wild []wildEntry
}

// unread lists a statement the reader does not take.
func (c *cosConfig) unread(w []string, why string) {
	c.unparsed.Add(fabric.Unparsed{Line: c.line, Text: "set " + strings.Join(w, " "), Reason: why})
}

// defaultQueues are the queues of QFX's predefined forwarding classes.
var defaultQueues = map[string]int{"best-effort": 0, "fcoe": 3, "no-loss": 4, "network-control": 7}

// dscpAliases are the DSCP names Junos accepts for code points.
var dscpAliases = map[string]int{"be": 0, "ef": 46, "nc1": 48, "nc2": 56,
	"af11": 10, "af12": 12, "af13": 14, "af21": 18, "af22": 20, "af23": 22,
	"af31": 26, "af32": 28, "af33": 30, "af41": 34, "af42": 36, "af43": 38,
	"cs0": 0, "cs1": 8, "cs2": 16, "cs3": 24, "cs4": 32, "cs5": 40, "cs6": 48, "cs7": 56}

// pcpAliases are the IEEE 802.1 names Junos accepts for code points.
var pcpAliases = map[string]int{"be": 0, "be1": 1, "ef": 2, "ef1": 3, "af11": 4, "af12": 5, "nc1": 6, "nc2": 7}

// Parse reads the class-of-service and interfaces configuration (set
// statements or curly braces; each read-back key names the hierarchy it
// shows, e.g. "show configuration class-of-service") into the canonical
// intent. See doc.go for how ports, wildcards and per-port settings read.
func (d *Driver) Parse(rb switchcfg.Readback) (fabric.SwitchIntent, error) {
	return d.ParsePorts(rb, nil)
}

// ParsePorts is Parse restricted to the given ports (nil: every port with
// class-of-service bindings): the classifier, scheduler map and profile count
// where all of these ports share them, so ports outside the list do not blur
// the result. A listed port without bindings makes them read as missing. The
// result's Ports are the listed ports that have bindings.
func (d *Driver) ParsePorts(rb switchcfg.Readback, ports []string) (fabric.SwitchIntent, error) {
	return d.ParseIntent(rb, fabric.SwitchIntent{Ports: ports})
}

// ParseIntent is ParsePorts over want's ports (nil: every port), with
// fill levels read as percents of the queue buffer of want's switch (its
// queueBuffer, else its model's; the default model's when want names
// neither).
func (d *Driver) ParseIntent(rb switchcfg.Readback, want fabric.SwitchIntent) (fabric.SwitchIntent, error) {
	ports := want.Ports
	cfg := &cosConfig{
		classifiers: map[string]map[string]map[string][]int{}, fcs: map[string]*forwardingClass{},
		cnps: map[string]*cnProfile{}, fill: map[string][]int64{}, prob: map[string][]int{},
		schedulers: map[string]*scheduler{}, schedMaps: map[string]map[string]string{},
		bindings: map[string]*binding{}, mtu: map[string]int{}, physical: map[string]bool{}, channelized: map[string]bool{},
		aliases: map[string]string{}, ranges: map[string][]string{}, rangeSettings: map[string][][]string{},
	}
	keys := make([]string, 0, len(rb))
	cos := false
	for k := range rb {
		rest, ok := strings.CutPrefix(k, "show configuration")
		if !ok {
			continue
		}
		keys = append(keys, k)
		path, _, _ := strings.Cut(rest, "|")
		base := strings.Fields(path)
		cos = cos || len(base) == 0 || base[0] == "class-of-service"
	}
	if !cos {
		// Not the output of a command the reader takes alone (the
		// interfaces hierarchy says nothing of class-of-service).
		return fabric.SwitchIntent{}, fmt.Errorf("parsing %s read-back: %w: no output for %q", Platform, switchcfg.ErrNotThisFormat, ReadbackClassOfService)
	}
	sort.Strings(keys)
	for _, cmd := range keys {
		rest, _ := strings.CutPrefix(cmd, "show configuration")
		path, _, _ := strings.Cut(rest, "|")
		base := strings.Fields(path)
		text := string(rb[cmd])
		// Aliases first: a classifier may use one defined after it.
		var first *statement
		recognised := false
		err := eachStatement(text, base, func(st statement) error {
			w := st.words
			if len(w) == 5 && w[0] == "class-of-service" && w[1] == "code-point-aliases" {
				cfg.aliases[w[2]+" "+w[3]] = w[4]
			}
			if first == nil {
				first = &statement{line: st.line, words: slices.Clone(w)}
			}
			recognised = recognised || isJunos(w)
			return nil
		})
		if err == nil && first != nil && !recognised {
			err = fmt.Errorf("%w: no statement is Junos configuration (line %d: %s)", switchcfg.ErrNotThisFormat, first.line, fabric.Clip(strings.Join(first.words, " ")))
		}
		if err == nil {
			err = eachStatement(text, base, func(st statement) error {
				cfg.line = st.line
				if err := cfg.statement(st.words); err != nil {
					return fmt.Errorf("line %d: %s: %w", st.line, fabric.Clip(strings.Join(st.words, " ")), err)
				}
				if cfg.blocks() > switchcfg.MaxBlocks {
					return fmt.Errorf("line %d: %w", st.line, switchcfg.ErrTooManyBlocks)
				}
				return nil
			})
		}
		if err != nil {
			return fabric.SwitchIntent{}, fmt.Errorf("parsing %s %q: %w", Platform, cmd, err)
		}
	}
	for name, members := range cfg.ranges {
		for _, m := range members {
			for _, w := range cfg.rangeSettings[name] {
				if err := cfg.iface(m, w); err != nil {
					return fabric.SwitchIntent{}, fmt.Errorf("parsing %s interface-range %s: %w", Platform, name, err)
				}
			}
			cfg.physical[m] = true
		}
	}
	buffer := queueBuffer(want)
	if buffer <= 0 {
		buffer = queueBuffer(fabric.SwitchIntent{})
	}
	return cfg.intent(buffer, ports), nil
}

// blocks counts the named things kept: interfaces, class-of-service
// entries, forwarding classes, profiles, schedulers and their maps, ranges.
func (c *cosConfig) blocks() int {
	return len(c.physical) + len(c.bindings) + len(c.fcs) + len(c.cnps) + len(c.fill) + len(c.prob) + len(c.schedulers) +
		len(c.schedMaps) + len(c.classifiers) + len(c.aliases) + len(c.ranges)
}

// statement files one absolute statement; w is lent for the call (what is
// kept of it is copied).
func (c *cosConfig) statement(w []string) error {
	switch {
	case len(w) >= 4 && w[0] == "interfaces" && w[1] == "interface-range":
		return c.interfaceRange(w[2], w[3:])
	case len(w) >= 3 && w[0] == "interfaces":
		return c.iface(w[1], w[2:])
	case len(w) >= 4 && w[0] == "groups" && (w[2] == "interfaces" || w[2] == "class-of-service"):
		// Configuration groups reach the configuration through
		// apply-groups and wildcards, which the reader does not expand.
		c.unread(w, "a configuration group's "+w[2]+" statement: groups are not expanded")
	case len(w) >= 3 && w[0] == "class-of-service":
		if !slices.Contains(cosSections, w[1]) {
			c.unread(w, "a class-of-service hierarchy fabricctl does not read")
			return nil
		}
		return c.cos(w[1], w[2:])
	}
	return nil
}

// topLevel are the statements at the top of a Junos configuration (the
// Junos CLI reference's configuration hierarchy); cosStatements those at
// the top of class-of-service. A text none of whose statements begins
// with them is no Junos configuration.
var (
	topLevel = switchcfg.WordSet("access", "access-profile", "accounting-options", "applications", "apply-groups",
		"apply-groups-except", "bridge-domains", "chassis", "class-of-service", "diameter", "dynamic-profiles",
		"ethernet-switching-options", "event-options", "fabric", "firewall", "forwarding-options", "groups",
		"interfaces", "logical-systems", "multi-chassis", "multicast-snooping-options", "poe", "policy-options",
		"protocols", "routing-instances", "routing-options", "security", "services", "smtp", "snmp", "switch-options",
		"system", "tenants", "version", "virtual-chassis", "vlans", "vmhost")
	cosStatements = switchcfg.WordSet("adaptive-shapers", "application-traffic-control", "apply-groups", "classifiers",
		"code-point-aliases", "congestion-notification-profile", "copy-plp-all", "dedicated-buffer", "drop-profiles",
		"fabric", "forwarding-class-sets", "forwarding-classes", "forwarding-policy", "fragmentation-maps",
		"host-outbound-traffic", "interfaces", "loss-priority-maps", "loss-priority-rewrites", "multi-destination",
		"restricted-queues", "rewrite-rules", "routing-instances", "scheduler-maps", "schedulers", "shared-buffer",
		"system-defaults", "traceoptions", "traffic-control-profiles", "translation-table", "tri-color",
		"virtual-channel-groups", "virtual-channels")
)

// isJunos reports whether a statement begins as Junos configuration does.
func isJunos(w []string) bool {
	if w[0] == "class-of-service" {
		return len(w) > 1 && cosStatements[w[1]]
	}
	return topLevel[w[0]]
}

// cosSections are the class-of-service hierarchies the reader takes. The
// buffer partitions (shared-buffer, Render's own; dedicated-buffer) are
// known and deliberately not modelled — the intent carries no buffer
// carve-up — so they are not "not understood".
var cosSections = []string{"code-point-aliases", "classifiers", "forwarding-classes", "congestion-notification-profile", "drop-profiles",
	"schedulers", "scheduler-maps", "interfaces", "shared-buffer", "dedicated-buffer"}

// interfaceRange files one statement of `interfaces interface-range NAME`
// (Junos interfaces guide, "interface-range": member NAME, member-range
// FROM to TO within one FPC/PIC; any other statement is every member's).
func (c *cosConfig) interfaceRange(name string, w []string) error {
	switch {
	case len(w) == 2 && w[0] == "member":
		c.ranges[name] = append(c.ranges[name], w[1])
	case len(w) == 4 && w[0] == "member-range" && w[2] == "to":
		a, b := portRE.FindStringSubmatch(w[1]), portRE.FindStringSubmatch(w[3])
		if a == nil || b == nil || a[1] != b[1] || a[2] != b[2] || a[3] != b[3] || a[5] != "" || b[5] != "" {
			c.unread(append([]string{"interfaces", "interface-range", name}, w...), "a member-range fabricctl does not expand")
			return nil
		}
		lo, err1 := strconv.Atoi(a[4])
		hi, err2 := strconv.Atoi(b[4])
		if err1 != nil || err2 != nil || hi < lo || hi-lo > 1024 {
			return fmt.Errorf("member-range %s to %s is not a range", w[1], w[3])
		}
		for n := lo; n <= hi; n++ {
			c.ranges[name] = append(c.ranges[name], fmt.Sprintf("%s-%s/%s/%d", a[1], a[2], a[3], n))
		}
	default:
		c.rangeSettings[name] = append(c.rangeSettings[name], slices.Clone(w))
	}
	return nil
}

func (c *cosConfig) iface(name string, w []string) error {
	c.physical[name] = true
	switch w[0] {
	case "mtu":
		if len(w) < 2 {
			return fmt.Errorf("mtu without a value")
		}
		return setInt(func(v int) { c.mtu[name] = v }, w[1], MinMTU, 65535)
	case "number-of-sub-ports":
		c.channelized[name] = true
	}
	return nil
}

func (c *cosConfig) cos(section string, w []string) error {
	switch section {
	case "classifiers":
		return c.classifier(w)
	case "forwarding-classes":
		return c.forwardingClass(w)
	case "congestion-notification-profile":
		return c.cnp(w)
	case "drop-profiles":
		switch {
		case len(w) >= 4 && w[1] == "interpolate" && w[2] == "fill-level":
			for _, v := range values(w[3:]) {
				n, err := parseFill(v)
				if err != nil {
					return err
				}
				c.fill[w[0]] = append(c.fill[w[0]], n)
			}
		case len(w) >= 4 && w[1] == "interpolate" && w[2] == "drop-probability":
			for _, v := range values(w[3:]) {
				if err := setInt(func(n int) { c.prob[w[0]] = append(c.prob[w[0]], n) }, v, 0, 100); err != nil {
					return err
				}
			}
		}
	case "schedulers":
		return c.scheduler(w)
	case "scheduler-maps":
		if len(w) >= 5 && w[1] == "forwarding-class" && w[3] == "scheduler" {
			if c.schedMaps[w[0]] == nil {
				c.schedMaps[w[0]] = map[string]string{}
			}
			c.schedMaps[w[0]][w[2]] = w[4]
		}
	case "interfaces":
		if !c.binding(w) {
			c.unread(append([]string{"class-of-service", "interfaces"}, w...), "an interface class-of-service statement fabricctl does not read")
		}
	}
	return nil
}

// classifier reads "KIND NAME forwarding-class FC loss-priority LP code-points V...".
func (c *cosConfig) classifier(w []string) error {
	if len(w) < 7 || w[2] != "forwarding-class" || w[4] != "loss-priority" || (w[6] != "code-points" && w[6] != "code-point") {
		return nil
	}
	kind, name, fc := w[0], w[1], w[3]
	if kind != "dscp" && kind != "ieee-802.1" {
		return nil
	}
	// A statement without code points ("code-points [ ]") classifies
	// nothing: it must not make a classifier exist, or its kind would
	// decide the trust that no rendered statement can carry back.
	for _, v := range values(w[7:]) {
		cp, err := c.codePoint(kind, v)
		if err != nil {
			return err
		}
		if c.classifiers[kind] == nil {
			c.classifiers[kind] = map[string]map[string][]int{}
		}
		if c.classifiers[kind][name] == nil {
			c.classifiers[kind][name] = map[string][]int{}
		}
		if !slices.Contains(c.classifiers[kind][name][fc], cp) {
			c.classifiers[kind][name][fc] = append(c.classifiers[kind][name][fc], cp)
		}
	}
	return nil
}

// codePoint reads a 6-bit (dscp) or 3-bit (ieee-802.1) binary code point or its alias.
// codePoint reads a code point: bits, a Junos alias, or a user-defined
// alias (class-of-service code-point-aliases KIND NAME BITS).
func (c *cosConfig) codePoint(kind, v string) (int, error) {
	if bits, ok := c.aliases[kind+" "+v]; ok {
		v = bits
	}
	return codePoint(kind, v)
}

func codePoint(kind, v string) (int, error) {
	bits, aliases := 6, dscpAliases
	if kind == "ieee-802.1" {
		bits, aliases = 3, pcpAliases
	}
	if n, ok := aliases[v]; ok {
		return n, nil
	}
	n, err := strconv.ParseUint(v, 2, 8)
	if err != nil || len(v) != bits {
		return 0, fmt.Errorf("code point %s is neither %d binary digits nor a known alias", fabric.Clip(v), bits)
	}
	return int(n), nil
}

// forwardingClass reads "class NAME [queue-num N] [no-loss] [pfc-priority P] ..."
// and the older "queue N NAME".
func (c *cosConfig) forwardingClass(w []string) error {
	if len(w) == 3 && w[0] == "queue" {
		return setInt(func(n int) { c.fc(w[2]).queue = n }, w[1], 0, 15)
	}
	if len(w) < 2 || w[0] != "class" {
		return nil
	}
	fc := c.fc(w[1])
	for i := 2; i < len(w); i++ {
		switch w[i] {
		case "no-loss":
			fc.noLoss = true
		case "queue-num", "pfc-priority":
			if i+1 >= len(w) {
				return fmt.Errorf("%s without a value", w[i])
			}
			dst, hi := &fc.queue, 15
			if w[i] == "pfc-priority" {
				dst, hi = &fc.pfcPriority, 7
			}
			if err := setInt(func(n int) { *dst = n }, w[i+1], 0, hi); err != nil {
				return err
			}
			i++
		}
	}
	return nil
}

func (c *cosConfig) fc(name string) *forwardingClass {
	if c.fcs[name] == nil {
		q, ok := defaultQueues[name]
		if !ok {
			q = 0
		}
		c.fcs[name] = &forwardingClass{queue: q, pfcPriority: -1}
	}
	return c.fcs[name]
}

// cnp reads a congestion-notification-profile statement.
func (c *cosConfig) cnp(w []string) error {
	p := c.cnps[w[0]]
	if p == nil {
		p = &cnProfile{out: map[int]int{}}
		c.cnps[w[0]] = p
	}
	switch {
	case len(w) >= 6 && w[1] == "input" && w[3] == "code-point" && w[5] == "pfc":
		cp, err := c.codePoint(w[2], w[4])
		if err != nil {
			return err
		}
		if w[2] == "dscp" {
			p.inDSCP = append(p.inDSCP, cp)
		} else {
			p.inPCP = append(p.inPCP, cp)
		}
	case len(w) >= 7 && w[1] == "output" && w[2] == "ieee-802.1" && w[3] == "code-point" && w[5] == "flow-control-queue":
		cp, err := c.codePoint("ieee-802.1", w[4])
		if err != nil {
			return err
		}
		q := values(w[6:])
		if len(q) == 0 {
			return fmt.Errorf("flow-control-queue without a value")
		}
		return setInt(func(n int) { p.out[cp] = n }, q[0], 0, 15)
	case len(w) >= 2 && w[1] == "pfc-watchdog":
		p.watchdog = true
		if len(w) >= 4 {
			switch w[2] {
			case "poll-interval":
				return setInt(func(n int) { p.poll = n }, w[3], 1, 100000)
			case "detection":
				return setInt(func(n int) { p.detect = n }, w[3], 1, 100000)
			case "recovery":
				return setInt(func(n int) { p.recovery = n }, w[3], 1, 1000000)
			case "watchdog-action":
				p.action = w[3]
			}
		}
	}
	return nil
}

// scheduler reads a schedulers statement.
func (c *cosConfig) scheduler(w []string) error {
	s := c.schedulers[w[0]]
	if s == nil {
		s = &scheduler{}
		c.schedulers[w[0]] = s
	}
	switch {
	case len(w) >= 4 && w[1] == "transmit-rate" && w[2] == "percent":
		return setInt(func(n int) { s.percent = n }, w[3], 0, 100)
	case len(w) >= 3 && w[1] == "priority":
		s.strict = w[2] == "strict-high"
	case len(w) >= 2 && w[1] == "explicit-congestion-notification":
		s.ecn = true
	case len(w) >= 3 && w[1] == "drop-profile-map":
		if i := slices.Index(w, "drop-profile"); i > 0 && i+1 < len(w) && (s.dropProfile == "" || slices.Contains(w, "any")) {
			s.dropProfile = w[i+1]
		}
	}
	return nil
}

// binding reads "NAME congestion-notification-profile X", "NAME scheduler-map X"
// and "NAME unit U classifiers KIND X"; false for any other statement.
func (c *cosConfig) binding(w []string) bool {
	b := c.bindings[w[0]]
	if b == nil {
		b = &binding{}
		c.bindings[w[0]] = b
	}
	switch {
	case len(w) >= 3 && w[1] == "congestion-notification-profile":
		b.cnp = w[2]
	case len(w) >= 3 && w[1] == "scheduler-map":
		b.schedMap = w[2]
	case len(w) >= 6 && w[1] == "unit" && w[3] == "classifiers" && (w[4] == "dscp" || w[4] == "ieee-802.1"):
		if b.classifier == "" || w[2] == "0" || w[2] == wildcardUnit {
			b.classifierKind, b.classifier = w[4], w[5]
		}
	case len(w) >= 4 && w[1] == "classifiers" && (w[2] == "dscp" || w[2] == "ieee-802.1"):
		// Interface-level classifiers (Junos EVO: `class-of-service
		// interfaces et-0/0/1 classifiers dscp NAME`) classify every unit.
		b.classifierKind, b.classifier = w[2], w[3]
	default:
		return len(w) < 2
	}
	return true
}

// allInterfaces is the class-of-service interfaces entry that applies to
// every interface (Junos class-of-service guide, "interfaces": `all`; an
// interface's own entry or a more specific wildcard overrides it).
const allInterfaces = "all"

// wildcard returns the regexp of an entry that stands for several ports
// ("all", "et-*", "et-0/0/*"), nil for a port's own entry.
func (c *cosConfig) wildcard(name string) *regexp.Regexp {
	if members, ok := c.ranges[name]; ok {
		// An interface-range's members (themselves names or wildcards).
		var alts []string
		for _, m := range members {
			alts = append(alts, strings.ReplaceAll(regexp.QuoteMeta(m), `\*`, ".*"))
		}
		if re, err := regexp.Compile("^(" + strings.Join(alts, "|") + ")$"); err == nil {
			return re
		}
		return wildcardRE("")
	}
	switch {
	case name == allInterfaces:
		return wildcardRE("*")
	case strings.Contains(name, "*"):
		return wildcardRE(name)
	}
	return nil
}

// wildcardRE turns a Junos interface wildcard ("et-*", "et-0/0/*") into a regexp.
// A pattern that is no valid regexp (invalid UTF-8 in a capture) matches
// nothing; it never panics.
func wildcardRE(pattern string) *regexp.Regexp {
	re, err := regexp.Compile("^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, ".*") + "$")
	if err != nil {
		return regexp.MustCompile(`^\b\B$`) // matches nothing
	}
	return re
}

// wildEntry is a class-of-service interfaces entry that stands for
// several ports, with its pattern.
type wildEntry struct {
	name string
	re   *regexp.Regexp
}

// wildcards returns the entries that stand for several ports, "all"
// first, then the shorter patterns (the more specific wins), each pattern
// compiled once.
func (c *cosConfig) wildcards() []wildEntry {
	if c.wild != nil {
		return c.wild
	}
	c.wild = []wildEntry{}
	for name := range c.bindings {
		if re := c.wildcard(name); re != nil {
			c.wild = append(c.wild, wildEntry{name, re})
		}
	}
	slices.SortFunc(c.wild, func(x, y wildEntry) int {
		a, b := x.name, y.name
		switch {
		case (a == allInterfaces) != (b == allInterfaces):
			if a == allInterfaces {
				return -1
			}
			return 1
		case len(a) != len(b):
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	return c.wild
}

// effective merges the wildcard entries that match port (shorter patterns
// first) with the port's own entry.
func (c *cosConfig) effective(port string) binding {
	var e binding
	merge := func(b *binding) {
		if b.cnp != "" {
			e.cnp = b.cnp
		}
		if b.schedMap != "" {
			e.schedMap = b.schedMap
		}
		if b.classifier != "" {
			e.classifierKind, e.classifier = b.classifierKind, b.classifier
		}
	}
	for _, w := range c.wildcards() {
		if w.re.MatchString(port) {
			merge(c.bindings[w.name])
		}
	}
	if b, ok := c.bindings[port]; ok {
		merge(b)
	}
	return e
}

// ports are the interfaces class-of-service applies to: explicit port
// entries, and the physical interfaces (not channelized parents) that a
// wildcard entry matches.
func (c *cosConfig) ports() []string {
	set := map[string]bool{}
	for name, b := range c.bindings {
		if *b != (binding{}) && portRE.MatchString(name) {
			set[name] = true
		}
	}
	for _, w := range c.wildcards() {
		if *c.bindings[w.name] == (binding{}) {
			continue
		}
		for phys := range c.physical {
			if portRE.MatchString(phys) && !c.channelized[phys] && w.re.MatchString(phys) {
				set[phys] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.SortFunc(out, comparePorts)
	return out
}

// common returns what get yields for every port, or "" when they differ.
// Without ports it returns the only name defined (names lists them), if one.
func common(ports []binding, get func(binding) string, names []string) string {
	if len(ports) == 0 {
		if len(names) == 1 {
			return names[0]
		}
		return ""
	}
	v := get(ports[0])
	for _, p := range ports[1:] {
		if get(p) != v {
			return ""
		}
	}
	return v
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (c *cosConfig) intent(buffer int64, only []string) fabric.SwitchIntent {
	in := fabric.SwitchIntent{APIVersion: fabric.APIVersion, Platform: Platform, Classes: []fabric.SwitchClass{}, Unparsed: c.unparsed.Lines()}
	in.PFC.Priorities = []int{}
	names := c.ports()
	if only != nil {
		names = slices.Compact(slices.SortedFunc(slices.Values(only), comparePorts))
	}
	in.Ports = []string{}
	var eff []binding
	for _, p := range names {
		e := c.effective(p)
		if e != (binding{}) {
			in.Ports = append(in.Ports, p)
		}
		eff = append(eff, e)
	}
	in.MTU = c.commonMTU(names)

	var definedClassifiers []string
	for kind, byName := range c.classifiers {
		for name := range byName {
			definedClassifiers = append(definedClassifiers, kind+" "+name)
		}
	}
	kindName := common(eff, func(b binding) string {
		if b.classifier == "" {
			return ""
		}
		return b.classifierKind + " " + b.classifier
	}, definedClassifiers)
	kind, name, _ := strings.Cut(kindName, " ")
	in.Trust = map[string]string{"dscp": "dscp", "ieee-802.1": "pcp"}[kind]
	cnp := c.cnps[common(eff, func(b binding) string { return b.cnp }, keysOf(c.cnps))]
	schedMap := c.schedMaps[common(eff, func(b binding) string { return b.schedMap }, keysOf(c.schedMaps))]

	classifier := c.classifiers[kind][name]
	var reads []fcRead
	for _, fcName := range keysOf(classifier) {
		fc := c.fc(fcName)
		cps := slices.Clone(classifier[fcName])
		slices.Sort(cps)
		reads = append(reads, fcRead{name: fcName, queue: fc.queue, pfcPriority: -1, cps: cps})
		if fc.noLoss {
			reads[len(reads)-1].pfcPriority = fc.pfcPriority
		}
	}
	prios := readPriorities(kind, reads)
	for _, fcName := range keysOf(classifier) {
		fc := c.fc(fcName)
		cps := slices.Clone(classifier[fcName])
		slices.Sort(cps)
		cl := fabric.SwitchClass{Name: fcName, Queue: fc.queue, DSCP: []int{}, Priority: prios[fcName]}
		if kind == "dscp" {
			cl.DSCP = cps
		}
		cl.TrafficClass = cl.Priority
		if cnp != nil && fc.noLoss && c.pauses(cnp, kind, cps) {
			cl.Lossless = true
			if !slices.Contains(in.PFC.Priorities, cl.Priority) {
				in.PFC.Priorities = append(in.PFC.Priorities, cl.Priority)
			}
		}
		if s := c.schedulers[schedMap[fcName]]; s != nil {
			cl.Strict, cl.BandwidthPercent = s.strict, s.percent
			if s.ecn {
				cl.ECN = c.ecn(s.dropProfile, buffer)
			}
		}
		in.Classes = append(in.Classes, cl)
	}
	slices.Sort(in.PFC.Priorities)
	slices.SortStableFunc(in.Classes, func(a, b fabric.SwitchClass) int {
		if a.Priority != b.Priority {
			return a.Priority - b.Priority
		}
		return a.Queue - b.Queue
	})
	if cnp != nil && cnp.watchdog {
		wd := &fabric.SwitchPFCWatchdog{Enabled: true, PollIntervalMs: cnp.poll, DetectionTimeMs: cnp.poll * cnp.detect,
			RestorationTimeMs: cnp.recovery, Action: cnp.action}
		if wd.Action == "" {
			wd.Action = "drop" // the Junos default
		}
		in.PFC.Watchdog = wd
	}
	return in
}

// pauses reports whether the profile enables PFC for traffic classified by
// the code points cps (input with pfc on one of them).
func (c *cosConfig) pauses(p *cnProfile, kind string, cps []int) bool {
	in := p.inDSCP
	if kind == "ieee-802.1" {
		in = p.inPCP
	}
	return slices.ContainsFunc(cps, func(cp int) bool { return slices.Contains(in, cp) })
}

// ecn converts a two-point interpolated drop profile to byte thresholds:
// fill levels are percent of the queue buffer; the mark probability is the
// last point's.
func (c *cosConfig) ecn(profile string, buffer int64) *fabric.SwitchECN {
	fill, prob := c.fill[profile], c.prob[profile]
	if len(fill) < 2 || len(prob) != len(fill) {
		return nil
	}
	return &fabric.SwitchECN{
		MinBytes:           fillBytes(fill[0], buffer),
		MaxBytes:           fillBytes(fill[len(fill)-1], buffer),
		MaxMarkProbability: prob[len(prob)-1],
	}
}

// commonMTU is the MTU every port sets, or 0.
func (c *cosConfig) commonMTU(ports []string) int {
	mtu := 0
	for i, p := range ports {
		v := c.mtu[p]
		if v == 0 || (i > 0 && v != mtu) {
			return 0
		}
		mtu = v
	}
	return mtu
}

func setInt(set func(int), s string, lo, hi int) error {
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return fmt.Errorf("%s is not a number in %d..%d", fabric.Clip(s), lo, hi)
	}
	set(v)
	return nil
}

// fcRead is what the priority of a forwarding class is read from.
type fcRead struct {
	name        string
	queue       int
	pfcPriority int   // of a no-loss class; -1: none
	cps         []int // its code points, ascending
}

// readPriorities gives each forwarding class the priority a careful reader
// gives it. IEEE 802.1 classifiers: the lowest code point. DSCP classifiers:
// a no-loss class's pfc-priority; Junos carries no priority for other
// classes, so they read as their lowest DSCP's class selector (DSCP >> 3,
// the convention hosts use too: CNPs on DSCP 48 are priority 6), else their
// queue, else the lowest priority left, so that no two classes collide (a
// CNP class on queue 3 beside the no-loss pfc-priority 3 of Juniper's AI/ML
// design is priority 6, not 3).
func readPriorities(kind string, fcs []fcRead) map[string]int {
	out := map[string]int{}
	used := map[int]bool{}
	if kind == "ieee-802.1" {
		for _, f := range fcs {
			if len(f.cps) > 0 {
				out[f.name] = f.cps[0]
			}
		}
		return out
	}
	for _, f := range fcs {
		if f.pfcPriority >= 0 {
			out[f.name] = f.pfcPriority
			used[f.pfcPriority] = true
		}
	}
	for _, f := range fcs {
		if f.pfcPriority >= 0 {
			continue
		}
		p := -1
		for _, cand := range []int{firstSelector(f.cps), f.queue} {
			if cand >= 0 && cand <= 7 && !used[cand] {
				p = cand
				break
			}
		}
		for cand := 0; p < 0 && cand <= 7; cand++ {
			if !used[cand] {
				p = cand
			}
		}
		out[f.name] = max(p, 0)
		used[out[f.name]] = true
	}
	return out
}

func firstSelector(cps []int) int {
	if len(cps) == 0 {
		return -1
	}
	return cps[0] >> 3
}

// intentPriorities is readPriorities for an intent's classes, by
// forwarding-class name: what Parse(Render(in)) will read.
func intentPriorities(in fabric.SwitchIntent) map[string]int {
	kind := "dscp"
	if in.Trust == "pcp" {
		kind = "ieee-802.1"
	}
	var reads []fcRead
	for _, c := range in.Classes {
		f := fcRead{name: fcName(c), queue: c.Queue, pfcPriority: -1}
		if kind == "ieee-802.1" {
			f.cps = []int{c.Priority}
		} else {
			f.cps = slices.Sorted(slices.Values(c.DSCP))
			if c.Lossless {
				f.pfcPriority = c.Priority
			}
		}
		reads = append(reads, f)
	}
	slices.SortFunc(reads, func(a, b fcRead) int { return strings.Compare(a.name, b.name) })
	return readPriorities(kind, reads)
}
