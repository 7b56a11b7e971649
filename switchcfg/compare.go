package switchcfg

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/internal/intset"

	"github.com/fabricctl/fabricctl/fabric"
)

// Diff is one difference between a desired and an observed switch intent.
type Diff struct {
	// Field is the canonical path of the value, e.g. "classes[roce].ecn.minBytes",
	// "pfc.priorities" or "mtu". Classes are named by the desired class's name.
	Field string `json:"field"`
	// Want and Got are the values in display form; Missing when the device
	// does not carry the section at all, Absent when the intent has no such thing.
	Want string `json:"want"`
	Got  string `json:"got"`
}

// String renders the diff as "field: want X, got Y".
func (d Diff) String() string { return d.Field + ": want " + d.Want + ", got " + d.Got }

// Display values of Diff.Want/Got for things that are not there.
const (
	// Missing: the device has no value for a field the intent sets.
	Missing = "(missing)"
	// Absent: the device has something the intent does not ask for.
	Absent = "(absent)"
)

// DefaultRelativeTolerance is the relative tolerance of ECN thresholds (10 %).
const DefaultRelativeTolerance = 0.10

// CompareOptions tune Compare. The zero value is what Compare uses.
type CompareOptions struct {
	// Ports compares the port lists too (ignored by default: a device reports
	// the ports it has QoS settings on, which may be a superset).
	Ports bool
	// QuantumBytes is the platform's threshold programming granularity
	// (Info.ThresholdQuantum): thresholds within one quantum are equal. 0
	// applies the relative tolerance alone.
	QuantumBytes int64
	// RelativeTolerance overrides DefaultRelativeTolerance when > 0.
	RelativeTolerance float64
}

// Compare returns the differences between want (the desired intent) and got
// (what a driver parsed from the device), sorted by Field. It compares canonical
// structures, never text:
//
//   - classes are matched by priority (device names differ), DSCP and PFC
//     priority lists as sets; DSCP lists are not compared when both sides
//     trust PCP, where they classify nothing;
//   - ECN thresholds are equal within the larger of 10 % and the platform's
//     programming granularity (CompareOptions.QuantumBytes, from
//     Info.ThresholdQuantum: use CompareFor to take it from the driver);
//   - a section the device lacks yields one diff per desired field (Got =
//     Missing), so a device without QoS plans a full push;
//   - classes on the device that the intent lacks yield one diff each;
//   - a DSCP value the intent wants lossless that the device classifies into
//     a lossy class gets its own diff, "classes[roce].dscp[26]";
//   - an observed zero for a watchdog time or the PFC cable length means the
//     platform does not carry that value, and it is not compared;
//   - a PFC watchdog the intent does not set (nil) is left as the device
//     has it and not compared; on the device's side nil is a disabled one;
//   - identity fields (name, address, profile, labels, platform) and, unless
//     asked, ports are ignored.
//
// Compare is pure and safe for concurrent use.
func Compare(want, got fabric.SwitchIntent) []Diff {
	return CompareOptions{}.Compare(want, got)
}

// CompareFor is Compare within d's threshold quantum for the switch want
// describes (QuantumFor), as a switch target compares.
func CompareFor(d Driver, want, got fabric.SwitchIntent) []Diff {
	return CompareOptions{QuantumBytes: QuantumFor(d, want)}.Compare(want, got)
}

// Quantizer is implemented by drivers whose threshold granularity depends
// on the switch's model (Junos: 1 % of its queue buffer).
type Quantizer interface {
	ThresholdQuantumFor(si fabric.SwitchIntent) int64
}

// QuantumFor is the threshold quantum of the switch si describes: the
// driver's ThresholdQuantumFor where it has one, else Info.ThresholdQuantum.
func QuantumFor(d Driver, si fabric.SwitchIntent) int64 {
	if q, ok := d.(Quantizer); ok {
		return q.ThresholdQuantumFor(si)
	}
	return d.Info().ThresholdQuantum
}

