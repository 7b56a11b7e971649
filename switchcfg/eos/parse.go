package eos

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// opt is an optional integer setting: ok says whether the config sets it.
type opt struct {
	v  int
	ok bool
}

func set(v int) opt { return opt{v: v, ok: true} }

// or returns o when set, else fallback.
func (o opt) or(fallback opt) opt {
	if o.ok {
		return o
	}
	return fallback
}

// txQueue is one `tx-queue N` (or `uc-tx-queue N`) block.
type txQueue struct {
	sched string // "strict" (priority strict), "rr" (no priority), "" (unset)
	bw    opt    // bandwidth percent
	ecn   *fabric.SwitchECN
	// ecnSet: a random-detect ecn threshold line was seen (ecn stays nil when
	// its unit is not a byte unit, e.g. segments or milliseconds).
	ecnSet bool
}

// rangeBlock is one `interface Ethernet1-4` block and its line.
type rangeBlock struct {
	names []string
	p     *portQoS
	line  int
}

// portQoS is the QoS of one interface or one `qos profile` block.
type portQoS struct {
	qos     bool   // any QoS statement at all
	mtu     opt    // mtu
	trust   string // "dscp", "pcp", "none" (no qos trust), "" unset
	pfcOn   opt    // priority-flow-control on (1) / off (0)
	noDrop  map[int]bool
	wdOn    opt // priority-flow-control pause watchdog
	wd      watchdogTimers
	profile string // service-profile
	queues  map[int]*txQueue
	routed  bool // no switchport: the default trust is DSCP
}

// watchdogTimers are the PFC watchdog settings, globally (default ...) or per port (port timer ...).
type watchdogTimers struct {
	timeout, poll, recovery opt // milliseconds
	action                  string
}

func (w watchdogTimers) or(f watchdogTimers) watchdogTimers {
	a := w.action
	if a == "" {
		a = f.action
	}
	return watchdogTimers{timeout: w.timeout.or(f.timeout), poll: w.poll.or(f.poll), recovery: w.recovery.or(f.recovery), action: a}
}

func (w watchdogTimers) any() bool {
	return w.timeout.ok || w.poll.ok || w.recovery.ok || w.action != ""
}

func newPortQoS() *portQoS { return &portQoS{noDrop: map[int]bool{}, queues: map[int]*txQueue{}} }

// clone returns a copy of p that shares nothing with it.
func (p *portQoS) clone() *portQoS {
	c := *p
	c.noDrop = maps.Clone(p.noDrop)
	c.queues = map[int]*txQueue{}
	for n, q := range p.queues {
		cq := *q
		if q.ecn != nil {
			e := *q.ecn
			cq.ecn = &e
		}
		c.queues[n] = &cq
	}
	return &c
}

func (p *portQoS) queue(n int) *txQueue {
	if p.queues[n] == nil {
		p.queues[n] = &txQueue{}
	}
	return p.queues[n]
}

// runningConfig is what Parse keeps of `show running-config`.
type runningConfig struct {
	cosTC, dscpTC, tcQueue map[int]int
	pfcAllOff              bool
	wd                     watchdogTimers
	profiles               map[string]*portQoS
	ports                  map[string]*portQoS
	// ucQueues and txQueues: uc-tx-queue and tx-queue blocks (or maps) seen.
	ucQueues, txQueues bool
	// product is the hardware the `! device:` banner names ("DCS-7280SR3-48YC8").
	product string
	// ranges are the interface blocks that configure several ports at once
	// (config-mode `interface Ethernet1-4`), given to their ports at the end.
	ranges []rangeBlock
	// unread collects the QoS lines not read, unparsed lists them.
	unread   switchcfg.UnparsedLines
	unparsed []fabric.Unparsed
}

// Parse reads `show running-config` into the canonical intent. Settings that
// live per port (trust, MTU, PFC, tx-queue scheduling and ECN, through
// service-profile qos profiles too) count only where every QoS-configured
// Ethernet port agrees; a mixed setting reads as empty so that drift shows.
// Class names, RoCE and CNP class names are not carried by EOS and stay empty.
func (d *Driver) Parse(rb switchcfg.Readback) (fabric.SwitchIntent, error) {
	return d.ParsePorts(rb, nil)
}

