package ibfabric

import (
	"fmt"
	"strconv"
	"strings"
)

// SMRecord is one SMInfoRecord of the subnet administrator (saquery SMIR):
// a subnet manager of the subnet, in any state.
type SMRecord struct {
	LID      int    `json:"lid"`
	GUID     uint64 `json:"guid"`
	Priority int    `json:"priority"`
	// State is SMInfo.SMState: 0 not active, 1 discovering, 2 standby, 3 master.
	State int `json:"state"`
}

// ParseSMIR reads `saquery SMIR` (infiniband-diags): "SMInfoRecord dump:"
// blocks of LID, GUID, SM_Key, ActCount, Priority and SMState. A block
// without its LID, GUID or state is an error, and so is a line that is
// none of these.
func ParseSMIR(text string) ([]SMRecord, error) {
	out := []SMRecord{}
	var cur *SMRecord
	have := 0
	flush := func() error {
		if cur == nil {
			return nil
		}
		if have&7 != 7 {
			return fmt.Errorf("reading saquery SMIR: record %d lacks its LID, GUID or SMState", len(out)+1)
		}
		out = append(out, *cur)
		cur, have = nil, 0
		return nil
	}
	for i, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "" || l == "RID" || l == "SMInfo dump:":
			continue
		case l == "SMInfoRecord dump:":
			if err := flush(); err != nil {
				return nil, err
			}
			cur = &SMRecord{}
			continue
		}
		k, v, ok := strings.Cut(l, "..")
		if !ok || cur == nil {
			return nil, fmt.Errorf("reading saquery SMIR: line %d %q not understood", i+1, l)
		}
		v = strings.TrimLeft(v, ".")
		var err error
		switch k {
		case "LID":
			cur.LID, err = strconv.Atoi(v)
			have |= 1
		case "GUID":
			cur.GUID, err = strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 64)
			have |= 2
		case "SMState":
			cur.State, err = strconv.Atoi(v)
			have |= 4
		case "Priority":
			cur.Priority, err = strconv.Atoi(v)
		case "SM_Key", "ActCount":
		default:
			return nil, fmt.Errorf("reading saquery SMIR: line %d %q not understood", i+1, l)
		}
		if err != nil {
			return nil, fmt.Errorf("reading saquery SMIR: line %d %q: %w", i+1, l, err)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}