// Compare is Compare with options. A reading with port groups is compared
// group by group: the switch-wide settings for the ports they describe, and
// each group, by its own settings, for its ports; only groups holding a
// port of want.Ports count (all, when want lists none), and a group's
// differences are prefixed "ports[P1,P2].".
func (o CompareOptions) Compare(want, got fabric.SwitchIntent) []Diff {
	if len(got.PortGroups) == 0 {
		return o.compareOne(want, got)
	}
	declared := map[string]bool{}
	for _, p := range want.Ports {
		declared[p] = true
	}
	concerned := func(ports []string) []string {
		var out []string
		for _, p := range ports {
			if len(declared) == 0 || declared[p] {
				out = append(out, p)
			}
		}
		return out
	}
	var out []Diff
	if len(concerned(got.MajorityPorts())) > 0 {
		top := got
		top.PortGroups = nil
		out = append(out, o.compareOne(want, top)...)
	}
	for _, g := range got.PortGroups {
		ports := concerned(g.Ports)
		if len(ports) == 0 {
			continue
		}
		one := o
		one.Ports = false
		for _, d := range one.compareOne(want, got.Group(g)) {
			d.Field = "ports[" + strings.Join(ports, ",") + "]." + d.Field
			out = append(out, d)
		}
	}
	return out
}

func (o CompareOptions) compareOne(want, got fabric.SwitchIntent) []Diff {
	c := comparer{quantum: max(o.QuantumBytes, 0), rel: o.RelativeTolerance, pcpOnly: want.Trust == "pcp" && got.Trust == "pcp"}
	if c.rel <= 0 {
		c.rel = DefaultRelativeTolerance
	}
	if want.MTU != got.MTU {
		c.add("mtu", intOrMissing(want.MTU), intOrMissing(got.MTU))
	}
	if want.Trust != got.Trust {
		c.add("trust", strOrMissing(want.Trust), strOrMissing(got.Trust))
	}
	if o.Ports && !sameStrings(want.Ports, got.Ports) {
		c.add("ports", listOrMissing(want.Ports), listOrMissing(got.Ports))
	}
	c.classes(want.Classes, got.Classes)
	c.pfc(want.PFC, got.PFC)
	c.roleClass("roceClass", want.RoCEClass, got.RoCEClass, want.Classes, got.Classes)
	c.roleClass("cnpClass", want.CNPClass, got.CNPClass, want.Classes, got.Classes)
	sort.SliceStable(c.diffs, func(i, j int) bool { return c.diffs[i].Field < c.diffs[j].Field })
	return c.diffs
}

type comparer struct {
	pcpOnly bool // both sides trust PCP: DSCP lists do not classify
	quantum int64
	rel     float64
	diffs   []Diff
}

func (c *comparer) add(field, want, got string) {
	c.diffs = append(c.diffs, Diff{Field: field, Want: want, Got: got})
}

func (c *comparer) classes(want, got []fabric.SwitchClass) {
	byPrio := map[int]fabric.SwitchClass{}
	for _, g := range got {
		if _, dup := byPrio[g.Priority]; !dup {
			byPrio[g.Priority] = g
		}
	}
	seen := map[int]bool{}
	for _, w := range want {
		field := "classes[" + className(w) + "]"
		g, ok := byPrio[w.Priority]
		if !ok || seen[w.Priority] {
			c.missingClass(field, w)
			continue
		}
		seen[w.Priority] = true
		c.class(field, w, g)
	}
	for _, g := range got {
		if seen[g.Priority] {
			continue
		}
		seen[g.Priority] = true
		c.add("classes["+className(g)+"]", Absent, describeClass(g))
	}
	c.losslessDSCP(want, got)
}

// losslessDSCP names each DSCP value the intent wants lossless that the
// device classifies into a lossy class (SONiC's stock map sends DSCP 26 to
// lossy TC 1): the one diff that says why RoCE traffic would be dropped.
func (c *comparer) losslessDSCP(want, got []fabric.SwitchClass) {
	if c.pcpOnly {
		return
	}
	gotByDSCP := map[int]fabric.SwitchClass{}
	for _, g := range got {
		for _, d := range g.DSCP {
			gotByDSCP[d] = g
		}
	}
	for _, w := range want {
		if !w.Lossless {
			continue
		}
		for _, d := range w.DSCP {
			if g, ok := gotByDSCP[d]; ok && !g.Lossless {
				c.add(fmt.Sprintf("classes[%s].dscp[%d]", className(w), d),
					fmt.Sprintf("lossless (priority %d)", w.Priority), fmt.Sprintf("lossy (priority %d)", g.Priority))
			}
		}
	}
}

