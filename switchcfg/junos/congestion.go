package junos

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// CmdInterfacesQueue shows every physical interface's egress queues with
// their queued, transmitted and dropped packets and, where the platform
// counts them, ECN-CE marked packets. Read as text: the labels are the
// documented ones ("Tail-dropped packets", "ECN-CE packets").
const CmdInterfacesQueue = "show interfaces queue"

// ErrCongestion is wrapped by every error about output that is not that of
// its command.
var ErrCongestion = errors.New("not the output of a Junos counter command")

var _ switchcfg.CongestionReader = (*Driver)(nil)

// CongestionCommands implements switchcfg.CongestionReader: every port at
// once; `show interfaces extensive` is the command the error counters
// are read from too.
func (d *Driver) CongestionCommands([]string) []string {
	return []string{CmdInterfacesExtensive, CmdInterfacesQueue}
}

// ParseCongestion implements switchcfg.CongestionReader. Counters are
// named as checks/congestion names Junos's: "PFC priority 3 Received" and
// "PFC priority 3 Transmitted" (MAC Priority Flow Control Statistics of
// `show interfaces extensive`), "Queue counters 3 Dropped packets" (its
// Queue counters table), and from `show interfaces queue` "Queue 3 Tail-dropped
// packets", "Queue 3 RED-dropped packets", "Queue 3 ECN-CE packets",
// "Queue 3 Transmitted packets" — the egress queue's number, which is the
// forwarding class's queue, not necessarily the PFC priority.
func (d *Driver) ParseCongestion(rb switchcfg.Readback) (switchcfg.CongestionReading, error) {
	return switchcfg.ParseCongestionOutputs(rb, d.CongestionCommands(nil), func(p *switchcfg.CongestionParse, cmd string, out []byte) error {
		var err error
		if cmd == CmdInterfacesExtensive {
			err = parseExtensiveCongestion(p, out)
		} else {
			err = parseInterfacesQueue(p, string(out))
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCongestion, err)
		}
		return nil
	})
}

// parseExtensiveCongestion reads, from `show interfaces extensive |
// display json`, each Ethernet port's PFC frames per priority and its
// egress queues' drops (tag names of the get-interface-information RPC,
// as a QFX's XML rendering shows them):
//
//	"ethernet-mac-pfc-statistics": [{"mac-pfc-dot1p": [{"data": "3"}],
//	   "input-mac-pfc-frames": [{"data": "0"}], "output-mac-pfc-frames": [{"data": "120"}]}, …],
//	"queue-counters": [{"queue": [{"queue-number": [{"data": "3"}],
//	   "forwarding-class-name": [{"data": "no-loss"}], "queue-counters-queued-packets": …,
//	   "queue-counters-trans-packets": …, "queue-counters-total-drop-packets": …}, …]}]
func parseExtensiveCongestion(p *switchcfg.CongestionParse, out []byte) error {
	type pfc struct {
		Prio jtext `json:"mac-pfc-dot1p"`
		In   jtext `json:"input-mac-pfc-frames"`
		Out  jtext `json:"output-mac-pfc-frames"`
	}
	type queue struct {
		Number  jtext `json:"queue-number"`
		Queued  jtext `json:"queue-counters-queued-packets"`
		Trans   jtext `json:"queue-counters-trans-packets"`
		Dropped jtext `json:"queue-counters-total-drop-packets"`
	}
	var doc struct {
		Info *[]struct {
			Physical []struct {
				Name   jtext `json:"name"`
				PFC    []pfc `json:"ethernet-mac-pfc-statistics"`
				Queues []struct {
					Queue []queue `json:"queue"`
				} `json:"queue-counters"`
			} `json:"physical-interface"`
		} `json:"interface-information"`
	}
	if err := switchcfg.DecodeJSON(out, &doc); err != nil {
		return err
	}
	if doc.Info == nil {
		return errors.New("no interface-information")
	}
	for _, info := range *doc.Info {
		for i, ph := range info.Physical {
			port := ph.Name.String()
			if !ethernetPort.MatchString(port) {
				continue
			}
			at := fmt.Sprintf("physical-interface[%d] (%s)", i, port)
			for j, e := range ph.PFC {
				pr := e.Prio.String()
				if len(pr) != 1 || pr[0] < '0' || pr[0] > '7' {
					p.Unread(0, fmt.Sprintf("%s.ethernet-mac-pfc-statistics[%d]", at, j), fmt.Sprintf("priority %q is not 0-7", pr))
					continue
				}
				p.SetCount(port, "PFC priority "+pr+" Received", e.In.String(), 0, at+".input-mac-pfc-frames")
				p.SetCount(port, "PFC priority "+pr+" Transmitted", e.Out.String(), 0, at+".output-mac-pfc-frames")
			}
			for _, qc := range ph.Queues {
				for j, q := range qc.Queue {
					n := q.Number.String()
					if n == "" || strings.Trim(n, "0123456789") != "" {
						p.Unread(0, fmt.Sprintf("%s.queue-counters.queue[%d]", at, j), fmt.Sprintf("queue number %q", n))
						continue
					}
					p.SetCount(port, "Queue counters "+n+" Queued packets", q.Queued.String(), 0, at+".queue-counters-queued-packets")
					p.SetCount(port, "Queue counters "+n+" Transmitted packets", q.Trans.String(), 0, at+".queue-counters-trans-packets")
					p.SetCount(port, "Queue counters "+n+" Dropped packets", q.Dropped.String(), 0, at+".queue-counters-total-drop-packets")
				}
			}
		}
	}
	return nil
}

