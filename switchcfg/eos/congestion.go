package eos

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// The commands whose outputs ParseCongestion reads, as eAPI JSON. Their
// shapes are those of the EOS models the ANTA project's tests read
// (aristanetworks/anta, anta/tests/interfaces.py: VerifyInterfacesPFCCounters,
// VerifyInterfacesEgressQueueDrops, VerifyInterfacesECNCounters).
const (
	// CmdPFCCounters shows the PFC frames each port received and sent;
	// with detail, per priority too.
	CmdPFCCounters = "show priority-flow-control counters detail | json"
	// CmdQueueDrops shows each port's egress queue counters per traffic
	// class and drop precedence (unicast and multicast queues).
	CmdQueueDrops = "show interfaces counters queue detail | json"
	// CmdECNCounters shows each port's ECN-marked packets per egress queue
	// ("-" where the queue has no ECN counting configured; EOS counts
	// only with `random-detect ecn count` and, on some platforms,
	// `hardware counter feature ecn out`).
	CmdECNCounters = "show qos interfaces ecn counters queue | json"
)

// ErrCongestion is wrapped by every error about output that is not the
// JSON of its command.
var ErrCongestion = errors.New("not the JSON of an EOS counter command")

var _ switchcfg.CongestionReader = (*Driver)(nil)

// ethernetPort matches EOS's front-panel ports (Ethernet1, Ethernet49/1,
// Ethernet3/1/1 on a modular switch); not Port-Channels or Management.
var ethernetPort = regexp.MustCompile(`^Ethernet[0-9]+(/[0-9]+)*$`)

// CongestionCommands implements switchcfg.CongestionReader: every port at
// once.
func (d *Driver) CongestionCommands([]string) []string {
	return []string{CmdPFCCounters, CmdQueueDrops, CmdECNCounters}
}

// ParseCongestion implements switchcfg.CongestionReader. Counters are
// named as checks/congestion names EOS's: "RxPfc" and "TxPfc" (every
// priority), "Priority 3 RxPfc" and "Priority 3 TxPfc", "TxQ3 DropPkts"
// (unicast queue of traffic class 3, drop precedences summed; multicast
// as "McastTxQ3 DropPkts"), "TxQ3 EcnMarked".
func (d *Driver) ParseCongestion(rb switchcfg.Readback) (switchcfg.CongestionReading, error) {
	return switchcfg.ParseCongestionOutputs(rb, d.CongestionCommands(nil), func(p *switchcfg.CongestionParse, cmd string, out []byte) error {
		doc, err := switchcfg.DecodeCounterJSON(out)
		if err == nil {
			switch cmd {
			case CmdPFCCounters:
				err = parsePFC(p, doc)
			case CmdQueueDrops:
				err = parseQueueDrops(p, doc)
			default:
				err = parseECN(p, doc)
			}
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCongestion, err)
		}
		return nil
	})
}

// object returns doc's member path as an object, or an error naming it.
func jsonObject(doc any, path ...string) (map[string]any, error) {
	cur := doc
	for i, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s is not an object", strings.Join(path[:i], "."))
		}
		if cur, ok = m[k]; !ok {
			return nil, fmt.Errorf("no %s", strings.Join(path[:i+1], "."))
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", strings.Join(path, "."))
	}
	return m, nil
}

// ports yields the Ethernet ports of an object keyed by interface, with
// their objects; another interface is skipped, a port that is not an
// object is unread.
func eosPorts(p *switchcfg.CongestionParse, m map[string]any, path string) [][2]any {
	var out [][2]any
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if !ethernetPort.MatchString(name) {
			continue
		}
		o, ok := m[name].(map[string]any)
		if !ok {
			p.Unread(0, path+"."+name, "not an object")
			continue
		}
		out = append(out, [2]any{name, o})
	}
	return out
}

// pfcFields name the per-port and per-priority PFC frame counters.
var pfcFields = map[string]string{"rxFrames": "RxPfc", "txFrames": "TxPfc"}

// parsePFC reads `show priority-flow-control counters detail | json`:
//
//	{"interfaceCounters": {"Ethernet1": {"rxFrames": 0, "txFrames": 120,
//	   "priorities": {"3": {"rxFrames": 0, "txFrames": 120}, …}}, …}}
//
// The per-priority counters are taken from any member of a port that is
// an object keyed by priority 0…7 with rxFrames and txFrames; the port
// totals from its own rxFrames and txFrames. Other counts are kept under
// their JSON names; anything else is unread.
func parsePFC(p *switchcfg.CongestionParse, doc any) error {
	ifs, err := jsonObject(doc, "interfaceCounters")
	if err != nil {
		return err
	}
	for _, pe := range eosPorts(p, ifs, "interfaceCounters") {
		port, o := pe[0].(string), pe[1].(map[string]any)
		path := "interfaceCounters." + port
		for _, k := range slices.Sorted(maps.Keys(o)) {
			if name, ok := pfcFields[k]; ok {
				p.SetCount(port, name, o[k], 0, path+"."+k)
				continue
			}
			prios, isObj := o[k].(map[string]any)
			if !isObj {
				p.SetCount(port, k, o[k], 0, path+"."+k)
				continue
			}
			for _, pr := range slices.Sorted(maps.Keys(prios)) {
				po, ok := prios[pr].(map[string]any)
				if !ok || len(pr) != 1 || pr[0] < '0' || pr[0] > '7' {
					p.Unread(0, path+"."+k+"."+pr, "not a priority 0-7 with an object of counters")
					continue
				}
				for _, f := range slices.Sorted(maps.Keys(po)) {
					name := "Priority " + pr + " " + f
					if n, ok := pfcFields[f]; ok {
						name = "Priority " + pr + " " + n
					}
					p.SetCount(port, name, po[f], 0, path+"."+k+"."+pr+"."+f)
				}
			}
		}
	}
	return nil
}

