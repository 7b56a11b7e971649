package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The simulators serve the ports' congestion counters Options.Congestion
// returns, in each NOS's own shape, for the drivers'
// switchcfg.CongestionReader:
//
//	sonic         show pfc counters, show queue counters, show queue wredcounters (pfcstat's and queuestat's tables)
//	cumulus-nvue  nv show interface <if> counters qos -o json (one port; an unknown port is NVUE's error)
//	arista-eos    show priority-flow-control counters detail | json, show interfaces counters queue detail | json,
//	              show qos interfaces ecn counters queue | json
//	junos         show interfaces extensive | display json (ethernet-mac-pfc-statistics, queue-counters), show interfaces queue
//	cisco-nxos    show queuing interface (QOS GROUP boxes, port ingress statistics, PFC statistics per COS)
//
// Egress queue n carries traffic class n, as under every NOS's default
// maps. A failing source answers like a NOS whose counter agent is down:
// an error, exit status 1.

// PortCongestion is one port's congestion counters: running totals, by
// priority (PFC) or egress queue (= traffic class).
type PortCongestion struct {
	Port string
	// PauseRx and PauseTx are PFC frames received and sent per priority.
	PauseRx, PauseTx [8]uint64
	// PauseRxMicros and PauseTxMicros are the time paused and pausing, in
	// microseconds (served by the NOSes that count it: Cumulus).
	PauseRxMicros, PauseTxMicros [8]uint64
	// Sent are packets sent per egress queue.
	Sent [8]uint64
	// Drops are packets dropped per egress queue for lack of buffer (tail
	// drop); WREDDrops those WRED dropped.
	Drops, WREDDrops [8]uint64
	// ECNMarked are packets sent with CE set per egress queue.
	ECNMarked [8]uint64
	// IngressDrops are packets the port dropped on arrival (headroom
	// overflow): NX-OS's Ingress Overflow Drop Pkts.
	IngressDrops uint64
}

func (a *PortCongestion) add(b PortCongestion) {
	for i := range 8 {
		a.PauseRx[i] += b.PauseRx[i]
		a.PauseTx[i] += b.PauseTx[i]
		a.PauseRxMicros[i] += b.PauseRxMicros[i]
		a.PauseTxMicros[i] += b.PauseTxMicros[i]
		a.Sent[i] += b.Sent[i]
		a.Drops[i] += b.Drops[i]
		a.WREDDrops[i] += b.WREDDrops[i]
		a.ECNMarked[i] += b.ECNMarked[i]
	}
	a.IngressDrops += b.IngressDrops
}

// Congestion is a switch's congestion counters for Options.Congestion:
// every port starts at zero; Add adds counts on a port (a congestion
// round), Clear zeroes them all. Safe for concurrent use.
type Congestion struct {
	ports portSet[PortCongestion]
}

// NewCongestion returns counters for ports, all zero.
func NewCongestion(ports ...string) *Congestion {
	c := &Congestion{}
	c.ports.init(func(p string) PortCongestion { return PortCongestion{Port: p} }, ports)
	return c
}

// Add adds pc's counts to port pc.Port (a port not known yet is added).
func (c *Congestion) Add(pc PortCongestion) {
	c.ports.update(pc.Port, func(p *PortCongestion) { p.add(pc) })
}

// Clear zeroes every port's counters.
func (c *Congestion) Clear() { c.ports.clear() }

// Read returns every port's counters, sorted by port: an
// Options.Congestion.
func (c *Congestion) Read() ([]PortCongestion, error) { return c.ports.read(), nil }

// congestionOf returns the device's congestion counters (none when no
// source is set).
func (e *env) congestionOf() ([]PortCongestion, error) { return readSource(e.congestion) }

// congestionReply answers line when it is one of the platform's
// congestion counter commands; ok is false otherwise (the shell goes on).
func (e *env) congestionReply(line string) (r reply, ok bool) {
	line = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), "| no-more"))
	var render func([]PortCongestion) (string, error)
	if f, ok := congestionCommands[e.server.platform][line]; ok {
		render = wrap(f)
	} else if e.server.platform == "cumulus-nvue" {
		f := strings.Fields(line)
		if len(f) == 8 && f[0] == "nv" && f[1] == "show" && f[2] == "interface" && strings.Join(f[4:], " ") == "counters qos -o json" {
			render = func(ps []PortCongestion) (string, error) { return nvueQoSCountersJSON(ps, f[3]) }
		}
	}
	if render == nil {
		return reply{}, false
	}
	ps, err := e.congestionOf()
	if err == nil {
		var out string
		if out, err = render(ps); err == nil {
			return say(out), true
		}
	}
	return fail(congestionFailure[e.server.platform] + err.Error()), true
}