// ParsePorts is Parse restricted to the given ports (nil: every port with
// QoS): per-port settings count where all of these ports agree, and ports
// outside the list — uplinks configured by other means — do not blur the
// result. A listed port without QoS makes those settings read as empty. The
// result's Ports are the listed ports that carry QoS.
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

// otherCLIs are lines of the NOSes whose running-config looks like EOS's:
// NX-OS's "!Command:" banner (EOS writes "! Command:"), its version line,
// features and switchname; Dell OS9 and IOS (switchcfg.OtherCLIs).
var otherCLIs = func() map[string]*regexp.Regexp {
	m := maps.Clone(switchcfg.OtherCLIs)
	m["NX-OS"] = regexp.MustCompile(`^(!Command: |version \d+\.\d+\(\d|(no )?feature \S|switchname )`)
	return m
}()

// deviceRE matches the banner's product: "! device: NAME (PRODUCT, EOS-…)".
var deviceRE = regexp.MustCompile(`(?m)^! device: \S+ \(([^,)]+)`)

func parseRunningConfig(text string) (*runningConfig, error) {
	if err := switchcfg.CheckLineLength("EOS", text); err != nil {
		return nil, err
	}
	text = switchcfg.Dedent(text)
	if err := switchcfg.CheckCLIFormat("EOS", text, "!", topLevel); err != nil {
		return nil, err
	}
	if err := switchcfg.CheckForeign("EOS", text, otherCLIs); err != nil {
		return nil, err
	}
	rc := &runningConfig{
		cosTC: map[int]int{}, dscpTC: map[int]int{}, tcQueue: map[int]int{},
		profiles: map[string]*portQoS{}, ports: map[string]*portQoS{},
	}
	if m := deviceRE.FindStringSubmatch(text); m != nil {
		rc.product = strings.TrimSpace(m[1])
	}
	var (
		block  *portQoS // current interface or qos profile; nil elsewhere
		queue  *txQueue // current tx-queue block inside it
		qDepth int      // indentation of the tx-queue header
		qKind  string   // its keyword: tx-queue or uc-tx-queue
	)
	i := -1
	for raw := range strings.Lines(text) {
		i++
		raw = strings.TrimRight(raw, "\r\n \t")
		trimmed := strings.TrimSpace(raw)
		if trimmed == "" || strings.HasPrefix(trimmed, "!") {
			continue
		}
		depth := len(raw) - len(strings.TrimLeft(raw, " \t"))
		f := strings.Fields(trimmed)
		var err error
		switch {
		case depth == 0:
			block, queue = nil, nil
			block, err = rc.global(f)
			if n := len(rc.ranges); n > 0 && rc.ranges[n-1].line == 0 {
				rc.ranges[n-1].line = i + 1
			}
			if len(rc.ports)+len(rc.profiles)+len(rc.ranges) > switchcfg.MaxBlocks {
				return nil, fmt.Errorf("line %d: %w", i+1, switchcfg.ErrTooManyBlocks)
			}
		case block == nil:
			// a sub-command of a block we do not read
		case queue != nil && depth > qDepth:
			err = queue.statement(f)
			// A queue block says the hardware family only when it sets
			// something: an empty one is not rendered back.
			rc.queueFamily(qKind)
		default:
			queue = nil
			if n, ok, qerr := queueHeader(f); qerr != nil {
				err = qerr
			} else if ok {
				queue, qDepth, qKind = block.queue(n), depth, f[0]
				block.qos = true
			} else if f[0] == "mc-tx-queue" {
				queue, qDepth, qKind = &txQueue{}, depth, "" // multicast queues are not modelled
			} else {
				err = block.statement(f)
			}
		}
		var um unmodelled
		if errors.As(err, &um) {
			rc.unread.Add(fabric.Unparsed{Line: i + 1, Text: trimmed, Reason: string(um)})
			err = nil
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", i+1, fabric.Clip(trimmed), err)
		}
	}
	// A range block configures each of its ports that has no block of its
	// own; a port with both is listed, the blocks are not merged.
	for _, r := range rc.ranges {
		for _, name := range r.names {
			if own := rc.ports[name]; own != nil {
				rc.unread.Add(fabric.Unparsed{Line: r.line, Text: "interface " + strings.Join(r.names, ","),
					Reason: name + " also has a block of its own: the range's settings are not merged into it"})
				continue
			}
			rc.ports[name] = r.p.clone()
		}
	}
	rc.unparsed = rc.unread.Lines()
	slices.SortStableFunc(rc.unparsed, func(a, b fabric.Unparsed) int { return a.Line - b.Line })
	return rc, nil
}

