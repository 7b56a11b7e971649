package sonic

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// PatchOp is one RFC 6902 operation, as `config apply-patch` reads it.
type PatchOp struct {
	Op    string `json:"op"` // add | replace | remove
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// ownedTables hold whole entries fabricctl owns: FABRICCTL* keys.
var ownedTables = []string{tDSCPToTC, tDot1pToTC, tTCToQueue, tTCToPG, tPFCToQueue, tPFCToPG, tScheduler, tWRED}

// managedFields are the fields fabricctl manages in entries it shares with
// the rest of the configuration; others are left alone.
var managedFields = map[string][]string{
	tPortQoSMap: {"dot1p_to_tc_map", "dscp_to_tc_map", "pfc_enable", "pfc_to_queue_map", "tc_to_pg_map", "tc_to_queue_map",
		fPFCWDSwEnable, "pfc_to_pg_map"},
	tQueue: {"scheduler", "wred_profile"},
	tPFCWD: {"action", "detection_time", "restoration_time"},
	tPort:  {"mtu"},
}

// optionalFields are managed only where desired sets them: the watchdog's
// (an intent without one leaves the switch's) and pfc_to_pg_map (only the
// ASICs that take it get it).
var optionalFields = map[string]bool{fPFCWDSwEnable: true, "pfc_to_pg_map": true}

// ErrGCURefuses is wrapped by BuildPatch's errors for changes SONiC's
// generic config updater refuses whatever the patch (sonic-utilities
// generic_config_updater: field_operation_validators.py and gu_common.py).
var ErrGCURefuses = errors.New("the generic config updater refuses this change")

// BuildPatch computes the RFC 6902 patch that turns the observed CONFIG_DB
// into desired (Render's tables) for what fabricctl manages:
//
//   - FABRICCTL* entries of the map, SCHEDULER and WRED_PROFILE tables are
//     added or replaced whole; stale FABRICCTL* entries are removed, and a
//     table they alone fill is removed whole (GCU refuses a patch that
//     leaves a table empty);
//   - on each port of desired's PORT_QOS_MAP: the map and pfc_enable fields,
//     scheduler and wred_profile of the queues the intent uses, the PFC_WD
//     entry (removed when the watchdog is off), PFC_WD|GLOBAL POLL_INTERVAL,
//     the port's CABLE_LENGTH value (under whichever CABLE_LENGTH key holds
//     it), and PORT mtu — fields are added, replaced or removed one by one,
//     so everything else on the port stays.
//
// On a VOQ chassis line card (observed DEVICE_METADATA switch_type voq)
// QUEUE and BUFFER_QUEUE are keyed by system port: the patch keys them
// "<hostname>|<asic_name>|EthernetN|q" by the switch's own DEVICE_METADATA,
// whether desired is the voq model's render (keyed by the fabric's switch
// name) or a local one, and leaves other line cards' entries alone. A voq
// render onto a switch whose DEVICE_METADATA says it is no VOQ line card
// is an error.
//
// A port missing from the observed PORT table, or a queue the observed QUEUE
// table covers only with a multi-queue key ("Ethernet0|0-2"), is an error:
// nothing is patched. An empty result means the switch already matches.
func BuildPatch(observed, desired ConfigDB) ([]PatchOp, error) {
	card, err := lineCard(observed, desired)
	if err != nil {
		return nil, err
	}
	if card == "" {
		return buildPatch(observed, desired)
	}
	ops, err := buildPatch(cardView(observed, card), cardView(desired, ""))
	if err != nil {
		return nil, err
	}
	return systemPortOps(ops, card), nil
}

// lineCard returns the VOQ line card ("hostname|asic") whose system-port
// keys the patch writes, "" when the switch is no VOQ line card: the
// observed DEVICE_METADATA's, else (a capture without it) the one line
// card desired's or else observed's keys name.
func lineCard(observed, desired ConfigDB) (string, error) {
	wantCards := systemPortCards(desired)
	md, hasMD := observed[tMetadata]["localhost"]
	switch {
	case hasMD && md["switch_type"] == "voq":
		if md["hostname"] == "" {
			if len(wantCards) != 1 {
				return "", fmt.Errorf("building the %s patch: %w: the switch is a VOQ line card without a DEVICE_METADATA hostname to key its queues by", Platform, switchcfg.ErrNotSupported)
			}
			return wantCards[0], nil
		}
		asic := md["asic_name"]
		if asic == "" {
			asic = voqASIC
		}
		return md["hostname"] + "|" + asic, nil
	case hasMD:
		if len(wantCards) > 0 {
			return "", fmt.Errorf("building the %s patch: %w: the render keys queues by VOQ system port (%s|…, model %s) but the switch's DEVICE_METADATA switch_type is %q, not voq: use the switch's model",
				Platform, switchcfg.ErrNotSupported, wantCards[0], ModelVOQ, md["switch_type"])
		}
		return "", nil
	}
	if len(wantCards) == 0 {
		wantCards = systemPortCards(observed)
	}
	switch len(wantCards) {
	case 0:
		return "", nil
	case 1:
		return wantCards[0], nil
	}
	return "", fmt.Errorf("building the %s patch: %w: queues keyed by the system ports of %d line cards (%s) and no DEVICE_METADATA to tell which is the switch",
		Platform, switchcfg.ErrNotSupported, len(wantCards), strings.Join(wantCards, ", "))
}

// systemPortCards returns the line cards ("hostname|asic", as written,
// one per spelling that differs in more than case) db's system-port keys
// name, sorted.
func systemPortCards(db ConfigDB) []string {
	seen := map[string]string{}
	for _, t := range systemPortTables {
		for key := range db[t] {
			if card, _, ok := systemPortKey(key); ok {
				parts := strings.SplitN(key, "|", 3)
				seen[card] = parts[0] + "|" + parts[1]
			}
		}
	}
	return slices.Sorted(maps.Values(seen))
}

// cardView returns db with the system-port keys of line card (any line
// card when card is "") as local keys ("EthernetN|q") and every other
// QUEUE and BUFFER_QUEUE key left out; a missing table stays missing.
func cardView(db ConfigDB, card string) ConfigDB {
	out := maps.Clone(db)
	for _, t := range systemPortTables {
		if db[t] == nil {
			continue
		}
		tab := map[string]map[string]string{}
		for key, fields := range db[t] {
			c, local, ok := systemPortKey(key)
			switch {
			case ok && (card == "" || c == strings.ToLower(card)):
				tab[local] = fields
			case !ok && card == "":
				tab[key] = fields
			}
		}
		out[t] = tab
	}
	return out
}

// systemPortOps rewrites the QUEUE and BUFFER_QUEUE keys of ops (built on
// local keys) as line card's system-port keys.
func systemPortOps(ops []PatchOp, card string) []PatchOp {
	for i, op := range ops {
		parts, err := splitPointer(op.Path)
		if err != nil || !slices.Contains(systemPortTables, parts[0]) {
			continue
		}
		if len(parts) > 1 {
			parts[1] = card + "|" + parts[1]
			ops[i].Path = pointer(parts...)
			continue
		}
		if table, ok := op.Value.(map[string]map[string]string); ok {
			rekeyed := make(map[string]map[string]string, len(table))
			for k, v := range table {
				rekeyed[card+"|"+k] = v
			}
			ops[i].Value = rekeyed
		}
	}
	return ops
}

// buildPatch is BuildPatch on local queue keys.
func buildPatch(observed, desired ConfigDB) ([]PatchOp, error) {
	var adds, fields, removes []PatchOp
	ports := sortedKeys(desired[tPortQoSMap])
	for _, p := range ports {
		if _, ok := observed[tPort][p]; !ok {
			return nil, fmt.Errorf("building the %s patch: port %s is not in the switch's PORT table", Platform, p)
		}
	}

	for _, table := range ownedTables {
		for _, key := range sortedKeys(desired[table]) {
			want := desired[table][key]
			got, ok := observed[table][key]
			switch {
			case observed[table] == nil:
				adds = append(adds, PatchOp{Op: "add", Path: pointer(table), Value: desired[table]})
			case !ok:
				adds = append(adds, PatchOp{Op: "add", Path: pointer(table, key), Value: want})
			case !sameFields(want, got):
				adds = append(adds, PatchOp{Op: "replace", Path: pointer(table, key), Value: want})
			}
			if observed[table] == nil {
				break // the whole table was added
			}
		}
		var stale []PatchOp
		for _, key := range sortedKeys(observed[table]) {
			if strings.HasPrefix(key, Name) && desired[table][key] == nil {
				stale = append(stale, PatchOp{Op: "remove", Path: pointer(table, key)})
			}
		}
		if len(stale) > 0 && len(stale) == len(observed[table]) && len(desired[table]) == 0 {
			// Removing every entry would leave the table empty, which GCU
			// refuses ("will result in empty tables"): remove the table.
			stale = []PatchOp{{Op: "remove", Path: pointer(table)}}
		}
		removes = append(removes, stale...)
	}

	managedQueues := map[string]bool{}
	for key := range desired[tQueue] {
		managedQueues[key] = true
	}
	queueOwner := map[string]string{} // "port|q" → the observed key covering it
	for key := range observed[tQueue] {
		ps, qs, ok := splitKey(key)
		if !ok {
			continue
		}
		queues, err := expandQueues(qs)
		if err != nil {
			continue
		}
		for _, p := range expandPortList(ps) {
			for _, q := range queues {
				queueOwner[fmt.Sprintf("%s|%d", p, q)] = key
			}
		}
	}
	for key := range managedQueues {
		if owner, ok := queueOwner[key]; ok && owner != key {
			return nil, fmt.Errorf("building the %s patch: %w: QUEUE|%s is configured through QUEUE|%s; split that key into single queues first",
				Platform, switchcfg.ErrNotSupported, key, owner)
		}
	}

	if err := pfcwdAllowed(observed, desired); err != nil {
		return nil, err
	}
	for _, table := range []string{tPortQoSMap, tQueue, tPFCWD, tPort} {
		if observed[table] == nil && len(desired[table]) > 0 {
			adds = append(adds, PatchOp{Op: "add", Path: pointer(table), Value: desired[table]})
			continue
		}
		for _, key := range sortedKeys(desired[table]) {
			fields = append(fields, entryOps(observed, table, key, desired[table][key])...)
		}
	}
	// Watchdog off (pfcwd_sw_enable ""): remove the port's PFC_WD entry.
	var wdRemoved []string
	for _, p := range ports {
		if v, ok := desired[tPortQoSMap][p][fPFCWDSwEnable]; ok && v == "" && observed[tPFCWD][p] != nil {
			wdRemoved = append(wdRemoved, p)
		}
	}
	if len(wdRemoved) > 0 && len(wdRemoved) == len(observed[tPFCWD]) {
		removes = append(removes, PatchOp{Op: "remove", Path: pointer(tPFCWD)}) // it would be left empty
	} else {
		for _, p := range wdRemoved {
			removes = append(removes, PatchOp{Op: "remove", Path: pointer(tPFCWD, p)})
		}
	}
	fields = append(fields, cableOps(observed, desired)...)
	bq, err := bufferQueueOps(observed, desired)
	if err != nil {
		return nil, err
	}
	fields = append(fields, bq...)
	fields = append(fields, bufferPGOps(observed, desired)...)

	ops := append(append(adds, fields...), removes...)
	return ops, nil
}

// pfcwdAllowed refuses the watchdog changes the generic config updater
// refuses whatever the patch looks like: GCU validates the jsonpatch of
// old → new CONFIG_DB, and its PFC_WD validator
// (rdma_config_update_validator) takes only the fields action,
// detection_time, restoration_time, global/poll_interval and whole port
// entries, so creating the PFC_WD table or its GLOBAL entry fails (the
// field names come out as "Ethernet0", "GLOBAL/POLL_INTERVAL"), and
// removing PFC_WD|GLOBAL or its POLL_INTERVAL is an illegal operation.
// SONiC's own `pfcwd start_default` creates both (enable_pfcwd_on_start).
func pfcwdAllowed(observed, desired ConfigDB) error {
	wantPorts := false
	for key := range desired[tPFCWD] {
		wantPorts = wantPorts || key != pfcwdGlobal
	}
	if wantPorts && observed[tPFCWD] == nil {
		return fmt.Errorf("building the %s patch: %w: the switch has no PFC_WD table and GCU will not create one; start the watchdog once with `sudo pfcwd start_default`", Platform, ErrGCURefuses)
	}
	// sonic-pfcwd.yang: detection and restoration time >= POLL_INTERVAL,
	// also the switch's own when the intent sets none.
	if _, ok := desired[tPFCWD][pfcwdGlobal][fPollInterval]; !ok {
		if poll, err := strconv.Atoi(observed[tPFCWD][pfcwdGlobal][fPollInterval]); err == nil {
			for _, key := range sortedKeys(desired[tPFCWD]) {
				for _, f := range []string{"detection_time", "restoration_time"} {
					if v, err := strconv.Atoi(desired[tPFCWD][key][f]); err == nil && v < poll {
						return fmt.Errorf("building the %s patch: %w: PFC_WD|%s %s %d ms is below the switch's %d ms poll interval (sonic-pfcwd.yang); set the profile's pollInterval",
							Platform, switchcfg.ErrNotSupported, key, f, v, poll)
					}
				}
			}
		}
	}
	// The poll interval is the switch's: raised above the times of a port
	// the intent does not set, that port's entry breaks the same rule.
	if poll, err := strconv.Atoi(desired[tPFCWD][pfcwdGlobal][fPollInterval]); err == nil && desired[tPFCWD][pfcwdGlobal][fPollInterval] != observed[tPFCWD][pfcwdGlobal][fPollInterval] {
		var low []string
		for _, key := range sortedKeys(observed[tPFCWD]) {
			if key == pfcwdGlobal || desired[tPFCWD][key] != nil {
				continue
			}
			if v, ok := desired[tPortQoSMap][key][fPFCWDSwEnable]; ok && v == "" {
				continue // its watchdog goes with the patch
			}
			for _, f := range []string{"detection_time", "restoration_time"} {
				if v, err := strconv.Atoi(observed[tPFCWD][key][f]); err == nil && v < poll {
					low = append(low, fmt.Sprintf("PFC_WD|%s %s %d ms", key, f, v))
				}
			}
		}
		if len(low) > 0 {
			more := ""
			if len(low) > 3 {
				more = fmt.Sprintf(" and %d more", len(low)-3)
				low = low[:3]
			}
			return fmt.Errorf("building the %s patch: %w: the %d ms poll interval would exceed %s%s on ports outside the intent (sonic-pfcwd.yang: detection and restoration time >= POLL_INTERVAL); raise their times (`sudo pfcwd start --restoration-time MS PORTS DETECTION_MS`), add them to the switch's ports, or lower the profile's pollInterval",
				Platform, switchcfg.ErrNotSupported, poll, strings.Join(low, ", "), more)
		}
	}
	if _, ok := desired[tPFCWD][pfcwdGlobal][fPollInterval]; ok && observed[tPFCWD][pfcwdGlobal] == nil {
		return fmt.Errorf("building the %s patch: %w: the switch's PFC_WD table has no GLOBAL entry and GCU will not add one; set the poll interval once with `sudo pfcwd interval %s`",
			Platform, ErrGCURefuses, desired[tPFCWD][pfcwdGlobal][fPollInterval])
	}
	return nil
}

// portKeys returns the keys of table that belong to port ("Ethernet0|3-4"),
// with the part after the port.
func portKeys(db ConfigDB, table, port string) map[string]string {
	out := map[string]string{}
	for key := range db[table] {
		p, rest, ok := splitKey(key)
		if ok && p == port && !strings.Contains(rest, "|") {
			out[rest] = key
		}
	}
	return out
}

// bufferQueueOps makes each desired port's lossless queues, and only those,
// use the lossless buffer profile: the stock templates give it to queues
// 3-4 whatever pfc_enable says, so a lossless queue elsewhere would pause
// into a lossy buffer. Every queue the port's BUFFER_QUEUE keys covers
// keeps an entry; the others get egress_lossy_profile, in ranges. Ports
// without any BUFFER_QUEUE entry (no buffer configuration) are left alone.
func bufferQueueOps(observed, desired ConfigDB) ([]PatchOp, error) {
	var ops []PatchOp
	for _, p := range sortedKeys(desired[tPortQoSMap]) {
		have := portKeys(observed, tBufferQueue, p)
		if len(have) == 0 {
			continue
		}
		lossless := map[int]bool{}
		for r := range portKeys(desired, tBufferQueue, p) {
			qs, err := expandQueues(r)
			if err != nil {
				return nil, err
			}
			for _, q := range qs {
				lossless[q] = true
			}
		}
		covered := map[int]bool{}
		for r := range have {
			qs, err := switchcfg.ParseIntSet(r, 0, 15)
			if err != nil {
				return nil, fmt.Errorf("building the %s patch: %w: BUFFER_QUEUE|%s|%s", Platform, ErrSyntax, p, r)
			}
			for _, q := range qs {
				covered[q] = true
			}
		}
		var ll, ly []int
		for q := range covered {
			if lossless[q] {
				ll = append(ll, q)
			} else {
				ly = append(ly, q)
			}
		}
		for q := range lossless {
			if !covered[q] {
				ll = append(ll, q)
			}
		}
		want := map[string]string{}
		for _, r := range idRanges(ll) {
			want[r] = egressLossless
		}
		for _, r := range idRanges(ly) {
			want[r] = egressLossy
		}
		for _, r := range slices.Sorted(maps.Keys(have)) {
			if _, keep := want[r]; !keep {
				ops = append(ops, PatchOp{Op: "remove", Path: pointer(tBufferQueue, have[r])})
			}
		}
		for _, r := range slices.Sorted(maps.Keys(want)) {
			key := p + "|" + r
			switch got, ok := observed[tBufferQueue][key]; {
			case !ok:
				ops = append(ops, PatchOp{Op: "add", Path: pointer(tBufferQueue, key), Value: map[string]string{"profile": want[r]}})
			case want[r] == egressLossy && !strings.Contains(ref(got["profile"]), "lossless"):
				// a lossy queue keeps the lossy profile the switch gives it
			case ref(got["profile"]) != want[r]:
				ops = append(ops, PatchOp{Op: "replace", Path: pointer(tBufferQueue, key, "profile"), Value: want[r]})
			}
		}
	}
	return ops, nil
}

// bufferPGOps removes each desired port's lossless BUFFER_PG entries that
// pfc_enable no longer names: buffermgrd creates BUFFER_PG|port|<range>
// (ranges as generateIdListFromMap writes them) when pfc_enable changes and
// never deletes the old ones (sonic-swss cfgmgr/buffermgr.cpp
// doSpeedUpdateTask), so a stale |3-4 would keep its headroom and overlap
// the new entries. With the dynamic buffer model (DEVICE_METADATA
// buffer_model dynamic) nothing creates them: the lossless ranges are added
// with profile NULL, which buffermgrd-dyn sizes.
func bufferPGOps(observed, desired ConfigDB) []PatchOp {
	dynamic := observed[tMetadata]["localhost"]["buffer_model"] == "dynamic"
	var ops []PatchOp
	for _, p := range sortedKeys(desired[tPortQoSMap]) {
		have := portKeys(observed, tBufferPG, p)
		if len(have) == 0 && !dynamic {
			continue
		}
		prios, err := switchcfg.ParseIntSet(desired[tPortQoSMap][p]["pfc_enable"], 0, 7)
		if err != nil {
			continue
		}
		want := map[string]bool{}
		for _, r := range idRanges(prios) {
			want[r] = true
		}
		for _, r := range slices.Sorted(maps.Keys(have)) {
			if want[r] {
				continue
			}
			if prof := ref(observed[tBufferPG][have[r]]["profile"]); isLosslessProfile(prof) {
				ops = append(ops, PatchOp{Op: "remove", Path: pointer(tBufferPG, have[r])})
			}
		}
		if dynamic {
			for _, r := range slices.Sorted(maps.Keys(want)) {
				if _, ok := have[r]; !ok {
					ops = append(ops, PatchOp{Op: "add", Path: pointer(tBufferPG, p+"|"+r), Value: map[string]string{"profile": "NULL"}})
				}
			}
		}
	}
	return ops
}

// isLosslessProfile tells a lossless priority group's buffer profile:
// buffermgrd's pg_lossless_<speed>_<cable>_profile, the templates'
// ingress_lossless_profile, the dynamic model's NULL.
func isLosslessProfile(name string) bool {
	return name == "NULL" || strings.Contains(name, "lossless")
}

// entryOps patches the managed fields of table|key to want.
func entryOps(observed ConfigDB, table, key string, want map[string]string) []PatchOp {
	got, ok := observed[table][key]
	if !ok {
		return []PatchOp{{Op: "add", Path: pointer(table, key), Value: want}}
	}
	managed := managedFields[table]
	if key == pfcwdGlobal {
		managed = []string{fPollInterval}
	}
	var ops []PatchOp
	for _, f := range managed {
		w, wok := want[f]
		g, gok := got[f]
		if !wok && optionalFields[f] {
			continue
		}
		switch {
		case wok && !gok:
			ops = append(ops, PatchOp{Op: "add", Path: pointer(table, key, f), Value: w})
		case wok && w != g:
			ops = append(ops, PatchOp{Op: "replace", Path: pointer(table, key, f), Value: w})
		case !wok && gok:
			ops = append(ops, PatchOp{Op: "remove", Path: pointer(table, key, f)})
		}
	}
	return ops
}

// cableOps sets each port's cable length under the CABLE_LENGTH key that
// already holds it (SONiC keeps one per buffer template, usually AZURE).
func cableOps(observed, desired ConfigDB) []PatchOp {
	want := map[string]string{}
	for _, key := range sortedKeys(desired[tCableLength]) {
		for p, v := range desired[tCableLength][key] {
			want[p] = v
		}
	}
	if len(want) == 0 {
		return nil
	}
	if len(observed[tCableLength]) == 0 {
		return []PatchOp{{Op: "add", Path: pointer(tCableLength), Value: map[string]map[string]string{Name: want}}}
	}
	keys := sortedKeys(observed[tCableLength])
	var ops []PatchOp
	ports := make([]string, 0, len(want))
	for p := range want {
		ports = append(ports, p)
	}
	sort.Strings(ports)
	for _, p := range ports {
		holder := ""
		for _, k := range keys {
			if _, ok := observed[tCableLength][k][p]; ok {
				holder = k
				break
			}
		}
		switch {
		case holder == "":
			ops = append(ops, PatchOp{Op: "add", Path: pointer(tCableLength, keys[0], p), Value: want[p]})
		case observed[tCableLength][holder][p] != want[p]:
			ops = append(ops, PatchOp{Op: "replace", Path: pointer(tCableLength, holder, p), Value: want[p]})
		}
	}
	return ops
}

func sameFields(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// pointer builds an RFC 6901 JSON pointer.
func pointer(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(pointerEscape.Replace(p))
	}
	return b.String()
}

var pointerEscape = strings.NewReplacer("~", "~0", "/", "~1")

// PatchJSON prints ops as `config apply-patch` reads them.
func PatchJSON(ops []PatchOp) []byte {
	if ops == nil {
		ops = []PatchOp{}
	}
	b, _ := json.MarshalIndent(ops, "", "  ") // strings and maps of strings always marshal
	return append(b, '\n')
}

// ApplyPatch applies ops to db in place, as the switch would: the
// simulator's and the tests' model of `config apply-patch`. Paths must be
// one to three levels deep (table, key, field).
func ApplyPatch(db ConfigDB, ops []PatchOp) error {
	for i, op := range ops {
		parts, err := splitPointer(op.Path)
		if err != nil || len(parts) == 0 || len(parts) > 3 {
			return fmt.Errorf("applying patch op %d: bad path %q", i, op.Path)
		}
		table := parts[0]
		switch op.Op {
		case "remove":
			switch len(parts) {
			case 1:
				delete(db, table)
			case 2:
				delete(db[table], parts[1])
			case 3:
				delete(db[table][parts[1]], parts[2])
			}
			continue
		case "add", "replace":
		default:
			return fmt.Errorf("applying patch op %d: unknown op %q", i, op.Op)
		}
		b, err := json.Marshal(op.Value)
		if err != nil {
			return fmt.Errorf("applying patch op %d: %w", i, err)
		}
		switch len(parts) {
		case 1:
			var v map[string]map[string]string
			if err := json.Unmarshal(b, &v); err != nil {
				return fmt.Errorf("applying patch op %d: %s value: %w", i, op.Path, err)
			}
			db[table] = v
		case 2:
			var v map[string]string
			if err := json.Unmarshal(b, &v); err != nil {
				return fmt.Errorf("applying patch op %d: %s value: %w", i, op.Path, err)
			}
			if db[table] == nil {
				return fmt.Errorf("applying patch op %d: no table %s", i, table)
			}
			db[table][parts[1]] = v
		case 3:
			var v string
			if err := json.Unmarshal(b, &v); err != nil {
				return fmt.Errorf("applying patch op %d: %s value: %w", i, op.Path, err)
			}
			if db[table][parts[1]] == nil {
				return fmt.Errorf("applying patch op %d: no entry %s|%s", i, table, parts[1])
			}
			db[table][parts[1]][parts[2]] = v
		}
	}
	return nil
}

func splitPointer(p string) ([]string, error) {
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("pointer %q does not start with /", p)
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
	}
	return parts, nil
}