// congestionCommands are each platform's congestion counter commands
// that render every port, by command line; NVUE's, which names its port,
// congestionReply matches itself.
var congestionCommands = map[string]map[string]func([]PortCongestion) string{
	"sonic": {
		"show pfc counters":       sonicPFCTable,
		"show queue counters":     sonicQueueTable,
		"show queue wredcounters": sonicWREDTable,
	},
	"arista-eos": {
		"show priority-flow-control counters detail | json": eosPFCJSON,
		"show interfaces counters queue detail | json":      eosQueueJSON,
		"show qos interfaces ecn counters queue | json":     eosECNJSON,
	},
	"junos":      {"show interfaces queue": junosQueueText},
	"cisco-nxos": {"show queuing interface": nxosQueuingText},
}

// congestionFailure is how each NOS prefixes a counter agent's failure.
var congestionFailure = map[string]string{
	"sonic":        "Error: COUNTERS_DB unavailable: ",
	"cumulus-nvue": "Error: ",
	"arista-eos":   "% Error: counters are not available: ",
	"junos":        "error: the interface statistics are not available: ",
	"cisco-nxos":   "ERROR: counters are not available: ",
}

func wrap(f func([]PortCongestion) string) func([]PortCongestion) (string, error) {
	return func(ps []PortCongestion) (string, error) { return f(ps), nil }
}

// table renders rows as pfcstat, queuestat and portstat do (tabulate's
// "simple" format): right-aligned columns two spaces apart, dashes under
// the header.
func table(b *strings.Builder, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(strings.Repeat(" ", width[i]-len(c)) + c)
		}
		b.WriteString("\n")
	}
	line(rows[0])
	dashes := make([]string, len(width))
	for i, w := range width {
		dashes[i] = strings.Repeat("-", w)
	}
	line(dashes)
	for _, r := range rows[1:] {
		line(r)
	}
}

// sonicPFCTable renders `show pfc counters`: "Port Rx" then "Port Tx".
func sonicPFCTable(ps []PortCongestion) string {
	var b strings.Builder
	for i, dir := range []string{"Rx", "Tx"} {
		if i > 0 {
			b.WriteString("\n")
		}
		rows := [][]string{{"Port " + dir, "PFC0", "PFC1", "PFC2", "PFC3", "PFC4", "PFC5", "PFC6", "PFC7"}}
		for _, p := range ps {
			v := p.PauseRx
			if dir == "Tx" {
				v = p.PauseTx
			}
			r := []string{p.Port}
			for _, n := range v {
				r = append(r, thousands(n))
			}
			rows = append(rows, r)
		}
		table(&b, rows)
	}
	return b.String()
}

// sonicQueues renders one queuestat table per port: UC0…UC7 with counts,
// MC8…MC15 with zeros (multicast carries nothing here).
func sonicQueues(ps []PortCongestion, head []string, cells func(p PortCongestion, q int) []string) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString("\n")
		}
		rows := [][]string{head}
		for q := range 16 {
			name := fmt.Sprintf("UC%d", q)
			r := []string{"0", "0", "0", "0"}
			if q < 8 {
				r = cells(p, q)
			} else {
				name = fmt.Sprintf("MC%d", q)
			}
			rows = append(rows, append([]string{p.Port, name}, r...))
		}
		table(&b, rows)
	}
	return b.String()
}

// sonicQueueTable renders `show queue counters` (1000-byte packets).
func sonicQueueTable(ps []PortCongestion) string {
	return sonicQueues(ps, []string{"Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes"}, func(p PortCongestion, q int) []string {
		return []string{thousands(p.Sent[q]), thousands(p.Sent[q] * 1000), thousands(p.Drops[q]), thousands(p.Drops[q] * 1000)}
	})
}

