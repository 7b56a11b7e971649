package hostparse

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks/pcitopo"
)

// bigTopo writes an nvidia-smi topo -m matrix of n devices: n/2 GPUs
// (NVLink among them, with affinity columns) and the rest NICs with a legend.
// GPU i sits behind the PCIe switch of NIC i mod nics (PIX), every other
// GPU↔NIC cell is SYS and NIC↔NIC is NODE.
func bigTopo(n int) string {
	gpus := n / 2
	nics := n - gpus
	name := func(i int) string {
		if i < gpus {
			return fmt.Sprintf("GPU%d", i)
		}
		return fmt.Sprintf("NIC%d", i-gpus)
	}
	cell := func(i, j int) string {
		switch {
		case i == j:
			return "X"
		case i < gpus && j < gpus:
			return "NV18"
		case i >= gpus && j >= gpus:
			return "NODE"
		case i < gpus && i%nics == j-gpus, j < gpus && j%nics == i-gpus:
			return "PIX"
		}
		return "SYS"
	}
	var b strings.Builder
	b.WriteString("\t")
	for i := range n {
		b.WriteString(name(i) + "\t")
	}
	b.WriteString("CPU Affinity\tNUMA Affinity\tGPU NUMA ID\n")
	for i := range n {
		b.WriteString(name(i))
		for j := range n {
			b.WriteString("\t " + cell(i, j))
		}
		if i < gpus {
			fmt.Fprintf(&b, "\t0-47\t%d\t\tN/A", i%2)
		}
		b.WriteString("\n")
	}
	b.WriteString("\nLegend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe as well as the SMP interconnect\n\nNIC Legend:\n\n")
	for k := range nics {
		fmt.Fprintf(&b, "  NIC%d: mlx5_%d\n", k, k)
	}
	return b.String()
}

// A 1,500-device matrix (2.25 million cells) parses in time linear in its
// cells, and reads right: cells, legend names, affinities, no warnings.
func TestTopoLargeMatrix(t *testing.T) {
	in := bigTopo(1500)
	start := time.Now()
	topo, err := ParseTopo(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	// Cell-cubed parsing took ~20 s here; linear parsing takes well under 2.
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("parsing 1,500 devices took %v", d)
	}
	if len(topo.Devices) != 1500 || len(topo.Rows) != 1500 || len(topo.NICs) != 750 || topo.Truncated {
		t.Fatalf("%d devices, %d rows, %d legend names, truncated %v", len(topo.Devices), len(topo.Rows), len(topo.NICs), topo.Truncated)
	}
	if len(topo.Warnings) != 0 {
		t.Errorf("warnings on a symmetric matrix: %q", topo.Warnings[:min(3, len(topo.Warnings))])
	}
	for _, c := range []struct{ a, b, want string }{
		{"GPU0", "GPU749", "NV18"}, {"GPU749", "NIC749", "PIX"}, {"NIC749", "GPU749", "PIX"}, {"GPU3", "mlx5_3", "PIX"},
		{"GPU3", "mlx5_4", "SYS"}, {"NIC0", "NIC749", "NODE"}, {"mlx5_749", "mlx5_749", "X"},
	} {
		if got, ok := topo.Cell(c.a, c.b); !ok || got != c.want {
			t.Errorf("Cell(%s, %s) = %q %v, want %s", c.a, c.b, got, ok, c.want)
		}
	}
	if p, err := topo.Path("GPU700", "mlx5_700"); err != nil || p != pcitopo.PIX {
		t.Errorf("Path(GPU700, mlx5_700) = %s %v", p, err)
	}
	if r := topo.Rows[749]; r.CPUAffinity != "0-47" || r.NUMAAffinity != "1" || r.GPUNUMAID != "N/A" {
		t.Errorf("GPU749 affinity %q %q %q", r.CPUAffinity, r.NUMAAffinity, r.GPUNUMAID)
	}
}

// A garbled matrix whose every mirror disagrees warns about a bounded number
// of cells, and counts the rest.
func TestTopoAsymmetryBounded(t *testing.T) {
	// NIC rows say PHB where GPU rows say SYS: ~20,000 disagreeing cells.
	var b strings.Builder
	for _, line := range strings.Split(bigTopo(200), "\n") {
		if strings.HasPrefix(line, "NIC") {
			line = strings.ReplaceAll(line, "\t SYS", "\t PHB")
		}
		b.WriteString(line + "\n")
	}
	topo, err := ParseTopo(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(topo.Warnings); n == 0 || n > maxTopoWarnings+1 {
		t.Fatalf("%d warnings, want 1..%d", n, maxTopoWarnings+1)
	}
	if last := topo.Warnings[len(topo.Warnings)-1]; !strings.Contains(last, "more cells disagree with their mirror") {
		t.Errorf("last warning %q does not count the rest", last)
	}
}

// BenchmarkParseTopo parses matrices of 100, 500 and 1,500 devices: ns/cell
// stays flat when parsing is linear in the matrix.
func BenchmarkParseTopo(b *testing.B) {
	for _, n := range []int{100, 500, 1500} {
		in := bigTopo(n)
		b.Run(fmt.Sprintf("devices=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := ParseTopo(strings.NewReader(in)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*n), "ns/cell")
		})
	}
}
