package cumulus

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// fieldSep splits NVUE's human tables: columns are separated by two or more spaces.
var fieldSep = regexp.MustCompile(`\s{2,}`)

// showKeys are the "section/key" fields of `nv show qos roce`.
var showKeys = switchcfg.WordSet("mode/mode", "pfc/pfc-priority", "pfc/cable-length", "congestion-control/congestion-mode",
	"congestion-control/enabled-tc", "congestion-control/min-threshold", "congestion-control/max-threshold",
	"congestion-control/probability", "trust/trust-mode")

// ParseShowRoCE reads the text of `nv show qos roce` (switch level) or
// `nv show interface <if> qos roce status` (port level) into the canonical
// intent. These are operational views: thresholds are NVUE's rounded
// displays ("146.48 KB" = 149995 B, KB and MB being binary), which Compare
// tolerates. The recipe of the displayed RoCE mode is the base the listed
// values refine, since the port-level view lists only the RoCE and CNP rows.
func ParseShowRoCE(text string) (fabric.SwitchIntent, error) {
	type row struct {
		line  int
		table string
		cells []string
	}
	kv := map[string]string{} // "section/key" of showKeys → value
	kvLine := map[string]int{}
	var rows []row
	var table string
	var cols [][2]int
	roceTable := false
	section := ""
	ls := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	for i := 0; i < len(ls); i++ {
		line := strings.TrimRight(ls[i], " \t")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		// A table title is underlined with '='.
		if i+1 < len(ls) && strings.HasPrefix(strings.TrimSpace(ls[i+1]), "===") {
			table, cols = trimmed, nil
			i++
			continue
		}
		if strings.HasPrefix(trimmed, "---") || strings.HasPrefix(trimmed, "- ") || trimmed == "-" {
			cols = dashColumns(line)
			continue
		}
		if table != "" {
			// Before the underline comes the header; only the tables
			// showTableRow reads are kept.
			if cols != nil && (strings.Contains(table, "DSCP->SP") || strings.Contains(table, "SP->TC")) {
				if len(rows) == switchcfg.MaxBlocks {
					return fabric.SwitchIntent{}, fmt.Errorf("%w: line %d: more than %d table rows", ErrSyntax, i+1, switchcfg.MaxBlocks)
				}
				rows = append(rows, row{i + 1, table, cut(line, cols)})
			}
			roceTable = roceTable || strings.HasPrefix(table, "RoCE ")
			continue
		}
		f := fieldSep.Split(trimmed, -1)
		if !strings.HasPrefix(line, " ") {
			section = f[0]
		}
		if key := section + "/" + f[0]; len(f) > 1 && showKeys[key] {
			kv[key] = f[1]
			kvLine[key] = i + 1
		}
	}
	// The view is recognised by its own fields and tables, never by any
	// text with two columns (a qos_features.conf, /etc/network/interfaces).
	if len(kv) == 0 && !roceTable {
		return fabric.SwitchIntent{}, fmt.Errorf("%w: %w: no nv show qos roce field (mode, pfc-priority, congestion-control, trust-mode) or RoCE table found", ErrSyntax, switchcfg.ErrNotThisFormat)
	}
	for k, v := range kv {
		if v == "-" { // NVUE prints "-" for an empty value (pfc-priority of lossy mode)
			kv[k] = ""
		}
	}

	// The RoCE mode's recipe is the base; the listed values refine it.
	m := newModel()
	if mode := kv["mode/mode"]; strings.HasPrefix(mode, "lossless") || strings.HasPrefix(mode, "lossy") {
		m.applyRecipe(mode)
	}
	var ecn fabric.SwitchECN
	var ecnTCs []int
	ecnOn := true
	for _, key := range []string{"pfc/pfc-priority", "pfc/cable-length", "congestion-control/congestion-mode",
		"congestion-control/enabled-tc", "congestion-control/min-threshold", "congestion-control/max-threshold",
		"congestion-control/probability", "trust/trust-mode"} {
		val, ok := kv[key]
		if !ok {
			continue
		}
		var err error
		switch key {
		case "pfc/pfc-priority":
			var ps []int
			if ps, err = switchcfg.ParseIntSet(val, 0, 7); err == nil {
				m.pfc = [8]bool{}
				for _, p := range ps {
					m.pfc[p] = true
				}
			}
		case "pfc/cable-length":
			m.cable, err = showInt(val, 1, 100000)
		case "congestion-control/congestion-mode":
			ecnOn = strings.Contains(strings.ToLower(val), "ecn")
		case "congestion-control/enabled-tc":
			ecnTCs, err = switchcfg.ParseIntSet(val, 0, 7)
		case "congestion-control/min-threshold":
			ecn.MinBytes, err = parseSize(val)
		case "congestion-control/max-threshold":
			ecn.MaxBytes, err = parseSize(val)
		case "congestion-control/probability":
			ecn.MaxMarkProbability, err = showInt(val, 0, 100)
		case "trust/trust-mode":
			m.trust = trustFromShow(val)
		}
		if err != nil {
			return fabric.SwitchIntent{}, fmt.Errorf("parsing nv show qos roce line %d (%s): %w", kvLine[key], key, err)
		}
	}
	// A field the capture does not print (Cumulus 5.3 has no probability
	// row) is the RoCE mode's default, never zero; with no mode to take it
	// from it is unknown, and the reading says so.
	var missing []string
	if ecnTCs != nil {
		base := m.ecn
		m.ecn = [8]*fabric.SwitchECN{}
		if ecnOn {
			for _, tc := range ecnTCs {
				e := ecn
				for _, f := range []struct {
					key  string
					dst  *int64
					from func(*fabric.SwitchECN) int64
				}{
					{"congestion-control/min-threshold", &e.MinBytes, func(b *fabric.SwitchECN) int64 { return b.MinBytes }},
					{"congestion-control/max-threshold", &e.MaxBytes, func(b *fabric.SwitchECN) int64 { return b.MaxBytes }},
					{"congestion-control/probability", nil, func(b *fabric.SwitchECN) int64 { return int64(b.MaxMarkProbability) }},
				} {
					if _, ok := kv[f.key]; ok {
						continue
					}
					b := base[tc]
					if b == nil {
						b = base[recipeRoCEPrio]
					}
					switch {
					case b == nil:
						missing = append(missing, f.key)
					case f.dst != nil:
						*f.dst = f.from(b)
					default:
						e.MaxMarkProbability = int(f.from(b))
					}
				}
				m.ecn[tc] = &e
			}
		}
	}
	for _, r := range rows {
		if err := showTableRow(m, r.table, r.cells); err != nil {
			return fabric.SwitchIntent{}, fmt.Errorf("parsing nv show qos roce line %d: %w", r.line, err)
		}
	}
	si := m.intent()
	for _, key := range slices.Compact(slices.Sorted(slices.Values(missing))) {
		si.Unparsed = append(si.Unparsed, fabric.Unparsed{Text: key,
			Reason: "not in the capture and no RoCE mode to take its default from: unknown, not zero"})
	}
	return si, nil
}

