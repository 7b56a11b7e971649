package cumulus

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// CongestionCommand is the NVUE command that shows one port's QoS
// counters as JSON: its PFC statistics per switch priority, its egress
// queue statistics per traffic class, its ingress buffer statistics per
// priority group and its port statistics (Cumulus Linux 5.5 and later;
// `nv show interface <if> qos counters` before). The JSON is read, not the
// table: the table prints some counts scaled ("75.19 KB"), which loses
// movements a congestion verdict needs.
func CongestionCommand(port string) string {
	return "nv show interface " + port + " counters qos -o json"
}

var congestionCmd = regexp.MustCompile(`^nv show interface (\S+) counters qos -o json$`)

// ErrCongestion is wrapped by every error about output that is not the
// JSON of `nv show interface <if> counters qos -o json`.
var ErrCongestion = errors.New("not nv show interface counters qos -o json output")

var _ switchcfg.CongestionReader = (*Driver)(nil)

// CongestionCommands implements switchcfg.CongestionReader: one command
// per front-panel port (NVUE shows QoS counters one interface at a time).
func (d *Driver) CongestionCommands(ports []string) []string {
	var out []string
	for _, p := range ports {
		if frontPanel.MatchString(p) && !slices.Contains(out, CongestionCommand(p)) {
			out = append(out, CongestionCommand(p))
		}
	}
	slices.Sort(out)
	return out
}

// The groups of per-index counters: the index is the switch priority
// (pfc-stats), the traffic class (egress-queue-stats) or the priority
// group (ingress-buffer-stats).
var indexedGroups = []string{"pfc-stats", "egress-queue-stats", "ingress-buffer-stats"}

// ParseCongestion implements switchcfg.CongestionReader: every output in
// rb of a CongestionCommand is read (the port is the command's). A counter
// is named by its group, index and field, as checks/congestion names
// Cumulus's: "pfc-stats 3 rx-pause-frames", "egress-queue-stats 3
// tx-uc-buffer-discards", "egress-queue-stats 3 ecn-marked-frames"; the
// port statistics by their path ("port-stats tx-stats ecn-marked-packets").
// A value "n/a" is absent; a field that is neither a count nor an object
// of counts is listed as unread.
func (d *Driver) ParseCongestion(rb switchcfg.Readback) (switchcfg.CongestionReading, error) {
	var cmds []string
	for c := range rb {
		if congestionCmd.MatchString(c) {
			cmds = append(cmds, c)
		}
	}
	slices.Sort(cmds)
	return switchcfg.ParseCongestionOutputs(rb, cmds, func(p *switchcfg.CongestionParse, cmd string, out []byte) error {
		return parseQoSCounters(p, congestionCmd.FindStringSubmatch(cmd)[1], out)
	})
}

// ParseQoSCounters reads one port's `nv show interface <if> counters qos
// -o json`:
//
//	{"pfc-stats": {"3": {"rx-pause-frames": 0, "rx-pause-duration": 0,
//	   "tx-pause-frames": 120, "tx-pause-duration": 5400}, …},
//	 "egress-queue-stats": {"3": {"tx-frames": 0, "tx-bytes": 0,
//	   "tx-uc-buffer-discards": 0, "wred-discards": 0, "ecn-marked-frames": 0}, …},
//	 "ingress-buffer-stats": {"3": {"rx-frames": 0, "rx-buffer-discards": 0, …}, …},
//	 "port-stats": {…}}
//
// into port's counters.
func ParseQoSCounters(port string, out []byte) (switchcfg.CongestionReading, error) {
	p := switchcfg.CongestionParse{Command: CongestionCommand(port)}
	if err := parseQoSCounters(&p, port, out); err != nil {
		return switchcfg.CongestionReading{}, err
	}
	return p.Done(), nil
}

func parseQoSCounters(p *switchcfg.CongestionParse, port string, out []byte) error {
	doc, err := switchcfg.DecodeCounterJSON(out)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCongestion, err)
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("%w: not an object", ErrCongestion)
	}
	known := 0
	for _, g := range slices.Sorted(maps.Keys(top)) {
		if slices.Contains(indexedGroups, g) {
			known++
			idx, ok := top[g].(map[string]any)
			if !ok {
				p.Unread(0, g, "not an object of indexes")
				continue
			}
			for _, i := range slices.Sorted(maps.Keys(idx)) {
				fs, ok := idx[i].(map[string]any)
				if !ok || !isIndex(i) {
					p.Unread(0, g+"."+i, "not an index with an object of counters")
					continue
				}
				for _, f := range slices.Sorted(maps.Keys(fs)) {
					p.SetCount(port, g+" "+i+" "+f, fs[f], 0, g+"."+i+"."+f)
				}
			}
			continue
		}
		if g == "port-stats" {
			known++
		}
		flatten(p, port, g, g, top[g])
	}
	if known == 0 && len(top) > 0 {
		return fmt.Errorf("%w: none of pfc-stats, egress-queue-stats, ingress-buffer-stats, port-stats", ErrCongestion)
	}
	return nil
}

// flatten records every count under v, named by its path.
func flatten(p *switchcfg.CongestionParse, port, name, path string, v any) {
	if m, ok := v.(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			flatten(p, port, name+" "+k, path+"."+k, m[k])
		}
		return
	}
	p.SetCount(port, name, v, 0, path)
}

func isIndex(s string) bool {
	return s != "" && len(s) <= 2 && strings.Trim(s, "0123456789") == ""
}
