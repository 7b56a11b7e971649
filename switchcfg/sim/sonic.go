package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/fabricctl/fabricctl/internal/intset"
)

// SONiC: a bash login shell. CONFIG_DB is changed with the generic config
// updater: "sudo config checkpoint NAME", "sudo config apply-patch [--dry-run]
// FILE" (an RFC 6902 patch, written to FILE with a here-document), "sudo
// config rollback NAME", and saved with "sudo config save -y"; "show
// runningconfiguration all" prints CONFIG_DB as JSON.

// sonicField validates one field value; nil accepts any string.
type sonicTable struct {
	key    *regexp.Regexp
	fields map[string]*regexp.Regexp // nil: any field; "*" matches any field name
	// refs name fields that must point at an existing entry of another table.
	refs map[string]string
}

var (
	reTC      = anchored(`[0-7]`)
	rePct     = anchored(`\d{1,2}|100`)
	reBytes   = anchored(`\d+`)
	reBool    = anchored(`true|false`)
	reName    = anchored(`[A-Za-z0-9][A-Za-z0-9_.\-]*`)
	rePort    = `Ethernet\d+`
	reAny     = anchored(`.*`)
	reTCList  = anchored(`(?:[0-7](?:,[0-7])*)?`) // sonic-port-qos-map.yang: pfc_enable, pfcwd_sw_enable
	reSeconds = anchored(`\d+`)
)

func mapTable(keyMax int) sonicTable {
	fields := map[string]*regexp.Regexp{}
	for i := 0; i <= keyMax; i++ {
		fields[strconv.Itoa(i)] = reTC
	}
	return sonicTable{key: reName, fields: fields}
}

var sonicSchema = sync.OnceValue(func() map[string]sonicTable {
	return map[string]sonicTable{
		"DEVICE_METADATA": {key: anchored(`localhost`)},
		"VERSIONS":        {key: anchored(`DATABASE`)},
		"PORT": {key: anchored(rePort), fields: map[string]*regexp.Regexp{
			"admin_status": anchored(`up|down`), "alias": reAny, "lanes": anchored(`\d+(?:,\d+)*`),
			"mtu": anchored(`\d{3,4}`), "speed": anchored(`\d+`), "fec": anchored(`none|rs|fc|auto`),
			"index": anchored(`\d+`), "description": reAny, "pfc_asym": anchored(`on|off`),
			"autoneg": anchored(`on|off`)}},
		"DSCP_TO_TC_MAP":                     mapTable(63),
		"DOT1P_TO_TC_MAP":                    mapTable(7),
		"TC_TO_QUEUE_MAP":                    mapTable(7),
		"TC_TO_PRIORITY_GROUP_MAP":           mapTable(7),
		"MAP_PFC_PRIORITY_TO_QUEUE":          mapTable(7),
		"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": mapTable(7),
		"PORT_QOS_MAP": {key: anchored(rePort + `|global`), fields: map[string]*regexp.Regexp{
			"dscp_to_tc_map": reName, "dot1p_to_tc_map": reName, "tc_to_queue_map": reName,
			"tc_to_pg_map": reName, "pfc_to_queue_map": reName, "pfc_to_pg_map": reName,
			"pfc_enable": reTCList, "pfcwd_sw_enable": reTCList, "scheduler": reName},
			refs: map[string]string{"dscp_to_tc_map": "DSCP_TO_TC_MAP", "dot1p_to_tc_map": "DOT1P_TO_TC_MAP",
				"tc_to_queue_map": "TC_TO_QUEUE_MAP", "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP",
				"pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE", "pfc_to_pg_map": "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
				"scheduler": "SCHEDULER"}},
		"WRED_PROFILE": {key: reName, fields: map[string]*regexp.Regexp{
			"ecn":               anchored(`ecn_none|ecn_green|ecn_yellow|ecn_red|ecn_green_yellow|ecn_green_red|ecn_yellow_red|ecn_all`),
			"wred_green_enable": reBool, "wred_yellow_enable": reBool, "wred_red_enable": reBool,
			"green_min_threshold": reBytes, "green_max_threshold": reBytes, "green_drop_probability": rePct,
			"yellow_min_threshold": reBytes, "yellow_max_threshold": reBytes, "yellow_drop_probability": rePct,
			"red_min_threshold": reBytes, "red_max_threshold": reBytes, "red_drop_probability": rePct}},
		"QUEUE": {key: anchored(rePort + `\|[0-7](?:-[0-7])?`), fields: map[string]*regexp.Regexp{
			"scheduler": reName, "wred_profile": reName, "buffer_profile": reName},
			refs: map[string]string{"scheduler": "SCHEDULER", "wred_profile": "WRED_PROFILE"}},
		"SCHEDULER": {key: reName, fields: map[string]*regexp.Regexp{
			"type": anchored(`DWRR|WRR|STRICT`), "weight": anchored(`\d{1,3}`), "priority": anchored(`\d+`),
			"meter_type": anchored(`packets|bytes`), "cir": reBytes, "cbs": reBytes, "pir": reBytes, "pbs": reBytes}},
		"PFC_WD": {key: anchored(rePort + `|GLOBAL`), fields: map[string]*regexp.Regexp{
			"action": anchored(`drop|forward|alert`), "detection_time": reSeconds, "restoration_time": reSeconds,
			"POLL_INTERVAL": reSeconds, "pfc_stat_history": anchored(`enable|disable`)}},
		"BUFFER_POOL":    {key: reName},
		"BUFFER_PROFILE": {key: reName},
		// sonic-buffer-pg.yang: pg_num [0-7](-[0-7])?, profile a BUFFER_PROFILE or NULL;
		// sonic-buffer-queue.yang: qindex (1[0-5]|[0-9])(-…)?.
		"BUFFER_PG": {key: anchored(rePort + `\|[0-7](?:-[0-7])?`), fields: map[string]*regexp.Regexp{"profile": reAny},
			refs: map[string]string{"profile": "BUFFER_PROFILE"}},
		"BUFFER_QUEUE": {key: anchored(rePort + `\|(?:1[0-5]|[0-9])(?:-(?:1[0-5]|[0-9]))?`), fields: map[string]*regexp.Regexp{"profile": reAny},
			refs: map[string]string{"profile": "BUFFER_PROFILE"}},
		"CABLE_LENGTH":       {key: reName},
		"FLEX_COUNTER_TABLE": {key: reName},
	}
})

