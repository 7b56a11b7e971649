package sim

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Cisco NX-OS: "configure terminal" edits the running configuration line by
// line; transactions are "checkpoint NAME" before, "show diff rollback-patch
// checkpoint NAME running-config" for the device-side diff and "rollback
// running-config checkpoint NAME" to undo.

var nxDSCPList = `((?:\d+(?:-\d+)?)(?:,\d+(?:-\d+)?)*)`

var nxosGrammar = sync.OnceValue(func() cliGrammar {
	return cliGrammar{
		"global": {
			rule(`hostname (\S+)`, "hostname"),
			rule(`feature (\S+)`, "feature $1"),
			rule(`priority-flow-control watch-dog-interval (on|off)`, "priority-flow-control watch-dog-interval"),
			rule(`priority-flow-control watch-dog interval (\d+)`, "priority-flow-control watch-dog interval"),
			rule(`priority-flow-control watch-dog shutdown-multiplier (\d+)`, "priority-flow-control watch-dog shutdown-multiplier"),
			rule(`priority-flow-control auto-restore multiplier (\d+)`, "priority-flow-control auto-restore multiplier"),
			rule(`priority-flow-control fixed-restore multiplier (\d+)`, "priority-flow-control fixed-restore multiplier"),
			block(`class-map type qos (match-all|match-any) (\S+)`, "class-map type qos $2", "cmapqos", fixedSuffix("-cmap-qos")),
			block(`class-map type queuing (match-all|match-any) (\S+)`, "class-map type queuing $2", "cmapque", fixedSuffix("-cmap-que")),
			block(`class-map type network-qos (match-all|match-any) (\S+)`, "class-map type network-qos $2", "cmapnq", fixedSuffix("-cmap-nqos")),
			block(`policy-map type qos (\S+)`, "policy-map type qos $1", "pmapqos", fixedSuffix("-pmap-qos")),
			block(`policy-map type queuing (\S+)`, "policy-map type queuing $1", "pmapque", fixedSuffix("-pmap-que")),
			block(`policy-map type network-qos (\S+)`, "policy-map type network-qos $1", "pmapnq", fixedSuffix("-pmap-nqos")),
			block(`system qos`, "system qos", "sysqos", fixedSuffix("-sys-qos")),
			block(`interface (Ethernet\d+/\d+(?:/\d+)?|mgmt0|loopback\d+|port-channel\d+)`, "interface $1", "if", fixedSuffix("-if")).sortedByKey(),
		},
		// `no match` and `no pause pfc-cos` name their values; a bare one is
		// invalid input (real configurations print `no pause pfc-cos 0`).
		"cmapqos": {
			rule(`match dscp `+nxDSCPList, "match dscp").needsValues(`match dscp ` + nxDSCPList),
			rule(`match cos ([0-7](?:[,-][0-7])*)`, "match cos").needsValues(`match cos ([0-7](?:[,-][0-7])*)`),
			rule(`match precedence ([0-7](?:[,-][0-7])*)`, "match precedence"),
		},
		"cmapque": {rule(`match qos-group ([0-7])`, "match qos-group")},
		"cmapnq":  {rule(`match qos-group ([0-7])`, "match qos-group"), rule(`match cos ([0-7])`, "match cos")},
		"pmapqos": {
			block(`class (?:type qos )?(\S+)`, "class $1", "pmapcqos", fixedSuffix("-pmap-c-qos")).as("class $1"),
		},
		"pmapcqos": {
			rule(`set qos-group ([0-7])`, "set qos-group"),
			rule(`set cos ([0-7])`, "set cos"),
			rule(`set dscp (\d+)`, "set dscp"),
		},
		"pmapque": {
			block(`class type queuing (c-out-8q-q[0-7]|c-out-8q-q-default|c-out-q[0-7]|c-out-q-default|c-in-q[1-7]|c-in-q-default)`,
				"class type queuing $1", "pmapcque", fixedSuffix("-pmap-c-que")),
		},
		"pmapcque": {
			rule(`bandwidth (?:remaining )?percent (\d{1,2}|100)`, "bandwidth"),
			rule(`priority(?: level ([1-8]))?`, "priority"),
			rule(`random-detect minimum-threshold (\d+) (bytes|kbytes|mbytes) maximum-threshold (\d+) (bytes|kbytes|mbytes)`+
				`(?: drop-probability (\d{1,2}|100))?(?: weight (\d+))?(?: ecn)?`, "random-detect").
				neg(`random-detect(?: .*)?`),
			rule(`random-detect threshold burst-optimized(?: ecn)?`, "random-detect"),
			rule(`shape min (\d+) (\S+) max (\d+) (\S+)`, "shape"),
			// Ingress (c-in-q) classes: pause buffer thresholds, in bytes.
			rule(`pause buffer-size (\d+) pause-threshold (\d+) resume-threshold (\d+)`, "pause buffer-size"),
		},
		"pmapnq": {
			block(`class type network-qos (c-8q-nq[0-7]|c-8q-nq-default|c-nq[0-7]|c-nq-default)`,
				"class type network-qos $1", "pmapcnq", fixedSuffix("-pmap-nqos-c")),
		},
		"pmapcnq": {
			rule(`mtu (\d{3,4})`, "mtu"),
			rule(`pause pfc-cos ([0-7](?:[ ,][0-7])*)`, "pause pfc-cos").needsValues(`pause pfc-cos ([0-7](?:[ ,-][0-7])*)`),
			rule(`pause buffer-size (\d+) pause-threshold (\d+) resume-threshold (\d+)`, "pause buffer-size"),
			rule(`congestion-control random-detect ecn`, "congestion-control"),
		},
		"sysqos": {
			rule(`service-policy type (qos|queuing|network-qos) (?:(input|output) )?(\S+)`, "service-policy type $1 $2").
				neg(`service-policy type (qos|queuing|network-qos)(?: (input|output))?(?: \S+)?`),
		},
		"if": {
			rule(`description (.+)`, "description"),
			rule(`switchport`, "switchport"),
			rule(`switchport mode (access|trunk)`, "switchport mode"),
			rule(`switchport trunk native vlan (\d+)`, "switchport trunk native vlan"),
			rule(`switchport trunk allowed vlan (\S+)`, "switchport trunk allowed vlan"),
			rule(`priority-flow-control mode (on|off|auto)(?: send-tlv)?`, "priority-flow-control mode"),
			rule(`priority-flow-control watch-dog-interval (on|off)`, "priority-flow-control watch-dog-interval"),
			rule(`spanning-tree port type edge(?: trunk)?`, "spanning-tree port type"),
			rule(`mtu (\d{3,4})`, "mtu"),
			rule(`no logging event port link-status`, "logging event port link-status"),
			rule(`service-policy type qos input (\S+)`, "service-policy type qos input"),
			rule(`service-policy type queuing (input|output) (\S+)`, "service-policy type queuing $1"),
			rule(`vrf member (\S+)`, "vrf member"),
			rule(`ip address (\S+)`, "ip address"),
			rule(`(?:no )?shutdown`, "shutdown"),
		},
	}
})

