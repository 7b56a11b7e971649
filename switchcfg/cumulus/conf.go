package cumulus

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// ParseQoSFeatures reads the Linux-file QoS configuration of Cumulus Linux:
// /etc/cumulus/datapath/qos/qos_features.conf (5.x, which NVUE generates) or
// the pre-5.0 /etc/cumulus/datapath/traffic.conf that NCLU wrote (same
// "key = value" grammar; its ecn_red groups use cos_list). Port groups are
// folded into the switch-wide canonical intent: PFC and ECN of every group
// apply, and their port sets become Ports. Lines that are not assignments
// (comments, "...", shell prompts) are skipped; a malformed value of a key the
// parser reads is an error naming the line.
func ParseQoSFeatures(text string) (fabric.SwitchIntent, error) {
	m := newModel()
	kv := map[string]string{}
	lineOf := map[string]int{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t$") {
			continue
		}
		kv[k] = strings.TrimSpace(v)
		lineOf[k] = i + 1
		if len(kv) > switchcfg.MaxBlocks {
			return fabric.SwitchIntent{}, fmt.Errorf("%w: line %d: more than %d assignments: no qos_features.conf has that many", ErrSyntax, i+1, switchcfg.MaxBlocks)
		}
	}
	if len(kv) == 0 {
		return fabric.SwitchIntent{}, fmt.Errorf("%w: %w: no qos_features.conf assignments found", ErrSyntax, switchcfg.ErrNotThisFormat)
	}
	if err := checkQoSKeys(kv, lineOf); err != nil {
		return fabric.SwitchIntent{}, err
	}
	p := confParser{kv: kv, lineOf: lineOf}

	if v, ok := kv["traffic.packet_priority_source_set"]; ok {
		set := p.list("traffic.packet_priority_source_set", v)
		has := map[string]bool{}
		for _, s := range set {
			has[s] = true
		}
		switch {
		case has["dscp"] && has["802.1p"]:
			m.trust = "both"
		case has["dscp"]:
			m.trust = "l3"
		case has["port"]:
			m.trust = "port"
		default:
			m.trust = "l2"
		}
	}
	if v, ok := kv["traffic.port_default_priority"]; ok {
		m.portSP = p.intIn("traffic.port_default_priority", v, 0, 7)
	}
	for sp := 0; sp < 8; sp++ {
		key := fmt.Sprintf("traffic.cos_%d.priority_source.", sp)
		for _, d := range p.ints(key+"dscp", 0, 63) {
			m.dscpSP[d] = sp
		}
		for _, c := range p.ints(key+"8021p", 0, 7) {
			m.pcpSP[c] = sp
		}
	}

	ports := map[string]bool{}
	addPorts := func(key string) {
		v, ok := kv[key]
		if !ok || v == "allports" {
			return
		}
		names, err := ExpandInterfaces(v)
		if err != nil {
			p.fail(key, err)
			return
		}
		for _, n := range names {
			ports[n] = true
		}
	}

	// PFC groups: priorities are the union of cos_list over enabled groups.
	if groups := p.groups("pfc"); len(groups) > 0 {
		m.pfc = [8]bool{}
		for _, g := range groups {
			k := "pfc." + g + "."
			if kv[k+"tx_enable"] == "false" && kv[k+"rx_enable"] == "false" {
				continue
			}
			for _, c := range p.ints(k+"cos_list", 0, 7) {
				m.pfc[c] = true
			}
			if v, ok := kv[k+"cable_length"]; ok {
				m.cable = p.intIn(k+"cable_length", v, 1, 100000)
			}
			addPorts(k + "port_set")
		}
	}

	// ECN: the release's default profile, then port groups. Cumulus 5.x
	// marks on queue 0 by default (default_ecn_red_conf, 4.4's
	// default_ecn_conf); a file that sets the default profile's queues
	// replaces that, and the 3.x/4.x traffic.conf has no default profile:
	// ECN only where its ecn_red (4.x) or ecn (3.x) groups put it.
	switch {
	case hasPrefix(kv, "default_ecn_red_conf.egress_queue_list") || hasPrefix(kv, "default_ecn_conf.egress_queue_list"):
		m.ecn = [8]*fabric.SwitchECN{}
		p.ecnGroup(m, "default_ecn_red_conf.")
		p.ecnGroup(m, "default_ecn_conf.")
	case isTrafficConf(kv):
		m.ecn = [8]*fabric.SwitchECN{}
	default:
		p.ecnGroup(m, "default_ecn_red_conf.") // thresholds of the default queue
	}
	for _, feature := range []string{"ecn_red", "ecn"} {
		for _, g := range p.groups(feature) {
			p.ecnGroup(m, feature+"."+g+".")
			addPorts(feature + "." + g + ".port_set")
		}
	}

	// Egress scheduling: bw_percent 0 means strict priority.
	p.schedGroup(m, "default_egress_sched.")
	for _, g := range p.groups("egress_sched") {
		p.schedGroup(m, "egress_sched."+g+".")
		addPorts("egress_sched." + g + ".port_set")
	}

	for _, g := range p.groups("pfc_watchdog") {
		if v, ok := kv["pfc_watchdog."+g+".port_set"]; ok {
			names, err := ExpandInterfaces(v)
			if err != nil {
				p.fail("pfc_watchdog."+g+".port_set", err)
				continue
			}
			for _, n := range names {
				// Like every port set's, a name that is no switch port
				// (eth0, a bond) is not one of the reading's ports.
				if checkPort(n) == nil {
					m.wdPorts[n] = true
				}
				ports[n] = true
			}
		}
	}
	for n := range ports {
		if checkPort(n) == nil {
			m.ports[n] = true
		}
	}
	if len(p.errs) > 0 {
		sort.Strings(p.errs)
		return fabric.SwitchIntent{}, fmt.Errorf("%w: %s", ErrSyntax, strings.Join(p.errs, "; "))
	}
	si := m.intent()
	si.Unparsed = unreadKeys(kv, lineOf)
	return si, nil
}

