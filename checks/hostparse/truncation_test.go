package hostparse

import (
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks/pcitopo"
)

// TestTopoANSIEscapes: nvidia-smi topo -m on recent drivers underlines the header
// with ANSI escapes even when stdout is a file and TERM=dumb; the header must still
// be found.
func TestTopoANSIEscapes(t *testing.T) {
	tp, err := ParseTopo(open(t, "topo/ansi_underlined_header.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := tp.Path("GPU0", "mlx5_0"); err != nil || p != pcitopo.PIX || len(tp.Devices) != 3 {
		t.Errorf("%v %v %+v", p, err, tp)
	}
}

// TestTopoTruncatedIsUnknown: a cell the capture cut off is unknown (ErrTruncated),
// never a guess; a cell missing from one row is read from its mirror when that row
// is present.
func TestTopoTruncatedIsUnknown(t *testing.T) {
	tp, err := ParseTopo(open(t, "topo/truncated_rows.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !tp.Truncated {
		t.Error("not marked truncated")
	}
	if _, err := tp.Path("GPU2", "NIC3"); !errors.Is(err, ErrTruncated) {
		t.Errorf("GPU2↔NIC3: %v, want ErrTruncated", err)
	}
	if _, err := tp.Path("GPU3", "NIC0"); !errors.Is(err, ErrTruncated) {
		t.Errorf("GPU3↔NIC0 (no GPU3 row): %v, want ErrTruncated", err)
	}
	if p, err := tp.Path("NIC0", "GPU1"); err != nil || p != pcitopo.NODE {
		t.Errorf("NIC0↔GPU1 from the GPU1 row: %v %v", p, err)
	}
	if _, err := tp.Path("GPU0", "NIC9"); !errors.Is(err, ErrUnknownDevice) {
		t.Errorf("unknown column: %v", err)
	}
}

// TestNoIBDevicesFound: ibv_devinfo on a host without an RDMA device prints one
// line; that is a host with no device, not unreadable output.
func TestNoIBDevicesFound(t *testing.T) {
	d, err := ParseDevInfo(strings.NewReader("No IB devices found\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !d.NoDevices || len(d.Devices) != 0 {
		t.Errorf("%+v", d)
	}
}