var (
	queuePhysical = regexp.MustCompile(`^Physical interface: ([^,\s]+)`)
	queueHeader   = regexp.MustCompile(`^Queue: ([0-9]+), Forwarding classes: `)
	queueCounter  = regexp.MustCompile(`^\s+([A-Za-z][A-Za-z0-9 -]*[A-Za-z0-9])\s*:\s*(\S+(?: Available)?)(?:\s+\S+\s+(?:pps|bps))?\s*$`)
	// queueKnown are the lines of the output that hold no counter.
	queueKnown = regexp.MustCompile(`^(\s*Interface index:|\s*Description:|Forwarding classes: |Egress queues: |Ingress queues: |Logical interface |\s*Queued:\s*$|\s*Transmitted:\s*$|\s*Burst size:|\s*Queue-depth bytes\s*:)`)
)

// queueLevels are the loss-priority lines some platforms print under a
// drop counter ("RED-dropped packets :" then "Low :", "High :").
var queueLevels = map[string]bool{"Low": true, "Medium-low": true, "Medium-high": true, "High": true}

// parseInterfacesQueue reads `show interfaces queue`:
//
//	Physical interface: et-0/0/1, Enabled, Physical link is Up
//	  Interface index: 650, SNMP ifIndex: 516
//	Forwarding classes: 12 supported, 5 in use
//	Egress queues: 10 supported, 5 in use
//	Queue: 3, Forwarding classes: no-loss
//	  Queued:
//	    Packets              :                     0                     0 pps
//	  Transmitted:
//	    Packets              :                  1200                     0 pps
//	    Tail-dropped packets :                     0                     0 pps
//	    ECN-CE packets       :                   310                     0 pps
//
// Each counter is named by its queue and label ("Queue 3 ECN-CE
// packets"); Packets and Bytes by their section too ("Queue 3
// Transmitted packets"); a loss-priority line by the counter above it
// ("Queue 3 RED-dropped packets High"). "Not Available" is absent. Queues
// of other interfaces (ae0, irb) are understood and not read; a line that
// is none of these is unread. No "Physical interface:" line is an error.
func parseInterfacesQueue(p *switchcfg.CongestionParse, text string) error {
	lines := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	port, read, queue, section, last := "", false, "", "", ""
	seen := false
	for i, line := range lines {
		n := i + 1
		trimmed := strings.TrimSpace(line)
		if m := queuePhysical.FindStringSubmatch(line); m != nil {
			seen = true
			port, queue, section, last = m[1], "", "", ""
			read = ethernetPort.MatchString(port)
			continue
		}
		if m := queueHeader.FindStringSubmatch(line); m != nil && port != "" {
			queue, section, last = m[1], "", ""
			continue
		}
		switch {
		case trimmed == "":
			continue
		case trimmed == "Queued:" || trimmed == "Transmitted:":
			section = strings.TrimSuffix(trimmed, ":")
			continue
		case queueKnown.MatchString(line):
			continue
		}
		m := queueCounter.FindStringSubmatch(line)
		if m == nil || port == "" || queue == "" {
			if port != "" && !read {
				continue // another interface's lines
			}
			p.Unread(n, line, "not a counter of a queue of a physical interface")
			continue
		}
		if !read {
			continue
		}
		label, val := m[1], m[2]
		switch {
		case label == "Packets" || label == "Bytes":
			if section == "" {
				p.Unread(n, line, "packets or bytes outside Queued: and Transmitted:")
				continue
			}
			label = section + " " + strings.ToLower(label)
		case queueLevels[label] && last != "":
			label = last + " " + label
		default:
			last = label
		}
		if val == "Not Available" {
			continue
		}
		p.SetCount(port, "Queue "+queue+" "+label, val, n, line)
	}
	if !seen && strings.TrimSpace(text) != "" {
		return errors.New(`no "Physical interface:" line`)
	}
	return nil
}