func className(cl fabric.SwitchClass) string {
	if cl.Name != "" {
		return cl.Name
	}
	return "priority" + strconv.Itoa(cl.Priority)
}

func describeClass(cl fabric.SwitchClass) string {
	parts := []string{"priority " + strconv.Itoa(cl.Priority), "trafficClass " + strconv.Itoa(cl.TrafficClass)}
	if len(cl.DSCP) > 0 {
		parts = append(parts, "dscp "+FormatIntSet(cl.DSCP))
	}
	if cl.Lossless {
		parts = append(parts, "lossless")
	}
	if cl.Strict {
		parts = append(parts, "strict")
	} else if cl.BandwidthPercent > 0 {
		parts = append(parts, "bandwidth "+strconv.Itoa(cl.BandwidthPercent)+"%")
	}
	if cl.ECN != nil {
		parts = append(parts, fmt.Sprintf("ecn %d-%d B", cl.ECN.MinBytes, cl.ECN.MaxBytes))
	}
	return strings.Join(parts, ", ")
}

func (c *comparer) missingClass(field string, w fabric.SwitchClass) {
	c.add(field+".trafficClass", strconv.Itoa(w.TrafficClass), Missing)
	c.add(field+".queue", strconv.Itoa(w.Queue), Missing)
	c.add(field+".dscp", FormatIntSet(w.DSCP), Missing)
	c.add(field+".lossless", strconv.FormatBool(w.Lossless), Missing)
	c.add(field+".strict", strconv.FormatBool(w.Strict), Missing)
	if !w.Strict {
		c.add(field+".bandwidthPercent", strconv.Itoa(w.BandwidthPercent), Missing)
	}
	if w.ECN != nil {
		c.missingECN(field+".ecn", *w.ECN)
	}
}

func (c *comparer) missingECN(field string, w fabric.SwitchECN) {
	c.add(field+".minBytes", strconv.FormatInt(w.MinBytes, 10), Missing)
	c.add(field+".maxBytes", strconv.FormatInt(w.MaxBytes, 10), Missing)
	c.add(field+".maxMarkProbability", strconv.Itoa(w.MaxMarkProbability), Missing)
}

func (c *comparer) class(field string, w, g fabric.SwitchClass) {
	if w.TrafficClass != g.TrafficClass {
		c.add(field+".trafficClass", strconv.Itoa(w.TrafficClass), strconv.Itoa(g.TrafficClass))
	}
	if w.Queue != g.Queue {
		c.add(field+".queue", strconv.Itoa(w.Queue), strconv.Itoa(g.Queue))
	}
	if !c.pcpOnly && !sameInts(w.DSCP, g.DSCP) {
		c.add(field+".dscp", FormatIntSet(w.DSCP), FormatIntSet(g.DSCP))
	}
	if w.Lossless != g.Lossless {
		c.add(field+".lossless", strconv.FormatBool(w.Lossless), strconv.FormatBool(g.Lossless))
	}
	if w.Strict != g.Strict {
		c.add(field+".strict", strconv.FormatBool(w.Strict), strconv.FormatBool(g.Strict))
	} else if !w.Strict && w.BandwidthPercent != g.BandwidthPercent {
		c.add(field+".bandwidthPercent", strconv.Itoa(w.BandwidthPercent), strconv.Itoa(g.BandwidthPercent))
	}
	switch {
	case w.ECN == nil && g.ECN != nil:
		c.add(field+".ecn", "off", fmt.Sprintf("%d-%d B", g.ECN.MinBytes, g.ECN.MaxBytes))
	case w.ECN != nil && g.ECN == nil:
		c.missingECN(field+".ecn", *w.ECN)
	case w.ECN != nil:
		if !c.closeBytes(w.ECN.MinBytes, g.ECN.MinBytes) {
			c.add(field+".ecn.minBytes", strconv.FormatInt(w.ECN.MinBytes, 10), strconv.FormatInt(g.ECN.MinBytes, 10))
		}
		if !c.closeBytes(w.ECN.MaxBytes, g.ECN.MaxBytes) {
			c.add(field+".ecn.maxBytes", strconv.FormatInt(w.ECN.MaxBytes, 10), strconv.FormatInt(g.ECN.MaxBytes, 10))
		}
		if w.ECN.MaxMarkProbability != g.ECN.MaxMarkProbability {
			c.add(field+".ecn.maxMarkProbability", strconv.Itoa(w.ECN.MaxMarkProbability), strconv.Itoa(g.ECN.MaxMarkProbability))
		}
	}
}