// sonicWREDTable renders `show queue wredcounters`.
func sonicWREDTable(ps []PortCongestion) string {
	return sonicQueues(ps, []string{"Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes"}, func(p PortCongestion, q int) []string {
		return []string{thousands(p.WREDDrops[q]), thousands(p.WREDDrops[q] * 1000), thousands(p.ECNMarked[q]), thousands(p.ECNMarked[q] * 1000)}
	})
}

// nvueQoSCountersJSON renders `nv show interface <port> counters qos -o
// json`; a port the switch does not have is NVUE's error.
func nvueQoSCountersJSON(ps []PortCongestion, port string) (string, error) {
	i := slices.IndexFunc(ps, func(p PortCongestion) bool { return p.Port == port })
	if i < 0 {
		return "", fmt.Errorf("The requested item does not exist")
	}
	p := ps[i]
	type v = map[string]any
	pfc, eq, ib := v{}, v{}, v{}
	var ecn uint64
	for q := range 8 {
		k := strconv.Itoa(q)
		pfc[k] = v{"rx-pause-frames": p.PauseRx[q], "rx-pause-duration": p.PauseRxMicros[q], "tx-pause-frames": p.PauseTx[q], "tx-pause-duration": p.PauseTxMicros[q]}
		eq[k] = v{"tx-frames": p.Sent[q], "tx-bytes": p.Sent[q] * 1000, "tx-uc-buffer-discards": p.Drops[q], "wred-discards": p.WREDDrops[q], "ecn-marked-frames": p.ECNMarked[q]}
		ib[k] = v{"rx-frames": 0, "rx-buffer-discards": 0, "rx-shared-buffer-discards": 0}
		ecn += p.ECNMarked[q]
	}
	doc := v{"pfc-stats": pfc, "egress-queue-stats": eq, "ingress-buffer-stats": ib,
		"port-stats": v{"rx-stats": v{"pause-frames": 0}, "tx-stats": v{"ecn-marked-packets": ecn, "mc-buffer-discards": 0, "pause-frames": 0}}}
	b, _ := json.MarshalIndent(doc, "", "  ")
	return string(b) + "\n", nil
}

// eosPFCJSON renders `show priority-flow-control counters detail | json`.
func eosPFCJSON(ps []PortCongestion) string {
	type v = map[string]any
	ifs := v{}
	for _, p := range ps {
		prios := v{}
		var rx, tx uint64
		for q := range 8 {
			prios[strconv.Itoa(q)] = v{"rxFrames": p.PauseRx[q], "txFrames": p.PauseTx[q]}
			rx += p.PauseRx[q]
			tx += p.PauseTx[q]
		}
		ifs[p.Port] = v{"rxFrames": rx, "txFrames": tx, "priorities": prios}
	}
	b, _ := json.MarshalIndent(v{"interfaceCounters": ifs}, "", "    ")
	return string(b) + "\n"
}

// eosQueueJSON renders `show interfaces counters queue detail | json`:
// drops on drop precedence 0, WRED drops on 1.
func eosQueueJSON(ps []PortCongestion) string {
	type v = map[string]any
	ifs := v{}
	for _, p := range ps {
		uc, mc := v{}, v{}
		for q := range 8 {
			k := fmt.Sprintf("TC%d", q)
			uc[k] = v{"dropPrecedences": v{
				"DP0": v{"enqueuedPackets": p.Sent[q], "enqueuedBytes": p.Sent[q] * 1000, "droppedPackets": p.Drops[q], "droppedBytes": p.Drops[q] * 1000},
				"DP1": v{"enqueuedPackets": 0, "enqueuedBytes": 0, "droppedPackets": p.WREDDrops[q], "droppedBytes": p.WREDDrops[q] * 1000}}}
			mc[k] = v{"dropPrecedences": v{"DP0": v{"enqueuedPackets": 0, "enqueuedBytes": 0, "droppedPackets": 0, "droppedBytes": 0}}}
		}
		ifs[p.Port] = v{"ucastQueues": v{"trafficClasses": uc}, "mcastQueues": v{"trafficClasses": mc}}
	}
	b, _ := json.MarshalIndent(v{"egressQueueCounters": v{"interfaces": ifs}}, "", "    ")
	return string(b) + "\n"
}

