package sonic

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// The commands whose outputs ParseCongestion reads (sonic-utilities'
// pfcstat and queuestat, doc/Command-Reference.md, "QoS Show commands").
const (
	// CmdPFCCounters shows the PFC frames each port received (table
	// "Port Rx") and sent ("Port Tx"), per priority PFC0…PFC7.
	CmdPFCCounters = "show pfc counters"
	// CmdQueueCounters shows, per port and egress queue (UC0…, MC…),
	// packets and bytes sent and dropped.
	CmdQueueCounters = "show queue counters"
	// CmdWREDCounters shows, per port and egress queue, packets and bytes
	// WRED dropped and ECN marked.
	CmdWREDCounters = "show queue wredcounters"
)

// ErrCongestion is wrapped by every error about output that is not the
// table of its command.
var ErrCongestion = errors.New("not the table of a SONiC counter command")

var _ switchcfg.CongestionReader = (*Driver)(nil)

// CongestionCommands implements switchcfg.CongestionReader: the three
// tables show every port.
func (d *Driver) CongestionCommands([]string) []string {
	return []string{CmdPFCCounters, CmdQueueCounters, CmdWREDCounters}
}

// ParseCongestion implements switchcfg.CongestionReader. The counters are
// named as checks/congestion names SONiC's: "Rx PFC3" and "Tx PFC3" (the
// table and the column), "UC3 Drop/pkts", "UC3 Counter/pkts",
// "UC3 WredDrp/pkts", "UC3 EcnMarked/pkts" (the queue and the column; MC
// and ALL queues are kept under their own names).
func (d *Driver) ParseCongestion(rb switchcfg.Readback) (switchcfg.CongestionReading, error) {
	return switchcfg.ParseCongestionOutputs(rb, d.CongestionCommands(nil), func(p *switchcfg.CongestionParse, cmd string, out []byte) error {
		if cmd == CmdPFCCounters {
			return parsePFCCounters(p, string(out))
		}
		return parseQueueCounters(p, string(out))
	})
}

// sonicTable is one table of a counter command: its header's column
// names and the line it started on.
type sonicTable struct {
	cols []string
	line int
}

// preamble are the lines the counter commands print around their tables:
// the namespace of a multi-ASIC switch, the time of the last clear.
var preamble = regexp.MustCompile(`^(For namespace\b|Last cached time\b|Ingress PG dropped|Egress shared pool)`)

// eachRow calls row for every row of the tables in text (header, dashes,
// rows; a blank line may follow the dashes, as in the documented wred
// example, and a table ends at a blank line or the next header). header
// names a header's columns from its fields, or returns nil for a line
// that is none. Lines outside a table that are not preamble are listed as
// unread. No table at all is an error.
func eachRow(p *switchcfg.CongestionParse, text string, header func([]string) []string, row func(t sonicTable, n int, line string, f []string)) error {
	lines := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	var t *sonicTable
	rowsSeen, tables := 0, 0
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t")
		f := strings.Fields(line)
		if cols := header(f); cols != nil {
			if i+1 >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "---") {
				p.Unread(i+1, line, "a header without the dashed line under it")
				t = nil
				continue
			}
			t = &sonicTable{cols: cols, line: i + 1}
			tables++
			rowsSeen = 0
			i++ // the dashes
			continue
		}
		switch {
		case len(f) == 0:
			if t != nil && rowsSeen > 0 {
				t = nil // the table ends
			}
			continue
		case preamble.MatchString(strings.TrimSpace(line)):
			continue
		case t == nil:
			p.Unread(i+1, line, "outside a table")
			continue
		}
		rowsSeen++
		if len(f) != len(t.cols) {
			p.Unread(i+1, line, fmt.Sprintf("%d fields, the header at line %d has %d", len(f), t.line, len(t.cols)))
			continue
		}
		row(*t, i+1, line, f)
	}
	if tables == 0 {
		return fmt.Errorf("%w: no table header", ErrCongestion)
	}
	return nil
}

var pfcColumn = regexp.MustCompile(`^PFC[0-7]$`)

// parsePFCCounters reads pfcstat's two tables, as `show pfc counters`
// prints them (sonic-utilities tests/pfcstat_test.py):
//
//	  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
//	---------  ------  ------  ------  ------  ------  ------  ------  ------
//	Ethernet0   1,200     201     202     203     204     205     206     207
//
// then "Port Tx" the same way. Counts may have thousands separators; N/A
// is absent. Backplane ports (Ethernet-BP0) are understood and not read.
func parsePFCCounters(p *switchcfg.CongestionParse, text string) error {
	header := func(f []string) []string {
		if len(f) < 3 || f[0] != "Port" || (f[1] != "Rx" && f[1] != "Tx") {
			return nil
		}
		for _, c := range f[2:] {
			if !pfcColumn.MatchString(c) {
				return nil
			}
		}
		return append([]string{f[0] + " " + f[1]}, f[2:]...)
	}
	return eachRow(p, text, header, func(t sonicTable, n int, line string, f []string) {
		port := f[0]
		if !frontPanel.MatchString(port) {
			return
		}
		dir := strings.TrimPrefix(t.cols[0], "Port ")
		for j := 1; j < len(f); j++ {
			setCount(p, port, dir+" "+t.cols[j], f[j], n, line)
		}
	})
}

var queueName = regexp.MustCompile(`^(UC|MC|ALL)[0-9]+$`)

// parseQueueCounters reads queuestat's tables, as `show queue counters`
// and `show queue wredcounters` print them (sonic-utilities
// tests/queue_counter_test.py and tests/wred_queue_counter_test.py), one
// table per port:
//
//	     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes
//	---------  -----  --------------  ---------------  -----------  ------------
//	Ethernet0    UC0               0                0            0             0
//	Ethernet0   MC10              83               96           74             9
//
// Each cell is named by its queue and column ("UC3 Drop/pkts"); N/A is
// absent.
func parseQueueCounters(p *switchcfg.CongestionParse, text string) error {
	header := func(f []string) []string {
		if len(f) < 3 || f[0] != "Port" || f[1] != "TxQ" {
			return nil
		}
		return f
	}
	return eachRow(p, text, header, func(t sonicTable, n int, line string, f []string) {
		port, q := f[0], f[1]
		if !queueName.MatchString(q) {
			p.Unread(n, line, fmt.Sprintf("queue %q is not UCn, MCn or ALLn", clip(q)))
			return
		}
		if !frontPanel.MatchString(port) {
			return
		}
		for j := 2; j < len(f); j++ {
			setCount(p, port, q+" "+t.cols[j], f[j], n, line)
		}
	})
}

// setCount records a cell: a count, absent (N/A), or a line not read.
func setCount(p *switchcfg.CongestionParse, port, name, cell string, n int, line string) {
	v, present, ok := switchcfg.CountOf(cell)
	switch {
	case !ok:
		p.Unread(n, line, fmt.Sprintf("%s %s %q is not a count", port, name, clip(cell)))
	case present:
		p.Set(port, name, v, n, line)
	}
}