// closeBytes reports whether got is within the tolerance of want.
func (c *comparer) closeBytes(want, got int64) bool {
	tol := int64(float64(want) * c.rel)
	if tol < 0 {
		tol = -tol
	}
	if c.quantum > tol {
		tol = c.quantum
	}
	d := want - got
	if d < 0 {
		d = -d
	}
	return d <= tol
}

func (c *comparer) pfc(w, g fabric.SwitchPFC) {
	if !sameInts(w.Priorities, g.Priorities) {
		c.add("pfc.priorities", FormatIntSet(w.Priorities), intSetOrMissing(g.Priorities))
	}
	if w.CableLengthMeters != 0 && g.CableLengthMeters != 0 && w.CableLengthMeters != g.CableLengthMeters {
		c.add("pfc.cableLengthMeters", strconv.Itoa(w.CableLengthMeters), strconv.Itoa(g.CableLengthMeters))
	}
	// An intent without a watchdog leaves the device's alone: nothing to
	// compare. On the device, no watchdog is a disabled one.
	if w.Watchdog == nil {
		return
	}
	switch {
	case g.Watchdog == nil && !w.Watchdog.Enabled:
	case g.Watchdog == nil:
		c.add("pfc.watchdog.enabled", strconv.FormatBool(w.Watchdog.Enabled), Missing)
		if w.Watchdog.Enabled {
			c.add("pfc.watchdog.pollIntervalMs", strconv.Itoa(w.Watchdog.PollIntervalMs), Missing)
			c.add("pfc.watchdog.detectionTimeMs", strconv.Itoa(w.Watchdog.DetectionTimeMs), Missing)
			c.add("pfc.watchdog.restorationTimeMs", strconv.Itoa(w.Watchdog.RestorationTimeMs), Missing)
			c.add("pfc.watchdog.action", strOrMissing(w.Watchdog.Action), Missing)
		}
	default:
		ww, gw := w.Watchdog, g.Watchdog
		if ww.Enabled != gw.Enabled {
			c.add("pfc.watchdog.enabled", strconv.FormatBool(ww.Enabled), strconv.FormatBool(gw.Enabled))
		}
		if !ww.Enabled || !gw.Enabled {
			return
		}
		c.optionalInt("pfc.watchdog.pollIntervalMs", ww.PollIntervalMs, gw.PollIntervalMs)
		c.optionalInt("pfc.watchdog.detectionTimeMs", ww.DetectionTimeMs, gw.DetectionTimeMs)
		c.optionalInt("pfc.watchdog.restorationTimeMs", ww.RestorationTimeMs, gw.RestorationTimeMs)
		if ww.Action != "" && gw.Action != "" && ww.Action != gw.Action {
			c.add("pfc.watchdog.action", ww.Action, gw.Action)
		}
	}
}

// optionalInt compares a value the platform may not carry (got == 0).
func (c *comparer) optionalInt(field string, want, got int) {
	if want != 0 && got != 0 && want != got {
		c.add(field, strconv.Itoa(want), strconv.Itoa(got))
	}
}

// roleClass compares the priority of the class playing a role (RoCE, CNP),
// when both sides name one: names differ across devices, priorities must not.
func (c *comparer) roleClass(field, want, got string, wantClasses, gotClasses []fabric.SwitchClass) {
	if want == "" || got == "" {
		return
	}
	wp, wok := priorityOf(want, wantClasses)
	gp, gok := priorityOf(got, gotClasses)
	if wok && gok && wp != gp {
		c.add(field, fmt.Sprintf("%s (priority %d)", want, wp), fmt.Sprintf("%s (priority %d)", got, gp))
	}
}

func priorityOf(name string, classes []fabric.SwitchClass) (int, bool) {
	for _, cl := range classes {
		if cl.Name == name {
			return cl.Priority, true
		}
	}
	return 0, false
}

func intOrMissing(v int) string {
	if v == 0 {
		return Missing
	}
	return strconv.Itoa(v)
}

func strOrMissing(s string) string {
	if s == "" {
		return Missing
	}
	return s
}

