package sonic

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// CmdLLDPTable lists the switch's LLDP neighbours, one line per (port,
// neighbour): SONiC's `show lldp table` (sonic-utilities' lldpshow, read
// from STATE_DB's LLDP_ENTRY_TABLE).
const CmdLLDPTable = "show lldp table"

// ErrLLDPTable is wrapped by every error about output that is not
// `show lldp table`'s.
var ErrLLDPTable = errors.New("not show lldp table output")

// NeighborCommands implements switchcfg.NeighborReader.
func (d *Driver) NeighborCommands() []string { return []string{CmdLLDPTable} }

// ParseNeighbors implements switchcfg.NeighborReader.
func (d *Driver) ParseNeighbors(rb switchcfg.Readback) ([]fabric.Neighbor, error) {
	return switchcfg.ParseNeighborOutput(rb, CmdLLDPTable, func(out []byte) ([]fabric.Neighbor, error) {
		return ParseLLDPTable(string(out))
	})
}

// ParseLLDPTable reads `show lldp table`:
//
//	Capability codes: (R) Router, (B) Bridge, (O) Other
//	LocalPort    RemoteDevice    RemotePortID       Capability    RemotePortDescr
//	-----------  --------------  -----------------  ------------  -----------------
//	Ethernet0    leaf2           Ethernet0          BR            Ethernet0
//	--------------------------------------------------
//	Total entries displayed:  1
//
// Columns are cut where the dashes under the header are; the last column
// runs to the end of the line (descriptions hold spaces). The table does
// not say the port ID's subtype: a MAC address is "mac", digits "local",
// anything else "ifname". An output without a header and no entries is
// no neighbour; a header without its dashes, or a row without a local
// port, is an error naming the line.
func ParseLLDPTable(text string) ([]fabric.Neighbor, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	var cols [][2]int
	var out []fabric.Neighbor
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			continue
		case cols == nil && strings.HasPrefix(trimmed, "LocalPort"):
			if i+1 >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "---") {
				return nil, fmt.Errorf("line %d: %w: header without the dashed line under it", i+1, ErrLLDPTable)
			}
			cols = dashColumns(lines[i+1])
			if len(cols) < 3 {
				return nil, fmt.Errorf("line %d: %w: %d columns, want at least LocalPort, RemoteDevice, RemotePortID", i+2, ErrLLDPTable, len(cols))
			}
			i++
		case cols == nil:
			if strings.HasPrefix(trimmed, "Capability codes") {
				continue
			}
			return nil, fmt.Errorf("line %d: %w: %q before the header", i+1, ErrLLDPTable, clip(trimmed))
		case strings.Trim(trimmed, "-") == "", strings.HasPrefix(trimmed, "Total entries displayed"):
			continue
		default:
			f := cutColumns(line, cols)
			if f[0] == "" || line[0] == ' ' || line[0] == '\t' || strings.ContainsAny(f[0], " \t") {
				return nil, fmt.Errorf("line %d: %w: no local port in %q", i+1, ErrLLDPTable, clip(trimmed))
			}
			n := fabric.Neighbor{LocalPort: f[0], Protocol: "LLDP", SystemName: f[1], PortID: f[2]}
			n.PortIDType = fabric.InferPortIDType(n.PortID)
			if len(f) > 4 {
				n.PortDescription = f[4]
			}
			out = append(out, n)
		}
	}
	return out, nil
}

// dashColumns returns the [start, end) of each run of dashes.
func dashColumns(line string) [][2]int {
	var cols [][2]int
	start := -1
	for i := 0; i <= len(line); i++ {
		dash := i < len(line) && line[i] == '-'
		switch {
		case dash && start < 0:
			start = i
		case !dash && start >= 0:
			cols = append(cols, [2]int{start, i})
			start = -1
		}
	}
	return cols
}

// cutColumns cuts a row at the columns' starts; the last runs to the end.
func cutColumns(line string, cols [][2]int) []string {
	f := make([]string, len(cols))
	for j, c := range cols {
		if c[0] >= len(line) {
			break
		}
		end := len(line)
		if j+1 < len(cols) && cols[j+1][0] < end {
			end = cols[j+1][0]
		}
		f[j] = strings.TrimSpace(line[c[0]:end])
	}
	return f
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
