package sonic

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// defaultMTU is SONiC's port MTU when PORT|<port> carries none.
const defaultMTU = 9100

// ParseConfigDB turns CONFIG_DB tables into the canonical intent.
//
// The ports are those PORT_QOS_MAP binds to fabricctl's maps (named Name),
// or, when none is, every port it binds. Each port is read on its own: its
// DSCP_TO_TC_MAP (trust dscp) or DOT1P_TO_TC_MAP (trust pcp) gives the
// classes — one per SONiC traffic class that receives traffic, whose
// number is the canonical priority — its TC_TO_QUEUE_MAP the queues, its
// QUEUE entries the SCHEDULER (STRICT, or DWRR/WRR weight as the
// bandwidth) and WRED_PROFILE (green thresholds and probability, marking
// unless ecn is ecn_none) of each queue, its pfc_enable the PFC
// priorities, and its PFC_WD entry with pfcwd_sw_enable the watchdog.
// What every port agrees on is the switch's; a class, trust, MTU or PFC
// setting the ports disagree on reads as absent, so drift shows. References
// in the old "[TABLE|NAME]" form are read as NAME.
//
// A priority is lossless when PFC pauses it and, where the configuration
// carries buffers, its queue has the egress_lossless BUFFER_QUEUE profile
// (the stock templates give it to queues 3 and 4 only) and, with the
// dynamic buffer model, its priority group a lossless BUFFER_PG (profile
// NULL or a lossless one; the traditional model's buffermgrd makes those
// from pfc_enable itself). The watchdog is on where orchagent
// arms it: a PFC_WD entry for the port and the priorities in
// pfcwd_sw_enable (sonic-swss qosorch.cpp); a pfcwd_sw_enable that is
// there but empty is a disabled watchdog, neither is none. The MTU is the
// smallest PORT mtu of the ports (9100 when unset).
func ParseConfigDB(db ConfigDB) (fabric.SwitchIntent, error) {
	return ParseConfigDBPorts(db, nil)
}

