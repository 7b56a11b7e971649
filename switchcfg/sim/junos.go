package sim

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Junos: operational mode "admin@leaf01> ", "configure private" opens a
// private candidate ("[edit]" / "admin@leaf01# "), "set"/"delete" edit it,
// "show | compare" diffs it against the committed configuration, "commit
// confirmed N" commits with an automatic rollback after N minutes unless a
// plain "commit" confirms, "rollback 0" discards the candidate.

const (
	jIdent = `[A-Za-z0-9][A-Za-z0-9_.\-]*`
	jPct   = `\d{1,2}|100`
	// jFill is a drop-profile fill level: whole percents on classic QFX,
	// decimal64 on Junos OS Evolved (junos-conf-class-of-service.yang,
	// 24.4R1), which the simulated qfx5240 runs.
	jFill   = `\d{1,2}(?:\.\d{1,9})?|100(?:\.0{1,9})?`
	jCP6    = `[01]{6}|ef|be|af[1-4][1-3]|cs[0-7]|nc[12]`
	jCP3    = `[01]{3}|be|be1|ef|ef1|af1[12]|nc[12]`
	jIfName = `(?:et|xe|ge|mge)-(?:\d+|\*)/(?:\d+|\*)/(?:\d+|\*)(?::(?:\d+|\*))?|(?:et|xe|ge)-\*|\*`
)

var junosSchema = sync.OnceValue(func() *jdef {
	return jctr("",
		jctr("system", jleaf("host-name", jIdent)),
		jctr("interfaces", jlist("", jIfName,
			jleaf("description", `.+`),
			jleaf("mtu", `\d{3,4}`),
			jlist("unit", `\d+|\*`,
				jctr("family", jctr("ethernet-switching"), jctr("inet", jlist("address", `\S+`)))),
		)),
		jctr("class-of-service",
			jctr("classifiers",
				jlist("dscp", jIdent, jlist("forwarding-class", jIdent,
					jlist("loss-priority", "low|high|medium-low|medium-high", jleafs("code-points", jCP6)).one())),
				jlist("ieee-802.1", jIdent, jlist("forwarding-class", jIdent,
					jlist("loss-priority", "low|high|medium-low|medium-high", jleafs("code-points", jCP3)).one())),
			),
			jctr("drop-profiles", jlist("", jIdent,
				jctr("interpolate", jleafs("fill-level", jFill), jleafs("drop-probability", jPct)))),
			jctr("forwarding-classes",
				jlist("class", jIdent, jleaf("queue-num", `\d|1[0-5]`), jleaf("priority", "low|high"),
					jflag("no-loss"), jleaf("pfc-priority", "[0-7]")).one()),
			jctr("congestion-notification-profile", jlist("", jIdent,
				jctr("pfc-watchdog", jleaf("poll-interval", `\d+`), jleaf("detection", `\d+`),
					jleaf("recovery", `\d+`), jleaf("watchdog-action", "drop|forward")),
				jctr("input",
					jctr("dscp", jlist("code-point", `[01]{6}`, jflag("pfc"), jleaf("mru", `\d+`))),
					jctr("ieee-802.1", jlist("code-point", `[01]{3}`, jflag("pfc"), jleaf("mru", `\d+`)))),
				jctr("output",
					jctr("ieee-802.1", jlist("code-point", `[01]{3}`, jleafs("flow-control-queue", "[0-7]")))),
			)),
			// Shared-buffer partitions (Juniper's AI/ML validated design:
			// ingress lossless / lossless-headroom / lossy, egress lossless
			// / lossy / multicast) and dedicated buffers.
			jctr("shared-buffer",
				jctr("ingress", jleaf("percent", jPct), jlist("buffer-partition", "lossless|lossless-headroom|lossy",
					jleaf("percent", jPct), jleaf("dynamic-threshold", `\d+`))),
				jctr("egress", jleaf("percent", jPct), jlist("buffer-partition", "lossless|lossy|multicast",
					jleaf("percent", jPct), jleaf("dynamic-threshold", `\d+`)))),
			jctr("dedicated-buffer", jctr("ingress", jleaf("percent", jPct)), jctr("egress", jleaf("percent", jPct))),
			jctr("interfaces", jlist("", jIfName,
				jleaf("congestion-notification-profile", jIdent),
				jleaf("scheduler-map", jIdent),
				// Interface-level classifiers (Junos EVO) classify every unit.
				jctr("classifiers", jleaf("dscp", jIdent), jleaf("ieee-802.1", jIdent)),
				jlist("unit", `\d+|\*`,
					jctr("classifiers", jleaf("dscp", jIdent), jleaf("ieee-802.1", jIdent)),
					jctr("rewrite-rules", jleaf("dscp", jIdent))),
			)),
			jctr("scheduler-maps", jlist("", jIdent,
				jlist("forwarding-class", jIdent, jleaf("scheduler", jIdent)).one())),
			jctr("schedulers", jlist("", jIdent,
				jctr("transmit-rate", jleaf("percent", jPct), jflag("remainder"), jflag("exact")).one(),
				jctr("buffer-size", jleaf("percent", jPct), jflag("remainder")).one(),
				jleaf("priority", "low|high|medium-low|medium-high|strict-high"),
				&jdef{kw: "drop-profile-map", kind: jList, oneline: true,
					keys: []jkey{{"loss-priority", anchored("any|low|high|medium-low|medium-high")},
						{"protocol", anchored("any|tcp|non-tcp")}},
					kids: []*jdef{jleaf("drop-profile", jIdent)}},
				jflag("explicit-congestion-notification"),
				jleaf("buffer-dynamic-threshold", `\d+`),
				jleaf("shaping-rate", `\d+[kmg]?`),
			)),
		),
	)
})

