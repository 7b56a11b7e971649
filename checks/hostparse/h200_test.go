package hostparse

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

// h200 opens a capture of the real H200 server (../testdata/h200/README.md).
func h200(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "h200", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestH200Captures: a real H200's nvidia-smi topo -m underlines its header
// with ANSI escapes even with TERM=dumb; every variant must parse, and
// nvidia-smi -q must give the GPU's model, driver, CUDA, VBIOS, PCIe link
// and replay counter.
func TestH200Captures(t *testing.T) {
	for _, name := range []string{"topo-m-term-dumb.txt", "topo-m.txt", "topo-m-no-term.txt", "topo-mp.txt"} {
		tp, err := ParseTopo(h200(t, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(tp.Devices) != 1 || tp.Devices[0] != "GPU0" || len(tp.Rows) != 1 || tp.Rows[0].CPUAffinity != "0-15" || tp.Truncated || len(tp.Warnings) != 0 {
			t.Errorf("%s: %+v", name, tp)
		}
	}
	q, err := ParseNvidiaSMIQ(h200(t, "nvidia-smi-q.txt"))
	if err != nil {
		t.Fatal(err)
	}
	g := q.GPUs[0]
	if q.Driver != "580.159.04" || q.CUDA != "13.0" || len(q.GPUs) != 1 || g.Product != "NVIDIA H200" || g.VBIOS != "96.00.A5.00.1A" ||
		g.BusID != "00000000:00:06.0" || g.PCIeGenMax != 5 || g.WidthMax != 16 || g.Replays == nil || *g.Replays != 0 || len(q.Warnings) != 0 {
		t.Errorf("%+v %+v", q, g)
	}
	testutil.Golden(t, "real/h200_nvidia_smi_q.golden", testutil.JSON(t, q))
	s, err := ParseNvidiaSMI(h200(t, "nvidia-smi.txt"))
	if err != nil || s.Driver != "580.159.04" || len(s.GPUs) != 1 || s.GPUs[0].Name != "NVIDIA H200" || s.GPUs[0].BusID != "00000000:00:06.0" {
		t.Errorf("%+v %v", s, err)
	}
	tp, _ := ParseTopo(h200(t, "topo-m-term-dumb.txt"))
	testutil.Golden(t, "real/h200_topo_m_term_dumb.golden", testutil.JSON(t, tp))
}