// ParseConfigDBPorts is ParseConfigDB over the given ports (nil: the
// ports it would choose itself), so that ports with other QoS (the
// uplinks of a dual-ToR) do not blur the reading.
func ParseConfigDBPorts(db ConfigDB, only []string) (si fabric.SwitchIntent, err error) {
	si = fabric.SwitchIntent{APIVersion: fabric.APIVersion, Platform: Platform, PFC: fabric.SwitchPFC{Priorities: []int{}}}
	db, chassis := localView(db)
	defer func() {
		if err == nil {
			si.Unparsed = append(si.Unparsed, chassis...)
		}
	}()
	bindings := map[string]map[string]string{}
	for _, key := range sortedKeys(db[tPortQoSMap]) {
		for _, p := range expandPortList(key) {
			if checkPort(p) != nil {
				continue
			}
			b := bindings[p]
			if b == nil {
				b = map[string]string{}
				bindings[p] = b
			}
			for f, v := range db[tPortQoSMap][key] {
				b[f] = v
			}
		}
	}
	si.Unparsed = unknownPortQoSFields(bindings)
	// PORT_QOS_MAP|global's maps are the switch's own (SAI switch
	// attributes): they classify on every port without a map of its own.
	global := db.entry(tPortQoSMap, "global")
	for _, b := range bindings {
		inherit(b, global)
	}
	// A port of the PORT table without any PORT_QOS_MAP entry is a port
	// without QoS (or with the switch's maps only): read, never dropped.
	noQoS := map[string]bool{}
	for p := range db[tPort] {
		if bindings[p] == nil && checkPort(p) == nil {
			bindings[p] = map[string]string{}
			inherit(bindings[p], global)
			noQoS[p] = true
		}
	}
	// Ports bound to fabricctl's maps are the ones it manages; when there
	// are any, other bound ports are someone else's and do not count.
	set, ours := map[string]bool{}, map[string]bool{}
	for p, b := range bindings {
		set[p] = true
		if ref(b["dscp_to_tc_map"]) == Name || ref(b["dot1p_to_tc_map"]) == Name {
			ours[p] = true
		}
	}
	if len(ours) > 0 {
		set = ours
	}
	if len(set) == 0 && global != nil {
		// No port at all (a line card's qos.json without local ports):
		// the switch's own maps are its reading.
		bindings["global"] = maps.Clone(global)
		set["global"] = true
	}
	if only != nil {
		set = map[string]bool{}
		for _, p := range only {
			if bindings[p] != nil {
				set[p] = true
			}
		}
	}
	ports := sortedPorts(set)
	si.Ports = ports
	if set["global"] {
		si.Ports = []string{} // the switch's maps, no port
	}
	if len(ports) == 0 {
		return si, nil
	}
	views := make([]portView, len(ports))
	for i, p := range ports {
		v, err := readPort(db, p, bindings[p])
		if err != nil {
			return fabric.SwitchIntent{}, err
		}
		views[i] = v
	}
	// Ports are grouped by everything they read as; the largest group (the
	// first port's on a tie) is the switch's, every other group is listed
	// with its own settings: nothing is dropped because ports disagree.
	var keys []string
	members := map[string][]int{}
	for i, v := range views {
		k := v.key()
		if _, ok := members[k]; !ok {
			keys = append(keys, k)
		}
		members[k] = append(members[k], i)
	}
	top := keys[0]
	for _, k := range keys[1:] {
		if len(members[k]) > len(members[top]) {
			top = k
		}
	}
	first := views[members[top][0]]
	si.Trust, si.MTU, si.Classes = first.trust, first.mtu, first.classes
	si.PFC = first.pfcSettings()
	for _, why := range []string{wdNoTable, wdNoSwEnable} {
		var unknownWD []string
		for i, v := range views {
			if v.wdUnknown == why {
				unknownWD = append(unknownWD, ports[i])
			}
		}
		if len(unknownWD) > 0 {
			si.Unparsed = append(si.Unparsed, fabric.Unparsed{Text: fmt.Sprintf(why, strings.Join(unknownWD, ",")),
				Reason: "whether the PFC watchdog runs is not in the capture"})
		}
	}
	for _, k := range keys {
		if k == top {
			continue
		}
		v := views[members[k][0]]
		g := fabric.SwitchPortGroup{Ports: []string{}, MTU: v.mtu, Trust: v.trust, Classes: v.classes, PFC: v.pfcSettings()}
		if g.Classes == nil {
			g.Classes = []fabric.SwitchClass{} // [], as render writes it
		}
		for _, i := range members[k] {
			g.Ports = append(g.Ports, ports[i])
		}
		si.PortGroups = append(si.PortGroups, g)
	}
	return si, nil
}

// portView is what one port's QoS reads as.
type portView struct {
	trust   string
	classes []fabric.SwitchClass
	pfc     []int
	cable   int
	wd      *fabric.SwitchPFCWatchdog
	// wdUnknown says why the watchdog's state is not in the capture
	// (wdNoTable, wdNoSwEnable), "" when it is.
	wdUnknown string
	mtu       int
}

// key is everything the port reads as, to group ports that read alike.
func (v portView) key() string {
	parts := []string{v.trust, fmt.Sprint(v.pfc), strconv.Itoa(v.cable), fmt.Sprintf("%+v", v.wd), v.wdUnknown, strconv.Itoa(v.mtu)}
	for _, c := range v.classes {
		parts = append(parts, classKey(c))
	}
	return strings.Join(parts, "|")
}

// pfcSettings is the port's PFC as the intent holds it (the cable length
// only where PFC is on).
func (v portView) pfcSettings() fabric.SwitchPFC {
	p := fabric.SwitchPFC{Priorities: append([]int{}, v.pfc...), Watchdog: v.wd}
	if len(p.Priorities) > 0 {
		p.CableLengthMeters = v.cable
	}
	return p
}