// emptyTablesError is GCU's refusal of a patch that leaves a table empty
// (an empty table cannot exist in CONFIG_DB's Redis).
type emptyTablesError struct{ tables []string }

func (e *emptyTablesError) Error() string { return "device refused: " + e.text() }

func (e *emptyTablesError) text() string {
	s := ""
	if len(e.tables) != 1 {
		s = "s"
	}
	return "Given patch is not valid because it will result in empty tables which is not allowed in ConfigDb. Table" +
		s + ": " + strings.Join(e.tables, ", ")
}

// validateConfigDB checks a whole CONFIG_DB the way GCU does before applying
// a patch: no empty tables, then its YANG validation for the tables fabricctl
// touches. It returns the first problem.
func validateConfigDB(db map[string]any) error {
	var empty []string
	for _, table := range sortedMapKeys(db) {
		if m, ok := db[table].(map[string]any); ok && len(m) == 0 {
			empty = append(empty, table)
		}
	}
	if len(empty) > 0 {
		return &emptyTablesError{empty}
	}
	for _, table := range sortedMapKeys(db) {
		schema, known := sonicSchema()[table]
		if !known {
			return refusal("Data Loading Failed\nTable %s is not modelled by any YANG model", table)
		}
		entries, ok := db[table].(map[string]any)
		if !ok {
			return refusal("Data Loading Failed\nTable %s is not an object", table)
		}
		for _, key := range sortedMapKeys(entries) {
			if !schema.key.MatchString(key) {
				return refusal("Data Loading Failed\nInvalid key %q in table %s", key, table)
			}
			if strings.HasPrefix(key, "Ethernet") && table != "PORT" {
				port, _, _ := strings.Cut(key, "|")
				if ports, _ := db["PORT"].(map[string]any); ports[port] == nil {
					return refusal("Data Loading Failed\nLeafref \"/sonic-port:sonic-port/PORT/PORT_LIST/name\" of value %q points to a non-existing leaf (%s|%s)", port, table, key)
				}
			}
			fields, ok := entries[key].(map[string]any)
			if !ok {
				return refusal("Data Loading Failed\nEntry %s|%s is not an object", table, key)
			}
			for _, f := range sortedMapKeys(fields) {
				s, isStr := fields[f].(string)
				if !isStr {
					if _, isList := fields[f].([]any); !isList {
						return refusal("Data Loading Failed\n%s|%s field %s must be a string", table, key, f)
					}
					continue
				}
				if schema.fields != nil {
					re, known := schema.fields[f]
					if !known {
						return refusal("Data Loading Failed\nField %s is not allowed in %s|%s", f, table, key)
					}
					if !re.MatchString(s) {
						return refusal("Data Loading Failed\nValue %q of %s|%s field %s does not satisfy the YANG pattern", s, table, key, f)
					}
				}
				if target, ok := schema.refs[f]; ok && !(table == "BUFFER_PG" && s == "NULL") {
					t, _ := db[target].(map[string]any)
					if t[s] == nil {
						return refusal("Data Loading Failed\nLeafref of %s|%s field %s value %q points to a non-existing %s entry", table, key, f, s, target)
					}
				}
			}
		}
	}
	return pfcwdYANG(db)
}