// global handles a top-level line; it returns the block the line opens, if any.
func (rc *runningConfig) global(f []string) (*portQoS, error) {
	switch {
	case len(f) == 2 && f[0] == "interface" && portRE.MatchString(f[1]):
		p := newPortQoS()
		rc.ports[f[1]] = p
		return p, nil
	case len(f) >= 2 && f[0] == "interface" && strings.HasPrefix(strings.ToLower(f[1]), "eth"):
		// Config-mode forms: "Ethernet 5", "Ethernet1-4", "Ethernet6,8".
		names, ok := switchcfg.ExpandEthernetRange(f[1:], portRE.MatchString)
		if !ok {
			return nil, unmodelled("an Ethernet interface name fabricctl does not read (a range or another form)")
		}
		p := newPortQoS()
		rc.ranges = append(rc.ranges, rangeBlock{names: names, p: p})
		return p, nil
	case len(f) == 3 && f[0] == "qos" && f[1] == "profile":
		p := newPortQoS()
		rc.profiles[f[2]] = p
		return p, nil
	case len(f) >= 6 && f[0] == "qos" && f[1] == "map":
		return nil, rc.qosMap(f[2:])
	case strings.Join(f, " ") == "priority-flow-control all off":
		rc.pfcAllOff = true
	case len(f) >= 4 && f[0] == "priority-flow-control" && f[1] == "pause" && f[2] == "watchdog":
		return nil, rc.globalWatchdog(f[3:])
	case f[0] == "qos" || f[0] == "priority-flow-control":
		return nil, unmodelled("a global QoS setting fabricctl does not read")
	case (f[0] == "policy-map" || f[0] == "class-map") && len(f) >= 3 && f[1] == "type" && (f[2] == "pbr" || f[2] == "copp"):
		// Policy-based routing and control-plane policing maps forward or
		// police, they do not classify data into classes.
	case f[0] == "policy-map" || f[0] == "class-map":
		return nil, unmodelled("policy and class maps are not read")
	case f[0] == "platform" && slices.ContainsFunc(f, func(w string) bool { return w == "mmu" || w == "qos" || w == "buffer" }):
		return nil, unmodelled("buffer and MMU settings are not read")
	}
	return nil, nil
}

// qosMap reads `qos map {cos|dscp} L to traffic-class T [...]` and
// `qos map traffic-class L to tx-queue Q`; other maps are ignored.
func (rc *runningConfig) qosMap(f []string) error {
	to := slices.Index(f, "to")
	if to < 2 || to+2 >= len(f) {
		return fmt.Errorf("qos map without `to <kind> <value>`")
	}
	var dst map[int]int
	var srcMax, dstMax int
	switch {
	case f[0] == "cos" && f[to+1] == "traffic-class":
		dst, srcMax, dstMax = rc.cosTC, 7, 7
	case f[0] == "dscp" && f[to+1] == "traffic-class":
		dst, srcMax, dstMax = rc.dscpTC, 63, 7
	case f[0] == "traffic-class" && (f[to+1] == "tx-queue" || f[to+1] == "uc-tx-queue"):
		// Source traffic classes run to 15 on platforms with more
		// classes than priorities; only 0..7 carry data classes here.
		dst, srcMax, dstMax = rc.tcQueue, 15, 7
		rc.queueFamily(f[to+1])
	default:
		return nil
	}
	// `show running-config all` lists EOS's own defaults, which send
	// traffic to traffic classes above 7 on some platforms (vEOS: `qos map
	// cos 0 1 2 3 4 5 6 7 to traffic-class 8`); those are no data class.
	val, err := number(f[to+2], 0, 15)
	if err != nil {
		return err
	}
	if val > dstMax {
		return nil
	}
	for _, tok := range f[1:to] {
		lo, hi, err := valueRange(tok, srcMax)
		if err != nil {
			return err
		}
		for v := lo; v <= hi; v++ {
			if f[0] == "traffic-class" && v > 7 {
				break // no data class here
			}
			dst[v] = val
		}
	}
	return nil
}