// readPort reads one port's QoS (see ParseConfigDB).
func readPort(db ConfigDB, port string, b map[string]string) (portView, error) {
	var v portView
	prios, err := switchcfg.ParseIntSet(b["pfc_enable"], 0, 7)
	if err != nil {
		return v, fmt.Errorf("%w: PORT_QOS_MAP|%s pfc_enable: %w", ErrSyntax, port, err)
	}
	v.pfc = prios
	if v.pfc == nil {
		v.pfc = []int{}
	}

	var classify map[int]int // code point → TC
	switch {
	case b["dscp_to_tc_map"] != "":
		v.trust = "dscp"
		if fields := db.entry(tDSCPToTC, ref(b["dscp_to_tc_map"])); fields != nil {
			if classify, err = intMap(fields, 63, 15, tDSCPToTC+"|"+ref(b["dscp_to_tc_map"])); err != nil {
				return v, err
			}
		}
	case b["dot1p_to_tc_map"] != "":
		v.trust = "pcp"
		if fields := db.entry(tDot1pToTC, ref(b["dot1p_to_tc_map"])); fields != nil {
			if classify, err = intMap(fields, 7, 15, tDot1pToTC+"|"+ref(b["dot1p_to_tc_map"])); err != nil {
				return v, err
			}
		}
	}
	// Traffic classes above 7 (the dual-ToR templates send DSCP 33 to TC 8
	// for tunnelled traffic) are no class of the canonical intent.
	for cp, tc := range classify {
		if tc > 7 {
			delete(classify, cp)
		}
	}
	tcQueue, tcPG := map[int]int{}, map[int]int{}
	for tc := 0; tc < 8; tc++ {
		tcQueue[tc], tcPG[tc] = tc, tc
	}
	for _, m := range []struct {
		table, field string
		dst          map[int]int
	}{{tTCToQueue, "tc_to_queue_map", tcQueue}, {tTCToPG, "tc_to_pg_map", tcPG}} {
		if fields := db.entry(m.table, ref(b[m.field])); fields != nil {
			got, err := intMap(fields, 15, 15, m.table+"|"+ref(b[m.field]))
			if err != nil {
				return v, err
			}
			for tc, q := range got {
				if tc <= 7 {
					m.dst[tc] = q
				}
			}
		}
	}
	queues, err := queueEntries(db, port)
	if err != nil {
		return v, err
	}
	lossless := map[int]bool{}
	for _, pr := range v.pfc {
		lossless[pr] = bufferedLossless(db, port, tcPG[pr], tcQueue[pr])
	}
	var carries [8]bool
	for _, tc := range classify {
		carries[tc] = true
	}
	for tc := 0; tc < 8; tc++ {
		if !carries[tc] {
			continue
		}
		c := fabric.SwitchClass{Name: "tc" + strconv.Itoa(tc), Priority: tc, TrafficClass: tc, Queue: tcQueue[tc],
			DSCP: []int{}, Lossless: lossless[tc]}
		if v.trust == "dscp" {
			for d := 0; d < 64; d++ {
				if t, ok := classify[d]; ok && t == tc {
					c.DSCP = append(c.DSCP, d)
				}
			}
		}
		q := queues[c.Queue]
		sched := ref(q["scheduler"])
		if s := db.entry(tScheduler, sched); s != nil {
			switch strings.ToUpper(s["type"]) {
			case "STRICT":
				c.Strict = true
			default:
				if w := s["weight"]; w != "" {
					if c.BandwidthPercent, err = intIn("SCHEDULER|"+sched+" weight", w, 0, 100); err != nil {
						return v, err
					}
				}
			}
		}
		wred := ref(q["wred_profile"])
		if w := db.entry(tWRED, wred); w != nil {
			e, err := wredECN(wred, w)
			if err != nil {
				return v, err
			}
			c.ECN = e
		}
		v.classes = append(v.classes, c)
	}

	if len(v.pfc) > 0 {
		for _, key := range sortedKeys(db[tCableLength]) {
			if c, ok := db[tCableLength][key][port]; ok {
				m, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(c), "m"))
				if err != nil || m < 1 || m > maxCableMeters {
					return v, fmt.Errorf("%w: CABLE_LENGTH|%s %s: %s is not a length in 1..%dm", ErrSyntax, key, port, fabric.Clip(c), maxCableMeters)
				}
				v.cable = m
				break
			}
		}
	}
	armed, hasArm := b[fPFCWDSwEnable]
	wd := db.entry(tPFCWD, port)
	switch {
	case wd != nil && !hasArm && dbVersionBefore(db, 3, 0, 4) == unknownVersion:
		v.wdUnknown = wdNoSwEnable
	case wd != nil:
		// Without pfcwd_sw_enable the watchdog watched the PFC priorities
		// before CONFIG_DB version 3_0_4, which moved that into the field
		// (sonic-utilities db_migrator version_3_0_4: "by default, PFC
		// software watchdog is enabled on all pfc enabled queues"); since,
		// orchagent arms exactly the field's priorities.
		on := armed != "" || (!hasArm && dbVersionBefore(db, 3, 0, 4) == olderVersion && len(v.pfc) > 0)
		w := &fabric.SwitchPFCWatchdog{Enabled: on, Action: wd["action"]}
		for _, f := range []struct {
			name string
			dst  *int
			val  string
		}{
			{"detection_time", &w.DetectionTimeMs, wd["detection_time"]},
			{"restoration_time", &w.RestorationTimeMs, wd["restoration_time"]},
			{fPollInterval, &w.PollIntervalMs, db.entry(tPFCWD, pfcwdGlobal)[fPollInterval]},
		} {
			if f.val == "" {
				continue
			}
			if *f.dst, err = intIn("PFC_WD "+f.name, f.val, 1, maxWatchdogMs); err != nil {
				return v, err
			}
		}
		v.wd = w
	case hasArm && armed != "" && !hasTable(db, tPFCWD) && !hasTable(db, tMetadata):
		// Armed, but the capture is a part of CONFIG_DB without the
		// PFC_WD table (a qos.json render, a table dump): unknown, not
		// off. A whole CONFIG_DB (DEVICE_METADATA and all) without
		// PFC_WD is a switch whose watchdog was never started: off.
		v.wdUnknown = wdNoTable
	case hasArm:
		v.wd = &fabric.SwitchPFCWatchdog{}
	}
	v.mtu = defaultMTU
	if m := db.entry(tPort, port)["mtu"]; m != "" {
		if v.mtu, err = intIn("PORT|"+port+" mtu", m, 68, 65535); err != nil {
			return v, err
		}
	}
	return v, nil
}

