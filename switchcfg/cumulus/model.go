package cumulus

import (
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// profile is the NVUE QoS profile fabricctl manages; it applies to every port.
const profile = "default-global"

// Platform defaults of Cumulus Linux 5.x on Spectrum, from the shipped
// /etc/cumulus/datapath/qos/qos_features.conf and the NVUE documentation.
const (
	defaultMTU          = 9216 // swp interfaces
	defaultCableLength  = 10   // metres, pfc.<group>.cable_length
	defaultWDPollMs     = 100  // nv set qos pfc-watchdog polling-interval
	defaultWDRobustness = 3    // nv set qos pfc-watchdog robustness
)

// maxThresholdBytes bounds an ECN threshold read: larger than any
// switch's buffer (Spectrum-4 has 160 MB).
const maxThresholdBytes = 1 << 30

// Traffic pools (Cumulus Linux QoS, "Flow Control Buffers"): every buffer
// goes to default-lossy unless a lossless pool is given memory; PFC needs it.
const (
	losslessPool = "default-lossless"
	lossyPool    = "default-lossy"
	poolPercent  = 50 // of the buffer to the lossless pool, the documentation's example
)

// RoCE recipe of `nv set qos roce mode lossless` (Cumulus Linux 5.14 docs:
// "Default RoCE Configuration" and `nv show qos roce`).
const (
	recipeRoCEPrio    = 3
	recipeCNPPrio     = 6
	recipeECNMin      = 150000
	recipeECNMax      = 1500000
	recipeECNProb     = 100
	recipeCableLength = 100
	recipeBandwidth   = 50
)

// tcSched is the egress scheduler of one traffic class.
type tcSched struct {
	strict    bool
	bandwidth int // DWRR percent when !strict
}

// model is the effective QoS state of a Cumulus switch: platform defaults,
// then the RoCE recipe when `qos roce` is on, then explicit settings.
type model struct {
	trust   string  // l2 | l3 | both | port
	portSP  int     // port-default-sp (trust port)
	dscpSP  [64]int // qos mapping dscp → switch-priority
	pcpSP   [8]int  // qos mapping pcp → switch-priority
	spTC    [8]int  // egress-queue-mapping switch-priority → traffic-class
	pfc     [8]bool // PFC per switch priority
	cable   int
	sched   [8]tcSched
	ecn     [8]*fabric.SwitchECN // per traffic class; nil = no marking
	wdPoll  int
	wdRob   int
	wdPorts map[string]bool // ports with the watchdog on
	wdSeen  bool            // the watchdog is configured at all (timers, or a port's state)
	mtu     map[string]int  // per port; absent = defaultMTU
	ports   map[string]bool // swp ports the config mentions
	roce    string          // RoCE mode when `qos roce` is enabled, else ""
	// losslessPool is the memory-percent of the default-lossless traffic
	// pool (0: none, the default: every buffer is lossy); the RoCE recipe
	// brings its own pools.
	losslessPool int
	// poolsKnown: the source says where buffers go (an NVUE tree does;
	// qos_features.conf and `nv show qos roce` do not).
	poolsKnown bool
}

// newModel returns the platform defaults.
func newModel() *model {
	m := &model{trust: "l2", wdPoll: defaultWDPollMs, wdRob: defaultWDRobustness, cable: defaultCableLength,
		wdPorts: map[string]bool{}, mtu: map[string]int{}, ports: map[string]bool{}}
	for d := range m.dscpSP {
		m.dscpSP[d] = d / 8
	}
	weights := [8]int{12, 13, 12, 13, 12, 13, 12, 13} // default_egress_sched
	for p := 0; p < 8; p++ {
		m.pcpSP[p], m.spTC[p] = p, p
		m.sched[p] = tcSched{bandwidth: weights[p]}
	}
	m.ecn[0] = &fabric.SwitchECN{MinBytes: recipeECNMin, MaxBytes: recipeECNMax, MaxMarkProbability: recipeECNProb} // default_ecn_red_conf
	return m
}

// applyRecipe installs what `nv set qos roce mode <mode>` installs.
func (m *model) applyRecipe(mode string) {
	m.roce = mode
	m.trust = "both"
	for p := 0; p < 8; p++ {
		m.spTC[p] = 0
		m.pfc[p] = false
	}
	m.spTC[recipeRoCEPrio], m.spTC[recipeCNPPrio] = recipeRoCEPrio, recipeCNPPrio
	m.sched[0] = tcSched{bandwidth: recipeBandwidth}
	m.sched[recipeRoCEPrio] = tcSched{bandwidth: recipeBandwidth}
	m.sched[recipeCNPPrio] = tcSched{strict: true}
	m.ecn[recipeRoCEPrio] = &fabric.SwitchECN{MinBytes: recipeECNMin, MaxBytes: recipeECNMax, MaxMarkProbability: recipeECNProb}
	if strings.HasPrefix(mode, "lossless") {
		m.pfc[recipeRoCEPrio] = true
		m.cable = recipeCableLength
	}
}

// fromTree builds the effective model of an NVUE configuration tree.
// Profiles other than default-global are not read (fabricctl never writes
// them); interface settings are.
func fromTree(t Tree) (*model, error) {
	m := newModel()
	if r := t.node("qos", "roce"); r != nil {
		enable := text(r["enable"])
		if enable != "off" && enable != "disable" && enable != "disabled" {
			mode := text(r["mode"])
			if mode == "" {
				mode = "lossless"
			}
			m.applyRecipe(mode)
		}
	}
	var errs []string
	bad := func(path string, v any) {
		errs = append(errs, fmt.Sprintf("%s: bad value %s", fabric.Clip(path), fabric.Clip(fmt.Sprint(v))))
	}
	intIn := func(path string, v any, lo, hi int64) (int, bool) {
		n, ok := number(v)
		if !ok || n < lo || n > hi {
			bad(path, v)
			return 0, false
		}
		return int(n), true
	}

	if mp := t.node("qos", "mapping", profile); mp != nil {
		if v, ok := mp["trust"]; ok {
			switch tr := text(v); tr {
			case "l2", "l3", "both", "port":
				m.trust = tr
			default:
				bad("qos.mapping.trust", v)
			}
		}
		if v, ok := mp["port-default-sp"]; ok {
			if n, ok := intIn("qos.mapping.port-default-sp", v, 0, 7); ok {
				m.portSP = n
			}
		}
		for _, kind := range []string{"dscp", "pcp"} {
			sub, _ := mp[kind].(map[string]any)
			max := int64(63)
			if kind == "pcp" {
				max = 7
			}
			for _, k := range sortedKeys(sub) {
				path := "qos.mapping." + kind + "." + k
				id, ok := intIn(path, k, 0, max)
				entry, _ := sub[k].(map[string]any)
				if !ok || entry == nil {
					continue
				}
				if v, has := entry["switch-priority"]; has {
					if sp, ok := intIn(path+".switch-priority", v, 0, 7); ok {
						if kind == "dscp" {
							m.dscpSP[id] = sp
						} else {
							m.pcpSP[id] = sp
						}
					}
				}
			}
		}
	}
	if eq := t.node("qos", "egress-queue-mapping", profile, "switch-priority"); eq != nil {
		for _, k := range sortedKeys(eq) {
			sp, ok := intIn("qos.egress-queue-mapping.switch-priority", k, 0, 7)
			entry, _ := eq[k].(map[string]any)
			if !ok || entry == nil {
				continue
			}
			if v, has := entry["traffic-class"]; has {
				if tc, ok := intIn("qos.egress-queue-mapping.switch-priority."+k+".traffic-class", v, 0, 7); ok {
					m.spTC[sp] = tc
				}
			}
		}
	}
	if pf := t.node("qos", "pfc", profile); pf != nil {
		if sps, ok := pf["switch-priority"].(map[string]any); ok {
			m.pfc = [8]bool{}
			for _, k := range sortedKeys(sps) {
				if sp, ok := intIn("qos.pfc.switch-priority", k, 0, 7); ok {
					m.pfc[sp] = true
				}
			}
		}
		if v, ok := pf["cable-length"]; ok {
			if n, ok := intIn("qos.pfc.cable-length", v, 1, 100000); ok {
				m.cable = n
			}
		}
		// PFC with both directions disabled pauses nothing.
		if isOff(pf["tx"]) && isOff(pf["rx"]) {
			m.pfc = [8]bool{}
		}
	}
	if cc := t.node("qos", "congestion-control", profile, "traffic-class"); cc != nil {
		for _, k := range sortedKeys(cc) {
			tc, ok := intIn("qos.congestion-control.traffic-class", k, 0, 7)
			entry, _ := cc[k].(map[string]any)
			if !ok || entry == nil {
				continue
			}
			path := "qos.congestion-control.traffic-class." + k
			if isOff(entry["ecn"]) {
				m.ecn[tc] = nil
				continue
			}
			e := fabric.SwitchECN{MinBytes: 40000, MaxBytes: 200000, MaxMarkProbability: 100} // ecn_red defaults
			if m.ecn[tc] != nil {
				e = *m.ecn[tc]
			}
			if v, has := entry["min-threshold"]; has {
				if n, ok := intIn(path+".min-threshold", v, 1, maxThresholdBytes); ok {
					e.MinBytes = int64(n)
				}
			}
			if v, has := entry["max-threshold"]; has {
				if n, ok := intIn(path+".max-threshold", v, 1, maxThresholdBytes); ok {
					e.MaxBytes = int64(n)
				}
			}
			if v, has := entry["probability"]; has {
				if n, ok := intIn(path+".probability", v, 0, 100); ok {
					e.MaxMarkProbability = n
				}
			}
			m.ecn[tc] = &e
		}
	}
	if es := t.node("qos", "egress-scheduler", profile, "traffic-class"); es != nil {
		for _, k := range sortedKeys(es) {
			tc, ok := intIn("qos.egress-scheduler.traffic-class", k, 0, 7)
			entry, _ := es[k].(map[string]any)
			if !ok || entry == nil {
				continue
			}
			path := "qos.egress-scheduler.traffic-class." + k
			switch mode := text(entry["mode"]); mode {
			case "strict":
				m.sched[tc] = tcSched{strict: true}
			case "dwrr", "":
				m.sched[tc].strict = false
			default:
				bad(path+".mode", entry["mode"])
			}
			if v, has := entry["bw-percent"]; has {
				if n, ok := intIn(path+".bw-percent", v, 0, 100); ok {
					m.sched[tc].bandwidth = n
				}
			}
		}
	}
	m.poolsKnown = true
	if lp := t.node("qos", "traffic-pool", losslessPool); lp != nil {
		if v, ok := lp["memory-percent"]; ok {
			if n, ok := intIn("qos.traffic-pool."+losslessPool+".memory-percent", v, 0, 100); ok {
				m.losslessPool = n
			}
		}
	}
	if wd := t.node("qos", "pfc-watchdog"); wd != nil {
		m.wdSeen = true
		if v, ok := wd["polling-interval"]; ok {
			if n, ok := intIn("qos.pfc-watchdog.polling-interval", v, 100, 5000); ok {
				m.wdPoll = n
			}
		}
		if v, ok := wd["robustness"]; ok {
			if n, ok := intIn("qos.pfc-watchdog.robustness", v, 1, 1000); ok {
				m.wdRob = n
			}
		}
	}
	if ifs := t.node("interface"); ifs != nil {
		for _, name := range sortedKeys(ifs) {
			if checkPort(name) != nil {
				continue
			}
			m.ports[name] = true
			iface, _ := ifs[name].(map[string]any)
			if link, ok := iface["link"].(map[string]any); ok {
				if v, has := link["mtu"]; has {
					if n, ok := intIn("interface."+name+".link.mtu", v, 552, 9216); ok {
						m.mtu[name] = n
					}
				}
			}
			if q, ok := iface["qos"].(map[string]any); ok {
				if wd, ok := q["pfc-watchdog"].(map[string]any); ok {
					m.wdSeen = true
					if !isOff(wd["state"]) {
						m.wdPorts[name] = true
					}
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrSyntax, strings.Join(errs, "; "))
	}
	return m, nil
}

func isOff(v any) bool {
	switch strings.ToLower(text(v)) {
	case "disable", "disabled", "off", "false", "no":
		return true
	}
	return false
}

// intent turns the effective model into the canonical intent. A class exists
// for every switch priority that receives traffic under the trust mode: DSCP
// values (l3, both), PCP values (l2), or the port default (port). DSCP lists
// are filled under DSCP trust only, where they classify.
func (m *model) intent() fabric.SwitchIntent {
	si := fabric.SwitchIntent{APIVersion: fabric.APIVersion, Platform: Platform, PFC: fabric.SwitchPFC{Priorities: []int{}}}
	switch m.trust {
	case "l3", "both":
		si.Trust = "dscp"
	case "l2":
		si.Trust = "pcp"
	default:
		si.Trust = m.trust
	}
	var carries [8]bool
	if si.Trust == "dscp" {
		for _, sp := range m.dscpSP {
			carries[sp] = true
		}
	}
	if si.Trust == "pcp" {
		for _, sp := range m.pcpSP {
			carries[sp] = true
		}
	}
	if si.Trust == "port" {
		carries[m.portSP] = true
	}
	for sp := 0; sp < 8; sp++ {
		if m.pfc[sp] {
			si.PFC.Priorities = append(si.PFC.Priorities, sp)
		}
		if !carries[sp] {
			continue
		}
		tc := m.spTC[sp]
		cl := fabric.SwitchClass{Name: fmt.Sprintf("sp%d", sp), Priority: sp, TrafficClass: tc, Queue: tc,
			DSCP: []int{}, Lossless: m.pfc[sp] && m.losslessBuffers(), Strict: m.sched[tc].strict}
		if !cl.Strict {
			cl.BandwidthPercent = m.sched[tc].bandwidth
		}
		for d, dsp := range m.dscpSP {
			if dsp == sp && si.Trust == "dscp" {
				cl.DSCP = append(cl.DSCP, d)
			}
		}
		if e := m.ecn[tc]; e != nil {
			cp := *e
			cl.ECN = &cp
		}
		si.Classes = append(si.Classes, cl)
	}
	if len(si.PFC.Priorities) > 0 {
		si.PFC.CableLengthMeters = m.cable
	}
	// The watchdog is off unless a port enables it; the timers are global.
	// A configuration that says nothing about it has none (nil).
	if m.wdSeen || len(m.wdPorts) > 0 {
		si.PFC.Watchdog = &fabric.SwitchPFCWatchdog{Enabled: len(m.wdPorts) > 0, PollIntervalMs: m.wdPoll,
			DetectionTimeMs: m.wdPoll * m.wdRob, Action: "drop"}
	}
	si.MTU = defaultMTU
	for p := range m.ports {
		si.Ports = append(si.Ports, p)
		if mtu, ok := m.mtu[p]; ok && mtu < si.MTU {
			si.MTU = mtu
		}
	}
	fabric.SortPorts(si.Ports)
	return si
}

// losslessBuffers reports whether PFC'd priorities get lossless buffers: the
// RoCE recipe's pools, or a default-lossless pool with memory. Without one a
// priority with PFC pauses from the lossy pool and is not lossless (Cumulus
// Linux QoS: configure the lossless buffer pool before PFC); sources that do
// not say (qos_features.conf, `nv show qos roce`) are taken at their word.
func (m *model) losslessBuffers() bool {
	return !m.poolsKnown || m.losslessPool > 0 || (m.roce != "" && strings.HasPrefix(m.roce, "lossless"))
}
