package hostparse

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/fabricctl/fabricctl/checks/pcitopo"
)

// Topo is the matrix nvidia-smi topo -m (or -mp) prints.
type Topo struct {
	// Devices are the matrix columns in order: GPU0…, then NIC0… (or, from
	// older drivers, the RDMA device names themselves: mlx5_0…).
	Devices []string  `json:"devices"`
	Rows    []TopoRow `json:"rows"`
	// NICs maps the NIC Legend: NIC0 → mlx5_0.
	NICs      map[string]string `json:"nics,omitempty"`
	Truncated bool              `json:"truncated,omitempty"` // a row was cut off
	Warnings  []string          `json:"warnings,omitempty"`
	// idx finds columns and rows by name in constant time; ParseTopo builds
	// it, and a Topo built otherwise gets one per lookup.
	idx *topoIndex
}

// topoIndex finds a matrix's columns and rows by name.
type topoIndex struct {
	// col maps a column name, or its NIC Legend name, to the first column
	// that has it.
	col map[string]int
	// rows maps a device to its rows, in order (a garbled capture may
	// repeat one).
	rows map[string][]int
}

func (t *Topo) buildIndex() *topoIndex {
	x := &topoIndex{col: make(map[string]int, len(t.Devices)+len(t.NICs)), rows: make(map[string][]int, len(t.Rows))}
	for i, d := range t.Devices {
		if _, ok := x.col[d]; !ok {
			x.col[d] = i
		}
		if alias, ok := t.NICs[d]; ok {
			if _, ok := x.col[alias]; !ok {
				x.col[alias] = i
			}
		}
	}
	for i, r := range t.Rows {
		x.rows[r.Device] = append(x.rows[r.Device], i)
	}
	return x
}

// index returns the Topo's index; a Topo not made by ParseTopo (a literal,
// decoded JSON) gets a fresh one, so lookups never write to t.
func (t *Topo) index() *topoIndex {
	if t.idx != nil {
		return t.idx
	}
	return t.buildIndex()
}

// TopoRow is one row of the matrix.
type TopoRow struct {
	Device string `json:"device"`
	// Cells holds one entry per Devices column: X, NV#, PIX, PXB, PHB, NODE or SYS.
	Cells []string `json:"cells"`
	// The affinity columns, printed for GPU rows only.
	CPUAffinity  string `json:"cpuAffinity,omitempty"`  // "0-47,96-143"
	NUMAAffinity string `json:"numaAffinity,omitempty"` // "0"
	GPUNUMAID    string `json:"gpuNUMAID,omitempty"`    // "N/A"
}

// maxTopoWarnings bounds the asymmetry warnings of one matrix; the rest are counted.
const maxTopoWarnings = 20

var (
	topoCellsRe  = regexp.MustCompile(`X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC`)
	nicLegendRe  = regexp.MustCompile(`^(NIC\d+):\s*(\S+)$`)
	affinityCols = [][]string{{"CPU", "Affinity"}, {"NUMA", "Affinity"}, {"GPU", "NUMA", "ID"}}
)