// bufferedLossless reports whether a PFC priority of port has lossless
// buffers: a lossless BUFFER_PG for its priority group and the lossless
// BUFFER_QUEUE profile for its queue, each checked only where the
// configuration has entries of that table for the port (a read-back without
// buffers says nothing against it).
func bufferedLossless(db ConfigDB, port string, pg, queue int) bool {
	covers := func(table string, n int, ok func(profile string) bool) (bool, bool) {
		keys := portKeys(db, table, port)
		if len(keys) == 0 {
			return false, false
		}
		for r, key := range keys {
			ids, err := switchcfg.ParseIntSet(r, 0, 15)
			if err == nil && slices.Contains(ids, n) && ok(ref(db[table][key]["profile"])) {
				return true, true
			}
		}
		return false, true
	}
	qOK, qKnown := covers(tBufferQueue, queue, func(p string) bool { return strings.Contains(p, "lossless") })
	if db[tMetadata]["localhost"]["buffer_model"] != "dynamic" {
		// buffermgrd makes the lossless BUFFER_PG of each pfc_enable
		// priority itself (traditional model): a template's output does
		// not show it yet.
		return qOK || !qKnown
	}
	pgOK, pgKnown := covers(tBufferPG, pg, isLosslessProfile)
	return (pgOK || !pgKnown) && (qOK || !qKnown)
}

