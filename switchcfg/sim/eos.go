package sim

import (
	"fmt"
	"github.com/fabricctl/fabricctl/internal/textdiff"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Arista EOS: privileged exec "leaf01#", "configure terminal" edits the running
// configuration line by line, "configure session NAME" edits a private copy
// that "show session-config diffs" compares, "commit" applies, "commit timer
// hh:mm:ss" applies with an automatic rollback unless "configure session NAME
// commit" confirms in time, and "abort" discards.

var eosIfName = regexp.MustCompile(`^(Ethernet|Port-Channel|Management|Loopback)(.*)$`)

func eosIfSuffix(_ string, m []string) string {
	abbrev := map[string]string{"Ethernet": "Et", "Port-Channel": "Po", "Management": "Ma", "Loopback": "Lo"}
	p := eosIfName.FindStringSubmatch(m[1])
	return "-if-" + abbrev[p[1]] + p[2]
}

const eosQueueUnit = `(bytes|kbytes|mbytes|segments|milliseconds|microseconds)`

// EOS's queue commands differ by ASIC family (the EOS User Manual's QoS
// chapter, per platform; AVD's eos_cli_config_gen keeps tx_queues and
// uc_tx_queues apart for that reason): Trident/Tomahawk switches
// ("strata", also vEOS) have unicast queues `uc-tx-queue N` (and multicast
// `mc-tx-queue N`) and map traffic classes `to uc-tx-queue`; the
// Jericho/Qumran "sand" family has `tx-queue N` and maps `to tx-queue`.
// Each refuses the other's commands with "% Invalid input".
//
// The PFC watchdog's action is `drop` or `no-drop` globally and `drop` or
// `notify-only` per port (AVD schema: priority_flow_control.watchdog.action
// and ethernet_interfaces[].priority_flow_control.watchdog.action); the
// interface MTU is 68..9214.

// eosQueueKeyword is the unicast queue command of a model family.
func eosQueueKeyword(model string) string {
	if model == "sand" {
		return "tx-queue"
	}
	return "uc-tx-queue"
}

// eosQoSRules are accepted both under an interface and under "qos profile".
func eosQoSRules(model string) []cliRule {
	q := eosQueueKeyword(model)
	rules := []cliRule{
		rule(`qos trust (dscp|cos)|no qos trust`, "qos trust"),
		rule(`qos cos ([0-7])`, "qos cos"),
		rule(`qos dscp (\d|[1-5]\d|6[0-3])`, "qos dscp"),
		rule(`service-policy type qos input (\S+)`, "service-policy type qos input"),
		rule(`shape rate (\d+) (percent|kbps|mbps)`, "shape rate"),
		rule(`priority-flow-control on`, "priority-flow-control"),
		rule(`priority-flow-control priority ([0-7]) (no-drop|drop)`, "priority-flow-control priority $1").
			neg(`priority-flow-control priority ([0-7])(?: .*)?`),
		rule(`priority-flow-control pause watchdog`, "priority-flow-control pause watchdog"),
		rule(`priority-flow-control pause watchdog port action (drop|notify-only)`,
			"priority-flow-control pause watchdog port action").neg(`priority-flow-control pause watchdog port action(?: \S+)?`),
		rule(`priority-flow-control pause watchdog port timer timeout (\d+(?:\.\d+)?) polling-interval (auto|\d+(?:\.\d+)?) recovery-time (\d+(?:\.\d+)?)(?: forced)?`,
			"priority-flow-control pause watchdog port timer").neg(`priority-flow-control pause watchdog port timer(?: .*)?`),
		block(q+` ([0-7])`, q+" $1", "txq",
			func(p string, m []string) string { return p + "-" + strings.TrimSuffix(q, "-tx-queue") + "txq-" + m[1] }).sortedByKey(),
	}
	if q == "uc-tx-queue" {
		rules = append(rules, block(`mc-tx-queue ([0-3])`, "mc-tx-queue $1", "txq",
			func(p string, m []string) string { return p + "-mc-txq-" + m[1] }).sortedByKey())
	}
	return rules
}

// eosGrammars are the grammars of the model families, built once.
var eosGrammars = sync.OnceValue(func() map[string]cliGrammar {
	return map[string]cliGrammar{"strata": eosGrammarFor("strata"), "sand": eosGrammarFor("sand")}
})

// eosGrammar returns model's grammar (strata unless "sand").
func eosGrammar(model string) cliGrammar {
	if model == "sand" {
		return eosGrammars()["sand"]
	}
	return eosGrammars()["strata"]
}

func eosGrammarFor(model string) cliGrammar {
	q := eosQueueKeyword(model)
	return cliGrammar{
		"global": {
			rule(`hostname (\S+)`, "hostname"),
			rule(`spanning-tree mode (mstp|rstp|rapid-pvst|none)`, "spanning-tree mode"),
			block(`qos profile (\S+)`, "qos profile $1", "qosprof",
				func(_ string, m []string) string { return "-qos-profile-" + m[1] }),
			block(`interface ((?:Ethernet\d+(?:/\d+){0,2})|Port-Channel\d+|Management\d+|Loopback\d+)`,
				"interface $1", "if", eosIfSuffix).sortedByKey(),
			rule(`qos rewrite dscp`, "qos rewrite dscp"),
			{re: regexp.MustCompile(`^qos map cos ((?:[0-7] )*[0-7]) to traffic-class ([0-7])$`),
				negRe: regexp.MustCompile(`^qos map cos ((?:[0-7] )*[0-7])()(?: to traffic-class ([0-7]))?$`),
				hook:  mapHook("qos map cos", "traffic-class", 7)},
			{re: regexp.MustCompile(`^qos map dscp ((?:\d+ )*\d+) to traffic-class ([0-7])$`),
				negRe: regexp.MustCompile(`^qos map dscp ((?:\d+ )*\d+)()(?: to traffic-class [0-7])?$`),
				hook:  mapHook("qos map dscp", "traffic-class", 63)},
			{re: regexp.MustCompile(`^qos map traffic-class ((?:[0-7] )*[0-7]) to ` + q + ` ([0-7])$`),
				negRe: regexp.MustCompile(`^qos map traffic-class ((?:[0-7] )*[0-7])()(?: to ` + q + ` [0-7])?$`),
				hook:  mapHook("qos map traffic-class", q, 7)},
			rule(`qos random-detect ecn allow non-ect(?: chip-based)?`, "qos random-detect ecn allow non-ect"),
			block(`class-map type qos match-any (\S+)`, "class-map type qos $1", "cmap",
				func(_ string, m []string) string { return "-cmap-qos-" + m[1] }),
			block(`policy-map type quality-of-service (\S+)`, "policy-map type quality-of-service $1", "pmap",
				func(_ string, m []string) string { return "-pmap-qos-" + m[1] }),
			rule(`priority-flow-control all off`, "priority-flow-control all off"),
			rule(`priority-flow-control pause watchdog default timeout (\d+(?:\.\d+)?)`,
				"priority-flow-control pause watchdog default timeout").neg(`priority-flow-control pause watchdog default timeout(?: \S+)?`),
			rule(`priority-flow-control pause watchdog default recovery-time (\d+(?:\.\d+)?)`,
				"priority-flow-control pause watchdog default recovery-time").neg(`priority-flow-control pause watchdog default recovery-time(?: \S+)?`),
			rule(`priority-flow-control pause watchdog default polling-interval (\d+(?:\.\d+)?)`,
				"priority-flow-control pause watchdog default polling-interval").neg(`priority-flow-control pause watchdog default polling-interval(?: \S+)?`),
			rule(`priority-flow-control pause watchdog action (drop|no-drop)`,
				"priority-flow-control pause watchdog action").neg(`priority-flow-control pause watchdog action(?: \S+)?`),
		},
		"if": append([]cliRule{
			rule(`description (.+)`, "description"),
			rule(`mtu (6[89]|[7-9]\d|[1-9]\d{2}|[1-8]\d{3}|9[01]\d\d|920\d|921[0-4])`, "mtu"),
			rule(`(?:no )?switchport`, "switchport"),
			rule(`ip address (\S+)`, "ip address"),
			rule(`shutdown`, "shutdown"),
			rule(`speed (\S+)`, "speed"),
			rule(`service-profile (\S+)`, "service-profile"),
		}, eosQoSRules(model)...),
		"qosprof": eosQoSRules(model),
		"txq": {
			rule(`priority strict|no priority`, "priority"),
			rule(`bandwidth percent (\d{1,2}|100)`, "bandwidth percent"),
			rule(`bandwidth guaranteed percent (\d{1,2}|100)`, "bandwidth guaranteed"),
			rule(`shape rate (\d+) (percent|kbps|mbps)`, "shape rate"),
			rule(`random-detect ecn minimum-threshold (\d+) `+eosQueueUnit+` maximum-threshold (\d+) `+eosQueueUnit+
				`(?: max-mark-probability (\d{1,2}|100))?(?: weight (\d+))?`, "random-detect ecn").
				neg(`random-detect ecn(?: minimum-threshold .*)?`),
			rule(`random-detect ecn count`, "random-detect ecn count"),
		},
		"cmap": {
			rule(`match ip access-group (\S+)`, "match ip access-group"),
			rule(`match dscp ((?:\d+ )*\d+)`, "match dscp"),
		},
		"pmap": {
			block(`class (\S+)`, "class $1", "pmapc",
				func(p string, m []string) string { return strings.Replace(p, "-pmap-", "-pmap-c-", 1) + "-" + m[1] }),
		},
		"pmapc": {
			rule(`set traffic-class ([0-7])`, "set traffic-class"),
			rule(`set dscp (\d+)`, "set dscp"),
			rule(`set cos ([0-7])`, "set cos"),
		},
	}
}

// eosSession is one "configure session".
type eosSession struct {
	name  string
	cand  *cliNode
	state string // "pending" (being edited / left), "pendingCommitTimer", "completed"
}

type eos struct {
	env      *env
	running  *cliNode
	startup  *cliNode
	sessions map[string]*eosSession
}

func newEOS(e *env) device {
	d := &eos{env: e, running: newRoot(), sessions: map[string]*eosSession{}}
	boot := []string{"hostname " + e.hostname, "spanning-tree mode mstp"}
	for i := 1; i <= 32; i++ {
		boot = append(boot, fmt.Sprintf("interface Ethernet%d", i))
	}
	boot = append(boot, "interface Management1", "ip address 192.0.2.10/24", "exit")
	if err := d.apply(boot); err != nil {
		panic("sim: EOS boot configuration: " + err.Error())
	}
	for _, k := range d.running.kids {
		if strings.HasPrefix(k.key, "interface ") {
			k.fixed = true
		}
	}
	d.startup = d.running.clone()
	return d
}

func (d *eos) defaultUser() string { return "admin" }
func (d *eos) banner() string {
	return "Arista EOS switch SIMULATOR (fabricctl test double); configuration sessions supported.\n"
}

func (d *eos) apply(lines []string) error {
	c := &cliCursor{stack: []*cliNode{d.running}}
	for _, l := range lines {
		if _, err := eosGrammar(d.env.model).configure(c, l); err != nil {
			return fmt.Errorf("line %q: %w", l, err)
		}
	}
	return nil
}

func (d *eos) readback() string { return d.render(d.running) }

// render prints a configuration like "show running-config".
func (d *eos) render(root *cliNode) string {
	var b strings.Builder
	b.WriteString("! Command: show running-config\n")
	fmt.Fprintf(&b, "! device: %s (cEOSLab SIMULATOR, EOS-4.32.2F)\n!\n", d.env.hostname)
	b.WriteString("! boot system flash:/cEOS-lab.swi\n!\n")
	b.WriteString(d.body(root))
	b.WriteString("!\nend\n")
	return b.String()
}

// body is the configuration without header and "end" (what diffs compare).
func (d *eos) body(root *cliNode) string {
	var b strings.Builder
	root.render(&b, 3, func(prev, cur *cliNode) (string, bool) {
		if prev == nil {
			return "", false
		}
		return "!", prev.mode != "" || cur.mode != "" || prev.rank != cur.rank
	}, "!")
	return b.String()
}

func (d *eos) diff(cand *cliNode, name string) string {
	return textdiff.Unified("system:/running-config", "session:/"+name+"-session-config",
		d.body(d.running), d.body(cand))
}

// eosShell is one login: exec level, and when configuring the cursor and the
// session (nil for "configure terminal").
type eosShell struct {
	d       *eos
	priv    bool
	cursor  *cliCursor
	session *eosSession
}

func (d *eos) newShell(string) shell { return &eosShell{d: d, priv: true} }

func (s *eosShell) prompt() string {
	h := s.d.env.hostname
	switch {
	case s.cursor != nil && s.session != nil:
		return h + "(config-s-" + s.session.name + s.cursor.suffix() + ")#"
	case s.cursor != nil:
		return h + "(config" + s.cursor.suffix() + ")#"
	case s.priv:
		return h + "#"
	}
	return h + ">"
}

func (s *eosShell) eof(string) reply { return reply{} }

func (s *eosShell) reject(string) string { return "% Invalid input" }

func (s *eosShell) exec(raw string) reply {
	line := strings.Join(strings.Fields(raw), " ")
	if s.cursor != nil {
		return s.config(line)
	}
	return s.execMode(line)
}

func (s *eosShell) execMode(line string) reply {
	if r, ok := s.d.env.congestionReply(line); ok {
		return r
	}
	f := strings.Fields(line)
	switch {
	case line == "":
		return reply{}
	case line == "exit" || line == "logout" || line == "quit":
		return reply{exit: true}
	case line == "enable":
		s.priv = true
		return reply{}
	case line == "disable":
		s.priv = false
		return reply{}
	case len(f) == 3 && f[0] == "terminal" && f[1] == "length":
		if f[2] == "0" {
			return say("Pagination disabled.")
		}
		return reply{}
	case len(f) == 3 && f[0] == "terminal" && f[1] == "width":
		return say("Width set to " + f[2] + " columns.")
	case strings.HasPrefix(line, "show "):
		return s.show(line)
	case !s.priv:
		return fail("% Invalid input (privileged mode required)")
	case line == "configure" || line == "configure terminal" || line == "config" || line == "conf t":
		s.cursor = &cliCursor{stack: []*cliNode{s.d.running}}
		return reply{}
	case len(f) == 3 && f[0] == "configure" && f[1] == "session":
		return s.enterSession(f[2])
	case len(f) == 4 && f[0] == "configure" && f[1] == "session" && f[3] == "commit":
		return s.commitNamed(f[2])
	case len(f) == 4 && f[0] == "configure" && f[1] == "session" && f[3] == "abort":
		return s.abortNamed(f[2])
	case line == "copy running-config startup-config" || line == "write memory" || line == "write":
		s.d.startup = s.d.running.clone()
		s.d.env.stats.Saves++
		return say("Copy completed successfully.")
	}
	return fail("% Invalid input")
}

func (s *eosShell) show(line string) reply {
	d := s.d
	f := strings.Fields(line)
	switch {
	case line == "show running-config" || line == "show running-config all":
		return say(d.render(d.running))
	case line == "show startup-config":
		return say(d.render(d.startup))
	case line == "show version":
		return say("Arista cEOSLab SIMULATOR (fabricctl test double)\nSoftware image version: 4.32.2F\n")
	case line == "show lldp neighbors | json":
		ns, err := d.env.neighbors()
		if err != nil {
			return fail("% Error: LLDP is not running: " + err.Error())
		}
		return say(eosLLDPJSON(ns, d.env.now()))
	case line == "show interfaces | json":
		ps, err := d.env.portErrors()
		if err != nil {
			return fail("% Error: counters are not available: " + err.Error())
		}
		return say(eosInterfacesJSON(ps))
	case line == "show configuration sessions" || line == "show configuration sessions detail":
		return say(s.sessionsTable())
	case line == "show session-config diffs" && s.session != nil:
		return say(d.diff(s.session.cand, s.session.name))
	case line == "show session-config" && s.session != nil:
		return say(d.render(s.session.cand))
	case len(f) == 5 && f[1] == "session-config" && f[2] == "named" && f[4] == "diffs":
		sess, ok := d.sessions[f[3]]
		if !ok {
			return fail("% Error: session " + f[3] + " does not exist")
		}
		return say(d.diff(sess.cand, sess.name))
	}
	return fail("% Invalid input")
}

func (s *eosShell) sessionsTable() string {
	var b strings.Builder
	b.WriteString("Maximum number of completed sessions: 1\nMaximum number of pending sessions: 5\n\n")
	b.WriteString("  Name                 State                   User       Terminal\n")
	b.WriteString("  -------------------- ----------------------- ---------- --------\n")
	names := make([]string, 0, len(s.d.sessions))
	for n := range s.d.sessions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		state := map[string]string{"pending": "pending", "pendingCommitTimer": "pendingCommitTimer",
			"completed": "completed"}[s.d.sessions[n].state]
		star := " "
		if s.session != nil && s.session.name == n {
			star = "*"
		}
		fmt.Fprintf(&b, "%s %-20s %-23s %-10s\n", star, n, state, "admin")
	}
	return b.String()
}