// eosECNJSON renders `show qos interfaces ecn counters queue | json`:
// counts as strings, "-" on the queues without ECN counting (all but
// those that marked or carry traffic class 3).
func eosECNJSON(ps []PortCongestion) string {
	type v = map[string]any
	ifs := v{}
	for _, p := range ps {
		qs := v{}
		for q := range 8 {
			qs[strconv.Itoa(q)] = "-"
			if q == 3 || p.ECNMarked[q] > 0 {
				qs[strconv.Itoa(q)] = strconv.FormatUint(p.ECNMarked[q], 10)
			}
		}
		ifs[p.Port] = v{"queueCounters": qs}
	}
	b, _ := json.MarshalIndent(v{"intfQueueCounters": ifs}, "", "    ")
	return string(b) + "\n"
}

// junosCongestion adds, to the physical-interface objects of `show
// interfaces extensive | display json` by name, each port's
// ethernet-mac-pfc-statistics and queue-counters.
func junosCongestion(phys []map[string]any, cs []PortCongestion) []map[string]any {
	type v = map[string]any
	data := func(n uint64) []v { return []v{{"data": strconv.FormatUint(n, 10)}} }
	for _, c := range cs {
		i := slices.IndexFunc(phys, func(p map[string]any) bool {
			n, _ := p["name"].([]v)
			return len(n) == 1 && n[0]["data"] == c.Port
		})
		if i < 0 {
			phys = append(phys, v{"name": []v{{"data": c.Port}}, "oper-status": []v{{"data": "up"}}})
			i = len(phys) - 1
		}
		var pfc, queues []v
		for q := range 8 {
			pfc = append(pfc, v{"mac-pfc-dot1p": data(uint64(q)), "input-mac-pfc-frames": data(c.PauseRx[q]), "output-mac-pfc-frames": data(c.PauseTx[q])})
			if q == 0 || q == 3 || q == 7 || c.Sent[q]+c.Drops[q]+c.WREDDrops[q] > 0 {
				queues = append(queues, v{"queue-number": data(uint64(q)), "forwarding-class-name": []v{{"data": junosClass(q)}},
					"queue-counters-queued-packets": data(c.Sent[q] + c.Drops[q] + c.WREDDrops[q]), "queue-counters-trans-packets": data(c.Sent[q]),
					"queue-counters-total-drop-packets": data(c.Drops[q] + c.WREDDrops[q])})
			}
		}
		phys[i]["ethernet-mac-pfc-statistics"] = pfc
		phys[i]["queue-counters"] = []v{{"queue": queues}}
	}
	return phys
}

func junosClass(q int) string {
	switch q {
	case 0:
		return "best-effort"
	case 3:
		return "no-loss"
	case 7:
		return "network-control"
	}
	return fmt.Sprintf("fc%d", q)
}