// showTableRow applies one row of the DSCP→SP or SP→TC table.
func showTableRow(m *model, table string, cells []string) error {
	switch {
	case strings.Contains(table, "DSCP->SP"):
		// [index|label] pcp dscp switch-prio
		if len(cells) < 4 {
			return fmt.Errorf("%w: short DSCP->SP row %s", ErrSyntax, fabric.Clip(strings.Join(cells, "  ")))
		}
		sp, err := strconv.Atoi(cells[3])
		if err != nil || sp < 0 || sp > 7 {
			return fmt.Errorf("%w: switch-prio %s", ErrSyntax, fabric.Clip(cells[3]))
		}
		pcps, err := switchcfg.ParseIntSet(cells[1], 0, 7)
		if err != nil {
			return err
		}
		dscps, err := switchcfg.ParseIntSet(cells[2], 0, 63)
		if err != nil {
			return err
		}
		for _, p := range pcps {
			m.pcpSP[p] = sp
		}
		for _, d := range dscps {
			m.dscpSP[d] = sp
		}
	case strings.Contains(table, "SP->TC"):
		// [index|label] switch-prio traffic-class scheduler-weight
		if len(cells) < 4 {
			return fmt.Errorf("%w: short SP->TC row %s", ErrSyntax, fabric.Clip(strings.Join(cells, "  ")))
		}
		sp, err1 := strconv.Atoi(cells[1])
		tc, err2 := strconv.Atoi(cells[2])
		if err1 != nil || err2 != nil || sp < 0 || sp > 7 || tc < 0 || tc > 7 {
			return fmt.Errorf("%w: SP->TC row %s", ErrSyntax, fabric.Clip(strings.Join(cells, "  ")))
		}
		m.spTC[sp] = tc
		w := strings.ToLower(cells[3])
		switch {
		case strings.HasPrefix(w, "strict"):
			m.sched[tc] = tcSched{strict: true}
		case strings.HasPrefix(w, "dwrr-") && strings.HasSuffix(w, "%"):
			bw, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(w, "dwrr-"), "%"))
			if err != nil || bw < 0 || bw > 100 {
				return fmt.Errorf("%w: scheduler-weight %s", ErrSyntax, fabric.Clip(cells[3]))
			}
			m.sched[tc] = tcSched{bandwidth: bw}
		default:
			return fmt.Errorf("%w: scheduler-weight %s", ErrSyntax, fabric.Clip(cells[3]))
		}
	}
	return nil
}