// maxCheckpoints is NX-OS's limit of user checkpoints per switch.
const maxCheckpoints = 10

type nxos struct {
	env         *env
	running     *cliNode
	startup     *cliNode
	checkpoints map[string]*cliNode
	changedAt   string
}

func newNXOS(e *env) device {
	d := &nxos{env: e, running: newRoot(), checkpoints: map[string]*cliNode{}}
	boot := []string{"hostname " + e.hostname, "feature lldp"}
	for i := 1; i <= 32; i++ {
		boot = append(boot, fmt.Sprintf("interface Ethernet1/%d", i))
	}
	boot = append(boot, "interface mgmt0", "vrf member management", "ip address 192.0.2.20/24", "exit")
	if err := d.apply(boot); err != nil {
		panic("sim: NX-OS boot configuration: " + err.Error())
	}
	for _, k := range d.running.kids {
		if strings.HasPrefix(k.key, "interface ") {
			k.fixed = true
		}
	}
	d.startup = d.running.clone()
	d.changedAt = e.now().Format("Mon Jan _2 15:04:05 2006")
	return d
}

func (d *nxos) defaultUser() string { return "admin" }
func (d *nxos) banner() string {
	return "Cisco Nexus Operating System (NX-OS) SIMULATOR (fabricctl test double)\n"
}

func (d *nxos) apply(lines []string) error {
	c := &cliCursor{stack: []*cliNode{d.running}}
	for _, l := range lines {
		if _, err := nxosGrammar().configure(c, l); err != nil {
			return fmt.Errorf("line %q: %w", l, err)
		}
	}
	d.touch()
	return nil
}

func (d *nxos) touch() { d.changedAt = d.env.now().Format("Mon Jan _2 15:04:05 2006") }

