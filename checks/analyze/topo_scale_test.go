package analyze

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
)

// topoMatrix writes an nvidia-smi topo -m matrix of gpus GPUs and as many
// NICs: GPU i behind NIC i's PCIe switch (PIX), every other GPU↔NIC cell SYS.
func topoMatrix(gpus int) string {
	n := 2 * gpus
	name := func(i int) string {
		if i < gpus {
			return fmt.Sprintf("GPU%d", i)
		}
		return fmt.Sprintf("NIC%d", i-gpus)
	}
	var b strings.Builder
	for i := range n {
		b.WriteString("\t" + name(i))
	}
	b.WriteString("\tCPU Affinity\tNUMA Affinity\n")
	for i := range n {
		b.WriteString(name(i))
		for j := range n {
			switch {
			case i == j:
				b.WriteString("\t X ")
			case i < gpus && j < gpus:
				b.WriteString("\tNV18")
			case i >= gpus && j >= gpus:
				b.WriteString("\tNODE")
			case i%gpus == j%gpus:
				b.WriteString("\tPIX")
			default:
				b.WriteString("\tSYS")
			}
		}
		b.WriteString("\t0-47\t0\n")
	}
	b.WriteString("\nNIC Legend:\n\n")
	for k := range gpus {
		fmt.Fprintf(&b, "  NIC%d: mlx5_%d\n", k, k)
	}
	return b.String()
}

// TestTopoLargeMatrix: `fabricctl analyze` of a 1,500-device matrix (750
// GPUs, 750 NICs) judges every GPU, in time linear in the cells (each
// GPU↔NIC lookup is constant time).
func TestTopoLargeMatrix(t *testing.T) {
	data := []byte(topoMatrix(750))
	start := time.Now()
	f := Analyze("topo.txt", data)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("analysing 1,500 devices took %v", d)
	}
	if f.Kind != KindTopo || len(f.Findings) != 750 {
		t.Fatalf("kind %s, %d findings", f.Kind, len(f.Findings))
	}
	for _, x := range f.Findings {
		if x.Status != checks.StatusPass {
			t.Fatalf("%+v", x)
		}
	}
	if got := findingFor(f, "GPU749").Summary; got != "closest NIC mlx5_749 via PIX" {
		t.Errorf("GPU749: %q", got)
	}
}

func findingFor(f File, subject string) Finding {
	for _, x := range f.Findings {
		if x.Subject == subject {
			return x
		}
	}
	return Finding{}
}
