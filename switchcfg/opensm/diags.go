package opensm

import (
	"fmt"
	"strconv"
	"strings"
)

// Port is one port of the subnet as ibnetdiscover -p lists it.
type Port struct {
	// Type is CA, SW or RT.
	Type string `json:"type"`
	LID  int    `json:"lid"`
	Num  int    `json:"port"`
	GUID uint64 `json:"guid"`
	// Node is the node's NodeDescription ("gpu-01 mlx5_0" on a Linux
	// host, the host name in the lab).
	Node string `json:"node,omitempty"`
	// Unlinked: ibnetdiscover lists the port with no peer (a switch port
	// without a cable, or one whose link is down).
	Unlinked bool `json:"unlinked,omitempty"`
}

// Host returns the host name in the NodeDescription: its first word (Linux
// hosts describe an HCA as "HOSTNAME DEVICE").
func (p Port) Host() string {
	f := strings.Fields(p.Node)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// Unparsed is a line a reader did not understand.
type Unparsed struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

func (u Unparsed) String() string { return fmt.Sprintf("line %d: %q", u.Line, u.Text) }

// ParseNetDiscoverPorts reads `ibnetdiscover -p` (infiniband-diags), one
// line per cabled port:
//
//	CA     4  1 0x0002c90300001001 4x EDR - SW     3  1 0x0008f10400000201 ( 'lab-h1' - 'leaf-01' )
//
// and returns the local end of every line (TYPE LID PORT GUID, then the
// node description, the first quoted name of the trailing parentheses). A
// port without a peer ends with its node's name alone:
//
//	SW     8  8 0x0008f10400000202 4x SDR                                    'leaf-02'
//
// Each (GUID, port) is listed once. Lines it does not understand are
// returned as Unparsed, never skipped in silence; blank lines and '#'
// comments are not lines of data.
func ParseNetDiscoverPorts(text string) ([]Port, []Unparsed) {
	var ports []Port
	var bad []Unparsed
	seen := map[[2]uint64]bool{}
	for i, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		p, ok := parsePortLine(t)
		if !ok {
			bad = append(bad, Unparsed{Line: i + 1, Text: t})
			continue
		}
		k := [2]uint64{p.GUID, uint64(p.Num)}
		if !seen[k] {
			seen[k] = true
			ports = append(ports, p)
		}
	}
	return ports, bad
}

func parsePortLine(t string) (Port, bool) {
	f := strings.Fields(t)
	if len(f) < 4 {
		return Port{}, false
	}
	p := Port{Type: f[0]}
	switch p.Type {
	case "CA", "SW", "RT":
	default:
		return Port{}, false
	}
	var err1, err2, err3 error
	p.LID, err1 = strconv.Atoi(f[1])
	p.Num, err2 = strconv.Atoi(f[2])
	p.GUID, err3 = strconv.ParseUint(strings.TrimPrefix(strings.ToLower(f[3]), "0x"), 16, 64)
	if err1 != nil || err2 != nil || err3 != nil || p.LID < 0 || p.LID > 0xffff || p.Num < 0 || p.Num > 255 || !strings.HasPrefix(strings.ToLower(f[3]), "0x") {
		return Port{}, false
	}
	switch i := strings.Index(t, "( '"); {
	case i >= 0: // a cabled port: ( 'local' - 'peer' )
		rest := t[i+3:]
		j := strings.Index(rest, "' - '")
		if j < 0 || !strings.HasSuffix(rest, "' )") {
			return Port{}, false
		}
		p.Node = rest[:j]
	case strings.HasSuffix(t, "'"): // a port with no peer: 'local'
		j := strings.Index(t, "'")
		if j == len(t)-1 {
			return Port{}, false
		}
		p.Node = t[j+1 : len(t)-1]
		p.Unlinked = true
	default:
		return Port{}, false
	}
	return p, true
}

// SMInfo is what `sminfo` says of the master subnet manager.
type SMInfo struct {
	LID   int    `json:"lid"`
	GUID  uint64 `json:"guid"`
	State string `json:"state"`
}

// ParseSMInfo reads `sminfo` (infiniband-diags):
//
//	sminfo: sm lid 1 sm guid 0x2c9030000f001, activity count 160 priority 0 state 3 SMINFO_MASTER
func ParseSMInfo(text string) (SMInfo, error) {
	t := strings.TrimSpace(text)
	var s SMInfo
	var guid string
	if _, err := fmt.Sscanf(strings.TrimPrefix(t, "sminfo: "), "sm lid %d sm guid %s", &s.LID, &guid); err != nil {
		return s, fmt.Errorf("reading sminfo %q: %w", firstLine(t), err)
	}
	g, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSuffix(guid, ","), "0x"), 16, 64)
	if err != nil {
		return s, fmt.Errorf("reading sminfo %q: sm guid %q", firstLine(t), guid)
	}
	s.GUID = g
	if f := strings.Fields(t); len(f) > 0 {
		s.State = f[len(f)-1]
	}
	return s, nil
}

// PKeyTable is one port's P_Key table: the non-empty entries in table
// order, with the full-member bit as read.
type PKeyTable struct {
	Entries  []uint16 `json:"entries"`
	Capacity int      `json:"capacity,omitempty"`
}

// Memberships returns the table per partition (the low 15 bits): "full",
// "limited", or "both" when the table holds the pkey with and without the
// full-member bit.
func (t PKeyTable) Memberships() map[uint16]string {
	out := map[uint16]string{}
	for _, e := range t.Entries {
		k, m := e&pkeyMask, "limited"
		if e&0x8000 != 0 {
			m = "full"
		}
		if prev, ok := out[k]; ok && prev != m {
			m = "both"
		}
		out[k] = m
	}
	return out
}

// ParsePKeys reads `smpquery pkeys LID [PORT]` (infiniband-diags):
//
//	   0: 0x7fff 0x8001 0x0000 0x0000 0x0000 0x0000 0x0000 0x0000
//	   8: 0x0000 ...
//	64 pkeys capacity for this port
//
// Empty entries (0x0000 and 0x8000, which name no partition) are left out.
// A line that is neither an entry row nor the capacity line is an error
// naming it: a table read wrong would be a wrong verdict on isolation.
func ParsePKeys(text string) (PKeyTable, error) {
	var t PKeyTable
	rows := 0
	for i, line := range strings.Split(text, "\n") {
		s := strings.TrimSpace(line)
		if s == "" {
			continue
		}
		if strings.HasSuffix(s, "pkeys capacity for this port") {
			n, err := strconv.Atoi(strings.Fields(s)[0])
			if err != nil {
				return t, fmt.Errorf("line %d: %q: bad capacity", i+1, s)
			}
			t.Capacity = n
			continue
		}
		idx, vals, ok := strings.Cut(s, ":")
		if _, err := strconv.Atoi(idx); !ok || err != nil {
			return t, fmt.Errorf("line %d: %q is not a P_Key table row", i+1, s)
		}
		for _, v := range strings.Fields(vals) {
			if !strings.HasPrefix(v, "0x") {
				return t, fmt.Errorf("line %d: %q: P_Key %q is not 0x and hex digits", i+1, s, v)
			}
			k, err := strconv.ParseUint(v[2:], 16, 16)
			if err != nil {
				return t, fmt.Errorf("line %d: %q: P_Key %q is not 0x and hex digits", i+1, s, v)
			}
			if uint16(k)&pkeyMask != 0 {
				t.Entries = append(t.Entries, uint16(k))
			}
		}
		rows++
	}
	if rows == 0 {
		return t, fmt.Errorf("no P_Key table rows in %q", firstLine(text))
	}
	return t, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