func intSetOrMissing(v []int) string {
	if len(v) == 0 {
		return Missing
	}
	return FormatIntSet(v)
}

func listOrMissing(v []string) string {
	if len(v) == 0 {
		return Missing
	}
	s := append([]string(nil), v...)
	sort.Strings(s)
	return strings.Join(s, ",")
}

func sameInts(a, b []int) bool {
	return FormatIntSet(a) == FormatIntSet(b)
}

func sameStrings(a, b []string) bool {
	return listOrMissing(a) == listOrMissing(b)
}

// FormatIntSet formats a set of integers as sorted, de-duplicated ranges:
// [26 0 1 2 3] → "0-3,26". An empty set is "none".
func FormatIntSet(v []int) string {
	if len(v) == 0 {
		return "none"
	}
	return intset.Format(v)
}

// ParseIntSet is the inverse of FormatIntSet: it parses comma-separated values
// and ranges ("0-3,26", spaces allowed) into a sorted, de-duplicated set, and
// rejects values outside [min, max]. "none" and "" give an empty set.
func ParseIntSet(s string, min, max int) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return nil, nil
	}
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			return nil, fmt.Errorf("parsing %q: not a number or range", part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil {
				return nil, fmt.Errorf("parsing %q: not a number or range", part)
			}
		}
		if a > b || a < min || b > max {
			return nil, fmt.Errorf("parsing %q: outside %d-%d", part, min, max)
		}
		for v := a; v <= b; v++ {
			seen[v] = true
		}
	}
	out := make([]int, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Ints(out)
	return out, nil
}

// ErrInvalidIntent is wrapped by CheckIntent's errors: the intent contradicts
// itself in a way no switch can express.
var ErrInvalidIntent = errors.New("invalid switch intent")

// CheckIntent checks the platform-neutral consistency every renderer relies
// on: priorities 0..7 and unique, traffic classes and queues 0..7, DSCP 0..63
// and in one class at most, PFC priorities equal to the lossless classes,
// ECN 0 < min ≤ max with a probability of 0..100, DWRR bandwidth 0..100, and
// classes sharing an egress queue agreeing on what is per queue on every
// switch (strict/bandwidth, ECN, lossless or not). Errors wrap ErrInvalidIntent
// and name the class.
func CheckIntent(si fabric.SwitchIntent) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidIntent}, args...)...))
	}
	prios := map[int]string{}
	dscpOwner := map[int]string{}
	byQueue := map[int]fabric.SwitchClass{}
	var lossless []int
	for _, c := range si.Classes {
		name := "class " + strconv.Quote(className(c))
		if c.Priority < 0 || c.Priority > 7 {
			bad("%s: priority %d outside 0..7", name, c.Priority)
		} else if other, dup := prios[c.Priority]; dup {
			bad("%s: priority %d already used by class %q", name, c.Priority, other)
		}
		prios[c.Priority] = className(c)
		if c.TrafficClass < 0 || c.TrafficClass > 7 {
			bad("%s: traffic class %d outside 0..7", name, c.TrafficClass)
		}
		if c.Queue < 0 || c.Queue > 7 {
			bad("%s: queue %d outside 0..7", name, c.Queue)
		}
		for _, d := range c.DSCP {
			if d < 0 || d > 63 {
				bad("%s: DSCP %d outside 0..63", name, d)
			} else if other, dup := dscpOwner[d]; dup && other != className(c) {
				bad("%s: DSCP %d already in class %q", name, d, other)
			}
			dscpOwner[d] = className(c)
		}
		if !c.Strict && (c.BandwidthPercent < 0 || c.BandwidthPercent > 100) {
			bad("%s: bandwidth %d%% outside 0..100", name, c.BandwidthPercent)
		}
		if e := c.ECN; e != nil {
			if e.MinBytes <= 0 || e.MaxBytes < e.MinBytes {
				bad("%s: ECN thresholds %d-%d B need 0 < min <= max", name, e.MinBytes, e.MaxBytes)
			}
			if e.MaxMarkProbability < 0 || e.MaxMarkProbability > 100 {
				bad("%s: ECN probability %d outside 0..100", name, e.MaxMarkProbability)
			}
		}
		if c.Lossless {
			lossless = append(lossless, c.Priority)
		}
		if o, ok := byQueue[c.Queue]; ok {
			switch {
			case o.Lossless != c.Lossless:
				bad("%s shares queue %d with class %q but only one of them is lossless", name, c.Queue, className(o))
			case o.Strict != c.Strict || (!c.Strict && o.BandwidthPercent != c.BandwidthPercent):
				bad("%s shares queue %d with class %q but their scheduling differs", name, c.Queue, className(o))
			case !sameECN(o.ECN, c.ECN):
				bad("%s shares queue %d with class %q but their ECN settings differ", name, c.Queue, className(o))
			}
		} else {
			byQueue[c.Queue] = c
		}
	}
	for _, p := range si.PFC.Priorities {
		if p < 0 || p > 7 {
			bad("pfc: priority %d outside 0..7", p)
		}
	}
	if !sameInts(si.PFC.Priorities, lossless) {
		bad("pfc.priorities %s disagree with the lossless classes' priorities %s",
			FormatIntSet(si.PFC.Priorities), FormatIntSet(lossless))
	}
	return errors.Join(errs...)
}