func (s *eosShell) enterSession(name string) reply {
	sess, ok := s.d.sessions[name]
	switch {
	case ok && sess.state == "completed":
		return fail("% Error: cannot enter session " + name + " (session has already been completed)")
	case ok && sess.state == "pendingCommitTimer":
		return fail("% Error: cannot enter session " + name + " (session is pending commit timer)")
	case !ok:
		pending := 0
		for _, x := range s.d.sessions {
			if x.state == "pending" {
				pending++
			}
		}
		if pending >= 5 {
			return fail("% Error: maximum number of pending sessions has been reached")
		}
		sess = &eosSession{name: name, cand: s.d.running.clone(), state: "pending"}
		s.d.sessions[name] = sess
	}
	s.session = sess
	s.cursor = &cliCursor{stack: []*cliNode{sess.cand}}
	return reply{}
}

// config handles a line in configuration mode.
func (s *eosShell) config(line string) reply {
	d := s.d
	f := strings.Fields(line)
	switch {
	case strings.HasPrefix(line, "show "):
		return s.show(line)
	case line == "abort" && s.session != nil:
		name := s.session.name
		s.leave()
		return s.abortNamed(name)
	case line == "commit" && s.session != nil:
		sess := s.session
		s.leave()
		d.commit(sess)
		return reply{}
	case len(f) == 3 && f[0] == "commit" && f[1] == "timer" && s.session != nil:
		t, err := parseHMS(f[2])
		if err != nil {
			return fail("% Invalid input (timer must be hh:mm:ss)")
		}
		sess := s.session
		s.leave()
		before := d.running.clone()
		d.commit(sess)
		sess.state = "pendingCommitTimer"
		d.env.stats.ConfirmedCommits++
		d.env.armTimer(t, func() {
			d.running = before
			sess.state = "completed"
		})
		return reply{}
	case (line == "commit" || line == "abort" || strings.HasPrefix(line, "commit ")) && s.session == nil:
		return fail("% Invalid input")
	case len(f) == 3 && f[0] == "configure" && f[1] == "session":
		s.leave()
		return s.enterSession(f[2])
	}
	leave, err := eosGrammar(s.d.env.model).configure(s.cursor, line)
	switch {
	case err == errIncomplete:
		return fail("% Incomplete command")
	case err != nil:
		return fail("% Invalid input")
	case leave:
		s.leave()
	}
	return reply{}
}

