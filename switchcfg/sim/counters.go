package sim

import (
	"encoding/json"
	"strconv"
	"strings"
)

// The simulators serve the ports' receive error counters
// Options.Counters returns, in each NOS's own shape, for the drivers'
// switchcfg.CounterReader:
//
//	arista-eos    show interfaces | json    (eAPI: interfaceCounters.inputErrorsDetail, inDiscards)
//	cumulus-nvue  ip -s -s -j link show     (iproute2: stats64.rx crc_errors, frame_errors, dropped)
//	cisco-nxos    show interface counters errors | json  (NX-API: one row per port and section, Eth1/1 short names)
//	junos         show interfaces extensive | display json (input-error-list, ethernet-mac-statistics; | no-more too)
//	sonic         show interfaces counters  (portstat's table: RX_ERR, RX_DRP with thousands separators)
//
// A failing source answers like a NOS whose counter agent is down: an
// error, exit status 1. Tests inject errors on a port with PortCounters.

// PortErrors is one port's receive error counters: running totals.
type PortErrors struct {
	Port      string
	FCS       uint64 // FCS/CRC errors
	Symbol    uint64 // symbol (PHY coding) errors
	Alignment uint64 // alignment/framing errors
	Discards  uint64 // frames received whole and dropped
}

// PortCounters is a switch's error counters for Options.Counters: every
// port starts at zero; Inject adds errors on a port, Clear zeroes them all
// (`clear counters`). Safe for concurrent use.
type PortCounters struct {
	ports portSet[PortErrors]
}

// NewPortCounters returns counters for ports, all zero.
func NewPortCounters(ports ...string) *PortCounters {
	c := &PortCounters{}
	c.ports.init(func(p string) PortErrors { return PortErrors{Port: p} }, ports)
	return c
}

// Inject adds e's counts to port e.Port (a port not known yet is added).
func (c *PortCounters) Inject(e PortErrors) {
	c.ports.update(e.Port, func(p *PortErrors) {
		p.FCS += e.FCS
		p.Symbol += e.Symbol
		p.Alignment += e.Alignment
		p.Discards += e.Discards
	})
}

// Clear zeroes every port's counters.
func (c *PortCounters) Clear() { c.ports.clear() }

// Read returns every port's counters, sorted by port: an Options.Counters.
func (c *PortCounters) Read() ([]PortErrors, error) { return c.ports.read(), nil }

// portErrors returns the device's counters (none when no source is set).
func (e *env) portErrors() ([]PortErrors, error) { return readSource(e.counters) }

// eosInterfacesJSON renders EOS's `show interfaces | json`: each port an
// "ethernet" with interfaceCounters, and Loopback0 without.
func eosInterfacesJSON(ps []PortErrors) string {
	type v = map[string]any
	ifs := v{"Loopback0": v{"name": "Loopback0", "hardware": "loopback", "interfaceStatus": "connected", "mtu": 65535}}
	for _, p := range ps {
		ifs[p.Port] = v{"name": p.Port, "hardware": "ethernet", "interfaceStatus": "connected", "lineProtocolStatus": "up", "mtu": 9214,
			"interfaceCounters": v{"inDiscards": p.Discards, "totalInErrors": p.FCS + p.Symbol + p.Alignment, "outDiscards": 0, "totalOutErrors": 0,
				"inputErrorsDetail": v{"fcsErrors": p.FCS, "alignmentErrors": p.Alignment, "symbolErrors": p.Symbol, "runtFrames": 0, "giantFrames": 0, "rxPause": 0}}}
	}
	b, _ := json.MarshalIndent(v{"interfaces": ifs}, "", "    ")
	return string(b) + "\n"
}

// linkStatsJSON renders `ip -s -s -j link show` on one line, as iproute2
// prints it: lo, eth0 and each port with its stats64.
func linkStatsJSON(ps []PortErrors) string {
	type v = map[string]any
	link := func(i int, name string, p PortErrors) v {
		rx := v{"bytes": 0, "packets": 0, "errors": p.FCS + p.Alignment + p.Symbol, "dropped": p.Discards, "over_errors": 0, "multicast": 0,
			"length_errors": 0, "crc_errors": p.FCS + p.Symbol, "frame_errors": p.Alignment, "fifo_errors": 0, "missed_errors": 0}
		tx := v{"bytes": 0, "packets": 0, "errors": 0, "dropped": 0, "carrier_errors": 0, "collisions": 0}
		return v{"ifindex": i, "ifname": name, "mtu": 9216, "operstate": "UP", "link_type": "ether", "stats64": v{"rx": rx, "tx": tx}}
	}
	links := []v{link(1, "lo", PortErrors{}), link(2, "eth0", PortErrors{})}
	for i, p := range ps {
		links = append(links, link(3+i, p.Port, p))
	}
	b, _ := json.Marshal(links)
	return string(b) + "\n"
}