func hasPrefix(kv map[string]string, prefix string) bool {
	for k := range kv {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// isTrafficConf tells a 3.x/4.x traffic.conf (NCLU) from a 5.x
// qos_features.conf: only the former has priority groups, the
// scheduling algorithm or the 3.x ecn groups.
func isTrafficConf(kv map[string]string) bool {
	for k := range kv {
		// traffic.conf's ecn_red groups take cos_list, 5.x's egress_queue_list.
		if strings.HasPrefix(k, "ecn_red.") && strings.HasSuffix(k, ".cos_list") {
			return true
		}
	}
	return hasPrefix(kv, "priority_group.") || hasPrefix(kv, "scheduling.") || hasPrefix(kv, "ecn.") ||
		hasPrefix(kv, "traffic.priority_group_list")
}

// readKeyRE are the keys ParseQoSFeatures reads.
var readKeyRE = regexp.MustCompile(`^(traffic\.(packet_priority_source_set|port_default_priority|cos_[0-7]\.priority_source\.(dscp|8021p))` +
	`|(pfc|ecn_red|ecn|egress_sched|pfc_watchdog)\.port_group_list` +
	`|pfc\.[^.]+\.(tx_enable|rx_enable|cos_list|cable_length|port_set)` +
	`|(default_ecn_red_conf|default_ecn_conf|(ecn_red|ecn)\.[^.]+)\.(egress_queue_list|cos_list|ecn_enable|min_threshold_bytes|max_threshold_bytes|probability|port_set)` +
	`|(default_egress_sched|egress_sched\.[^.]+)\.egr_queue_[0-7]\.bw_percent|egress_sched\.[^.]+\.port_set` +
	`|pfc_watchdog\.[^.]+\.port_set)$`)

// knownKeyRE are keys that are no QoS reading (hashing, forwarding
// profiles, DoS) or QoS the intent deliberately does not model (buffer
// pools and headroom, the priority-group list): not "not understood".
var knownKeyRE = regexp.MustCompile(`^(hash_config|lag_hash_config|forwarding_table|dos_enable|ingress_service_pool|egress_service_pool|ingress_buffer|egress_buffer|mc_buffer|buffer)(\.|$)` +
	`|^pfc\.[^.]+\.(port_buffer_bytes|xoff_size|xon_delta)$|^priority_group\.[^.]+\.(service_pool|id)$|^traffic\.priority_group_list$`)

// unreadKeys lists the assignments that can affect QoS and that the
// reader does not take — per-port source and remark groups, 3.x priority
// group weights, RED drop, remarking, profiles under names it does not
// know — with their lines. Empty lists and identity queue maps say
// nothing and are not listed.
func unreadKeys(kv map[string]string, lineOf map[string]int) []fabric.Unparsed {
	var keys []string
	for k, v := range kv {
		v = strings.TrimSpace(v)
		switch {
		case readKeyRE.MatchString(k), knownKeyRE.MatchString(k), v == "[]", v == "":
			continue
		case strings.HasSuffix(k, ".red_enable") && v == "false":
			continue
		case strings.HasPrefix(k, "cos_egr_queue.cos_") && strings.TrimPrefix(strings.TrimSuffix(k, ".uc"), "cos_egr_queue.cos_") == v:
			continue
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return lineOf[a] - lineOf[b] })
	var out switchcfg.UnparsedLines
	for _, k := range keys {
		out.Add(fabric.Unparsed{Line: lineOf[k], Text: k + " = " + strings.TrimSpace(kv[k]), Reason: "a QoS key fabricctl does not read"})
	}
	return out.Lines()
}

type confParser struct {
	kv     map[string]string
	lineOf map[string]int
	errs   []string
}

func (p *confParser) fail(key string, err error) {
	p.errs = append(p.errs, fmt.Sprintf("line %d: %s: %v", p.lineOf[key], key, err))
}

// groups returns the port groups of a feature: those its port_group_list
// names, or, when the file shows no list (an excerpt), every group that has
// keys ("<feature>.<group>.<key>").
func (p *confParser) groups(feature string) []string {
	if v, ok := p.kv[feature+".port_group_list"]; ok {
		return p.list(feature+".port_group_list", v)
	}
	seen := map[string]bool{}
	var out []string
	for k := range p.kv {
		rest, ok := strings.CutPrefix(k, feature+".")
		if !ok {
			continue
		}
		if g, _, ok := strings.Cut(rest, "."); ok && !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	sort.Strings(out)
	return out
}

// list reads "[a, b]" (or a bare value) into its elements.
func (p *confParser) list(key, v string) []string {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	if strings.HasPrefix(v, "[") != strings.HasSuffix(v, "]") {
		p.fail(key, fmt.Errorf("unbalanced brackets in %s", fabric.Clip(v)))
		return nil
	}
	v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	var out []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// ints reads a bracketed list of integers in [lo, hi] from key, if present.
func (p *confParser) ints(key string, lo, hi int) []int {
	v, ok := p.kv[key]
	if !ok {
		return nil
	}
	vals, err := switchcfg.ParseIntSet(strings.Join(p.list(key, v), ","), lo, hi)
	if err != nil {
		p.fail(key, err)
	}
	return vals
}

func (p *confParser) intIn(key, v string, lo, hi int) int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		p.fail(key, fmt.Errorf("%s is not an integer in %d..%d", fabric.Clip(v), lo, hi))
		return lo
	}
	return n
}

// ecnGroup applies one ECN group (prefix ends with "."): the traffic classes
// come from egress_queue_list (5.x) or cos_list (traffic.conf).
func (p *confParser) ecnGroup(m *model, prefix string) {
	tcs := p.ints(prefix+"egress_queue_list", 0, 7)
	if _, ok := p.kv[prefix+"egress_queue_list"]; !ok {
		tcs = p.ints(prefix+"cos_list", 0, 7)
		if len(tcs) == 0 && strings.HasPrefix(prefix, "default_") && hasPrefix(p.kv, prefix) {
			tcs = []int{0} // the default profile's own queue
		}
	}
	if len(tcs) == 0 {
		return
	}
	on := p.kv[prefix+"ecn_enable"] != "false"
	e := fabric.SwitchECN{MinBytes: 40000, MaxBytes: 200000, MaxMarkProbability: 100}
	if v, ok := p.kv[prefix+"min_threshold_bytes"]; ok {
		e.MinBytes = int64(p.intIn(prefix+"min_threshold_bytes", v, 1, 1<<30))
	}
	if v, ok := p.kv[prefix+"max_threshold_bytes"]; ok {
		e.MaxBytes = int64(p.intIn(prefix+"max_threshold_bytes", v, 1, 1<<30))
	}
	if v, ok := p.kv[prefix+"probability"]; ok {
		e.MaxMarkProbability = p.intIn(prefix+"probability", v, 0, 100)
	}
	for _, tc := range tcs {
		if !on {
			m.ecn[tc] = nil
			continue
		}
		cp := e
		m.ecn[tc] = &cp
	}
}

func (p *confParser) schedGroup(m *model, prefix string) {
	for q := 0; q < 8; q++ {
		key := fmt.Sprintf("%segr_queue_%d.bw_percent", prefix, q)
		v, ok := p.kv[key]
		if !ok {
			continue
		}
		bw := p.intIn(key, v, 0, 100)
		if bw == 0 {
			m.sched[q] = tcSched{strict: true}
		} else {
			m.sched[q] = tcSched{bandwidth: bw}
		}
	}
}

// qosKeyGroups are the first components of the keys of qos_features.conf
// (Cumulus Linux 5.x) and traffic.conf (3.x/4.x), as NVIDIA's "Quality of
// Service" chapters list them and the files Cumulus ships carry them.
var qosKeyGroups = switchcfg.WordSet("traffic", "priority_group", "pfc", "link_pause", "ecn_red",
	"default_ecn_red_conf", "ecn", "default_egress_sched", "egress_sched", "scheduling", "cos_egr_queue",
	"egress_buffer", "ingress_buffer", "ingress_service_pool", "egress_service_pool", "port", "source",
	"pfc_watchdog", "flow_control", "port_group", "buffer", "mc_buffer", "lossless", "forwarding_table")

// checkQoSKeys refuses key = value text none of whose keys is a Cumulus QoS
// key: any "foo = bar" file would otherwise read as a stock switch.
func checkQoSKeys(kv map[string]string, lineOf map[string]int) error {
	first, line := "", 0
	for k := range kv {
		group, _, _ := strings.Cut(k, ".")
		if qosKeyGroups[group] {
			return nil
		}
		if line == 0 || lineOf[k] < line {
			first, line = k, lineOf[k]
		}
	}
	return fmt.Errorf("%w: %w: none of the %d assignments is a Cumulus qos_features.conf or traffic.conf key (line %d: %s)",
		ErrSyntax, switchcfg.ErrNotThisFormat, len(kv), line, fabric.Clip(first))
}