// Junos's default forwarding classes need no definition.
var junosDefaultFCs = map[string]bool{"best-effort": true, "expedited-forwarding": true,
	"assured-forwarding": true, "network-control": true, "fcoe": true, "no-loss": true, "mcast": true}

type junos struct {
	env       *env
	history   []*jnode // history[0] is the committed configuration ("rollback 0")
	commitLog []string
	shared    *jnode // candidate of "configure" / "configure exclusive"
}

func newJunos(e *env) device {
	d := &junos{env: e}
	root := &jnode{def: junosSchema()}
	boot := []string{"set system host-name " + e.hostname}
	for i := 0; i < 8; i++ {
		boot = append(boot, fmt.Sprintf("set interfaces et-0/0/%d unit 0 family ethernet-switching", i))
	}
	for _, l := range boot {
		if err := jset(root, tokenize(strings.TrimPrefix(l, "set "))); err != nil {
			panic("sim: Junos boot configuration: " + err.Error())
		}
	}
	d.history = []*jnode{root}
	d.commitLog = []string{e.now().UTC().Format("2006-01-02 15:04:05 UTC") + " by root via cli"}
	d.shared = root.clone()
	return d
}

func (d *junos) defaultUser() string { return "admin" }
func (d *junos) banner() string {
	return "--- JUNOS 23.4R1 SIMULATOR (fabricctl test double) Kernel 64-bit\n"
}

func (d *junos) committed() *jnode { return d.history[0] }

// commitConfig makes c the committed configuration.
func (d *junos) commitConfig(c *jnode, how string) {
	if c.String() != d.committed().String() {
		d.env.stats.Commits++
	}
	d.history = append([]*jnode{c.clone()}, d.history...)
	if len(d.history) > 50 {
		d.history = d.history[:50]
	}
	d.commitLog = append([]string{d.env.now().UTC().Format("2006-01-02 15:04:05 UTC") + " by admin via " + how}, d.commitLog...)
}

func (d *junos) apply(lines []string) error {
	c := d.committed().clone()
	for _, l := range lines {
		if err := jstatement(c, l); err != nil {
			return fmt.Errorf("statement %q: %w", l, err)
		}
	}
	d.history[0] = c
	return nil
}

