package congestion

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks/evaluate"
)

// ParseText reads counters from the text users paste: `ethtool -S <if>`
// ("     rx_prio3_pause: 12"), a dump of hw_counters files
// ("np_cnp_sent: 40871", as show_counters and `grep . hw_counters/*` print
// them, the path before the last "/" dropped), and `rdma statistic show
// link` lines ("link mlx5_0/1 rx_write_requests 0 … np_cnp_sent 12").
// Lines that are none of these (headers, prompts, "rxq0: rx_bytes: 5") are
// skipped and counted in skipped. A name seen twice keeps its first value.
func ParseText(data []byte) (cs evaluate.Counters, skipped int) {
	cs = evaluate.Counters{}
	set := func(name string, v uint64) {
		if _, ok := cs[name]; !ok {
			cs[name] = v
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "link "); ok {
			if parseRdmaStatistic(rest, set) {
				continue
			}
			skipped++
			continue
		}
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			skipped++
			continue
		}
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		v, err := strconv.ParseUint(val, 10, 64)
		if err != nil || !validName(name) {
			skipped++
			continue
		}
		set(name, v)
	}
	return cs, skipped
}

// parseRdmaStatistic reads "mlx5_0/1 name value name value …".
func parseRdmaStatistic(rest string, set func(string, uint64)) bool {
	f := strings.Fields(rest)
	if len(f) < 3 || len(f)%2 != 1 {
		return false
	}
	for i := 1; i+1 < len(f); i += 2 {
		v, err := strconv.ParseUint(f[i+1], 10, 64)
		if err != nil || !validName(f[i]) {
			return false
		}
		set(f[i], v)
	}
	return true
}

// validName accepts counter names: letters, digits, '_', '.', '-'.
func validName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
		default:
			return false
		}
	}
	return true
}
