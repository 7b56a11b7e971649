package ibdiag

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// SMInfo is what sminfo says of the master subnet manager.
type SMInfo struct {
	opensm.SMInfo
	ActivityCount *uint64 `json:"activityCount,omitempty"`
	Priority      *int    `json:"priority,omitempty"`
	// StateCode is SMInfo.SMState: 0 not active, 1 discovering, 2
	// standby, 3 master.
	StateCode *int `json:"stateCode,omitempty"`
	Accounting
}

var smInfoRe = regexp.MustCompile(`^sminfo: sm lid \d+ sm guid 0x[0-9a-fA-F]+, activity count (\d+) priority (\d+) state (\d+) (SMINFO_\w+)$`)

// ParseSMInfo reads sminfo output: its one line goes to
// switchcfg/opensm.ParseSMInfo, and this adds the activity count, priority
// and state code, and accounts for every other line.
func ParseSMInfo(text string) (*SMInfo, error) {
	out := &SMInfo{}
	found := false
	for _, l := range lines(text) {
		s := strings.TrimSpace(l.s)
		if m := smInfoRe.FindStringSubmatch(s); m != nil && !found {
			base, err := opensm.ParseSMInfo(s)
			if err != nil {
				out.unparsed(l.n, s)
				continue
			}
			ac, err1 := strconv.ParseUint(m[1], 10, 64)
			pr, err2 := strconv.Atoi(m[2])
			st, err3 := strconv.Atoi(m[3])
			if err1 != nil || err2 != nil || err3 != nil || pr > 15 || st > 3 {
				out.unparsed(l.n, s)
				continue
			}
			out.SMInfo, out.ActivityCount, out.Priority, out.StateCode = base, &ac, &pr, &st
			found = true
			out.Read++
			continue
		}
		if !out.toolError(l) {
			out.unparsed(l.n, s)
		}
	}
	if !found {
		return out, fmt.Errorf("parsing sminfo output: %w", ErrNoData)
	}
	return out, nil
}