// nxosCountersJSON renders NX-OS's `show interface counters errors |
// json`: a row per port and section (errors, collisions, giants…symbol,
// in-discards), ports in the short form (Eth1/1), mgmt0 too.
func nxosCountersJSON(ps []PortErrors) string {
	type v = map[string]any
	ps = append([]PortErrors{{Port: "mgmt0"}}, ps...)
	var rows []v
	for k := range 4 {
		for _, p := range ps {
			name := strings.Replace(p.Port, "Ethernet", "Eth", 1)
			switch k {
			case 0:
				rows = append(rows, v{"interface": name, "eth_align_err": p.Alignment, "eth_fcs_err": p.FCS, "eth_xmit_err": 0,
					"eth_rcv_err": p.FCS + p.Alignment + p.Symbol, "eth_undersize": 0, "eth_outdisc": 0})
			case 1:
				rows = append(rows, v{"interface": name, "eth_single_col": 0, "eth_multi_col": 0, "eth_runts": 0})
			case 2:
				rows = append(rows, v{"interface": name, "eth_giants": 0, "eth_sqetest_err": "--", "eth_symbol_err": p.Symbol})
			case 3:
				rows = append(rows, v{"interface": name, "eth_indisc": p.Discards})
			}
		}
	}
	b, _ := json.Marshal(v{"TABLE_interface": v{"ROW_interface": rows}})
	return string(b) + "\n"
}

// junosInterfacesJSON renders Junos's `show interfaces extensive |
// display json`: each port a physical-interface with its
// input-error-list and ethernet-mac-statistics, lo0 without; every leaf
// a list of one {"data": "…"}. The ports of cs get their PFC statistics
// and queue counters too (congestion.go).
func junosInterfacesJSON(ps []PortErrors, cs []PortCongestion) string {
	type v = map[string]any
	data := func(n uint64) []v { return []v{{"data": strconv.FormatUint(n, 10)}} }
	phys := []v{{"name": []v{{"data": "lo0"}}, "oper-status": []v{{"data": "up"}}}}
	for _, p := range ps {
		phys = append(phys, v{"name": []v{{"data": p.Port}}, "oper-status": []v{{"data": "up"}},
			"input-error-list": []v{{"input-errors": data(p.FCS + p.Alignment + p.Symbol), "input-drops": data(p.Discards),
				"framing-errors": data(p.FCS + p.Alignment), "input-runts": data(0), "input-discards": data(0)}},
			"ethernet-mac-statistics": []v{{"input-crc-errors": data(p.FCS + p.Alignment), "input-code-violations": data(p.Symbol)}}})
	}
	phys = junosCongestion(phys, cs)
	b, _ := json.MarshalIndent(v{"interface-information": []v{{"physical-interface": phys}}}, "", "    ")
	return string(b) + "\n"
}

// portstatTable renders SONiC's `show interfaces counters`: portstat's
// table, counts with thousands separators, N/A where SONiC has none.
func portstatTable(ps []PortErrors) string {
	rows := [][]string{{"IFACE", "STATE", "RX_OK", "RX_BPS", "RX_UTIL", "RX_ERR", "RX_DRP", "RX_OVR", "TX_OK", "TX_BPS", "TX_UTIL", "TX_ERR", "TX_DRP", "TX_OVR"}}
	for _, p := range ps {
		rows = append(rows, []string{p.Port, "U", "1,204", "0.00 B/s", "0.00%", thousands(p.FCS + p.Alignment + p.Symbol), thousands(p.Discards),
			"N/A", "1,187", "0.00 B/s", "0.00%", "0", "0", "N/A"})
	}
	var b strings.Builder
	table(&b, rows)
	return b.String()
}

// thousands writes n with comma separators, as portstat does.
func thousands(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