func sameECN(a, b *fabric.SwitchECN) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// DefaultClass picks the class that takes traffic no class claims (the DSCP
// values or PCPs a renderer must still map somewhere): the class holding
// DSCP 0, else the lowest lossy class that is not strict, else the first.
// ok is false when there are no classes.
func DefaultClass(classes []fabric.SwitchClass) (c fabric.SwitchClass, ok bool) {
	for _, c := range classes {
		for _, d := range c.DSCP {
			if d == 0 {
				return c, true
			}
		}
	}
	for _, c := range classes {
		if !c.Lossless && !c.Strict {
			return c, true
		}
	}
	if len(classes) > 0 {
		return classes[0], true
	}
	return fabric.SwitchClass{}, false
}

// Limits are the platform limits most renderers check besides CheckIntent.
type Limits struct {
	// Platform names the platform in errors.
	Platform string
	// CheckPort is the driver's port-name check.
	CheckPort func(string) error
	// MinMTU and MaxMTU bound a non-zero MTU.
	MinMTU, MaxMTU int
	// Info, when set, gives the platform's models: Check looks up the
	// intent's model, refuses an unknown one, and takes the MTU range
	// from it (Platform, MinMTU and MaxMTU then come from Info too).
	Info *Info
}

// For returns the Limits of a driver's Info with its port check.
func For(info Info, checkPort func(string) error) Limits {
	return Limits{Platform: info.Name, CheckPort: checkPort, MinMTU: info.MinMTU, MaxMTU: info.MaxMTU, Info: &info}
}

// Check runs CheckIntent, then checks trust (dscp or pcp), the MTU range (the
// error names the switchMtu value that fits) and every port name. Platform limits wrap ErrNotSupported; all problems are
// joined, none is lost.
func (l Limits) Check(si fabric.SwitchIntent) []error {
	var errs []error
	if err := CheckIntent(si); err != nil {
		errs = append(errs, err)
	}
	if si.Trust != "dscp" && si.Trust != "pcp" {
		errs = append(errs, fmt.Errorf("%w: trust %q (want dscp or pcp)", ErrNotSupported, si.Trust))
	}
	where := l.Platform
	if l.Info != nil {
		m, err := l.Info.Model(si.Model)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %w", ErrNotSupported, err))
		} else {
			l.MinMTU, l.MaxMTU = m.MinMTU, m.MaxMTU
			if m.Name != "" {
				where += " model " + m.Name
			}
		}
	}
	if si.MTU != 0 && (si.MTU < l.MinMTU || si.MTU > l.MaxMTU) {
		// Resolution gives an unset switchMtu the model's largest MTU
		// where 9216 does not fit; an explicit one is the user's: say what
		// to write there instead.
		fix := "max"
		if si.MTU < l.MinMTU {
			fix = strconv.Itoa(l.MinMTU)
		}
		errs = append(errs, fmt.Errorf("%w: MTU %d outside %s's %d..%d: set switchMtu: %s in the profile's spec.ethernet",
			ErrNotSupported, si.MTU, where, l.MinMTU, l.MaxMTU, fix))
	}
	if l.CheckPort != nil {
		for _, p := range si.Ports {
			if err := l.CheckPort(p); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}