// pfcwdYANG checks sonic-pfcwd.yang's ranges: POLL_INTERVAL 100..1000,
// detection_time 100..5000, restoration_time 100..60000, and both times at
// least the GLOBAL POLL_INTERVAL.
func pfcwdYANG(db map[string]any) error {
	wd, _ := db["PFC_WD"].(map[string]any)
	num := func(m map[string]any, f string) (int, bool) {
		s, _ := m[f].(string)
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	global, _ := wd["GLOBAL"].(map[string]any)
	poll, hasPoll := num(global, "POLL_INTERVAL")
	if hasPoll && (poll < 100 || poll > 1000) {
		return refusal("Data Loading Failed\nPFC_WD|GLOBAL POLL_INTERVAL %d is outside the range 100..1000", poll)
	}
	for _, key := range sortedMapKeys(wd) {
		e, _ := wd[key].(map[string]any)
		for _, r := range []struct {
			f      string
			lo, hi int
		}{{"detection_time", 100, 5000}, {"restoration_time", 100, 60000}} {
			n, ok := num(e, r.f)
			if !ok {
				continue
			}
			if n < r.lo || n > r.hi {
				return refusal("Data Loading Failed\nPFC_WD|%s %s %d is outside the range %d..%d", key, r.f, n, r.lo, r.hi)
			}
			if hasPoll && n < poll {
				return refusal("Data Loading Failed\n%s must be greater than or equal to POLL_INTERVAL", r.f)
			}
		}
	}
	return nil
}

// gcuFieldOperations is GCU's check of what a patch does to PFC_WD
// (sonic-utilities generic_config_updater: validate_field_operation on
// jsonpatch.from_diff(old, new), with rdma_config_update_validator and the
// illegal removals): the table and its GLOBAL entry cannot be created,
// GLOBAL and its POLL_INTERVAL cannot be removed, and nothing of PFC_WD
// changes on a switch whose hwsku GCU does not know.
func gcuFieldOperations(old, next map[string]any) error {
	ow, oldHas := old["PFC_WD"].(map[string]any)
	nw, newHas := next["PFC_WD"].(map[string]any)
	og, _ := ow["GLOBAL"].(map[string]any)
	ng, _ := nw["GLOBAL"].(map[string]any)
	illegal := func(field string) error {
		return refusal("Given patch operation is invalid. Operation: remove is illegal on field: %s", field)
	}
	validator := refusal("Modification of PFC_WD table is illegal- validating function generic_config_updater.field_operation_validators.rdma_config_update_validator returned False")
	switch {
	case newHas && og != nil && ng == nil: // (removing the whole table is one "remove /PFC_WD", allowed)
		return illegal("/PFC_WD/GLOBAL")
	case og != nil && og["POLL_INTERVAL"] != nil && ng != nil && ng["POLL_INTERVAL"] == nil:
		return illegal("/PFC_WD/GLOBAL/POLL_INTERVAL")
	case !oldHas && newHas, og == nil && ng != nil:
		return validator
	}
	if dbJSON(map[string]any{"w": ow}) != dbJSON(map[string]any{"w": nw}) && gcuASIC(old) == "" {
		return validator
	}
	return nil
}

// gcuASIC is the ASIC GCU finds for the switch's hwsku (a few of
// gcu_field_operation_validators.conf.json's), "" when it knows none.
func gcuASIC(db map[string]any) string {
	meta, _ := db["DEVICE_METADATA"].(map[string]any)
	local, _ := meta["localhost"].(map[string]any)
	hwsku, _ := local["hwsku"].(string)
	for prefix, asic := range map[string]string{"Mellanox-SN4600C": "spc3", "Mellanox-SN5600": "spc4", "Arista-7050CX3": "td3",
		"Arista-7060X6": "th5", "Arista-7260CX3": "th2"} {
		if strings.HasPrefix(hwsku, prefix) {
			return asic
		}
	}
	return ""
}

// buffermgrd is what SONiC's buffer manager does with a port's new
// pfc_enable in the traditional buffer model (sonic-swss
// cfgmgr/buffermgr.cpp doSpeedUpdateTask): it sets BUFFER_PG|port|<range>
// (ranges as generateIdListFromMap writes them) to the lossless profile of
// the port's speed and cable length, and never deletes the old ranges.
func buffermgrd(old, next map[string]any) {
	meta, _ := next["DEVICE_METADATA"].(map[string]any)
	local, _ := meta["localhost"].(map[string]any)
	if local["buffer_model"] != "traditional" {
		return
	}
	oq, _ := old["PORT_QOS_MAP"].(map[string]any)
	nq, _ := next["PORT_QOS_MAP"].(map[string]any)
	pgs, _ := next["BUFFER_PG"].(map[string]any)
	profiles, _ := next["BUFFER_PROFILE"].(map[string]any)
	if pgs == nil || profiles[sonicLosslessPG] == nil {
		return
	}
	for _, port := range sortedMapKeys(nq) {
		np, _ := nq[port].(map[string]any)
		op, _ := oq[port].(map[string]any)
		pfc, _ := np["pfc_enable"].(string)
		if was, _ := op["pfc_enable"].(string); was == pfc || pfc == "" {
			continue
		}
		var ids []int
		for _, f := range strings.Split(pfc, ",") {
			if n, err := strconv.Atoi(f); err == nil {
				ids = append(ids, n)
			}
		}
		for _, r := range intset.Runs(ids) {
			pgs[port+"|"+r.String()] = map[string]any{"profile": sonicLosslessPG}
		}
	}
}

// sonicLosslessPG is the profile buffermgrd names for a 100G port with 5 m
// of cable (pg_lossless_<speed>_<cable>_profile).
const sonicLosslessPG = "pg_lossless_100000_5m_profile"

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

type sonic struct {
	env         *env
	db          map[string]any
	startup     map[string]any
	checkpoints map[string]map[string]any
	files       map[string]string // the simulated file system (/tmp, ...)
	tmpSeq      int
}

func newSONiC(e *env) device {
	d := &sonic{env: e, checkpoints: map[string]map[string]any{}, files: map[string]string{}}
	ports := map[string]any{}
	for i := 0; i < 32; i++ {
		ports["Ethernet"+strconv.Itoa(4*i)] = map[string]any{
			"admin_status": "up", "alias": "etp" + strconv.Itoa(i+1), "index": strconv.Itoa(i + 1),
			"lanes": fmt.Sprintf("%d,%d,%d,%d", 4*i, 4*i+1, 4*i+2, 4*i+3), "mtu": "9100", "speed": "100000"}
	}
	// What a fresh SONiC has besides its ports: the PFC watchdog that
	// `pfcwd start_default` starts (enable_pfcwd_on_start), and the stock
	// buffers of buffers_config.j2 (queues 3-4 lossless, the rest lossy,
	// priority group 0 lossy). The hwsku is one GCU knows, by model.
	hwsku := "Arista-7050CX3-32S-C32"
	if e.model == "mellanox" {
		hwsku = "Mellanox-SN4600C-C64"
	}
	wd := map[string]any{"GLOBAL": map[string]any{"POLL_INTERVAL": "200"}}
	queues, pgs := map[string]any{}, map[string]any{}
	for name := range ports {
		wd[name] = map[string]any{"action": "drop", "detection_time": "200", "restoration_time": "200"}
		queues[name+"|0-2"] = map[string]any{"profile": "egress_lossy_profile"}
		queues[name+"|3-4"] = map[string]any{"profile": "egress_lossless_profile"}
		queues[name+"|5-6"] = map[string]any{"profile": "egress_lossy_profile"}
		pgs[name+"|0"] = map[string]any{"profile": "ingress_lossy_profile"}
	}
	d.db = map[string]any{
		"DEVICE_METADATA": map[string]any{"localhost": map[string]any{
			"hostname": e.hostname, "hwsku": hwsku, "platform": "x86_64-fabricctl_sim-r0",
			"mac": "52:54:00:12:34:56", "type": "LeafRouter", "buffer_model": "traditional", "default_pfcwd_status": "enable"}},
		"PORT":   ports,
		"PFC_WD": wd,
		// A real CONFIG_DB carries its schema version; 202405's tells a
		// reader that a PFC_WD entry without pfcwd_sw_enable watches nothing.
		"VERSIONS": map[string]any{"DATABASE": map[string]any{"VERSION": "version_202405_01"}},
		"BUFFER_POOL": map[string]any{
			"ingress_lossless_pool": map[string]any{"mode": "dynamic", "size": "12766208", "type": "ingress"},
			"egress_lossless_pool":  map[string]any{"mode": "static", "size": "12766208", "type": "egress"},
			"egress_lossy_pool":     map[string]any{"mode": "dynamic", "size": "7326924", "type": "egress"}},
		"BUFFER_PROFILE": map[string]any{
			"ingress_lossy_profile":   map[string]any{"dynamic_th": "3", "pool": "ingress_lossless_pool", "size": "0"},
			"egress_lossless_profile": map[string]any{"pool": "egress_lossless_pool", "size": "0", "static_th": "12766208"},
			"egress_lossy_profile":    map[string]any{"dynamic_th": "3", "pool": "egress_lossy_pool", "size": "1518"},
			sonicLosslessPG: map[string]any{"pool": "ingress_lossless_pool", "size": "56368", "xoff": "55120", "xon": "18432",
				"dynamic_th": "-3"}},
		"BUFFER_QUEUE": queues,
		"BUFFER_PG":    pgs,
	}
	d.startup = deepCopyAny(d.db).(map[string]any)
	return d
}

func (d *sonic) defaultUser() string { return "admin" }
func (d *sonic) banner() string {
	return "Debian GNU/Linux 12 -- SONiC Software Version: SONiC.202405 SIMULATOR (fabricctl test double)\n"
}

// apply takes one JSON patch document (the lines are joined).
func (d *sonic) apply(lines []string) error {
	ops, err := parsePatch([]byte(strings.Join(lines, "\n")))
	if err != nil {
		return err
	}
	next, err := applyPatch(d.db, ops)
	if err != nil {
		return err
	}
	if err := validateConfigDB(next); err != nil {
		return err
	}
	d.db = next
	return nil
}

func (d *sonic) readback() string { return dbJSON(d.db) }

// dbJSON prints CONFIG_DB like sonic-cfggen --print-data (4-space indent, sorted keys).
func dbJSON(db map[string]any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	_ = enc.Encode(db)
	return b.String()
}

type sonicShell struct {
	d    *sonic
	user string
	// here-document in progress
	heredoc   []string
	delimiter string
	pending   func(stdin string) reply
}

func (d *sonic) newShell(user string) shell { return &sonicShell{d: d, user: user} }

func (s *sonicShell) prompt() string {
	if s.pending != nil {
		return "> "
	}
	return s.user + "@" + s.d.env.hostname + ":~$ "
}

func (s *sonicShell) eof(line string) reply {
	if s.pending == nil && strings.TrimSpace(line) == "" {
		return reply{out: "logout", exit: true}
	}
	return reply{}
}

func (s *sonicShell) reject(line string) string {
	f := strings.Fields(line)
	switch {
	case strings.Contains(line, "config apply-patch"):
		return "Failed to apply patch due to: Given patch will produce invalid config. Error: rejected (simulator fault)"
	case strings.Contains(line, "config "):
		return "Error: rejected (simulator fault)"
	case len(f) > 0:
		return "-bash: " + f[0] + ": command not found"
	}
	return ""
}

var heredocRe = regexp.MustCompile(`<<-?\s*(?:'([^']+)'|"([^"]+)"|(\w+))`)

func (s *sonicShell) exec(raw string) reply {
	if s.pending != nil {
		if strings.TrimSpace(raw) == s.delimiter {
			body := strings.Join(s.heredoc, "\n")
			if len(s.heredoc) > 0 {
				body += "\n"
			}
			run := s.pending
			s.pending, s.heredoc = nil, nil
			return run(body)
		}
		s.heredoc = append(s.heredoc, raw)
		return reply{}
	}
	line := strings.TrimSpace(raw)
	if m := heredocRe.FindStringSubmatchIndex(line); m != nil {
		delim := ""
		for g := 1; g <= 3; g++ {
			if m[2*g] >= 0 {
				delim = line[m[2*g]:m[2*g+1]]
			}
		}
		cmd := strings.TrimSpace(line[:m[0]] + " " + line[m[1]:])
		s.delimiter = delim
		s.pending = func(stdin string) reply { return s.run(cmd, stdin) }
		return reply{}
	}
	return s.run(line, "")
}

// run executes one simple command line with stdin.
func (s *sonicShell) run(line, stdin string) reply {
	d := s.d
	args, redirect, appendTo, err := shellSplit(line)
	if err != nil {
		return fail("-bash: " + err.Error())
	}
	if len(args) == 0 {
		return reply{}
	}
	sudo := false
	if args[0] == "sudo" {
		sudo, args = true, args[1:]
		if len(args) == 0 {
			return fail("usage: sudo command")
		}
	}
	var r reply
	switch args[0] {
	case "exit", "logout":
		return reply{exit: true}
	case "export", "true", ":", "cd":
		r = reply{}
	case "echo":
		r = say(strings.Join(args[1:], " ") + "\n")
	case "cat", "tee":
		if len(args) == 1 || args[0] == "tee" {
			r = say(stdin)
			if args[0] == "tee" && len(args) > 1 {
				d.files[args[len(args)-1]] = stdin
			}
			break
		}
		var out strings.Builder
		for _, f := range args[1:] {
			c, ok := d.files[f]
			if !ok {
				return fail("cat: " + f + ": No such file or directory")
			}
			out.WriteString(c)
		}
		r = say(out.String())
	case "rm":
		for _, f := range args[1:] {
			if strings.HasPrefix(f, "-") {
				continue
			}
			if _, ok := d.files[f]; !ok && !strings.Contains(line, "-f") {
				return fail("rm: cannot remove '" + f + "': No such file or directory")
			}
			delete(d.files, f)
		}
	case "mktemp":
		d.tmpSeq++
		name := fmt.Sprintf("/tmp/tmp.sim%06d", d.tmpSeq)
		d.files[name] = ""
		r = say(name + "\n")
	case "show":
		r = s.show(args[1:])
	case "config":
		if !sudo {
			return fail("Root privileges are required for this operation")
		}
		r = s.config(args[1:])
	default:
		return fail("-bash: " + args[0] + ": command not found")
	}
	if redirect != "" {
		if appendTo {
			d.files[redirect] += r.out
		} else {
			d.files[redirect] = r.out
		}
		r.out = ""
	}
	return r
}

// shellSplit splits a command line into words (single and double quotes) and
// a final "> file" / ">> file" redirection.
func shellSplit(line string) (args []string, redirect string, appendTo bool, err error) {
	var cur strings.Builder
	inWord, quote := false, rune(0)
	var words []string
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '>':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			if n := len(words); n > 0 && words[n-1] == ">" {
				words[n-1] = ">>"
			} else {
				words = append(words, ">")
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, "", false, fmt.Errorf("unexpected EOF while looking for matching `%c'", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	for i := 0; i < len(words); i++ {
		if words[i] == ">" || words[i] == ">>" {
			if i+1 >= len(words) {
				return nil, "", false, fmt.Errorf("syntax error near unexpected token `newline'")
			}
			redirect, appendTo = words[i+1], words[i] == ">>"
			i++
			continue
		}
		args = append(args, words[i])
	}
	return args, redirect, appendTo, nil
}

func (s *sonicShell) show(args []string) reply {
	if r, ok := s.d.env.congestionReply("show " + strings.Join(args, " ")); ok {
		return r
	}
	switch strings.Join(args, " ") {
	case "runningconfiguration all":
		return say(dbJSON(s.d.db))
	case "startupconfiguration all":
		return say(dbJSON(s.d.startup))
	case "version":
		return say("SONiC Software Version: SONiC.202405 SIMULATOR\nHwSKU: fabricctl-SIMULATOR\n")
	case "lldp table":
		ns, err := s.d.env.neighbors()
		if err != nil {
			return fail("Error: LLDP table unavailable: " + err.Error())
		}
		return say(lldpTable(ns))
	case "interfaces counters":
		ps, err := s.d.env.portErrors()
		if err != nil {
			return fail("Error: COUNTERS_DB unavailable: " + err.Error())
		}
		return say(portstatTable(ps))
	}
	return fail("Usage: show [OPTIONS] COMMAND [ARGS]...\nTry \"show -h\" for help.\n\nError: No such command \"" +
		strings.Join(args, " ") + "\".")
}

// gcu prefixes the Patch Applier's log lines; scope is "localhost".
const gcu = "Patch Applier"

func (s *sonicShell) config(args []string) reply {
	d := s.d
	usage := func(msg string) reply {
		return fail("Usage: config [OPTIONS] COMMAND [ARGS]...\nTry \"config -h\" for help.\n\nError: " + msg)
	}
	if len(args) == 0 {
		return usage("Missing command.")
	}
	switch args[0] {
	case "checkpoint":
		if len(args) != 2 {
			return usage("Missing argument \"CHECKPOINT_NAME\".")
		}
		d.checkpoints[args[1]] = deepCopyAny(d.db).(map[string]any)
		return say("Config Rollbacker: Config checkpoint starting.\nConfig Rollbacker: Checkpoint name: " + args[1] +
			".\nConfig Rollbacker: Getting current config db.\nConfig Rollbacker: Getting checkpoint full-path.\n" +
			"Config Rollbacker: Ensuring checkpoint directory exist.\nConfig Rollbacker: Saving config db content to /etc/sonic/checkpoints/" +
			args[1] + ".cp.json.\nConfig Rollbacker: Config checkpoint completed.\nCheckpoint created successfully.")
	case "delete-checkpoint":
		if len(args) != 2 {
			return usage("Missing argument \"CHECKPOINT_NAME\".")
		}
		if _, ok := d.checkpoints[args[1]]; !ok {
			return fail("Failed to delete checkpoint due to: Checkpoint '" + args[1] + "' does not exist\n" +
				"Error: Checkpoint '" + args[1] + "' does not exist")
		}
		delete(d.checkpoints, args[1])
		return say("Checkpoint deleted successfully.")
	case "list-checkpoints":
		names := make([]any, 0, len(d.checkpoints))
		for _, n := range sortedMapKeys(func() map[string]any {
			m := map[string]any{}
			for k := range d.checkpoints {
				m[k] = true
			}
			return m
		}()) {
			names = append(names, n)
		}
		return say(jsonText(names))
	case "rollback":
		if len(args) != 2 {
			return usage("Missing argument \"CHECKPOINT_NAME\".")
		}
		cp, ok := d.checkpoints[args[1]]
		if !ok {
			return fail("Config Rollbacker: Config rollbacking starting.\nConfig Rollbacker: Checkpoint name: " + args[1] +
				".\nFailed to rollback config due to: Checkpoint '" + args[1] + "' does not exist\n" +
				"Error: Checkpoint '" + args[1] + "' does not exist")
		}
		d.db = deepCopyAny(cp).(map[string]any)
		d.env.stats.Rollbacks++
		return say("Config Rollbacker: Config rollbacking starting.\nConfig Rollbacker: Checkpoint name: " + args[1] +
			".\nConfig Rollbacker: Verifying '" + args[1] + "' exists.\nConfig Rollbacker: Loading checkpoint into memory.\n" +
			"Config Rollbacker: Replacing config using 'Config Replacer'.\nConfig Rollbacker: Config rollbacking completed.\n" +
			"Config rolled back successfully.")
	case "save":
		if len(args) != 2 || (args[1] != "-y" && args[1] != "--yes") {
			return fail("Existing files will be overwritten, continue? [y/N]: Aborted!")
		}
		d.startup = deepCopyAny(d.db).(map[string]any)
		d.env.stats.Saves++
		return say("Running command: /usr/local/bin/sonic-cfggen -d --print-data > /etc/sonic/config_db.json")
	case "apply-patch":
		return s.applyPatch(args[1:])
	}
	return usage("No such command \"" + args[0] + "\".")
}

func (s *sonicShell) applyPatch(args []string) reply {
	d := s.d
	dry := false
	file := ""
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-d", "--dry-run":
			dry = true
		case "-f", "--format":
			if i+1 >= len(args) || (args[i+1] != "CONFIGDB" && args[i+1] != "SONICYANG") {
				return fail("Error: Invalid value for \"-f\" / \"--format\"")
			}
			i++
		case "-i", "--ignore-path", "-p", "--parallel", "-n", "--ignore-non-yang-tables", "-v", "--verbose":
			if args[i] == "-i" || args[i] == "--ignore-path" {
				i++
			}
		default:
			if file != "" {
				return fail("Error: Got unexpected extra argument (" + args[i] + ")")
			}
			file = args[i]
		}
	}
	if file == "" {
		return fail("Usage: config apply-patch [OPTIONS] PATCH_FILE_PATH\n\nError: Missing argument \"PATCH_FILE_PATH\".")
	}
	content, ok := d.files[file]
	if !ok {
		return fail("Usage: config apply-patch [OPTIONS] PATCH_FILE_PATH\n\nError: Invalid value for \"PATCH_FILE_PATH\": Path \"" +
			file + "\" does not exist.")
	}
	failed := func(why string) reply {
		return fail("Failed to apply patch due to: " + why + "\nUsage: config apply-patch [OPTIONS] PATCH_FILE_PATH\n" +
			"Try \"config apply-patch -h\" for help.\n\nError: " + why)
	}
	ops, err := parsePatch([]byte(content))
	if err != nil {
		return failed(err.Error())
	}
	compact, _ := json.Marshal(ops)
	var out strings.Builder
	out.WriteString(gcu + ": localhost: Patch application starting.\n")
	out.WriteString(gcu + ": localhost: Patch: " + string(compact) + "\n")
	out.WriteString(gcu + ": localhost getting current config db.\n")
	out.WriteString(gcu + ": localhost: simulating the target full config after applying the patch.\n")
	next, err := applyPatch(d.db, ops)
	if err != nil {
		return failed(err.Error())
	}
	out.WriteString(gcu + ": localhost: validating all JsonPatch operations are permitted on the specified fields\n")
	if err := gcuFieldOperations(d.db, next); err != nil {
		return reply{out: out.String() + failed(says(err)).out, failed: true}
	}
	out.WriteString(gcu + ": localhost: validating target config does not have empty tables, since they do not show up in ConfigDb.\n")
	if err := validateConfigDB(next); err != nil {
		why := "Given patch will produce invalid config. Error: " + says(err)
		if et, empty := err.(*emptyTablesError); empty {
			why = et.text()
		}
		return reply{out: out.String() + failed(why).out, failed: true}
	}
	out.WriteString(gcu + ": localhost: sorting patch updates.\n")
	changes := leafChanges(d.db, next, "")
	n := len(changes)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	colon := "."
	if n > 0 {
		colon = ":"
	}
	fmt.Fprintf(&out, "%s: The localhost patch was converted into %d change%s%s\n", gcu, n, plural, colon)
	for _, c := range changes {
		out.WriteString(gcu + ":   * " + c + "\n")
	}
	fmt.Fprintf(&out, "%s: localhost: applying %d change%s in order%s\n", gcu, n, plural, colon)
	for _, c := range changes {
		out.WriteString(gcu + ":   * " + c + "\n")
	}
	out.WriteString(gcu + ": localhost: verifying patch updates are reflected on ConfigDB.\n")
	out.WriteString(gcu + ": localhost: patch application completed.\n")
	out.WriteString("Patch applied successfully.")
	if !dry {
		if n > 0 {
			d.env.stats.Commits++
		}
		buffermgrd(d.db, next)
		d.db = next
	}
	return say(out.String())
}