// isTopoCell reports whether s is a matrix entry: X, NV#, PIX, PXB, PHB,
// NODE, SYS or SOC.
func isTopoCell(s string) bool {
	switch s {
	case "X", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC":
		return true
	}
	digits, ok := strings.CutPrefix(s, "NV")
	if !ok || digits == "" {
		return false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ParseTopo reads nvidia-smi topo -m or -mp output, with or without the
// legends, from current drivers (NIC# columns and a NIC Legend) and older ones
// (RDMA device names as columns). Rows cut off in a capture keep the cells
// they have and set Truncated. Time and memory are linear in the matrix's
// cells; lookups (Cell, Path) take constant time.
func ParseTopo(r io.Reader) (*Topo, error) {
	var out Topo
	nAffinity := 0
	inNICLegend := false
	var columns map[string]bool
	err := scan(r, func(n, _ int, raw string) {
		s := strings.TrimSpace(raw)
		f := strings.Fields(s)
		switch {
		case len(f) == 0:
		case s == "NIC Legend:":
			inNICLegend = true
		case inNICLegend && nicLegendRe.MatchString(s):
			m := nicLegendRe.FindStringSubmatch(s)
			if out.NICs == nil {
				out.NICs = map[string]string{}
			}
			out.NICs[m[1]] = m[2]
		case out.Devices == nil && len(f) >= 2 && !isTopoCell(f[1]) && isTopoDevice(f[0]):
			out.Devices, nAffinity = topoHeader(f)
			columns = make(map[string]bool, len(out.Devices))
			for _, d := range out.Devices {
				columns[d] = true
			}
		case out.Devices != nil && len(f) >= 2 && isTopoCell(f[1]):
			if !columns[f[0]] {
				out.Warnings = append(out.Warnings, located(n, "row %q names no column", f[0]))
				return
			}
			out.Rows = append(out.Rows, topoRow(n, f, len(out.Devices), nAffinity, &out))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("parsing nvidia-smi topo output: %w", err)
	}
	if out.Devices == nil {
		return nil, fmt.Errorf("parsing nvidia-smi topo output: %w: no matrix header", ErrNoData)
	}
	if len(out.Rows) < len(out.Devices) {
		out.Truncated = true
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d of %d matrix rows present: the capture ends early", len(out.Rows), len(out.Devices)))
	}
	out.idx = out.buildIndex()
	out.checkSymmetry()
	return &out, nil
}

func isTopoDevice(s string) bool {
	return strings.HasPrefix(s, "GPU") || strings.HasPrefix(s, "NIC") || strings.HasPrefix(s, "mlx") || strings.HasPrefix(s, "CPU")
}

// topoHeader splits the header into device columns and counts the affinity
// columns ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID") after them.
func topoHeader(f []string) (devices []string, nAffinity int) {
	devices = []string{}
	for i := 0; i < len(f); {
		matched := false
		for _, col := range affinityCols {
			if i+len(col) <= len(f) && strings.Join(f[i:i+len(col)], " ") == strings.Join(col, " ") {
				nAffinity++
				i += len(col)
				matched = true
				break
			}
		}
		if !matched {
			devices = append(devices, f[i])
			i++
		}
	}
	return devices, nAffinity
}

func topoRow(n int, f []string, nDev, nAffinity int, out *Topo) TopoRow {
	row := TopoRow{Device: f[0]}
	cells := splitMergedCells(n, f[0], f[1:], out)
	if len(cells) < nDev {
		out.Truncated = true
		out.Warnings = append(out.Warnings, located(n, "row %s has %d of %d cells", f[0], len(cells), nDev))
		row.Cells = cells
		return row
	}
	row.Cells = cells[:nDev]
	aff := cells[nDev:]
	for i, v := range aff {
		switch {
		case i >= nAffinity:
		case i == 0:
			row.CPUAffinity = v
		case i == 1:
			row.NUMAAffinity = v
		case i == 2:
			row.GPUNUMAID = v
		}
	}
	return row
}

// splitMergedCells splits cells that a paste ran together when it lost the
// padding between them ("NODENODE" is NODE, NODE): a field made only of
// matrix entries is those entries. Affinity fields ("0-31,64-95", "N/A")
// never are.
func splitMergedCells(n int, dev string, f []string, out *Topo) []string {
	cells := make([]string, 0, len(f))
	for _, c := range f {
		if isTopoCell(c) {
			cells = append(cells, c)
			continue
		}
		parts := topoCellsRe.FindAllString(c, -1)
		if len(parts) < 2 || strings.Join(parts, "") != c {
			cells = append(cells, c)
			continue
		}
		out.Warnings = append(out.Warnings, located(n, "row %s: %q read as %s (cells run together)", dev, c, strings.Join(parts, " ")))
		cells = append(cells, parts...)
	}
	return cells
}

// checkSymmetry warns about cells whose mirror disagrees (a garbled
// capture): the first maxTopoWarnings of them, then how many more.
func (t *Topo) checkSymmetry() {
	x := t.index()
	mirror := make([][]int, len(t.Devices)) // column j → the rows of device j
	for j, d := range t.Devices {
		mirror[j] = x.rows[d]
	}
	shown, more := 0, 0
	for _, r := range t.Rows {
		i, ok := x.col[r.Device]
		if !ok {
			continue
		}
		for j, c := range r.Cells {
			other, ok := t.rowCell(mirror[j], i)
			if !ok || other == c {
				continue
			}
			if shown == maxTopoWarnings {
				more++
				continue
			}
			shown++
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s→%s is %s but %s→%s is %s", r.Device, t.Devices[j], c, t.Devices[j], r.Device, other))
		}
	}
	if more > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%d more cells disagree with their mirror", more))
	}
}

// rowCell returns column col of the first of rows that reaches it.
func (t *Topo) rowCell(rows []int, col int) (string, bool) {
	for _, ri := range rows {
		if r := t.Rows[ri]; col < len(r.Cells) {
			return r.Cells[col], true
		}
	}
	return "", false
}

// Cell returns the matrix entry between a and b as printed ("PIX", "NV18"),
// from a's row or, where the capture cut that row off, from b's.
func (t *Topo) Cell(a, b string) (string, bool) {
	c, err := t.cell(a, b)
	return c, err == nil
}

// cell looks a↔b up in a's row, then in b's (the matrix is symmetric). The
// error is ErrUnknownDevice for a name that is no column and ErrTruncated for
// a cell neither row shows. Names are columns or their NIC Legend names
// ("mlx5_0" finds NIC0).
func (t *Topo) cell(a, b string) (string, error) {
	x := t.index()
	i, ok := x.col[a]
	if !ok {
		return "", fmt.Errorf("%q: %w", a, ErrUnknownDevice)
	}
	j, ok := x.col[b]
	if !ok {
		return "", fmt.Errorf("%q: %w", b, ErrUnknownDevice)
	}
	if c, ok := t.rowCell(x.rows[t.Devices[i]], j); ok {
		return c, nil
	}
	if c, ok := t.rowCell(x.rows[t.Devices[j]], i); ok {
		return c, nil
	}
	return "", ErrTruncated
}

// Path returns the PCIe path class between a and b; names may be columns
// (GPU0, NIC3) or legend names (mlx5_3). NVLink cells give pcitopo.ErrNotPath;
// a name that is no column ErrUnknownDevice; a cell the capture cut off
// ErrTruncated.
func (t *Topo) Path(a, b string) (pcitopo.Path, error) {
	c, err := t.cell(a, b)
	if err != nil {
		return "", fmt.Errorf("looking up %s↔%s in the topology: %w", a, b, err)
	}
	if c == "SOC" { // drivers before R384 called SYS "SOC"
		c = string(pcitopo.SYS)
	}
	p, err := pcitopo.ParsePath(c)
	if err != nil {
		return "", fmt.Errorf("looking up %s↔%s in the topology: %w", a, b, err)
	}
	return p, nil
}

// NICName returns the RDMA device behind a NIC column (NIC0 → mlx5_0), or the
// column itself when there is no legend entry.
func (t *Topo) NICName(col string) string {
	if n, ok := t.NICs[col]; ok {
		return n
	}
	return col
}