// queueEntries returns the QUEUE fields of port's queues, expanding keys
// that list several ports ("Ethernet0,Ethernet4|3") or queues ("|0-2").
func queueEntries(db ConfigDB, port string) (map[int]map[string]string, error) {
	out := map[int]map[string]string{}
	for _, key := range sortedKeys(db[tQueue]) {
		ports, qs, ok := splitKey(key)
		if !ok {
			continue
		}
		match := false
		for _, p := range expandPortList(ports) {
			match = match || p == port
		}
		if !match {
			continue
		}
		queues, err := expandQueues(qs)
		if err != nil {
			return nil, fmt.Errorf("%w: QUEUE|%s: %w", ErrSyntax, key, err)
		}
		for _, q := range queues {
			if out[q] == nil {
				out[q] = map[string]string{}
			}
			for f, v := range db[tQueue][key] {
				out[q][f] = v
			}
		}
	}
	return out, nil
}

// wredECN reads a WRED_PROFILE: marking unless ecn is absent or ecn_none,
// with the green thresholds and drop (mark) probability.
func wredECN(name string, w map[string]string) (*fabric.SwitchECN, error) {
	mode := w["ecn"]
	if mode == "" || mode == "ecn_none" {
		return nil, nil
	}
	var e fabric.SwitchECN
	for _, f := range []struct {
		field string
		dst   *int64
	}{{"green_min_threshold", &e.MinBytes}, {"green_max_threshold", &e.MaxBytes}} {
		n, err := intIn("WRED_PROFILE|"+name+" "+f.field, w[f.field], 0, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		*f.dst = int64(n)
	}
	if v := w["green_drop_probability"]; v != "" {
		var err error
		if e.MaxMarkProbability, err = intIn("WRED_PROFILE|"+name+" green_drop_probability", v, 0, 100); err != nil {
			return nil, err
		}
	}
	return &e, nil
}

// Bounds of the numbers the reader takes: a watchdog time (detection,
// restoration, polling) is at least a millisecond and at most an hour, a
// cable at least a metre.
const (
	maxWatchdogMs  = 3_600_000
	maxCableMeters = 100_000
)

// intIn reads the decimal number v of what (TABLE|key field) within
// lo..hi; anything else — negative, past the bounds, past int, NaN, 1e3 —
// is an error naming what and v.
func intIn(what, v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%w: %s %s is not a number in %d..%d", ErrSyntax, what, fabric.Clip(v), lo, hi)
	}
	return n, nil
}

// classKey prints a class with its ECN thresholds, for comparing ports.
func classKey(c fabric.SwitchClass) string {
	e := c.ECN
	c.ECN = nil
	if e == nil {
		return fmt.Sprintf("%+v", c)
	}
	return fmt.Sprintf("%+v %+v", c, *e)
}

// hasTable reports whether the capture holds the table at all (an empty
// table is a fact; a missing one is not).
func hasTable(db ConfigDB, table string) bool {
	_, ok := db[table]
	return ok
}

// inherit gives a port's binding the switch's own maps (PORT_QOS_MAP|global)
// where it has none of its own.
func inherit(b, global map[string]string) {
	if global == nil || b["dscp_to_tc_map"] != "" || b["dot1p_to_tc_map"] != "" {
		return
	}
	for f, v := range global {
		if _, ok := b[f]; !ok {
			b[f] = v
		}
	}
}

// readPortQoSFields are the PORT_QOS_MAP fields the reader takes (those
// that classify, queue, pause and watch; sonic-port-qos-map.yang).
var readPortQoSFields = map[string]bool{"dscp_to_tc_map": true, "dot1p_to_tc_map": true, "tc_to_queue_map": true,
	"tc_to_pg_map": true, "pfc_enable": true, fPFCWDSwEnable: true, "pfc_to_queue_map": true, "pfc_to_pg_map": true}

// unknownPortQoSFields lists the PORT_QOS_MAP fields the reader does not
// take — remarking maps, port schedulers, misspellings — once per field and
// value, with the ports that have it.
func unknownPortQoSFields(bindings map[string]map[string]string) []fabric.Unparsed {
	on := map[[2]string][]string{}
	for _, p := range sortedKeys(bindings) {
		for f, v := range bindings[p] {
			if !readPortQoSFields[f] {
				on[[2]string{f, v}] = append(on[[2]string{f, v}], p)
			}
		}
	}
	keys := slices.Collect(maps.Keys(on))
	slices.SortFunc(keys, func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) })
	var out []fabric.Unparsed
	for _, k := range keys {
		ps := on[k]
		fabric.SortPorts(ps)
		out = append(out, fabric.Unparsed{Text: fmt.Sprintf("PORT_QOS_MAP %s %q on %s", k[0], k[1], strings.Join(ps, ",")),
			Reason: "a PORT_QOS_MAP field fabricctl does not read"})
	}
	return out
}