func (s *eosShell) leave() { s.cursor, s.session = nil, nil }

func (d *eos) commit(sess *eosSession) {
	if d.body(sess.cand) != d.body(d.running) {
		d.env.stats.Commits++
	}
	d.running = sess.cand.clone()
	sess.state = "completed"
}

func (s *eosShell) commitNamed(name string) reply {
	d := s.d
	sess, ok := d.sessions[name]
	switch {
	case !ok:
		return fail("% Error: session " + name + " does not exist")
	case sess.state == "pendingCommitTimer":
		d.env.stopTimer()
		sess.state = "completed"
		d.env.stats.Confirms++
		return reply{}
	case sess.state == "completed":
		return fail("% Cannot commit session " + name + " (session has already been completed)")
	}
	d.commit(sess)
	return reply{}
}

func (s *eosShell) abortNamed(name string) reply {
	d := s.d
	sess, ok := d.sessions[name]
	switch {
	case !ok:
		return fail("% Error: session " + name + " does not exist")
	case sess.state == "pendingCommitTimer":
		// Aborting a session whose commit timer runs rolls it back now.
		s.d.env.rollbackNow()
		delete(d.sessions, name)
		return reply{}
	case sess.state != "pending":
		return fail("% Error: cannot abort session " + name + " (session is " + sess.state + ")")
	}
	delete(d.sessions, name)
	d.env.stats.Aborts++
	return reply{}
}

// parseHMS parses EOS's commit timer "hh:mm:ss".
func parseHMS(s string) (time.Duration, error) {
	p := strings.Split(s, ":")
	if len(p) != 3 {
		return 0, fmt.Errorf("not hh:mm:ss: %q", s)
	}
	var total time.Duration
	for i, unit := range []time.Duration{time.Hour, time.Minute, time.Second} {
		n, err := strconv.Atoi(p[i])
		if err != nil || n < 0 || (i > 0 && n > 59) {
			return 0, fmt.Errorf("not hh:mm:ss: %q", s)
		}
		total += time.Duration(n) * unit
	}
	if total == 0 {
		return 0, fmt.Errorf("zero timer")
	}
	return total, nil
}