// jstatement applies one "set ..." or "delete ..." statement.
func jstatement(root *jnode, line string) error {
	tokens := tokenize(line)
	if len(tokens) == 0 {
		return nil
	}
	switch tokens[0] {
	case "set":
		if err := jset(root, tokens[1:]); err != nil {
			return shiftTok(err)
		}
		return nil
	case "delete":
		_, err := jdelete(root, tokens[1:])
		return shiftTok(err)
	}
	return &jSyntaxError{0, "syntax error."}
}

func shiftTok(err error) error {
	if se, ok := err.(*jSyntaxError); ok {
		return &jSyntaxError{se.tok + 1, se.msg}
	}
	return err
}

func (d *junos) readback() string {
	return d.show(d.committed(), []string{"class-of-service"}, true)
}

// show prints the configuration at path, curly or as set statements.
func (d *junos) show(root *jnode, path []string, set bool) string {
	n, err := root.lookup(path)
	if err != nil || n == nil {
		return ""
	}
	var b strings.Builder
	if set {
		n.setLines(&b, strings.TrimSpace("set "+strings.Join(path, " ")))
		return b.String()
	}
	n.curly(&b, 0)
	return b.String()
}

// check validates references the way "commit" does; it returns Junos's
// error report or "".
func (d *junos) check(c *jnode) string {
	var errs []string
	cos, _ := c.lookup([]string{"class-of-service"})
	if cos == nil {
		return ""
	}
	exists := func(path ...string) bool {
		n, err := cos.lookup(path)
		return err == nil && n != nil
	}
	fcExists := func(fc string) bool {
		return junosDefaultFCs[fc] || exists("forwarding-classes", "class", fc)
	}
	report := func(path, stmt, msg string) {
		errs = append(errs, "[edit class-of-service "+path+"]\n  '"+stmt+"'\n    "+msg)
	}
	each := func(path []string, f func(n *jnode)) {
		if n, _ := cos.lookup(path); n != nil {
			for _, k := range n.kids {
				f(k)
			}
		}
	}
	each([]string{"interfaces"}, func(ifc *jnode) {
		for _, k := range ifc.kids {
			switch k.def.kw {
			case "scheduler-map":
				if !exists("scheduler-maps", k.name) {
					report("interfaces "+ifc.name, "scheduler-map "+k.name, "Referenced scheduler map "+k.name+" is not defined")
				}
			case "congestion-notification-profile":
				if !exists("congestion-notification-profile", k.name) {
					report("interfaces "+ifc.name, "congestion-notification-profile "+k.name,
						"Referenced congestion notification profile "+k.name+" is not defined")
				}
			case "unit":
				if cl := k.findID("classifiers"); cl != nil {
					for _, c := range cl.kids {
						if !exists("classifiers", c.def.kw, c.name) {
							report("interfaces "+ifc.name+" unit "+k.name+" classifiers", c.def.kw+" "+c.name,
								"Referenced classifier "+c.name+" is not defined")
						}
					}
				}
			}
		}
	})
	each([]string{"scheduler-maps"}, func(sm *jnode) {
		for _, fc := range sm.kids {
			if !fcExists(fc.name) {
				report("scheduler-maps "+sm.name, "forwarding-class "+fc.name, "Referenced forwarding class "+fc.name+" is not defined")
			}
			for _, s := range fc.kids {
				if !exists("schedulers", s.name) {
					report("scheduler-maps "+sm.name+" forwarding-class "+fc.name, "scheduler "+s.name,
						"Referenced scheduler "+s.name+" is not defined")
				}
			}
		}
	})
	each([]string{"schedulers"}, func(s *jnode) {
		for _, k := range s.kids {
			if k.def.kw != "drop-profile-map" {
				continue
			}
			for _, dp := range k.kids {
				if !exists("drop-profiles", dp.name) {
					report("schedulers "+s.name+" drop-profile-map "+k.name, "drop-profile "+dp.name,
						"Referenced drop profile "+dp.name+" is not defined")
				}
			}
		}
	})
	for _, kind := range []string{"dscp", "ieee-802.1"} {
		n, _ := cos.lookup([]string{"classifiers"})
		if n == nil {
			break
		}
		for _, cl := range n.kids {
			if cl.def.kw != kind {
				continue
			}
			for _, fc := range cl.kids {
				if !fcExists(fc.name) {
					report("classifiers "+kind+" "+cl.name, "forwarding-class "+fc.name,
						"Referenced forwarding class "+fc.name+" is not defined")
				}
			}
		}
	}
	if len(errs) == 0 {
		return ""
	}
	return strings.Join(errs, "\n") + "\nerror: configuration check-out failed"
}

