package sim

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Cumulus Linux NVUE: "nv set"/"nv unset" stage changes in the user's pending
// revision, "nv config diff" shows pending against applied, "nv config apply
// -y [--confirm <t>]" applies (a confirmed apply rolls back unless "nv config
// apply --confirm-yes" keeps it in time; a plain "nv config apply -y" does not
// confirm: NVIDIA's NVUE reference documents the --confirm option family,
// napalm-cumulus and NVIDIA's training confirm with --confirm-yes), "nv
// config detach" discards the pending revision, "nv config show -o json"
// prints the applied revision. An apply whose traffic pools take more than
// 100 % of the buffer is refused ("The total memory allocation across pools
// must not exceed 100%", Cumulus Linux QoS, Flow Control Buffers).

// obj is an NVUE configuration object (a JSON tree).
type obj = map[string]any

// nvDef is one element of the NVUE path schema.
type nvDef struct {
	kw   string
	kind int // nvContainer, nvCollection, nvLeaf
	// name validates one collection key (after list/range expansion) or a leaf value.
	name   func(string) error
	expand func(string) ([]string, error) // collection keys: "swp1-4,swp6" → swp1..swp4 swp6
	number bool                           // leaf values are stored as JSON numbers
	kids   []*nvDef
	// created is merged into a new collection entry (NVUE sets an
	// interface's type itself).
	created obj
}

const (
	nvContainer = iota
	nvCollection
	nvLeaf
)

func nvC(kw string, kids ...*nvDef) *nvDef { return &nvDef{kw: kw, kind: nvContainer, kids: kids} }
func nvColl(kw string, expand func(string) ([]string, error), kids ...*nvDef) *nvDef {
	return &nvDef{kw: kw, kind: nvCollection, expand: expand, kids: kids}
}
func nvInt(kw string, lo, hi int) *nvDef {
	return &nvDef{kw: kw, kind: nvLeaf, number: true, name: func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("'%s' is not an integer between %d and %d", v, lo, hi)
		}
		return nil
	}}
}
func nvEnum(kw string, vals ...string) *nvDef {
	return &nvDef{kw: kw, kind: nvLeaf, name: func(v string) error {
		for _, x := range vals {
			if v == x {
				return nil
			}
		}
		return fmt.Errorf("'%s' is not one of [%s]", v, strings.Join(vals, ", "))
	}}
}
func nvStr(kw, pattern string) *nvDef {
	re := anchored(pattern)
	return &nvDef{kw: kw, kind: nvLeaf, name: func(v string) error {
		if !re.MatchString(v) {
			return fmt.Errorf("'%s' is not a valid %s", v, kw)
		}
		return nil
	}}
}

// intList expands "0-3,5" within [lo, hi].
func intList(lo, hi int) func(string) ([]string, error) {
	return func(s string) ([]string, error) {
		var out []string
		for _, part := range strings.Split(s, ",") {
			a, b, isRange := strings.Cut(part, "-")
			x, err1 := strconv.Atoi(a)
			y := x
			var err2 error
			if isRange {
				y, err2 = strconv.Atoi(b)
			}
			if err1 != nil || err2 != nil || x < lo || y > hi || x > y {
				return nil, fmt.Errorf("'%s' is not a list of integers between %d and %d", s, lo, hi)
			}
			for v := x; v <= y; v++ {
				out = append(out, strconv.Itoa(v))
			}
		}
		return out, nil
	}
}

// maxRange bounds one interface range ("swp1-4"): a switch has at most a few
// hundred ports, and a typo must not make the simulator build millions.
const maxRange = 1024

var nvIfRe = regexp.MustCompile(`^(swp|eth|bond|vlan)(\d+)(?:s(\d+))?(?:-(\d+))?$`)