// Why a port's watchdog state is unknown (formats of the unparsed text).
const (
	wdNoTable    = "PORT_QOS_MAP pfcwd_sw_enable on %s, and the capture has no PFC_WD table"
	wdNoSwEnable = "PFC_WD on %s without pfcwd_sw_enable, and no VERSIONS|DATABASE to tell the release"
)

// Results of dbVersionBefore.
const (
	unknownVersion = iota
	olderVersion
	sameOrNewer
)

// dbVersionBefore compares the capture's CONFIG_DB schema version
// (VERSIONS|DATABASE VERSION: "version_3_0_4", or since 2022
// "version_202205_01", always newer) with major_minor_patch.
func dbVersionBefore(db ConfigDB, major, minor, patch int) int {
	v, ok := strings.CutPrefix(db.entry(tVersions, "DATABASE")["VERSION"], "version_")
	if !ok {
		return unknownVersion
	}
	var have []int
	for _, part := range strings.Split(v, "_") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return unknownVersion
		}
		have = append(have, n)
	}
	if slices.Compare(have, []int{major, minor, patch}) < 0 {
		return olderVersion
	}
	return sameOrNewer
}

// systemPortTables are keyed by system port on a VOQ chassis line card
// ("<linecard>|<asic>|EthernetN|q", sonic-buildimage's VOQ qos.json.j2).
var systemPortTables = []string{tQueue, tBufferQueue}

// localView returns db with the system-port keys of the local line card
// rewritten as local keys ("EthernetN|q") and those of other line cards
// left out: only local ports are ports. The local line card is
// DEVICE_METADATA's hostname and asic_name, or, in a capture without
// them, the only one the keys name; with several and no name the keys
// cannot be placed, and the reading says so.
func localView(db ConfigDB) (ConfigDB, []fabric.Unparsed) {
	cards := map[string]bool{}
	for _, t := range systemPortTables {
		for key := range db[t] {
			if card, _, ok := systemPortKey(key); ok {
				cards[card] = true
			}
		}
	}
	if len(cards) == 0 {
		return db, nil
	}
	local := ""
	if md := db.entry(tMetadata, "localhost"); md["hostname"] != "" {
		asic := md["asic_name"]
		if asic == "" {
			asic = "asic0"
		}
		local = strings.ToLower(md["hostname"] + "|" + asic)
	} else if len(cards) == 1 {
		for c := range cards {
			local = c
		}
	}
	out := maps.Clone(db)
	for _, t := range systemPortTables {
		if db[t] == nil {
			continue
		}
		tab := map[string]map[string]string{}
		for key, fields := range db[t] {
			card, rest, ok := systemPortKey(key)
			switch {
			case !ok:
				tab[key] = fields
			case card == local:
				tab[rest] = fields
			}
		}
		out[t] = tab
	}
	if local != "" {
		return out, nil
	}
	names := slices.Sorted(maps.Keys(cards))
	return out, []fabric.Unparsed{{Text: fmt.Sprintf("QUEUE/BUFFER_QUEUE system-port entries of %d line cards (%s)", len(names), strings.Join(names, ", ")),
		Reason: "the capture does not say which line card it is (DEVICE_METADATA hostname, asic_name): their queues are not read"}}
}

// systemPortKey splits "<linecard>|<asic>|EthernetN|q" into the line card
// ("linecard|asic", lower case) and the local key "EthernetN|q".
func systemPortKey(key string) (card, local string, ok bool) {
	parts := strings.SplitN(key, "|", 3)
	if len(parts) != 3 || checkPort(strings.SplitN(parts[2], "|", 2)[0]) != nil || checkPort(parts[0]) == nil {
		return "", "", false
	}
	return strings.ToLower(parts[0] + "|" + parts[1]), parts[2], true
}