func (rc *runningConfig) globalWatchdog(f []string) error {
	switch {
	case len(f) == 3 && f[0] == "default":
		ms, err := secondsToMs(f[1], f[2])
		if err != nil {
			return err
		}
		switch f[1] {
		case "timeout":
			rc.wd.timeout = ms
		case "polling-interval":
			rc.wd.poll = ms
		case "recovery-time":
			rc.wd.recovery = ms
		}
	case len(f) == 2 && f[0] == "action":
		rc.wd.action = canonicalAction(f[1])
	}
	return nil
}

// statement handles one line inside an interface or qos profile block.
func (p *portQoS) statement(f []string) error {
	line := strings.Join(f, " ")
	switch {
	case len(f) == 2 && f[0] == "mtu":
		v, err := number(f[1], 68, 65535)
		if err != nil {
			return err
		}
		p.mtu = set(v)
		return nil
	case len(f) == 3 && f[0] == "qos" && f[1] == "trust":
		p.trust = map[string]string{"dscp": "dscp", "cos": "pcp"}[f[2]]
	case line == "no qos trust":
		p.trust = "none"
	case line == "default qos trust":
		// `show running-config all`: EOS's default trust, DSCP on routed
		// ports and CoS on switched ones (EOS User Manual, QoS: port trust).
		p.trust = "default"
	case line == "no switchport":
		p.routed = true
		return nil
	case line == "switchport":
		p.routed = false
		return nil
	case len(f) == 2 && f[0] == "service-profile":
		p.profile = f[1]
	case line == "priority-flow-control on":
		p.pfcOn = set(1)
	case line == "priority-flow-control off" || line == "no priority-flow-control":
		p.pfcOn = set(0)
	case len(f) == 4 && f[0] == "priority-flow-control" && f[1] == "priority":
		prio, err := number(f[2], 0, 7)
		if err != nil {
			return err
		}
		p.noDrop[prio] = f[3] == "no-drop"
	case line == "priority-flow-control pause watchdog":
		p.wdOn = set(1)
	case line == "no priority-flow-control pause watchdog":
		p.wdOn = set(0)
	case strings.HasPrefix(line, "priority-flow-control pause watchdog port action "):
		p.wd.action = canonicalAction(f[len(f)-1])
	case strings.HasPrefix(line, "priority-flow-control pause watchdog port timer "):
		if err := p.portTimer(f[5:]); err != nil {
			return err
		}
	case line == "qos cos 0" || line == "qos dscp 0":
		// the default CoS and DSCP of untrusted traffic, as `show
		// running-config all` prints them: nothing more to read
		p.qos = true
		return nil
	case f[0] == "qos" || (len(f) >= 3 && f[0] == "service-policy" && f[2] == "qos"):
		// other QoS settings (qos cos/dscp defaults, policy maps): the port
		// has QoS, and what it is is not read
		p.qos = true
		return unmodelled("a port QoS setting fabricctl does not read")
	default:
		if f[0] != "priority-flow-control" {
			return nil
		}
		p.qos = true
		return unmodelled("a priority-flow-control form fabricctl does not read")
	}
	p.qos = true
	return nil
}

// portTimer reads `timeout X polling-interval Y|auto recovery-time Z [forced]`.
func (p *portQoS) portTimer(f []string) error {
	for i := 0; i+1 < len(f); i += 2 {
		if f[i+1] == "auto" {
			continue
		}
		ms, err := secondsToMs(f[i], f[i+1])
		if err != nil {
			return err
		}
		switch f[i] {
		case "timeout":
			p.wd.timeout = ms
		case "polling-interval":
			p.wd.poll = ms
		case "recovery-time":
			p.wd.recovery = ms
		}
	}
	return nil
}

// queueHeader recognises `tx-queue N` and `uc-tx-queue N`.
func queueHeader(f []string) (int, bool, error) {
	if len(f) != 2 || (f[0] != "tx-queue" && f[0] != "uc-tx-queue") {
		return 0, false, nil
	}
	n, err := number(f[1], 0, 7)
	return n, err == nil, err
}

// queueFamily notes a queue keyword seen: uc-tx-queue is strata's,
// tx-queue sand's.
func (rc *runningConfig) queueFamily(keyword string) {
	rc.ucQueues = rc.ucQueues || keyword == "uc-tx-queue"
	rc.txQueues = rc.txQueues || keyword == "tx-queue"
}