// ifList expands "swp1-4,swp6,swp7s0-3,eth0,lo".
func ifList(s string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part == "lo" {
			out = append(out, part)
			continue
		}
		m := nvIfRe.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("'%s' is not a valid interface name or range", part)
		}
		if m[4] == "" {
			out = append(out, part)
			continue
		}
		lo, _ := strconv.Atoi(m[2])
		hi, _ := strconv.Atoi(m[4])
		if m[3] != "" { // swp7s0-3: range over the breakout
			lo, _ = strconv.Atoi(m[3])
		}
		if hi < lo || hi-lo >= maxRange {
			return nil, fmt.Errorf("'%s' is not a valid interface range", part)
		}
		for v := lo; v <= hi; v++ {
			if m[3] != "" {
				out = append(out, fmt.Sprintf("%s%ss%d", m[1], m[2], v))
			} else {
				out = append(out, fmt.Sprintf("%s%d", m[1], v))
			}
		}
	}
	return out, nil
}

func nameList(s string) ([]string, error) {
	if !regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_\-]*$`).MatchString(s) {
		return nil, fmt.Errorf("'%s' is not a valid name", s)
	}
	return []string{s}, nil
}

var nvSchema = sync.OnceValue(func() *nvDef {
	return nvC("",
		nvC("system", nvStr("hostname", `[A-Za-z0-9][A-Za-z0-9\-.]*`)),
		&nvDef{kw: "interface", kind: nvCollection, expand: ifList, created: obj{"type": "swp"}, kids: []*nvDef{
			nvC("link", nvInt("mtu", 552, 9216), nvEnum("state", "up", "down")),
			nvStr("description", `.+`),
			nvC("qos",
				nvC("mapping", nvStr("profile", `[\w\-]+`)),
				nvC("pfc", nvStr("profile", `[\w\-]+`)),
				nvC("congestion-control", nvStr("profile", `[\w\-]+`)),
				nvC("egress-scheduler", nvStr("profile", `[\w\-]+`)),
				nvC("egress-queue-mapping", nvStr("profile", `[\w\-]+`)),
				nvC("pfc-watchdog", nvEnum("state", "enable", "disable")),
			),
		}},
		nvC("qos",
			nvC("roce", nvEnum("enable", "on", "off"),
				nvEnum("mode", "lossless", "lossy", "lossless-single-ipool", "lossy-multi-tc")),
			nvColl("mapping", nameList,
				nvEnum("trust", "l2", "l3", "both"),
				nvColl("dscp", intList(0, 63), nvInt("switch-priority", 0, 7)),
				nvColl("pcp", intList(0, 7), nvInt("switch-priority", 0, 7))),
			nvColl("egress-queue-mapping", nameList,
				nvColl("switch-priority", intList(0, 7), nvInt("traffic-class", 0, 7))),
			nvColl("pfc", nameList,
				nvColl("switch-priority", intList(0, 7)),
				nvEnum("tx", "enable", "disable"),
				nvEnum("rx", "enable", "disable"),
				nvInt("cable-length", 1, 100000),
				nvInt("port-buffer", 0, 1<<30), nvInt("xoff-threshold", 0, 1<<30), nvInt("xon-threshold", 0, 1<<30)),
			nvColl("congestion-control", nameList,
				nvColl("traffic-class", intList(0, 7),
					nvInt("min-threshold", 0, 1<<30), nvInt("max-threshold", 0, 1<<30),
					nvInt("probability", 0, 100),
					nvEnum("ecn", "enable", "disable"), nvEnum("red", "enable", "disable"))),
			nvColl("egress-scheduler", nameList,
				nvColl("traffic-class", intList(0, 7),
					nvEnum("mode", "dwrr", "strict"), nvInt("bw-percent", 0, 100))),
			nvC("pfc-watchdog", nvInt("polling-interval", 100, 5000), nvInt("robustness", 1, 1000)),
			nvColl("traffic-pool", nameList,
				nvColl("switch-priority", intList(0, 7)), nvInt("memory-percent", 0, 100)),
		),
	)
})

// nvPaths resolves "nv set/unset" tokens into object paths (one per expanded
// collection key); value is the leaf value ("" when the path ends on an object).
func nvPaths(tokens []string, needValue bool) (paths [][]string, leaf *nvDef, value string, err error) {
	invalid := func() error { return &deviceError{"Invalid Command: nv set " + strings.Join(tokens, " ")} }
	def := nvSchema()
	paths = [][]string{nil}
	i := 0
	for i < len(tokens) {
		var next *nvDef
		for _, k := range def.kids {
			if k.kw == tokens[i] {
				next = k
			}
		}
		if next == nil {
			return nil, nil, "", invalid()
		}
		for p := range paths {
			paths[p] = append(paths[p], next.kw)
		}
		i++
		switch next.kind {
		case nvContainer:
			def = next
		case nvCollection:
			def = next
			if i >= len(tokens) {
				if needValue {
					return nil, nil, "", invalid()
				}
				return paths, nil, "", nil
			}
			keys, err := next.expand(tokens[i])
			if err != nil {
				return nil, nil, "", &deviceError{"Error: " + err.Error()}
			}
			var fanned [][]string
			for _, p := range paths {
				for _, k := range keys {
					fanned = append(fanned, append(append([]string(nil), p...), k))
				}
			}
			paths = fanned
			i++
		case nvLeaf:
			if i >= len(tokens) {
				if needValue {
					return nil, nil, "", &deviceError{"Error: missing value for '" + next.kw + "'"}
				}
				return paths, next, "", nil
			}
			if i != len(tokens)-1 {
				return nil, nil, "", invalid()
			}
			if err := next.name(tokens[i]); err != nil {
				return nil, nil, "", &deviceError{"Error: " + err.Error()}
			}
			return paths, next, tokens[i], nil
		}
	}
	return paths, nil, "", nil
}

// nvSet applies "nv set <tokens>" to o.
func nvSet(o obj, tokens []string) error {
	paths, leaf, value, err := nvPaths(tokens, false)
	if err != nil {
		return err
	}
	if len(tokens) == 0 {
		return &deviceError{"Invalid Command: nv set"}
	}
	for _, p := range paths {
		if leaf != nil {
			var v any = value
			if leaf.number {
				n, _ := strconv.Atoi(value)
				v = n
			}
			parent := ensurePath(o, p[:len(p)-1])
			parent[p[len(p)-1]] = v
			continue
		}
		ensurePath(o, p)
	}
	// New interfaces get their type, as NVUE does.
	if ifs, ok := o["interface"].(obj); ok {
		for name, v := range ifs {
			if m, ok := v.(obj); ok && m["type"] == nil {
				m["type"] = ifType(name)
			}
		}
	}
	return nil
}

func ifType(name string) string {
	switch {
	case strings.HasPrefix(name, "swp"):
		return "swp"
	case strings.HasPrefix(name, "eth"):
		return "eth"
	case name == "lo":
		return "loopback"
	case strings.HasPrefix(name, "bond"):
		return "bond"
	}
	return "swp"
}

// nvUnset applies "nv unset <tokens>" to o.
func nvUnset(o obj, tokens []string) error {
	if len(tokens) == 0 {
		return &deviceError{"Invalid Command: nv unset"}
	}
	paths, _, _, err := nvPaths(tokens, false)
	if err != nil {
		return err
	}
	for _, p := range paths {
		parent := lookupPath(o, p[:len(p)-1])
		if parent != nil {
			delete(parent, p[len(p)-1])
		}
	}
	return nil
}

func ensurePath(o obj, path []string) obj {
	cur := o
	for _, k := range path {
		next, ok := cur[k].(obj)
		if !ok {
			next = obj{}
			cur[k] = next
		}
		cur = next
	}
	return cur
}

func lookupPath(o obj, path []string) obj {
	cur := o
	for _, k := range path {
		next, ok := cur[k].(obj)
		if !ok {
			return nil
		}
		cur = next
	}
	return cur
}

func deepCopy(o obj) obj {
	c := make(obj, len(o))
	for k, v := range o {
		if m, ok := v.(obj); ok {
			c[k] = deepCopy(m)
		} else {
			c[k] = v
		}
	}
	return c
}

func jsonText(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "{}"
	}
	return string(b)
}

// objDiff returns what b sets and unsets relative to a.
func objDiff(a, b obj) (set, unset obj) {
	set, unset = obj{}, obj{}
	for k, bv := range b {
		av, ok := a[k]
		bm, bIsObj := bv.(obj)
		am, aIsObj := av.(obj)
		switch {
		case !ok:
			set[k] = bv
		case bIsObj && aIsObj:
			s, u := objDiff(am, bm)
			if len(s) > 0 {
				set[k] = s
			}
			if len(u) > 0 {
				unset[k] = u
			}
			if len(s) == 0 && len(u) == 0 {
				continue
			}
		case fmt.Sprint(av) != fmt.Sprint(bv) || bIsObj != aIsObj:
			set[k] = bv
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			unset[k] = nil
		}
	}
	return set, unset
}

// yamlText prints an object like NVUE's YAML output.
func yamlText(b *strings.Builder, o obj, depth int) {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pad := strings.Repeat("  ", depth)
	for _, k := range keys {
		name := k
		if _, err := strconv.Atoi(k); err == nil {
			name = "'" + k + "'"
		}
		switch v := o[k].(type) {
		case obj:
			if len(v) == 0 {
				b.WriteString(pad + name + ": {}\n")
				continue
			}
			b.WriteString(pad + name + ":\n")
			yamlText(b, v, depth+1)
		case nil:
			b.WriteString(pad + name + ":\n")
		case string:
			if _, err := strconv.Atoi(v); err == nil {
				v = "'" + v + "'"
			}
			b.WriteString(pad + name + ": " + v + "\n")
		default:
			b.WriteString(fmt.Sprintf("%s%s: %v\n", pad, name, v))
		}
	}
}

type nvue struct {
	env     *env
	applied obj
	startup obj
	rev     int
	pending map[string]obj // per user; nil entry = no pending revision
}

func newNVUE(e *env) device {
	d := &nvue{env: e, applied: obj{}, rev: 1, pending: map[string]obj{}}
	boot := [][]string{{"system", "hostname", e.hostname}, {"interface", "swp1-32"},
		{"interface", "eth0", "description", "management"}}
	for _, t := range boot {
		if err := nvSet(d.applied, t); err != nil {
			panic("sim: NVUE boot configuration: " + err.Error())
		}
	}
	d.startup = deepCopy(d.applied)
	return d
}

func (d *nvue) defaultUser() string { return "cumulus" }
func (d *nvue) banner() string {
	return "Cumulus Linux 5.14 (NVUE) SIMULATOR (fabricctl test double)\n"
}

func (d *nvue) apply(lines []string) error {
	c := deepCopy(d.applied)
	for _, l := range lines {
		f := strings.Fields(l)
		var err error
		switch {
		case len(f) >= 2 && f[0] == "nv" && f[1] == "set":
			err = nvSet(c, f[2:])
		case len(f) >= 2 && f[0] == "nv" && f[1] == "unset":
			err = nvUnset(c, f[2:])
		default:
			err = fmt.Errorf("not an nv set/unset line")
		}
		if err != nil {
			return fmt.Errorf("line %q: %w", l, err)
		}
	}
	d.applied = c
	return nil
}

func (d *nvue) header() obj {
	return obj{"header": obj{"model": "SIMULATOR", "nvue-api-version": "nvue_v1",
		"rev-id": "1.0", "version": "Cumulus Linux 5.14.0"}}
}

func (d *nvue) readback() string {
	return jsonText([]obj{d.header(), {"set": d.applied}}) + "\n"
}

type nvueShell struct {
	d    *nvue
	user string
}

func (d *nvue) newShell(user string) shell { return &nvueShell{d: d, user: user} }

func (s *nvueShell) prompt() string {
	return s.user + "@" + s.d.env.hostname + ":mgmt:~$ "
}

func (s *nvueShell) eof(line string) reply {
	if strings.TrimSpace(line) == "" {
		return reply{out: "logout", exit: true}
	}
	return reply{}
}

func (s *nvueShell) reject(line string) string {
	return "Error: Invalid config: " + strings.TrimSpace(line) + " was rejected"
}

// pendingFor returns the user's pending revision, opening one when create is set.
func (s *nvueShell) pendingFor(create bool) obj {
	p := s.d.pending[s.user]
	if p == nil && create {
		p = deepCopy(s.d.applied)
		s.d.pending[s.user] = p
	}
	return p
}

func (s *nvueShell) exec(raw string) reply {
	line := strings.TrimSpace(raw)
	f := strings.Fields(line)
	if len(f) > 0 && f[0] == "sudo" {
		f = f[1:]
		line = strings.Join(f, " ")
	}
	if r, ok := s.d.env.congestionReply(line); ok {
		return r
	}
	switch {
	case len(f) == 0:
		return reply{}
	case line == "exit" || line == "logout":
		return reply{exit: true}
	case line == "lldpcli -f json0 show neighbors details":
		ns, err := s.d.env.neighbors()
		if err != nil {
			return fail("lldpcli: unable to connect to lldpd daemon: " + err.Error())
		}
		return say(lldpJSON0(ns))
	case line == "ip -s -s -j link show":
		ps, err := s.d.env.portErrors()
		if err != nil {
			return fail("Error: netlink receive failed: " + err.Error())
		}
		return say(linkStatsJSON(ps))
	case f[0] != "nv":
		return fail("-bash: " + f[0] + ": command not found")
	case len(f) >= 2 && f[1] == "set":
		if err := nvSet(s.pendingFor(true), f[2:]); err != nil {
			return fail(says(err))
		}
		return reply{}
	case len(f) >= 2 && f[1] == "unset":
		if err := nvUnset(s.pendingFor(true), f[2:]); err != nil {
			return fail(says(err))
		}
		return reply{}
	case len(f) >= 3 && f[1] == "config":
		return s.config(f[2:], line)
	case len(f) >= 2 && f[1] == "show":
		return s.show(f[2:])
	}
	return fail("Invalid Command: " + line)
}

func outputFormat(args []string) (rest []string, format string, ok bool) {
	format = "auto"
	for i := 0; i < len(args); i++ {
		if args[i] == "-o" || args[i] == "--output" {
			if i+1 >= len(args) {
				return nil, "", false
			}
			format = args[i+1]
			i++
			continue
		}
		rest = append(rest, args[i])
	}
	return rest, format, format == "auto" || format == "json" || format == "yaml"
}

func (s *nvueShell) show(args []string) reply {
	path, format, ok := outputFormat(args)
	if !ok {
		return fail("Error: unknown output format")
	}
	var cur any = s.d.applied
	for _, p := range path {
		m, isObj := cur.(obj)
		if !isObj {
			return fail("Error: The requested item does not exist.")
		}
		v, exists := m[p]
		if !exists {
			return fail("Error: The requested item does not exist.")
		}
		cur = v
	}
	if format == "json" {
		return say(jsonText(cur))
	}
	if m, isObj := cur.(obj); isObj {
		var b strings.Builder
		yamlText(&b, m, 0)
		return say(b.String())
	}
	return say(fmt.Sprint(cur))
}

func (s *nvueShell) config(args []string, line string) reply {
	d := s.d
	switch args[0] {
	case "show":
		_, format, ok := outputFormat(args[1:])
		if !ok {
			return fail("Error: unknown output format")
		}
		doc := []obj{d.header(), {"set": d.applied}}
		if format == "json" {
			return say(jsonText(doc))
		}
		var b strings.Builder
		b.WriteString("- header:\n")
		yamlText(&b, doc[0]["header"].(obj), 2)
		b.WriteString("- set:\n")
		yamlText(&b, d.applied, 2)
		return say(b.String())
	case "diff":
		_, format, ok := outputFormat(args[1:])
		if !ok {
			return fail("Error: unknown output format")
		}
		p := s.pendingFor(false)
		if p == nil {
			p = d.applied
		}
		set, unset := objDiff(d.applied, p)
		if format == "json" {
			var doc []obj
			if len(set) > 0 {
				doc = append(doc, obj{"set": set})
			}
			if len(unset) > 0 {
				doc = append(doc, obj{"unset": unset})
			}
			if doc == nil {
				return say("[]")
			}
			return say(jsonText(doc))
		}
		var b strings.Builder
		if len(set) > 0 {
			b.WriteString("- set:\n")
			yamlText(&b, set, 2)
		}
		if len(unset) > 0 {
			b.WriteString("- unset:\n")
			yamlText(&b, unset, 2)
		}
		return say(b.String())
	case "detach":
		if len(args) != 1 {
			return fail("Invalid Command: " + line)
		}
		delete(d.pending, s.user)
		d.env.stats.Aborts++
		return reply{}
	case "save":
		d.startup = deepCopy(d.applied)
		d.env.stats.Saves++
		return say("saved [rev_id: " + strconv.Itoa(d.rev) + "]")
	case "apply":
		return s.applyCmd(args[1:], line)
	}
	return fail("Invalid Command: " + line)
}

// applyCmd handles "nv config apply [-y|--assume-yes] [--confirm <t>]
// [--confirm-yes|--confirm-no|--confirm-status]": --confirm-yes confirms a
// confirmed apply, --confirm-no rolls it back now, --confirm-status says
// how long is left (the option names are NVUE's; the wording of their
// replies here is the simulator's own).
func (s *nvueShell) applyCmd(args []string, line string) reply {
	d := s.d
	yes, confirmYes := false, false
	var confirm time.Duration
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-y", "--assume-yes":
			yes = true
		case "--confirm-yes":
			confirmYes = true
		case "--confirm-no":
			if !d.env.rollbackNow() {
				return fail("Error: no apply is waiting for confirmation")
			}
			return say("rolled back [rev_id: " + strconv.Itoa(d.rev) + "]")
		case "--confirm-status":
			if d.env.timer == nil {
				return say("No apply is waiting for confirmation")
			}
			return say(fmt.Sprintf("Confirm pending: %d seconds left before rev_id %d is rolled back",
				int(d.env.left().Round(time.Second)/time.Second), d.rev))
		case "--confirm":
			if i+1 >= len(args) {
				return fail("Error: --confirm needs a time (e.g. 60s, 5m)")
			}
			t, err := nvDuration(args[i+1])
			if err != nil {
				return fail("Error: " + err.Error())
			}
			confirm = t
			i++
		default:
			return fail("Invalid Command: " + line)
		}
	}
	if !yes && !confirmYes {
		return fail("Error: nv config apply needs -y (interactive confirmation is not simulated)")
	}
	if confirmYes {
		if d.env.timer == nil {
			return fail("Error: no apply is waiting for confirmation")
		}
		d.env.stopTimer()
		d.env.stats.Confirms++
		return say("applied [rev_id: " + strconv.Itoa(d.rev) + "] (confirmed)")
	}
	p := s.pendingFor(false)
	changed := p != nil && jsonText(p) != jsonText(d.applied)
	if changed {
		if pct := poolPercent(p); pct > 100 {
			return fail(fmt.Sprintf("Error: traffic pools take %d%% of the buffer; the total memory allocation across pools must not exceed 100%%", pct))
		}
	}
	if !changed {
		delete(d.pending, s.user)
		return say("Warning: nothing to apply; the pending revision equals the applied revision")
	}
	before := d.applied
	d.applied = p
	delete(d.pending, s.user)
	d.rev++
	d.env.stats.Commits++
	if confirm > 0 {
		d.env.stats.ConfirmedCommits++
		rev := d.rev
		d.env.armTimer(confirm, func() {
			d.applied = before
			d.rev = rev + 1
		})
		return say(fmt.Sprintf("applied [rev_id: %d]\nConfirm within %s with 'nv config apply --confirm-yes' or the apply is rolled back",
			d.rev, confirm))
	}
	return say("applied [rev_id: " + strconv.Itoa(d.rev) + "]")
}

// poolPercent is the memory the traffic pools of a revision take: every
// pool's memory-percent, default-lossy 100 when not set.
func poolPercent(rev obj) int {
	pools, _ := nvGet(rev, "qos", "traffic-pool").(obj)
	total, lossy := 0, false
	for name, v := range pools {
		pool, _ := v.(obj)
		n, ok := pool["memory-percent"].(float64)
		if name == "default-lossy" {
			lossy = true
			if !ok {
				n = 100
			}
		}
		total += int(n)
	}
	if !lossy {
		total += 100
	}
	return total
}

// nvGet walks a revision's tree.
func nvGet(o obj, path ...string) any {
	var v any = o
	for _, p := range path {
		m, ok := v.(obj)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// nvDuration parses NVUE's confirm time: "60", "60s", "5m", "1h".
func nvDuration(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("'%s' is not a valid confirm time", s)
	}
	return d, nil
}
