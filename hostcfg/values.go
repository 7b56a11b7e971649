package hostcfg

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/ethtool"
)

// Every setting value travels as canonical text: observed values, desired
// values, plan changes and pre-images all use the forms below, so that two
// values are equal exactly when their texts are, and every text parses back
// to what it was formatted from (a rollback is a plan like any other).
//
//	priorities   "none" | "3" | "3,4"                     pfc.enable, ecn.np, ecn.rp
//	dcbx         "firmware" | "host,ieee" (+ "0x40" for bits without a name)
//	pause        "off" | "rx,tx" | "autoneg,rx" …          global-pause
//	dscp map     "none" | "0-25:0 26:3 27-47:0 48:6 49-63:0"
//	ets          "prio-tc=0,0,0,3,0,0,6,0 tsa=ets,…,strict,ets bw=50,0,0,50,0,0,0,0"
//	integers     "9000"                                    mtu, pfc.delay, cnp.*, dcqcn.*, roce.tos
//	words        "dscp", "RoCE v2", "present" / "absent"

const none = "none"

func formatPrios(bits uint8) string {
	if bits == 0 {
		return none
	}
	var parts []string
	for p := range 8 {
		if bits&(1<<p) != 0 {
			parts = append(parts, strconv.Itoa(p))
		}
	}
	return strings.Join(parts, ",")
}

func parsePrios(s string) (uint8, error) {
	if s == none {
		return 0, nil
	}
	var bits uint8
	for _, f := range strings.Split(s, ",") {
		p, err := strconv.Atoi(f)
		if err != nil || p < 0 || p > 7 {
			return 0, fmt.Errorf("parsing priorities %q: %q is not a priority 0..7: %w", s, f, ErrBadValue)
		}
		if bits&(1<<p) != 0 {
			return 0, fmt.Errorf("parsing priorities %q: %d listed twice: %w", s, p, ErrBadValue)
		}
		bits |= 1 << p
	}
	if formatPrios(bits) != s {
		return 0, fmt.Errorf("parsing priorities %q: not canonical (want %q): %w", s, formatPrios(bits), ErrBadValue)
	}
	return bits, nil
}

// prioBits turns a priority list into a pfc_en-style bitmap; out-of-range
// entries are ignored (fabric validation refuses them).
func prioBits(ps []int) uint8 {
	var b uint8
	for _, p := range ps {
		if p >= 0 && p <= 7 {
			b |= 1 << p
		}
	}
	return b
}

var dcbxNames = []struct {
	bit  uint8
	name string
}{
	{fabric.DCBXHost, "host"}, {fabric.DCBXLLD, "lld-managed"}, {fabric.DCBXVerCEE, "cee"},
	{fabric.DCBXVerIEEE, "ieee"}, {fabric.DCBXStatic, "static"},
}

// dcbxFirmware is the canonical value of every mode without the host and
// LLD-managed bits: an embedded agent (the NIC firmware) runs DCBX, and its
// version bits are its own business (mlx5 reports "cee,ieee" at load and
// "ieee" after being handed back). Writing it writes 0, which drivers take
// as "give DCBX back to the firmware".
const dcbxFirmware = "firmware"

func formatDCBX(m uint8) string {
	if m&(fabric.DCBXHost|fabric.DCBXLLD) == 0 {
		return dcbxFirmware
	}
	var parts []string
	for _, n := range dcbxNames {
		if m&n.bit != 0 {
			parts = append(parts, n.name)
			m &^= n.bit
		}
	}
	if m != 0 {
		parts = append(parts, fmt.Sprintf("%#02x", m))
	}
	return strings.Join(parts, ",")
}

func parseDCBX(s string) (uint8, error) {
	if s == dcbxFirmware {
		return 0, nil
	}
	var m uint8
next:
	for _, f := range strings.Split(s, ",") {
		for _, n := range dcbxNames {
			if f == n.name {
				m |= n.bit
				continue next
			}
		}
		v, err := strconv.ParseUint(f, 0, 8)
		if err != nil || !strings.HasPrefix(f, "0x") {
			return 0, fmt.Errorf("parsing dcbx mode %q: %q is not a flag name or 0x bits: %w", s, f, ErrBadValue)
		}
		m |= uint8(v)
	}
	if formatDCBX(m) != s {
		return 0, fmt.Errorf("parsing dcbx mode %q: not canonical (want %q): %w", s, formatDCBX(m), ErrBadValue)
	}
	return m, nil
}

func formatPause(p ethtool.Pause) string {
	var parts []string
	if p.Autoneg {
		parts = append(parts, "autoneg")
	}
	if p.RX {
		parts = append(parts, "rx")
	}
	if p.TX {
		parts = append(parts, "tx")
	}
	if len(parts) == 0 {
		return "off"
	}
	return strings.Join(parts, ",")
}

func parsePause(s string) (ethtool.Pause, error) {
	var p ethtool.Pause
	if s == "off" {
		return p, nil
	}
	for _, f := range strings.Split(s, ",") {
		var b *bool
		switch f {
		case "autoneg":
			b = &p.Autoneg
		case "rx":
			b = &p.RX
		case "tx":
			b = &p.TX
		default:
			return p, fmt.Errorf("parsing pause %q: %q is not autoneg, rx or tx: %w", s, f, ErrBadValue)
		}
		if *b {
			return p, fmt.Errorf("parsing pause %q: %s listed twice: %w", s, f, ErrBadValue)
		}
		*b = true
	}
	if formatPause(p) != s {
		return p, fmt.Errorf("parsing pause %q: not canonical (want %q): %w", s, formatPause(p), ErrBadValue)
	}
	return p, nil
}