// junosShell is one login.
type junosShell struct {
	d       *junos
	user    string
	config  bool
	private bool
	cand    *jnode // the candidate being edited (private copy or d.shared)
	loading bool   // inside "load set terminal"
	loaded  []string
	asking  bool // "Exit with uncommitted changes? [yes,no] (yes)"
}

func (d *junos) newShell(user string) shell { return &junosShell{d: d, user: user} }

func (s *junosShell) prompt() string {
	switch {
	case s.loading:
		return ""
	case s.asking:
		return "Exit with uncommitted changes? [yes,no] (yes) "
	case s.config:
		return "\n[edit]\n" + s.user + "@" + s.d.env.hostname + "# "
	}
	return s.user + "@" + s.d.env.hostname + "> "
}

func (s *junosShell) reject(line string) string { return s.caret(line, 1, "syntax error.") }

// caret prints the marker under token tok of line, then msg.
func (s *junosShell) caret(line string, tok int, msg string) string {
	p := s.prompt()
	if i := strings.LastIndex(p, "\n"); i >= 0 {
		p = p[i+1:]
	}
	col := len(p)
	pos := 0
	f := strings.Fields(line)
	for i := 0; i < len(f) && i <= tok; i++ {
		j := strings.Index(line[pos:], f[i])
		if j < 0 {
			break
		}
		if i == tok {
			col += pos + j
			return strings.Repeat(" ", col) + "^\n" + msg
		}
		pos += j + len(f[i])
	}
	return strings.Repeat(" ", col+len(strings.TrimRight(line, " "))+1) + "^\n" + msg
}

func (s *junosShell) eof(line string) reply {
	if !s.loading {
		return reply{}
	}
	if strings.TrimSpace(line) != "" {
		s.loaded = append(s.loaded, line)
	}
	s.loading = false
	var out []string
	for i, l := range s.loaded {
		if err := jstatement(s.cand, l); err != nil {
			out = append(out, fmt.Sprintf("terminal:%d:(%d) %s", i+1, 1, err.Error()))
		}
	}
	s.loaded = nil
	if len(out) > 0 {
		return fail(strings.Join(out, "\n") + "\nerror: load failed\nload complete (with errors)")
	}
	return say("load complete")
}

func (s *junosShell) exec(raw string) reply {
	if s.loading {
		s.loaded = append(s.loaded, raw)
		return reply{}
	}
	if s.asking {
		s.asking = false
		switch strings.TrimSpace(raw) {
		case "", "yes":
			return s.leaveConfig()
		case "no":
			return reply{}
		}
		return say("Please answer 'yes' or 'no'.")
	}
	line := strings.Join(strings.Fields(raw), " ")
	if s.config {
		return s.configMode(line)
	}
	return s.opMode(line)
}

