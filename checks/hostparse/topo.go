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

var (
	topoCellRe   = regexp.MustCompile(`^(?:X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$`)
	topoCellsRe  = regexp.MustCompile(`X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC`)
	nicLegendRe  = regexp.MustCompile(`^(NIC\d+):\s*(\S+)$`)
	affinityCols = [][]string{{"CPU", "Affinity"}, {"NUMA", "Affinity"}, {"GPU", "NUMA", "ID"}}
)

// ParseTopo reads nvidia-smi topo -m or -mp output, with or without the
// legends, from current drivers (NIC# columns and a NIC Legend) and older ones
// (RDMA device names as columns). Rows cut off in a capture keep the cells
// they have and set Truncated.
func ParseTopo(r io.Reader) (*Topo, error) {
	var out Topo
	nAffinity := 0
	inNICLegend := false
	var rowIdx map[string]int
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
		case out.Devices == nil && len(f) >= 2 && !topoCellRe.MatchString(f[1]) && isTopoDevice(f[0]):
			out.Devices, nAffinity = topoHeader(f)
			rowIdx = map[string]int{}
			for i, d := range out.Devices {
				rowIdx[d] = i
			}
		case out.Devices != nil && len(f) >= 2 && topoCellRe.MatchString(f[1]):
			if _, ok := rowIdx[f[0]]; !ok {
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
	var cells []string
	for _, c := range f {
		if topoCellRe.MatchString(c) {
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

// checkSymmetry warns about cells whose mirror disagrees: a garbled capture.
func (t *Topo) checkSymmetry() {
	for _, r := range t.Rows {
		for j, c := range r.Cells {
			if other, ok := t.Cell(t.Devices[j], r.Device); ok && other != c {
				t.Warnings = append(t.Warnings, fmt.Sprintf("%s→%s is %s but %s→%s is %s", r.Device, t.Devices[j], c, t.Devices[j], r.Device, other))
			}
		}
	}
}

// column resolves a device name or its legend alias to a column index:
// "mlx5_0" finds NIC0 through the NIC Legend.
func (t *Topo) column(name string) (int, bool) {
	for i, d := range t.Devices {
		if d == name || t.NICs[d] == name {
			return i, true
		}
	}
	return 0, false
}

// Cell returns the matrix entry between a and b as printed ("PIX", "NV18"),
// from a's row or, where the capture cut that row off, from b's.
func (t *Topo) Cell(a, b string) (string, bool) {
	c, err := t.cell(a, b)
	return c, err == nil
}

// cell looks a↔b up in a's row, then in b's (the matrix is symmetric). The
// error is ErrUnknownDevice for a name that is no column and ErrTruncated for
// a cell neither row shows.
func (t *Topo) cell(a, b string) (string, error) {
	i, ok := t.column(a)
	if !ok {
		return "", fmt.Errorf("%q: %w", a, ErrUnknownDevice)
	}
	j, ok := t.column(b)
	if !ok {
		return "", fmt.Errorf("%q: %w", b, ErrUnknownDevice)
	}
	look := func(row string, col int) (string, bool) {
		for _, r := range t.Rows {
			if r.Device == row && col < len(r.Cells) {
				return r.Cells[col], true
			}
		}
		return "", false
	}
	if c, ok := look(t.Devices[i], j); ok {
		return c, nil
	}
	if c, ok := look(t.Devices[j], i); ok {
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
