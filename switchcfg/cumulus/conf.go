package cumulus

import (
	"fmt"
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
	}
	if len(kv) == 0 {
		return fabric.SwitchIntent{}, fmt.Errorf("%w: no qos_features.conf assignments found", ErrSyntax)
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

	// ECN: the default group on TC 0, then port groups.
	p.ecnGroup(m, "default_ecn_red_conf.")
	for _, g := range p.groups("ecn_red") {
		p.ecnGroup(m, "ecn_red."+g+".")
		addPorts("ecn_red." + g + ".port_set")
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
				m.wdPorts[n] = true
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
	return m.intent(), nil
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
		p.fail(key, fmt.Errorf("unbalanced brackets in %q", v))
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
		p.fail(key, fmt.Errorf("%q is not an integer in %d..%d", v, lo, hi))
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
	return fmt.Errorf("%w: %w: none of the %d assignments is a Cumulus qos_features.conf or traffic.conf key (line %d: %q)",
		ErrSyntax, switchcfg.ErrNotThisFormat, len(kv), line, first)
}