func (d *nxos) readback() string { return d.render(d.running) }

func (d *nxos) render(root *cliNode) string {
	var b strings.Builder
	b.WriteString("\n!Command: show running-config\n")
	b.WriteString("!Running configuration last done at: " + d.changedAt + "\n")
	b.WriteString("!Time: " + d.env.now().Format("Mon Jan _2 15:04:05 2006") + "\n\n")
	b.WriteString("version 10.3(3) Bios:version\n")
	b.WriteString(d.body(root))
	return b.String()
}

func (d *nxos) body(root *cliNode) string {
	var b strings.Builder
	root.render(&b, 2, func(prev, cur *cliNode) (string, bool) {
		return "", prev != nil && (prev.mode != "" || cur.mode != "")
	}, "")
	return b.String()
}

// patch prints the commands that turn from into to, in canonical order
// (the body of "show diff rollback-patch").
func nxPatch(b *strings.Builder, from, to *cliNode, depth int) {
	pad := strings.Repeat("  ", depth)
	seen := map[string]bool{}
	for _, t := range to.ordered() {
		seen[t.key] = true
		f := from.find(t.key)
		switch {
		case f == nil:
			t.write(b, depth, 2, "")
		case t.mode == "" && f.line != t.line:
			b.WriteString(pad + t.line + "\n")
		case t.mode != "":
			var sub strings.Builder
			nxPatch(&sub, f, t, depth+1)
			if sub.Len() > 0 {
				b.WriteString(pad + t.line + "\n" + sub.String())
			}
		}
	}
	for _, f := range from.ordered() {
		if !seen[f.key] {
			if strings.HasPrefix(f.line, "no ") {
				b.WriteString(pad + strings.TrimPrefix(f.line, "no ") + "\n")
			} else {
				b.WriteString(pad + "no " + f.line + "\n")
			}
		}
	}
}

type nxosShell struct {
	d       *nxos
	cursor  *cliCursor
	entered string // running body when configuration mode was entered
}

func (d *nxos) newShell(string) shell { return &nxosShell{d: d} }

func (s *nxosShell) prompt() string {
	if s.cursor != nil {
		return s.d.env.hostname + "(config" + s.cursor.suffix() + ")# "
	}
	return s.d.env.hostname + "# "
}

func (s *nxosShell) eof(string) reply { return reply{} }

func (s *nxosShell) reject(line string) string { return s.marker(line, 0, "Invalid command") }

// marker prints NX-OS's caret line under token tok of line and the message.
func (s *nxosShell) marker(line string, tok int, what string) string {
	col := len(s.prompt())
	f := strings.Fields(line)
	if tok >= len(f) {
		tok = max(len(f)-1, 0)
	}
	if len(f) > 0 {
		col += strings.Index(line, f[tok])
	}
	return strings.Repeat(" ", col) + "^\n% " + what + " at '^' marker."
}