// dashColumns returns the [start, end) of each run of '-' in an underline.
func dashColumns(line string) [][2]int {
	var cols [][2]int
	start := -1
	for i := 0; i <= len(line); i++ {
		if i < len(line) && line[i] == '-' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			cols = append(cols, [2]int{start, i})
			start = -1
		}
	}
	return cols
}

// cut splits a table row by the columns of its underline: each cell runs from
// its column's start to the next column's start.
func cut(line string, cols [][2]int) []string {
	cells := make([]string, len(cols))
	for i, c := range cols {
		if c[0] >= len(line) {
			break
		}
		end := len(line)
		if i+1 < len(cols) && cols[i+1][0] < end {
			end = cols[i+1][0]
		}
		cells[i] = strings.TrimSpace(line[c[0]:end])
	}
	return cells
}

func trustFromShow(v string) string {
	v = strings.ReplaceAll(strings.ToLower(v), " ", "")
	switch {
	case strings.Contains(v, "pcp") && strings.Contains(v, "dscp"), v == "both":
		return "both"
	case v == "dscp", v == "l3":
		return "l3"
	case v == "pcp", v == "l2":
		return "l2"
	}
	return v
}

// showInt reads a whole number of `nv show` within lo..hi.
func showInt(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%w: %s is not a number in %d..%d", ErrSyntax, fabric.Clip(s), lo, hi)
	}
	return n, nil
}

// parseSize reads NVUE's displayed sizes: "25000 B", "0 Bytes", "146.48 KB",
// "1.43 MB" (KB/MB/GB are powers of 1024, as 150000 B showing as 146.48 KB
// proves), or a bare byte count.
func parseSize(s string) (int64, error) {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 2 {
		return 0, fmt.Errorf("%w: size %s", ErrSyntax, fabric.Clip(s))
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%w: size %s", ErrSyntax, fabric.Clip(s))
	}
	mult := 1.0
	if len(f) == 2 {
		switch strings.ToUpper(f[1]) {
		case "B", "BYTES":
		case "KB":
			mult = 1 << 10
		case "MB":
			mult = 1 << 20
		case "GB":
			mult = 1 << 30
		default:
			return 0, fmt.Errorf("%w: size unit %s", ErrSyntax, fabric.Clip(f[1]))
		}
	}
	b := v * mult
	if b > maxThresholdBytes {
		return 0, fmt.Errorf("%w: size %s is larger than any switch buffer", ErrSyntax, fabric.Clip(s))
	}
	return int64(math.Round(b)), nil
}