// model is the hardware family: the one of the product the `! device:`
// banner names (EOS prints "! device: leaf1 (DCS-7280SR3-48YC8, EOS-4.28.3M)"),
// else the one the queue commands show — uc-tx-queue only on strata,
// tx-queue only on sand (Tomahawk boxes print tx-queue too, so the banner
// wins); "" when neither says.
func (rc *runningConfig) model() string {
	if m, err := info.Model(rc.product); rc.product != "" && err == nil {
		return m.Name
	}
	switch {
	case rc.ucQueues && !rc.txQueues:
		return ModelStrata
	case rc.txQueues && !rc.ucQueues:
		return ModelSand
	}
	return ""
}

// statement handles one line inside a tx-queue block.
func (q *txQueue) statement(f []string) error {
	line := strings.Join(f, " ")
	switch {
	case line == "priority strict":
		q.sched = "strict"
	case line == "no priority":
		q.sched = "rr"
	case len(f) == 3 && f[0] == "bandwidth" && f[1] == "percent":
		v, err := number(f[2], 0, 100)
		if err != nil {
			return err
		}
		q.bw = set(v)
	case len(f) >= 8 && f[0] == "random-detect" && f[1] == "ecn" && f[2] == "minimum-threshold":
		return q.randomDetect(f[2:])
	case line == "no random-detect ecn", line == "no bandwidth percent", line == "no shape rate":
		// the defaults `show running-config all` prints: no marking, no
		// bandwidth share, no shaping, as an absent line reads
	default:
		return unmodelled("a tx-queue setting fabricctl does not read (shaping, other random-detect forms, …)")
	}
	return nil
}

// unmodelled is a QoS line the parser recognises as QoS but does not read:
// it goes to the reading's Unparsed, with the reason, and parsing goes on.
type unmodelled string

func (u unmodelled) Error() string { return string(u) }

// unitBytes are the EOS threshold units that convert to bytes.
var unitBytes = map[string]int64{"bytes": 1, "kbytes": BytesPerKbyte, "mbytes": BytesPerKbyte * BytesPerKbyte}

// randomDetect reads `minimum-threshold A U maximum-threshold B U [max-mark-probability P] [weight W]`.
func (q *txQueue) randomDetect(f []string) error {
	q.ecnSet = true
	e := &fabric.SwitchECN{}
	byteUnits := true
	for i := 0; i+1 < len(f); {
		switch f[i] {
		case "minimum-threshold", "maximum-threshold":
			if i+2 >= len(f) {
				return fmt.Errorf("%s without a unit", f[i])
			}
			v, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil || v < 0 || v > math.MaxInt32 {
				return fmt.Errorf("threshold %s is not a non-negative number", fabric.Clip(f[i+1]))
			}
			mult, ok := unitBytes[f[i+2]]
			byteUnits = byteUnits && ok
			if f[i] == "minimum-threshold" {
				e.MinBytes = v * mult
			} else {
				e.MaxBytes = v * mult
			}
			i += 3
		case "max-mark-probability":
			v, err := number(f[i+1], 0, maxMarkProbabilityEOS)
			if err != nil {
				return err
			}
			e.MaxMarkProbability = v
			i += 2
		default:
			i += 2
		}
	}
	if byteUnits {
		q.ecn = e
	}
	return nil
}

// canonicalAction maps an EOS watchdog action (global or per port) to the
// canonical one; errdisable, EOS's default, keeps its name.
func canonicalAction(eos string) string {
	for _, m := range []map[string]string{globalWatchdogActions, portWatchdogActions} {
		for canon, kw := range m {
			if kw == eos {
				return canon
			}
		}
	}
	return eos
}

// effective merges a port with the qos profile it references; settings on
// the port win over the profile's.
func (rc *runningConfig) effective(p *portQoS) *portQoS {
	prof := rc.profiles[p.profile]
	if prof == nil {
		return p
	}
	e := newPortQoS()
	e.qos = true
	e.mtu = p.mtu.or(prof.mtu)
	e.trust = p.trust
	if e.trust == "" {
		e.trust = prof.trust
	}
	e.pfcOn = p.pfcOn.or(prof.pfcOn)
	for _, src := range []map[int]bool{prof.noDrop, p.noDrop} {
		for k, v := range src {
			e.noDrop[k] = v
		}
	}
	e.wdOn = p.wdOn.or(prof.wdOn)
	e.wd = p.wd.or(prof.wd)
	for _, src := range []map[int]*txQueue{prof.queues, p.queues} {
		for n, q := range src {
			dst := e.queue(n)
			if q.sched != "" {
				dst.sched = q.sched
			}
			dst.bw = q.bw.or(dst.bw)
			if q.ecnSet {
				dst.ecn, dst.ecnSet = q.ecn, true
			}
		}
	}
	return e
}