var tcKey = regexp.MustCompile(`^TC([0-9]+(-[0-9]+)?)$`)

// parseQueueDrops reads `show interfaces counters queue detail | json`:
//
//	{"egressQueueCounters": {"interfaces": {"Ethernet1": {
//	   "ucastQueues": {"trafficClasses": {"TC3": {"dropPrecedences":
//	     {"DP0": {"droppedPackets": 0, "droppedBytes": 0, …}, …}}, …}},
//	   "mcastQueues": {…}}, …}}}
//
// Each traffic class's counters are summed over its drop precedences:
// droppedPackets as "TxQ3 DropPkts", droppedBytes as "TxQ3 DropBytes",
// others under their JSON names ("TxQ3 enqueuedPackets"); multicast
// queues with the prefix "Mcast". A class given as a range ("TC0-2")
// keeps the range in its name.
func parseQueueDrops(p *switchcfg.CongestionParse, doc any) error {
	ifs, err := jsonObject(doc, "egressQueueCounters", "interfaces")
	if err != nil {
		return err
	}
	for _, pe := range eosPorts(p, ifs, "egressQueueCounters.interfaces") {
		port, o := pe[0].(string), pe[1].(map[string]any)
		base := "egressQueueCounters.interfaces." + port
		for _, qt := range slices.Sorted(maps.Keys(o)) {
			prefix, known := map[string]string{"ucastQueues": "", "mcastQueues": "Mcast"}[qt]
			if !known {
				p.Unread(0, base+"."+qt, "not ucastQueues or mcastQueues")
				continue
			}
			tcs, err := jsonObject(o[qt], "trafficClasses")
			if err != nil {
				p.Unread(0, base+"."+qt, err.Error())
				continue
			}
			for _, tc := range slices.Sorted(maps.Keys(tcs)) {
				path := base + "." + qt + ".trafficClasses." + tc
				m := tcKey.FindStringSubmatch(tc)
				dps, err := jsonObject(tcs[tc], "dropPrecedences")
				if m == nil || err != nil {
					p.Unread(0, path, "not a traffic class TCn with dropPrecedences")
					continue
				}
				sums, order := map[string]uint64{}, []string{}
				for _, dp := range slices.Sorted(maps.Keys(dps)) {
					fs, ok := dps[dp].(map[string]any)
					if !ok {
						p.Unread(0, path+".dropPrecedences."+dp, "not an object of counters")
						continue
					}
					for _, f := range slices.Sorted(maps.Keys(fs)) {
						n, present, ok := switchcfg.CountOf(fs[f])
						if !ok {
							p.Unread(0, path+".dropPrecedences."+dp+"."+f, "not a count")
							continue
						}
						if !present {
							continue
						}
						name := map[string]string{"droppedPackets": "DropPkts", "droppedBytes": "DropBytes"}[f]
						if name == "" {
							name = f
						}
						name = prefix + "TxQ" + m[1] + " " + name
						if _, seen := sums[name]; !seen {
							order = append(order, name)
						}
						sums[name] += n
					}
				}
				for _, name := range order {
					p.Set(port, name, sums[name], 0, path)
				}
			}
		}
	}
	return nil
}

// parseECN reads `show qos interfaces ecn counters queue | json`:
//
//	{"intfQueueCounters": {"Ethernet1": {"queueCounters": {"0": "0", "3": "12", "6": "-"}}, …}}
//
// as "TxQ3 EcnMarked"; "-" (no ECN counting on the queue) is absent.
func parseECN(p *switchcfg.CongestionParse, doc any) error {
	ifs, err := jsonObject(doc, "intfQueueCounters")
	if err != nil {
		return err
	}
	for _, pe := range eosPorts(p, ifs, "intfQueueCounters") {
		port, o := pe[0].(string), pe[1].(map[string]any)
		path := "intfQueueCounters." + port
		qs, err := jsonObject(o, "queueCounters")
		if err != nil {
			p.Unread(0, path, err.Error())
			continue
		}
		for _, q := range slices.Sorted(maps.Keys(qs)) {
			if strings.Trim(q, "0123456789") != "" || q == "" {
				p.Unread(0, path+".queueCounters."+q, "not a queue number")
				continue
			}
			p.SetCount(port, "TxQ"+q+" EcnMarked", qs[q], 0, path+".queueCounters."+q)
		}
	}
	return nil
}