func (s *nxosShell) exec(raw string) reply {
	line := strings.Join(strings.Fields(raw), " ")
	if s.cursor != nil && !strings.HasPrefix(line, "show ") {
		return s.config(raw, line)
	}
	d := s.d
	if r, ok := d.env.congestionReply(line); ok {
		return r
	}
	f := strings.Fields(line)
	switch {
	case line == "":
		return reply{}
	case line == "exit" || line == "logout":
		return reply{exit: true}
	case len(f) == 3 && f[0] == "terminal" && (f[1] == "length" || f[1] == "width"):
		return reply{}
	case line == "show running-config" || line == "show running-config all":
		return say(d.render(d.running))
	case line == "show startup-config":
		return say(d.render(d.startup))
	case line == "show version":
		return say("Cisco Nexus Operating System (NX-OS) Software SIMULATOR\n  NXOS: version 10.3(3)\n")
	case line == "show lldp neighbors detail | json":
		ns, err := d.env.neighbors()
		if err != nil {
			return fail("ERROR: LLDP is not running: " + err.Error())
		}
		return say(nxosLLDPJSON(ns))
	case line == "show interface counters errors | json":
		ps, err := d.env.portErrors()
		if err != nil {
			return fail("ERROR: counters are not available: " + err.Error())
		}
		return say(nxosCountersJSON(ps))
	case line == "show checkpoint summary":
		return say(s.checkpointSummary())
	case line == "configure terminal" || line == "configure" || line == "conf t" || line == "config t":
		s.cursor = &cliCursor{stack: []*cliNode{d.running}}
		s.entered = d.body(d.running)
		return say("Enter configuration commands, one per line. End with CNTL/Z.")
	case len(f) == 2 && f[0] == "checkpoint":
		if _, ok := d.checkpoints[f[1]]; ok {
			return fail("ERROR: Checkpoint name " + f[1] + " is already in use")
		}
		if len(d.checkpoints) >= maxCheckpoints {
			return fail("ERROR: Maximum number of user checkpoints (" + strconv.Itoa(maxCheckpoints) +
				") reached; delete one with 'no checkpoint NAME'")
		}
		d.checkpoints[f[1]] = d.running.clone()
		return say("Done")
	case len(f) == 3 && f[0] == "no" && f[1] == "checkpoint":
		if _, ok := d.checkpoints[f[2]]; !ok {
			return fail("ERROR: No checkpoint with name " + f[2])
		}
		delete(d.checkpoints, f[2])
		return reply{}
	case line == "clear checkpoint database":
		d.checkpoints = map[string]*cliNode{}
		return say("Done")
	case len(f) == 6 && strings.Join(f[:4], " ") == "show diff rollback-patch checkpoint" && f[5] == "running-config":
		cp, ok := d.checkpoints[f[4]]
		if !ok {
			return fail("ERROR: No checkpoint with name " + f[4])
		}
		var patch strings.Builder
		nxPatch(&patch, cp, d.running, 0)
		out := "Collecting Running-Config\n#Generating Rollback Patch\n"
		if patch.Len() == 0 {
			return say(out + "Rollback Patch is Empty")
		}
		return say(out + "!!\n" + patch.String())
	case len(f) >= 4 && strings.Join(f[:3], " ") == "rollback running-config checkpoint" &&
		(len(f) == 4 || (len(f) == 5 && (f[4] == "atomic" || f[4] == "best-effort" || f[4] == "stop-at-first-failure"))):
		cp, ok := d.checkpoints[f[3]]
		if !ok {
			return fail("ERROR: No checkpoint with name " + f[3])
		}
		d.running = cp.clone()
		d.touch()
		d.env.stats.Rollbacks++
		return say("Collecting Running-Config\n#Generating Rollback Patch\nExecuting Rollback Patch\n" +
			"Generating Running-config for verification\n#Generating Patch for verification\n" +
			"Verification is Successful.\n\nRollback completed successfully.")
	case line == "copy running-config startup-config" || line == "copy run start":
		d.startup = d.running.clone()
		d.env.stats.Saves++
		return say("[########################################] 100%\nCopy complete, now saving to disk (please wait)...\nCopy complete.")
	}
	return fail(s.marker(line, 0, "Invalid command"))
}

func (s *nxosShell) checkpointSummary() string {
	names := make([]string, 0, len(s.d.checkpoints))
	for n := range s.d.checkpoints {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("User Checkpoint Summary\n--------------------------------------------------------------------------------\n")
	for i, n := range names {
		b.WriteString(strconv.Itoa(i+1) + ") " + n + ":\nCreated by admin\n\n")
	}
	return b.String()
}

func (s *nxosShell) config(raw, line string) reply {
	d := s.d
	leave, err := nxosGrammar().configure(s.cursor, raw)
	switch {
	case err == errIncomplete:
		return fail(s.marker(line, len(strings.Fields(line)), "Incomplete command"))
	case err != nil:
		return fail(s.marker(line, s.badToken(line), "Invalid command"))
	}
	if body := d.body(d.running); body != s.entered {
		d.touch()
		if leave {
			d.env.stats.Commits++
		}
	}
	if leave {
		s.cursor = nil
	}
	return reply{}
}

var nxFirstWords = func() map[string]bool {
	m := map[string]bool{"no": true, "end": true, "exit": true}
	for _, rules := range nxosGrammar() {
		for _, r := range rules {
			w := strings.TrimPrefix(r.re.String(), "^(?:")
			w, _, _ = strings.Cut(w, " ")
			if regexp.MustCompile(`^[a-z\-]+$`).MatchString(w) {
				m[w] = true
			}
		}
	}
	return m
}()

// badToken guesses the token NX-OS puts the caret under: the first one for an
// unknown command word, else the last.
func (s *nxosShell) badToken(line string) int {
	f := strings.Fields(line)
	if len(f) == 0 || !nxFirstWords[f[0]] {
		return 0
	}
	return len(f) - 1
}