// strict reports whether queue n is strict priority on this port: EOS queues
// are strict unless `no priority` is set on them or on any higher queue,
// except where `priority strict` is written on the queue itself.
func (p *portQoS) strict(n int) bool {
	if q := p.queues[n]; q != nil && q.sched == "strict" {
		return true
	}
	for m, q := range p.queues {
		if m >= n && q.sched == "rr" {
			return false
		}
	}
	return true
}

// uniform returns the value every port yields, or the zero value and false.
func uniform[T comparable](ports []*portQoS, get func(*portQoS) T) (T, bool) {
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
	sort.Slice(names, func(i, j int) bool { return portLess(names[i], names[j]) })
	var ports []*portQoS
	for _, name := range slices.Compact(names) {
		p := rc.ports[name]
		if p == nil {
			p = newPortQoS()
		}
		e := rc.effective(p)
		// Every Ethernet port is a port of the reading, those without QoS
		// too (parseGrouped gives them their own group): a port without
		// QoS is a fact, not a port that is not there. Asked for ports,
		// the ones that carry QoS.
		if e.qos || (only == nil && rc.ports[name] != nil) {
			in.Ports = append(in.Ports, name)
		}
		if e.qos || only != nil {
			ports = append(ports, e)
		}
	}

	if mtu, ok := uniform(ports, func(p *portQoS) opt { return p.mtu }); ok && mtu.ok {
		in.MTU = mtu.v
	}
	if trust, ok := uniform(ports, func(p *portQoS) string {
		if p.trust == "default" {
			return map[bool]string{true: "dscp", false: "pcp"}[p.routed]
		}
		return p.trust
	}); ok && trust != "none" {
		in.Trust = trust
	}
	in.Model = rc.model()
	// EOS prints no DSCP map it keeps at the platform's default, and its
	// default DSCP→traffic-class map is not modelled (it differs by
	// platform): a port trusting DSCP with no map in the capture has an
	// unknown classification, which is said rather than read as none.
	if len(rc.dscpTC) == 0 && slices.ContainsFunc(ports, func(p *portQoS) bool { return p.trust == "dscp" || (p.trust == "default" && p.routed) }) {
		in.Unparsed = append(slices.Clone(in.Unparsed), fabric.Unparsed{Text: "qos trust dscp without any qos map dscp line",
			Reason: "DSCPs follow EOS's default DSCP→traffic-class map, which fabricctl does not model: which DSCPs reach which class is unknown"})
	}
	if !rc.pfcAllOff {
		for prio := 0; prio <= 7; prio++ {
			if on, ok := uniform(ports, func(p *portQoS) bool { return p.pfcOn.v == 1 && p.noDrop[prio] }); ok && on {
				in.PFC.Priorities = append(in.PFC.Priorities, prio)
			}
		}
	}
	in.PFC.Watchdog = rc.watchdog(ports)

	// Classes are the traffic classes the cos and dscp maps send traffic to.
	tcs := map[int]bool{}
	for _, m := range []map[int]int{rc.cosTC, rc.dscpTC} {
		for _, tc := range m {
			tcs[tc] = true
		}
	}
	for tc := range tcs {
		c := fabric.SwitchClass{TrafficClass: tc, Priority: tc, Queue: tc, DSCP: []int{}}
		if q, ok := rc.tcQueue[tc]; ok {
			c.Queue = q
		}
		var cos []int
		for p, t := range rc.cosTC {
			if t == tc {
				cos = append(cos, p)
			}
		}
		if len(cos) > 0 && !slices.Contains(cos, tc) {
			c.Priority = slices.Min(cos)
		}
		for d, t := range rc.dscpTC {
			if t == tc {
				c.DSCP = append(c.DSCP, d)
			}
		}
		sort.Ints(c.DSCP)
		c.Lossless = slices.Contains(in.PFC.Priorities, c.Priority)
		if s, ok := uniform(ports, func(p *portQoS) bool { return p.strict(c.Queue) }); ok {
			c.Strict = s
		}
		if bw, ok := uniform(ports, func(p *portQoS) opt { return p.queue(c.Queue).bw }); ok {
			c.BandwidthPercent = bw.v
		}
		if e, ok := uniform(ports, func(p *portQoS) fabric.SwitchECN {
			if q := p.queue(c.Queue); q.ecn != nil {
				return *q.ecn
			}
			return fabric.SwitchECN{MinBytes: -1}
		}); ok && e.MinBytes >= 0 {
			c.ECN = &e
		}
		in.Classes = append(in.Classes, c)
	}
	sort.Slice(in.Classes, func(i, j int) bool {
		a, b := in.Classes[i], in.Classes[j]
		if a.Priority != b.Priority {
			return a.Priority < b.Priority
		}
		return a.TrafficClass < b.TrafficClass
	})
	return in
}

