package nxos

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// CmdQueuing shows every interface's egress queues per QoS group (packets
// sent, dropped by WRED/AFD and tail drop, dropped by the PFC watchdog),
// its ingress drops and its PFC frames per CoS. Read as text: NX-API's
// JSON of this command is not structured by queue on every release.
const CmdQueuing = "show queuing interface"

// ErrCongestion is wrapped by every error about output that is not that of
// `show queuing interface`.
var ErrCongestion = errors.New("not show queuing interface output")

var _ switchcfg.CongestionReader = (*Driver)(nil)

// CongestionCommands implements switchcfg.CongestionReader: every port at
// once.
func (d *Driver) CongestionCommands([]string) []string { return []string{CmdQueuing} }

// ParseCongestion implements switchcfg.CongestionReader with
// ParseQueuing.
func (d *Driver) ParseCongestion(rb switchcfg.Readback) (switchcfg.CongestionReading, error) {
	return switchcfg.ParseCongestionOutputs(rb, []string{CmdQueuing}, func(p *switchcfg.CongestionParse, _ string, out []byte) error {
		return parseQueuing(p, string(out))
	})
}

var (
	nxQueuingFor = regexp.MustCompile(`^(Egress|Ingress) Queuing for (\S+)`)
	nxGroupBox   = regexp.MustCompile(`^\|\s*((?:CONTROL |SPAN )?QOS GROUP(?: ([0-9]+))?)\s*\|$`)
	nxBoxRow     = regexp.MustCompile(`^\|\s*([^|]*[^|\s])\s*\|((?:\s*[^|]*\|)+)$`)
	nxPPP        = regexp.MustCompile(`^TxPPP:\s*([0-9,]+),\s*RxPPP:\s*([0-9,]+)\s*$`)
	nxStatLine   = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z0-9 /&-]*[A-Za-z])\s+([0-9,]+)\s*$`)
	nxRule       = regexp.MustCompile(`^[-+=\s]+$`)
	nxColumn     = regexp.MustCompile(`^[A-Za-z][A-Za-z ]*$`)
)

// The sections of an interface's output, for the lines that hold no
// counter (the scheduling tables) and the statistics blocks.
const (
	nxNone = iota
	nxScheduling
	nxPortStats
	nxSliceStats
	nxPFC
)

// parseQueuing reads `show queuing interface` (Nexus 9000), per interface:
//
//	Egress Queuing for Ethernet1/51 [System]
//	…scheduling table…
//	+-------------------------------------------------------------+
//	|                              QOS GROUP 3                    |
//	+-------------------------------------------------------------+
//	|                           |  Unicast       |Multicast       |
//	+-------------------------------------------------------------+
//	|                   Tx Pkts |       202328436|               0|
//	| WRED/AFD & Tail Drop Pkts |               0|               0|
//	|       WD & Tail Drop Pkts |               0|               0|
//	+-------------------------------------------------------------+
//	Ingress Queuing for Ethernet1/51
//	…
//	Per Port Ingress Statistics
//	--------------------------------------------------------
//	Ingress Overflow Drop Pkts                       19490
//	PFC Statistics
//	------------------------------------------------------------------------------
//	TxPPP:                  150,   RxPPP:                    0
//	------------------------------------------------------------------------------
//	PFC_COS QOS_Group   TxPause             TxCount   RxPause             RxCount
//	      3         3  Inactive                 150  Inactive                   0
//
// Counters are named as checks/congestion names NX-OS's: "QOS GROUP 3 Tx
// Pkts" (unicast; "QOS GROUP 3 Multicast Tx Pkts"), "Ingress Overflow Drop
// Pkts" and the port's other statistics by their label, "TxPPP" and
// "RxPPP", "PFC COS 3 TxCount" and "PFC COS 3 RxCount" (the COS column
// whatever the header calls it: PFC_COS, COS). Per-slice statistics are
// not the port's and are not read; other interfaces (mgmt0,
// port-channels) neither. No "Queuing for" line is an error.
func parseQueuing(p *switchcfg.CongestionParse, text string) error {
	lines := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	port, read, seen := "", false, false
	section, group := nxNone, ""
	var cols []string
	for i, line := range lines {
		n := i + 1
		t := strings.TrimSpace(line)
		if m := nxQueuingFor.FindStringSubmatch(t); m != nil {
			seen = true
			port = PortName(m[2])
			read = strings.HasPrefix(port, "Ethernet")
			section, group, cols = nxNone, "", nil
			continue
		}
		switch {
		case t == "" || nxRule.MatchString(t):
			continue
		case strings.HasPrefix(t, "slot ") || strings.HasPrefix(t, "Interface "):
			continue
		case strings.HasPrefix(t, "QoS-Group#"):
			section = nxScheduling
			continue
		case t == "Port Egress Statistics" || t == "Per Port Ingress Statistics" || t == "Port Ingress Statistics":
			section = nxPortStats
			continue
		case t == "Per Slice Ingress Statistics" || t == "Per Slice Egress Statistics":
			section = nxSliceStats
			continue
		case t == "PFC Statistics":
			section = nxPFC
			continue
		}
		if port == "" {
			p.Unread(n, line, "before any Queuing for line")
			continue
		}
		if m := nxGroupBox.FindStringSubmatch(t); m != nil {
			section, group, cols = nxNone, m[1], nil
			continue
		}
		if m := nxBoxRow.FindStringSubmatch(t); m != nil && group != "" {
			cells := strings.Split(strings.TrimSuffix(m[2], "|"), "|")
			label := m[1]
			if isColumnRow(cells) {
				cols = trimAll(cells)
				continue
			}
			if !read {
				continue
			}
			for j, c := range cells {
				name := group + " " + label
				if j > 0 {
					col := fmt.Sprintf("column %d", j+1)
					if j < len(cols) && cols[j] != "" {
						col = cols[j]
					}
					name = group + " " + col + " " + label
				}
				p.SetCount(port, name, strings.TrimSpace(c), n, line)
			}
			continue
		}
		if strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|") && group != "" {
			// the header row of a box: "| | Unicast |Multicast |"
			cells := strings.Split(strings.Trim(t, "|"), "|")
			if len(cells) > 1 && strings.TrimSpace(cells[0]) == "" {
				cols = trimAll(cells[1:])
				continue
			}
		}
		switch section {
		case nxScheduling:
			continue // configuration, not counters
		case nxPFC:
			if m := nxPPP.FindStringSubmatch(t); m != nil {
				if read {
					p.SetCount(port, "TxPPP", m[1], n, line)
					p.SetCount(port, "RxPPP", m[2], n, line)
				}
				continue
			}
			f := strings.Fields(t)
			if strings.Contains(t, "TxCount") && strings.Contains(t, "RxCount") {
				continue // the table's header
			}
			if len(f) >= 5 && len(f[0]) == 1 && f[0][0] >= '0' && f[0][0] <= '7' {
				if read {
					p.SetCount(port, "PFC COS "+f[0]+" TxCount", f[len(f)-3], n, line)
					p.SetCount(port, "PFC COS "+f[0]+" RxCount", f[len(f)-1], n, line)
				}
				continue
			}
		case nxPortStats, nxSliceStats:
			if m := nxStatLine.FindStringSubmatch(line); m != nil {
				if read && section == nxPortStats {
					p.SetCount(port, m[1], m[2], n, line)
				}
				continue
			}
		}
		if !read {
			continue
		}
		p.Unread(n, line, "not a line of a queue, statistics or PFC table")
	}
	if !seen {
		return fmt.Errorf("%w: no Egress or Ingress Queuing for line", ErrCongestion)
	}
	return nil
}

// isColumnRow reports whether the cells of a box row name columns
// ("Unicast", "Multicast") rather than hold counts: every cell is words.
func isColumnRow(cells []string) bool {
	words := 0
	for _, c := range cells {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if !nxColumn.MatchString(c) {
			return false
		}
		words++
	}
	return words > 0
}

func trimAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.TrimSpace(s)
	}
	return out
}
