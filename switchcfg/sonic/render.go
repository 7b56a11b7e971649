package sonic

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/internal/intset"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// Name is the name of every CONFIG_DB map fabricctl writes; schedulers and
// WRED profiles it writes start with it.
const Name = "FABRICCTL"

// Limits of SONiC's CLI and YANG models that Render enforces; the PFC_WD
// ranges are sonic-pfcwd.yang's (POLL_INTERVAL 100..1000, detection_time
// 100..5000, restoration_time 100..60000, both times >= POLL_INTERVAL).
const (
	MinMTU              = 1500
	MaxMTU              = 9216
	minWDPollMs         = 100
	maxWDPollMs         = 1000
	minWDDetectMs       = 100
	maxWDDetectMs       = 5000
	minWDRestoreMs      = 100
	maxWDRestoreMs      = 60000
	schedulerStrict     = Name + "_STRICT"
	schedulerDWRRPrefix = Name + "_DWRR_"
	wredPrefix          = Name + "_Q"
)

// Render turns the intent into the CONFIG_DB tables fabricctl manages, as a
// JSON document (Format "json"): the full DSCP_TO_TC_MAP (all 64 code
// points, so SONiC's stock AZURE map, which sends DSCP 26 to lossy TC 1, is
// never left in force) or DOT1P_TO_TC_MAP, TC_TO_QUEUE_MAP,
// TC_TO_PRIORITY_GROUP_MAP, MAP_PFC_PRIORITY_TO_QUEUE, SCHEDULER,
// WRED_PROFILE (bytes, ecn_all), and per port PORT_QOS_MAP (maps and
// pfc_enable "3,4"), QUEUE (scheduler, wred_profile), PFC_WD, CABLE_LENGTH
// and PORT mtu. Push turns it into an RFC 6902 patch against the switch's
// running configuration (BuildPatch). Pure.
func (d *Driver) Render(si fabric.SwitchIntent) (switchcfg.Config, error) {
	db, err := Desired(si)
	if err != nil {
		return switchcfg.Config{}, err
	}
	return switchcfg.Config{Platform: Platform, Format: "json", Text: string(db.JSON())}, nil
}

// notSupported wraps switchcfg.ErrNotSupported.
func notSupported(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{switchcfg.ErrNotSupported}, args...)...)
}

// validate checks what SONiC cannot express:
//   - trust other than dscp or pcp;
//   - a traffic class other than the priority: SONiC's TC is the priority
//     PFC pauses (pfc_enable lists TCs); classes reach other queues through
//     queue (TC_TO_QUEUE_MAP);
//   - an MTU outside 1500..9216;
//   - an enabled watchdog without PFC priorities (pfcwd_sw_enable lists
//     PFC priorities: there would be nothing to watch);
//   - on the voq model, a switch name that cannot be the line card's
//     hostname in its queue keys;
//   - watchdog times outside sonic-pfcwd.yang's ranges (poll 100..1000 ms,
//     detection 100..5000 ms, restoration 100..60000 ms, both times at
//     least the poll interval) or an action other than drop, forward or
//     alert.
//
// Lossless priorities other than 3 and 4 are accepted; with SONiC's
// traditional buffer model their lossless BUFFER_PG entries must exist (the
// dynamic buffer model creates them from pfc_enable); fabricctl does not
// write buffers.
func validate(si fabric.SwitchIntent) error {
	errs := switchcfg.For(info, checkPort).Check(si)
	for _, c := range si.Classes {
		if c.TrafficClass != c.Priority {
			errs = append(errs, notSupported("class %q: traffic class %d differs from priority %d (SONiC's traffic class is the priority; use queue)",
				c.Name, c.TrafficClass, c.Priority))
		}
	}
	if isVOQ(si.Model) && (si.Name == "" || len(si.Name) > 63 || strings.ContainsAny(si.Name, "|/")) {
		errs = append(errs, notSupported("VOQ line card name %q: the name keys its queues as the line card's hostname (1..63 characters, no '|' or '/': sonic-types.yang hostname)", si.Name))
	}
	if wd := si.PFC.Watchdog; wd != nil && wd.Enabled {
		if len(si.PFC.Priorities) == 0 {
			// orchagent arms the watchdog on the priorities pfcwd_sw_enable
			// lists, which are the PFC ones: with none it watches nothing
			// and reads back as off.
			errs = append(errs, notSupported("an enabled PFC watchdog without PFC priorities (SONiC arms it per PFC priority: pfcwd_sw_enable)"))
		}
		switch wd.Action {
		case "", "drop", "forward", "alert":
		default:
			errs = append(errs, fabric.AtField("pfc.watchdog.action", notSupported("PFC watchdog action %q (drop, forward or alert)", wd.Action)))
		}
		for _, r := range []struct {
			what, field string
			v, lo, hi   int
		}{
			{"poll interval", "pfc.watchdog.pollInterval", wd.PollIntervalMs, minWDPollMs, maxWDPollMs},
			{"detection time", "pfc.watchdog.detectionTime", wd.DetectionTimeMs, minWDDetectMs, maxWDDetectMs},
			{"restoration time", "pfc.watchdog.restorationTime", wd.RestorationTimeMs, minWDRestoreMs, maxWDRestoreMs},
		} {
			if r.v != 0 && (r.v < r.lo || r.v > r.hi) {
				errs = append(errs, fabric.AtField(r.field, notSupported("PFC watchdog %s %d ms outside %d..%d (sonic-pfcwd.yang)", r.what, r.v, r.lo, r.hi)))
			}
		}
		for _, r := range []struct {
			what, field string
			v           int
		}{{"detection time", "pfc.watchdog.detectionTime", wd.DetectionTimeMs}, {"restoration time", "pfc.watchdog.restorationTime", wd.RestorationTimeMs}} {
			if r.v != 0 && wd.PollIntervalMs != 0 && r.v < wd.PollIntervalMs {
				errs = append(errs, fabric.AtField(r.field, notSupported("PFC watchdog %s %d ms is shorter than the %d ms poll interval (sonic-pfcwd.yang: must be >= POLL_INTERVAL)",
					r.what, r.v, wd.PollIntervalMs)))
			}
		}
	}
	return errors.Join(errs...)
}

