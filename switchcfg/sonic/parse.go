package sonic

import (
	"fmt"
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
// or, when none is, every port it binds. The first of them (natural order)
// stands for the switch: its DSCP_TO_TC_MAP (trust dscp) or DOT1P_TO_TC_MAP
// (trust pcp) gives the classes — one per SONiC traffic class that receives
// traffic, whose number is the canonical priority — its TC_TO_QUEUE_MAP the
// queues, its QUEUE entries the SCHEDULER (STRICT, or DWRR/WRR weight as the
// bandwidth) and WRED_PROFILE (green thresholds and probability, marking
// unless ecn is ecn_none) of each queue, and its PFC_WD entry the watchdog.
// PFC priorities are those pfc_enable lists on every bound port. A map a
// port names but the document lacks reads as absent (no classes). The MTU is
// the smallest PORT mtu of the bound ports (9100 when unset).
func ParseConfigDB(db ConfigDB) (fabric.SwitchIntent, error) {
	si := fabric.SwitchIntent{APIVersion: fabric.APIVersion, Platform: Platform, PFC: fabric.SwitchPFC{Priorities: []int{}}}
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
	// Ports bound to fabricctl's maps are the ones it manages; when there
	// are any, other bound ports are someone else's and do not count.
	set, ours := map[string]bool{}, map[string]bool{}
	for p, b := range bindings {
		set[p] = true
		if b["dscp_to_tc_map"] == Name || b["dot1p_to_tc_map"] == Name {
			ours[p] = true
		}
	}
	if len(ours) > 0 {
		set = ours
	}
	si.Ports = sortedPorts(set)
	si.PFC.Watchdog = &fabric.SwitchPFCWatchdog{}
	if len(si.Ports) == 0 {
		return si, nil
	}
	rep := si.Ports[0]
	b := bindings[rep]

	// PFC: the priorities lossless on every bound port.
	count := map[int]int{}
	for _, p := range si.Ports {
		prios, err := switchcfg.ParseIntSet(bindings[p]["pfc_enable"], 0, 7)
		if err != nil {
			return fabric.SwitchIntent{}, fmt.Errorf("%w: PORT_QOS_MAP|%s pfc_enable: %w", ErrSyntax, p, err)
		}
		for _, pr := range prios {
			count[pr]++
		}
	}
	for pr := 0; pr < 8; pr++ {
		if count[pr] == len(si.Ports) {
			si.PFC.Priorities = append(si.PFC.Priorities, pr)
		}
	}

	// Classification.
	var classify map[int]int // code point → TC
	switch {
	case b["dscp_to_tc_map"] != "":
		si.Trust = "dscp"
		if fields := db.entry(tDSCPToTC, b["dscp_to_tc_map"]); fields != nil {
			m, err := intMap(fields, 63, 7, tDSCPToTC+"|"+b["dscp_to_tc_map"])
			if err != nil {
				return fabric.SwitchIntent{}, err
			}
			classify = m
		}
	case b["dot1p_to_tc_map"] != "":
		si.Trust = "pcp"
		if fields := db.entry(tDot1pToTC, b["dot1p_to_tc_map"]); fields != nil {
			m, err := intMap(fields, 7, 7, tDot1pToTC+"|"+b["dot1p_to_tc_map"])
			if err != nil {
				return fabric.SwitchIntent{}, err
			}
			classify = m
		}
	}
	tcQueue := map[int]int{}
	for tc := 0; tc < 8; tc++ {
		tcQueue[tc] = tc
	}
	if fields := db.entry(tTCToQueue, b["tc_to_queue_map"]); fields != nil {
		m, err := intMap(fields, 7, 7, tTCToQueue+"|"+b["tc_to_queue_map"])
		if err != nil {
			return fabric.SwitchIntent{}, err
		}
		for tc, q := range m {
			tcQueue[tc] = q
		}
	}
	queues, err := queueEntries(db, rep)
	if err != nil {
		return fabric.SwitchIntent{}, err
	}
	lossless := map[int]bool{}
	for _, pr := range si.PFC.Priorities {
		lossless[pr] = true
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
		if si.Trust == "dscp" {
			for d := 0; d < 64; d++ {
				if t, ok := classify[d]; ok && t == tc {
					c.DSCP = append(c.DSCP, d)
				}
			}
		}
		q := queues[c.Queue]
		if s := db.entry(tScheduler, q["scheduler"]); s != nil {
			switch strings.ToUpper(s["type"]) {
			case "STRICT":
				c.Strict = true
			default:
				if w := s["weight"]; w != "" {
					if c.BandwidthPercent, err = strconv.Atoi(w); err != nil {
						return fabric.SwitchIntent{}, fmt.Errorf("%w: SCHEDULER|%s weight %q", ErrSyntax, q["scheduler"], w)
					}
				}
			}
		}
		if w := db.entry(tWRED, q["wred_profile"]); w != nil {
			e, err := wredECN(q["wred_profile"], w)
			if err != nil {
				return fabric.SwitchIntent{}, err
			}
			c.ECN = e
		}
		si.Classes = append(si.Classes, c)
	}

	if len(si.PFC.Priorities) > 0 {
		for _, key := range sortedKeys(db[tCableLength]) {
			if v, ok := db[tCableLength][key][rep]; ok {
				m, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), "m"))
				if err != nil {
					return fabric.SwitchIntent{}, fmt.Errorf("%w: CABLE_LENGTH|%s %s: %q", ErrSyntax, key, rep, v)
				}
				si.PFC.CableLengthMeters = m
				break
			}
		}
	}
	if wd := db.entry(tPFCWD, rep); wd != nil {
		w := &fabric.SwitchPFCWatchdog{Enabled: true, Action: wd["action"]}
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
			if *f.dst, err = strconv.Atoi(f.val); err != nil {
				return fabric.SwitchIntent{}, fmt.Errorf("%w: PFC_WD %s %q", ErrSyntax, f.name, f.val)
			}
		}
		si.PFC.Watchdog = w
	}
	si.MTU = 0
	for _, p := range si.Ports {
		mtu := defaultMTU
		if v := db.entry(tPort, p)["mtu"]; v != "" {
			if mtu, err = strconv.Atoi(v); err != nil {
				return fabric.SwitchIntent{}, fmt.Errorf("%w: PORT|%s mtu %q", ErrSyntax, p, v)
			}
		}
		if si.MTU == 0 || mtu < si.MTU {
			si.MTU = mtu
		}
	}
	return si, nil
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
	var err error
	if e.MinBytes, err = strconv.ParseInt(w["green_min_threshold"], 10, 64); err != nil {
		return nil, fmt.Errorf("%w: WRED_PROFILE|%s green_min_threshold %q", ErrSyntax, name, w["green_min_threshold"])
	}
	if e.MaxBytes, err = strconv.ParseInt(w["green_max_threshold"], 10, 64); err != nil {
		return nil, fmt.Errorf("%w: WRED_PROFILE|%s green_max_threshold %q", ErrSyntax, name, w["green_max_threshold"])
	}
	if v := w["green_drop_probability"]; v != "" {
		if e.MaxMarkProbability, err = strconv.Atoi(v); err != nil {
			return nil, fmt.Errorf("%w: WRED_PROFILE|%s green_drop_probability %q", ErrSyntax, name, v)
		}
	}
	return &e, nil
}
