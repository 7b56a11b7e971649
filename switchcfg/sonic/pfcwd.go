package sonic

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

var pollLine = regexp.MustCompile(`(?i)polling interval (?:to |is )?(\d+)\s*ms`)

// internalPort matches the ASIC-internal ports multi-ASIC SONiC lists
// beside the front panel (Ethernet-BP0, Ethernet-Rec0, Ethernet-IB0).
var internalPort = regexp.MustCompile(`^Ethernet-(?:BP|Rec|IB)\d+$`)

// ParseShowPFCWD reads `show pfcwd config` into PFC_WD rows:
//
//	     PORT    ACTION    DETECTION TIME    RESTORATION TIME    HISTORY
//	---------  --------  ----------------  ------------------  ---------
//	Ethernet0      drop               600                 600    disable
//
// A "polling interval … ms" line, when printed, becomes PFC_WD|GLOBAL
// POLL_INTERVAL. Ports with action "N/A" or no times are not watched.
func ParseShowPFCWD(text string) (ConfigDB, error) {
	db := ConfigDB{}
	header := false
	for i, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if m := pollLine.FindStringSubmatch(line); m != nil {
			db.set(tPFCWD, pfcwdGlobal, fPollInterval, m[1])
			continue
		}
		if len(f) == 0 {
			continue
		}
		if f[0] == "PORT" {
			header = true
			continue
		}
		if !header || strings.HasPrefix(f[0], "---") {
			continue
		}
		if len(f) < 4 {
			return nil, fmt.Errorf("%w: show pfcwd config line %d: %s", ErrSyntax, i+1, fabric.Clip(line))
		}
		if internalPort.MatchString(f[0]) {
			continue // multi-ASIC backplane, recirculation and inband ports: not front panel
		}
		if checkPort(f[0]) != nil {
			return nil, fmt.Errorf("%w: show pfcwd config line %d: %s is not a port", ErrSyntax, i+1, fabric.Clip(f[0]))
		}
		if strings.EqualFold(f[1], "N/A") {
			continue
		}
		for _, v := range f[2:4] {
			if n, err := strconv.Atoi(v); err != nil || n < 1 || n > maxWatchdogMs {
				return nil, fmt.Errorf("%w: show pfcwd config line %d: time %s is not a number in 1..%d", ErrSyntax, i+1, fabric.Clip(v), maxWatchdogMs)
			}
		}
		db.set(tPFCWD, f[0], "action", f[1])
		db.set(tPFCWD, f[0], "detection_time", f[2])
		db.set(tPFCWD, f[0], "restoration_time", f[3])
	}
	if !header {
		return nil, fmt.Errorf("%w: no show pfcwd config table", ErrSyntax)
	}
	return db, nil
}