// Buffer profiles of SONiC's stock buffer templates (buffers_config.j2):
// every queue and priority group refers to one of them.
const (
	egressLossless = "egress_lossless_profile"
	egressLossy    = "egress_lossy_profile"
)

// bufferQueues is the BUFFER_QUEUE a port needs for the intent's lossless
// classes: their queues on egress_lossless_profile, keyed by ranges as the
// stock templates key them. The stock templates make only queues 3 and 4
// lossless; BuildPatch gives every other queue the switch keys the lossy
// profile.
func bufferQueues(si fabric.SwitchIntent) map[string]string {
	var ll []int
	for _, c := range si.Classes {
		if c.Lossless {
			ll = append(ll, c.Queue)
		}
	}
	out := map[string]string{}
	for _, r := range idRanges(ll) {
		out[r] = egressLossless
	}
	return out
}

// idRanges writes a set of small numbers as SONiC keys them: contiguous
// runs "3-4", single "6" (swss Orch::generateIdListFromMap, which
// buffermgrd uses for the lossless BUFFER_PG entries it creates).
func idRanges(set []int) []string {
	return intset.Strings(set)
}

// Desired is Render's result as tables.
func Desired(si fabric.SwitchIntent) (ConfigDB, error) {
	if err := validate(si); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", Platform, err)
	}
	db := ConfigDB{}
	def, hasDefault := switchcfg.DefaultClass(si.Classes)
	byPrio := map[int]fabric.SwitchClass{}
	for _, c := range si.Classes {
		byPrio[c.Priority] = c
	}

	mapField := "dscp_to_tc_map"
	if si.Trust == "pcp" {
		mapField = "dot1p_to_tc_map"
		for p := 0; p < 8; p++ {
			tc := p
			if _, ok := byPrio[p]; !ok && hasDefault {
				tc = def.Priority
			}
			db.set(tDot1pToTC, Name, strconv.Itoa(p), strconv.Itoa(tc))
		}
	} else {
		owner := map[int]int{}
		for _, c := range si.Classes {
			for _, d := range c.DSCP {
				owner[d] = c.Priority
			}
		}
		for d := 0; d < 64; d++ {
			tc, ok := owner[d]
			if !ok {
				tc = def.Priority // every code point is written: no stock entry survives
			}
			db.set(tDSCPToTC, Name, strconv.Itoa(d), strconv.Itoa(tc))
		}
	}
	lossless := map[int]bool{}
	for _, p := range si.PFC.Priorities {
		lossless[p] = true
	}
	for tc := 0; tc < 8; tc++ {
		q, pg := tc, 0
		if c, ok := byPrio[tc]; ok {
			q = c.Queue
		}
		if lossless[tc] {
			pg = tc
		}
		db.set(tTCToQueue, Name, strconv.Itoa(tc), strconv.Itoa(q))
		db.set(tTCToPG, Name, strconv.Itoa(tc), strconv.Itoa(pg))
		db.set(tPFCToQueue, Name, strconv.Itoa(tc), strconv.Itoa(q))
	}

	// One scheduler per distinct scheduling, one WRED profile per marking queue.
	queueSched := map[int]string{}
	queueWRED := map[int]string{}
	for _, c := range si.Classes {
		name := schedulerStrict
		if c.Strict {
			db.set(tScheduler, name, "type", "STRICT")
		} else {
			name = schedulerDWRRPrefix + strconv.Itoa(c.BandwidthPercent)
			db.set(tScheduler, name, "type", "DWRR")
			db.set(tScheduler, name, "weight", strconv.Itoa(c.BandwidthPercent))
		}
		queueSched[c.Queue] = name
		if e := c.ECN; e != nil {
			w := wredPrefix + strconv.Itoa(c.Queue)
			queueWRED[c.Queue] = w
			db.set(tWRED, w, "ecn", "ecn_all")
			for _, color := range []string{"green", "yellow", "red"} {
				db.set(tWRED, w, "wred_"+color+"_enable", "true")
				db.set(tWRED, w, color+"_min_threshold", strconv.FormatInt(e.MinBytes, 10))
				db.set(tWRED, w, color+"_max_threshold", strconv.FormatInt(e.MaxBytes, 10))
				db.set(tWRED, w, color+"_drop_probability", strconv.Itoa(e.MaxMarkProbability))
			}
		}
	}

	// Mellanox and Barefoot apply PFC priority → priority group too.
	pg := pfcToPG(si.Model)
	if pg {
		for _, p := range si.PFC.Priorities {
			db.set(tPFCToPG, Name, strconv.Itoa(p), strconv.Itoa(p))
		}
	}

	// The watchdog: none in the intent leaves the switch's as it is;
	// otherwise orchagent arms it on the priorities pfcwd_sw_enable lists
	// (sonic-swss qosorch.cpp, pfcwdorch.cpp), so that field says on
	// (the PFC priorities) or off ("").
	wd := si.PFC.Watchdog
	wdOn := wd != nil && wd.Enabled
	if wdOn && wd.PollIntervalMs > 0 {
		db.set(tPFCWD, pfcwdGlobal, fPollInterval, strconv.Itoa(wd.PollIntervalMs))
	}
	queues := bufferQueues(si)
	// A VOQ line card keys its queues by system port.
	qport := func(p string) string { return p }
	if isVOQ(si.Model) {
		qport = func(p string) string { return si.Name + "|" + voqASIC + "|" + p }
	}
	for _, p := range si.Ports {
		db.set(tPortQoSMap, p, mapField, Name)
		for _, f := range []string{"tc_to_queue_map", "tc_to_pg_map", "pfc_to_queue_map"} {
			db.set(tPortQoSMap, p, f, Name)
		}
		if pg && len(si.PFC.Priorities) > 0 {
			db.set(tPortQoSMap, p, "pfc_to_pg_map", Name)
		}
		switch {
		case wdOn:
			db.set(tPortQoSMap, p, fPFCWDSwEnable, strings.Join(intsToStrings(si.PFC.Priorities), ","))
		case wd != nil:
			db.set(tPortQoSMap, p, fPFCWDSwEnable, "")
		}
		if len(si.PFC.Priorities) > 0 {
			// A plain list: sonic-port-qos-map.yang takes "3,4", not "3-4".
			db.set(tPortQoSMap, p, "pfc_enable", strings.Join(intsToStrings(si.PFC.Priorities), ","))
			if si.PFC.CableLengthMeters > 0 {
				db.set(tCableLength, Name, p, strconv.Itoa(si.PFC.CableLengthMeters)+"m")
			}
		}
		for r, prof := range queues {
			db.set(tBufferQueue, qport(p)+"|"+r, "profile", prof)
		}
		for q, s := range queueSched {
			key := qport(p) + "|" + strconv.Itoa(q)
			db.set(tQueue, key, "scheduler", s)
			if w, ok := queueWRED[q]; ok {
				db.set(tQueue, key, "wred_profile", w)
			}
		}
		if wdOn {
			action := wd.Action
			if action == "" {
				action = "drop"
			}
			db.set(tPFCWD, p, "action", action)
			if wd.DetectionTimeMs > 0 {
				db.set(tPFCWD, p, "detection_time", strconv.Itoa(wd.DetectionTimeMs))
			}
			if wd.RestorationTimeMs > 0 {
				db.set(tPFCWD, p, "restoration_time", strconv.Itoa(wd.RestorationTimeMs))
			}
		}
		if si.MTU > 0 {
			db.set(tPort, p, "mtu", strconv.Itoa(si.MTU))
		}
	}
	return db, nil
}

// fPFCWDSwEnable is the PORT_QOS_MAP field of the priorities the PFC
// watchdog watches.
const fPFCWDSwEnable = "pfcwd_sw_enable"

func intsToStrings(v []int) []string {
	out := make([]string, len(v))
	for i, n := range v {
		out[i] = strconv.Itoa(n)
	}
	return out
}