// watchdog combines the global defaults with per-port enablement and timers;
// nil when nothing about the PFC watchdog is configured.
func (rc *runningConfig) watchdog(ports []*portQoS) *fabric.SwitchPFCWatchdog {
	seen := rc.wd.any()
	for _, p := range ports {
		seen = seen || p.wdOn.ok || p.wd.any()
	}
	if !seen {
		return nil
	}
	wd := &fabric.SwitchPFCWatchdog{}
	eff := func(p *portQoS) watchdogTimers { return p.wd.or(rc.wd) }
	if len(ports) == 0 {
		wd.DetectionTimeMs, wd.PollIntervalMs, wd.RestorationTimeMs, wd.Action = rc.wd.timeout.v, rc.wd.poll.v, rc.wd.recovery.v, rc.wd.action
		return wd
	}
	wd.Enabled, _ = uniform(ports, func(p *portQoS) bool { return p.wdOn.v == 1 })
	if t, ok := uniform(ports, eff); ok {
		wd.DetectionTimeMs, wd.PollIntervalMs, wd.RestorationTimeMs, wd.Action = t.timeout.v, t.poll.v, t.recovery.v, t.action
		if wd.Enabled && wd.Action == "" {
			wd.Action = errdisable // EOS's default action on a stuck queue
		}
	}
	// Every port saying `no priority-flow-control pause watchdog` is a
	// watchdog disabled, a fact; only disagreement between ports leaves
	// nothing in common.
	explicit, _ := uniform(ports, func(p *portQoS) bool { return p.wdOn.ok })
	if *wd == (fabric.SwitchPFCWatchdog{}) && !explicit {
		return nil
	}
	return wd
}

// number parses a decimal integer within lo..hi.
func number(s string, lo, hi int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("%s is not a number in %d..%d", fabric.Clip(s), lo, hi)
	}
	return v, nil
}

// valueRange parses "N" or "N-M" (EOS accepts ranges in map lists).
func valueRange(s string, max int) (int, int, error) {
	lo, hi, isRange := strings.Cut(s, "-")
	a, err := number(lo, 0, max)
	if err != nil || !isRange {
		return a, a, err
	}
	b, err := number(hi, a, max)
	return a, b, err
}

// secondsToMs parses the EOS decimal seconds ("0.05") of a watchdog
// setting into milliseconds; a timeout or polling interval of no
// millisecond means nothing and is refused.
func secondsToMs(setting, s string) (opt, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 86400 || math.IsNaN(v) {
		return opt{}, fmt.Errorf("%s is not a time in seconds", fabric.Clip(s))
	}
	ms := int(math.Round(v * 1000))
	if ms == 0 && (setting == "timeout" || setting == "polling-interval") {
		return opt{}, fmt.Errorf("%s is not a time in seconds: a %s of no millisecond", fabric.Clip(s), setting)
	}
	return set(ms), nil
}

// topLevel are EOS global configuration commands (EOS User Manual, the
// running-config's top level); a capture must have one to be read as EOS.
var topLevel = switchcfg.WordSet("aaa", "agent", "alias", "banner", "boot", "class-map", "clock", "cvx", "daemon", "dcbx",
	"dns", "dot1x", "end", "errdisable", "event-handler", "event-monitor", "hardware", "hostname", "interface",
	"ip", "ipv6", "lldp", "load-interval", "logging", "mac", "management", "monitor", "mpls", "no", "ntp",
	"peer-filter", "platform", "policy-map", "port-channel", "priority-flow-control", "prompt", "qos",
	"queue-monitor", "radius-server", "route-map", "router", "service", "sflow", "snmp-server", "spanning-tree",
	"switchport", "system", "tacacs-server", "terminal", "traffic-policies", "transceiver", "username", "vlan",
	"vrf", "feature")