// junosQueueText renders `show interfaces queue` (QFX, egress queues):
// queues 0, 3 and 7 and those that carried traffic.
func junosQueueText(ps []PortCongestion) string {
	var b strings.Builder
	row := func(label string, n uint64, unit string) {
		fmt.Fprintf(&b, "    %-21s:%22d%22d %s\n", label, n, 0, unit)
	}
	for i, p := range ps {
		fmt.Fprintf(&b, "Physical interface: %s, Enabled, Physical link is Up\n  Interface index: %d, SNMP ifIndex: %d\n", p.Port, 650+i, 510+i)
		b.WriteString("Forwarding classes: 12 supported, 4 in use\nEgress queues: 10 supported, 4 in use\n")
		for q := range 8 {
			if q != 0 && q != 3 && q != 7 && p.Sent[q]+p.Drops[q]+p.WREDDrops[q]+p.ECNMarked[q] == 0 {
				continue
			}
			fmt.Fprintf(&b, "Queue: %d, Forwarding classes: %s\n  Queued:\n", q, junosClass(q))
			row("Packets", p.Sent[q]+p.Drops[q]+p.WREDDrops[q], "pps")
			row("Bytes", (p.Sent[q]+p.Drops[q]+p.WREDDrops[q])*1000, "bps")
			b.WriteString("  Transmitted:\n")
			row("Packets", p.Sent[q], "pps")
			row("Bytes", p.Sent[q]*1000, "bps")
			row("Tail-dropped packets", p.Drops[q], "pps")
			row("RED-dropped packets", p.WREDDrops[q], "pps")
			row("ECN-CE packets", p.ECNMarked[q], "pps")
			row("Total-dropped packets", p.Drops[q]+p.WREDDrops[q], "pps")
			row("Total-dropped bytes", (p.Drops[q]+p.WREDDrops[q])*1000, "bps")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// nxosQueuingText renders `show queuing interface` (Nexus 9000): per port,
// the egress QOS GROUP boxes 0…7 (qos-group n = traffic class n), the
// port's ingress statistics and the PFC statistics per COS.
func nxosQueuingText(ps []PortCongestion) string {
	var b strings.Builder
	const rule = "+-------------------------------------------------------------+\n"
	box := func(label string, uc, mc uint64) {
		fmt.Fprintf(&b, "|%27s |%16d|%16d|\n", label, uc, mc)
	}
	b.WriteString("slot  1\n=======\n\n")
	for _, p := range ps {
		name := p.Port
		fmt.Fprintf(&b, "\nEgress Queuing for %s [System]\n", name)
		b.WriteString("------------------------------------------------------------------------------\n")
		b.WriteString("QoS-Group# Bandwidth% PrioLevel                Shape                   QLimit\n")
		b.WriteString("                                   Min          Max        Units\n")
		b.WriteString("------------------------------------------------------------------------------\n")
		for g := 7; g >= 0; g-- {
			fmt.Fprintf(&b, "%7d%14s%10s%12s%13s%6s%13s\n", g, "-", "1", "-", "-", "-", "9(D)")
		}
		for g := range 8 {
			b.WriteString(rule)
			fmt.Fprintf(&b, "|%42s                   |\n", fmt.Sprintf("QOS GROUP %d", g))
			b.WriteString(rule)
			b.WriteString("|                           |  Unicast       |Multicast       |\n")
			b.WriteString(rule)
			box("Tx Pkts", p.Sent[g], 0)
			box("Tx Byts", p.Sent[g]*1000, 0)
			box("WRED/AFD & Tail Drop Pkts", p.Drops[g]+p.WREDDrops[g], 0)
			box("WRED/AFD & Tail Drop Byts", (p.Drops[g]+p.WREDDrops[g])*1000, 0)
			box("Q Depth Byts", 0, 0)
			box("WD & Tail Drop Pkts", p.Drops[g], 0)
		}
		b.WriteString(rule)
		b.WriteString("Port Egress Statistics\n--------------------------------------------------------\n")
		fmt.Fprintf(&b, "%-46s%10d\n", "Pause Flush Drop Pkts", 0)
		fmt.Fprintf(&b, "\nIngress Queuing for %s\n", name)
		b.WriteString("-----------------------------------------------------\nQoS-Group#                 Pause\n")
		b.WriteString("           Buff Size       Pause Th      Resume Th\n-----------------------------------------------------\n")
		for g := 7; g >= 0; g-- {
			fmt.Fprintf(&b, "%7d%15s%13s%13s\n", g, "-", "-", "-")
		}
		b.WriteString("\nPer Port Ingress Statistics\n--------------------------------------------------------\n")
		fmt.Fprintf(&b, "%-46s%10d\n%-46s%10d\n%-46s%10d\n", "Hi Priority Drop Pkts", 0, "Low Priority Drop Pkts", 0, "Ingress Overflow Drop Pkts", p.IngressDrops)
		b.WriteString("\nPer Slice Ingress Statistics\n--------------------------------------------------------\n")
		fmt.Fprintf(&b, "%-46s%10d\n", "Ingress Overflow Drop Pkts", p.IngressDrops)
		b.WriteString("\nPFC Statistics\n------------------------------------------------------------------------------\n")
		var tx, rx uint64
		for q := range 8 {
			tx += p.PauseTx[q]
			rx += p.PauseRx[q]
		}
		fmt.Fprintf(&b, "TxPPP: %20d, RxPPP: %20d\n", tx, rx)
		b.WriteString("------------------------------------------------------------------------------\n")
		b.WriteString("PFC_COS QOS_Group   TxPause             TxCount   RxPause             RxCount\n")
		for q := range 8 {
			fmt.Fprintf(&b, "%7d%10d  %-8s%20d  %-8s%20d\n", q, q, "Inactive", p.PauseTx[q], "Inactive", p.PauseRx[q])
		}
		b.WriteString("------------------------------------------------------------------------------\n")
	}
	return b.String()
}