// formatDSCPMap renders entries sorted by DSCP then priority, merging runs of
// consecutive DSCPs that map to the same priority.
func formatDSCPMap(entries []fabric.DSCPEntry) string {
	if len(entries) == 0 {
		return none
	}
	es := slices.Clone(entries)
	slices.SortFunc(es, func(a, b fabric.DSCPEntry) int {
		if a.DSCP != b.DSCP {
			return int(a.DSCP) - int(b.DSCP)
		}
		return int(a.Priority) - int(b.Priority)
	})
	es = slices.Compact(es)
	var parts []string
	for i := 0; i < len(es); {
		j := i
		for j+1 < len(es) && es[j+1].DSCP == es[j].DSCP+1 && es[j+1].Priority == es[i].Priority {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprintf("%d:%d", es[i].DSCP, es[i].Priority))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d:%d", es[i].DSCP, es[j].DSCP, es[i].Priority))
		}
		i = j + 1
	}
	return strings.Join(parts, " ")
}

func parseDSCPMap(s string) ([]fabric.DSCPEntry, error) {
	if s == none {
		return nil, nil
	}
	var out []fabric.DSCPEntry
	for _, f := range strings.Fields(s) {
		rng, prio, ok := strings.Cut(f, ":")
		p, err := strconv.Atoi(prio)
		if !ok || err != nil || p < 0 || p > 7 {
			return nil, fmt.Errorf("parsing dscp map: %q is not DSCP[-DSCP]:PRIORITY: %w", f, ErrBadValue)
		}
		lo, hi, isRange := strings.Cut(rng, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b > 63 || a > b {
			return nil, fmt.Errorf("parsing dscp map: %q has no DSCP range within 0..63: %w", f, ErrBadValue)
		}
		for d := a; d <= b; d++ {
			out = append(out, fabric.DSCPEntry{DSCP: uint8(d), Priority: uint8(p)})
		}
	}
	if formatDSCPMap(out) != s {
		return nil, fmt.Errorf("parsing dscp map %q: not in canonical order (want %q): %w", s, formatDSCPMap(out), ErrBadValue)
	}
	return out, nil
}

// etsValue is the part of ieee_ets fabricctl manages.
type etsValue struct {
	PrioTC    [8]uint8
	TSA       [8]uint8
	Bandwidth [8]uint8
}

func joinU8(v [8]uint8, name func(uint8) string) string {
	parts := make([]string, 8)
	for i, x := range v {
		parts[i] = name(x)
	}
	return strings.Join(parts, ",")
}

func decimal(x uint8) string { return strconv.Itoa(int(x)) }
func tsaName(x uint8) string { return dcbnl.TSA(x).String() }

func formatETS(e etsValue) string {
	return "prio-tc=" + joinU8(e.PrioTC, decimal) + " tsa=" + joinU8(e.TSA, tsaName) + " bw=" + joinU8(e.Bandwidth, decimal)
}

func splitU8(s, key string, parse func(string) (uint8, error)) ([8]uint8, error) {
	var out [8]uint8
	v, ok := strings.CutPrefix(s, key+"=")
	if !ok {
		return out, fmt.Errorf("%q does not start with %s=", s, key)
	}
	f := strings.Split(v, ",")
	if len(f) != 8 {
		return out, fmt.Errorf("%s has %d values, want 8", key, len(f))
	}
	for i, x := range f {
		n, err := parse(x)
		if err != nil {
			return out, fmt.Errorf("%s[%d]: %w", key, i, err)
		}
		out[i] = n
	}
	return out, nil
}

func parseDecimalU8(s string) (uint8, error) {
	n, err := strconv.ParseUint(s, 10, 8)
	if err != nil {
		return 0, fmt.Errorf("%q is not 0..255", s)
	}
	return uint8(n), nil
}

func parseTSA(s string) (uint8, error) {
	var t dcbnl.TSA
	if err := t.UnmarshalText([]byte(s)); err != nil {
		return 0, err
	}
	return uint8(t), nil
}

func parseETS(s string) (etsValue, error) {
	var e etsValue
	f := strings.Fields(s)
	if len(f) != 3 {
		return e, fmt.Errorf("parsing ets %q: want prio-tc=… tsa=… bw=…: %w", s, ErrBadValue)
	}
	var err error
	if e.PrioTC, err = splitU8(f[0], "prio-tc", parseDecimalU8); err == nil {
		if e.TSA, err = splitU8(f[1], "tsa", parseTSA); err == nil {
			e.Bandwidth, err = splitU8(f[2], "bw", parseDecimalU8)
		}
	}
	if err != nil {
		return e, fmt.Errorf("parsing ets %q: %w: %w", s, err, ErrBadValue)
	}
	for p, tc := range e.PrioTC {
		if tc > 7 {
			return e, fmt.Errorf("parsing ets %q: priority %d maps to traffic class %d > 7: %w", s, p, tc, ErrBadValue)
		}
	}
	if formatETS(e) != s {
		return e, fmt.Errorf("parsing ets %q: not canonical (want %q): %w", s, formatETS(e), ErrBadValue)
	}
	return e, nil
}

func parseInt(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("parsing %q: not a decimal integer %d..%d: %w", s, lo, hi, ErrBadValue)
	}
	return n, nil
}

// Presence values of settings that say whether something exists (ipoib.*).
const (
	present = "present"
	absent  = "absent"
)

// Membership values of pkey.* settings (ports/<n>/pkeys).
const (
	memberFull    = "full"
	memberLimited = "limited"
	memberBoth    = "both"
)