func (s *junosShell) opMode(line string) reply {
	d := s.d
	f := strings.Fields(line)
	cmd, pipe, _ := strings.Cut(line, " | ")
	if r, ok := d.env.congestionReply(line); ok {
		return r
	}
	switch {
	case line == "":
		return reply{}
	case line == "exit" || line == "quit":
		return reply{exit: true}
	case len(f) == 4 && f[0] == "set" && f[1] == "cli" && f[2] == "screen-width":
		return say("Screen width set to " + f[3])
	case len(f) == 4 && f[0] == "set" && f[1] == "cli" && f[2] == "screen-length":
		return say("Screen length set to " + f[3])
	case line == "set cli complete-on-space off":
		return say("Disabling complete-on-space")
	case line == "show version":
		return say("Hostname: " + d.env.hostname + "\nModel: qfx5240-64od (SIMULATOR)\nJunos: 23.4R1\n")
	case line == "show system commit":
		var b strings.Builder
		for i, c := range d.commitLog {
			fmt.Fprintf(&b, "%d   %s\n", i, c)
		}
		return say(b.String())
	case cmd == "show lldp neighbors" && (pipe == "display json" || pipe == "display json | no-more"):
		ns, err := d.env.neighbors()
		if err != nil {
			return fail("error: the lldp subsystem is not responding: " + err.Error())
		}
		return say(junosLLDPJSON(ns))
	case cmd == "show interfaces extensive" && (pipe == "display json" || pipe == "display json | no-more"):
		ps, err := d.env.portErrors()
		var cs []PortCongestion
		if err == nil {
			cs, err = d.env.congestionOf()
		}
		if err != nil {
			return fail("error: the interface statistics are not available: " + err.Error())
		}
		return say(junosInterfacesJSON(ps, cs))
	case strings.HasPrefix(cmd, "show configuration"):
		path := tokenize(strings.TrimPrefix(cmd, "show configuration"))
		return s.showPath(d.committed(), path, pipe, line, 2)
	case line == "configure" || line == "configure exclusive":
		s.config, s.private, s.cand = true, false, d.shared
		return say("Entering configuration mode")
	case line == "configure private":
		s.config, s.private, s.cand = true, true, d.committed().clone()
		return say("warning: uncommitted changes will be discarded on exit\nEntering configuration mode")
	}
	return fail(s.caret(line, 0, "unknown command."))
}

// showPath prints a configuration subtree; first is the index of the first
// path token in line (for the caret).
func (s *junosShell) showPath(root *jnode, path []string, pipe, line string, first int) reply {
	set := false
	for _, p := range strings.Split(pipe, " | ") {
		switch strings.TrimSpace(p) {
		case "":
		case "display set":
			set = true
		case "no-more":
		default:
			return fail(s.caret(line, len(strings.Fields(line))-1, "syntax error."))
		}
	}
	if _, err := root.lookup(path); err != nil {
		if se, ok := err.(*jSyntaxError); ok {
			return fail(s.caret(line, first+se.tok, "syntax error."))
		}
	}
	if len(path) == 0 && !set {
		return say("## Last commit: " + s.d.commitLog[0] + "\nversion 23.4R1;\n" + s.d.show(root, nil, false))
	}
	return say(s.d.show(root, path, set))
}

func (s *junosShell) configMode(line string) reply {
	d := s.d
	f := strings.Fields(line)
	if len(f) == 0 {
		return reply{}
	}
	cmd, pipe, _ := strings.Cut(line, " | ")
	switch f[0] {
	case "set", "delete":
		tokens := tokenize(line)
		var err error
		warning := ""
		if f[0] == "set" {
			err = jset(s.cand, tokens[1:])
		} else {
			warning, err = jdelete(s.cand, tokens[1:])
		}
		if se, ok := err.(*jSyntaxError); ok {
			return fail(s.caret(line, se.tok+1, se.msg))
		}
		return say(warning)
	case "show":
		if strings.HasPrefix(pipe, "compare") {
			return s.compare(strings.TrimSpace(strings.TrimPrefix(pipe, "compare")))
		}
		return s.showPath(s.cand, tokenize(strings.TrimPrefix(cmd, "show")), pipe, line, 1)
	case "run":
		return s.opMode(strings.TrimPrefix(line, "run "))
	case "top", "up":
		return reply{}
	case "rollback":
		n := 0
		if len(f) == 2 {
			v, err := strconv.Atoi(f[1])
			if err != nil || v < 0 {
				return fail(s.caret(line, 1, "syntax error."))
			}
			n = v
		} else if len(f) > 2 {
			return fail(s.caret(line, 2, "syntax error."))
		}
		if n >= len(d.history) {
			return fail("error: Cannot fetch rollback " + strconv.Itoa(n) + " (only " +
				strconv.Itoa(len(d.history)) + " configurations saved)")
		}
		s.replaceCandidate(d.history[n].clone())
		if n == 0 {
			d.env.stats.Aborts++
		} else {
			d.env.stats.Rollbacks++
		}
		return say("load complete")
	case "load":
		if line != "load set terminal" && line != "load merge terminal" {
			return fail(s.caret(line, 1, "syntax error."))
		}
		if line == "load merge terminal" {
			return fail("error: only 'load set terminal' is simulated")
		}
		s.loading = true
		return say("[Type ^D at a new line to end input]")
	case "commit":
		return s.commit(f[1:], line)
	case "exit", "quit":
		if line != "exit" && line != "quit" && line != "exit configuration-mode" {
			return fail(s.caret(line, 1, "syntax error."))
		}
		if s.cand.String() != d.committed().String() {
			s.asking = true
			return say("The configuration has been changed but not committed")
		}
		return s.leaveConfig()
	}
	return fail(s.caret(line, 0, "unknown command."))
}

