package hostparse

import (
	"strings"
	"testing"
)

// TestDevInfoMessages: ibv_devinfo's own messages (rdma-core
// libibverbs/examples/devinfo.c) are kept apart: "No IB devices found" with
// libibverbs' reasons before it, indented as pasted; "Failed to open device"
// for devices it enumerated but could not read; none of them is a device.
func TestDevInfoMessages(t *testing.T) {
	d, err := ParseDevInfo(open(t, "devinfo/no_devices_libibverbs_warnings.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !d.NoDevices || d.NoDevicesLine != "No IB devices found" || len(d.Devices) != 0 || len(d.LibWarnings) != 2 ||
		!strings.HasPrefix(d.LibWarnings[1], "no userspace device-specific driver found") {
		t.Errorf("no devices: %+v", d)
	}
	f, err := ParseDevInfo(open(t, "devinfo/failed_open_vfs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if f.NoDevices || len(f.Devices) != 1 || f.Devices[0].Partial || len(f.Errors) != 3 ||
		f.Errors[0] != "line 1: Failed to open device" || f.Errors[2] != "line 22: Failed to query port 1 props" {
		t.Errorf("failed open: %+v", f)
	}
	for _, line := range []string{"IB device 'mlx5_9' wasn't found", "Failed to get IB devices list: Function not implemented"} {
		n, err := ParseDevInfo(strings.NewReader(line + "\n"))
		if err != nil || !n.NoDevices || n.NoDevicesLine != line {
			t.Errorf("%q: %+v %v", line, n, err)
		}
	}
}

// TestDevInfoCutCaptures: a capture that ends at "port: 1" has the port
// without any state; a -v fragment that starts at phys_state is one Partial
// device whose port has the physical state and typed GIDs.
func TestDevInfoCutCaptures(t *testing.T) {
	c, err := ParseDevInfo(open(t, "devinfo/cut_before_port_state.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Devices) != 1 || len(c.Devices[0].Ports) != 1 || c.Devices[0].Ports[0].State != "" || c.Devices[0].Ports[0].PhysState != "" {
		t.Errorf("cut before state: %+v", c.Devices)
	}
	v, err := ParseDevInfo(open(t, "devinfo/verbose_fragment_phys_state_gids.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Devices) != 1 || !v.Devices[0].Partial || len(v.Devices[0].Ports) != 1 {
		t.Fatalf("fragment: %+v", v.Devices)
	}
	p := v.Devices[0].Ports[0]
	if p.State != "" || p.PhysState != "LINK_UP" || len(p.GIDs) != 4 || p.GIDs[3].GID != "::ffff:10.20.30.41" || p.GIDs[3].Type != "RoCE v2" {
		t.Errorf("fragment port: %+v", p)
	}
}