func (s *junosShell) replaceCandidate(c *jnode) {
	if s.private {
		s.cand = c
		return
	}
	s.d.shared = c
	s.cand = c
}

func (s *junosShell) leaveConfig() reply {
	s.config, s.cand = false, nil
	return say("Exiting configuration mode")
}

func (s *junosShell) compare(arg string) reply {
	base := s.d.committed()
	if arg != "" {
		f := strings.Fields(arg)
		n := -1
		if len(f) == 2 && f[0] == "rollback" {
			n, _ = strconv.Atoi(f[1])
		}
		if n < 0 || n >= len(s.d.history) {
			return fail("syntax error.")
		}
		base = s.d.history[n]
	}
	var b strings.Builder
	jcompare(&b, base, s.cand, nil)
	return say(b.String())
}

var junosMinutes = regexp.MustCompile(`^\d+$`)

func (s *junosShell) commit(args []string, line string) reply {
	d := s.d
	switch {
	case len(args) == 1 && args[0] == "check":
		if e := d.check(s.cand); e != "" {
			return fail(e)
		}
		return say("configuration check succeeds")
	case len(args) == 0 || (len(args) == 2 && args[0] == "comment") || (len(args) == 1 && args[0] == "and-quit"):
		if e := d.check(s.cand); e != "" {
			return fail(e)
		}
		confirming := d.env.timer != nil
		d.env.stopTimer()
		if confirming {
			d.env.stats.Confirms++
		}
		d.commitConfig(s.cand, "cli")
		s.afterCommit()
		if len(args) == 1 && args[0] == "and-quit" {
			r := s.leaveConfig()
			r.out = "commit complete\n" + r.out
			return r
		}
		return say("commit complete")
	case len(args) >= 1 && args[0] == "confirmed":
		minutes := 10
		if len(args) == 2 {
			if !junosMinutes.MatchString(args[1]) {
				return fail(s.caret(line, 2, "syntax error."))
			}
			minutes, _ = strconv.Atoi(args[1])
			if minutes < 1 || minutes > 65535 {
				return fail(s.caret(line, 2, "error: value is not within range (1..65535)"))
			}
		} else if len(args) > 2 {
			return fail(s.caret(line, 3, "syntax error."))
		}
		if e := d.check(s.cand); e != "" {
			return fail(e)
		}
		before := d.committed().clone()
		d.commitConfig(s.cand, "cli commit confirmed, rollback in "+strconv.Itoa(minutes)+"mins")
		d.env.stats.ConfirmedCommits++
		d.env.armTimer(time.Duration(minutes)*time.Minute, func() {
			d.commitConfig(before, "rollback (commit confirmed timeout)")
			d.env.stats.Commits-- // the rollback is not a user commit
		})
		s.afterCommit()
		m := strconv.Itoa(minutes)
		return say("configuration check succeeds\ncommit confirmed will be automatically rolled back in " + m +
			" minutes unless confirmed\ncommit complete\n\n# commit confirmed will be rolled back in " + m + " minutes")
	}
	return fail(s.caret(line, 1, "syntax error."))
}

// afterCommit refreshes the candidate from the new committed configuration.
func (s *junosShell) afterCommit() {
	c := s.d.committed().clone()
	if !s.private {
		s.d.shared = c
	}
	s.cand = c
}
