package hostcfg_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/dcbfake"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// vethIntent is the roce-lossless intent on two veths, without RoCE (a
// veth has no RDMA device).
func vethIntent(t *testing.T) fabric.HostIntent {
	d := desired(t, "mlx5-ofed")
	d.Interfaces[0].Name, d.Interfaces[1].Name = "fx0", "fx1"
	for i := range d.Interfaces {
		d.Interfaces[i].RoCE = fabric.HostRoCE{}
	}
	return d
}

// vethHost opens the real backends inside a fresh namespace holding the
// veth pair fx0—fx1; the file-system roots are empty directories (sysfs
// would show another namespace's netdevs).
func vethHost(t *testing.T) (*hostcfg.Host, string) {
	t.Helper()
	ns, path := hostcfgtest.NetNS(t)
	hostcfgtest.Veth(t, ns, "fx0", "fx1")
	h, err := hostcfg.OpenLocal(hostcfg.Options{Name: "veth-host", NetNS: path, SysRoot: t.TempDir(),
		ConfigRoot: t.TempDir(), DebugRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, ns
}

func mtuOf(t *testing.T, ns, dev string) string {
	out := hostcfgtest.IP(t, "-n", ns, "-o", "link", "show", dev)
	f := strings.Fields(out)
	for i := range f[:len(f)-1] {
		if f[i] == "mtu" {
			return f[i+1]
		}
	}
	t.Fatalf("no mtu in %q", out)
	return ""
}

// TestRealKernelVeth runs the real backends against a real kernel: netlink,
// DCB netlink and ethtool sockets inside a fresh network namespace with a
// veth pair. The kernel answers EOPNOTSUPP to DCB and pause requests on veth,
// and those settings must come back "unsupported", not as a failure.
func TestRealKernelVeth(t *testing.T) {
	h, ns := vethHost(t)
	ctx := context.Background()
	d := vethIntent(t)

	obs, err := h.Observe(ctx, d)
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}
	fx0, _ := obs.Interface("fx0")
	if fx0.Driver != "veth" || fx0.Kind != "veth" {
		t.Errorf("fx0 driver %q kind %q", fx0.Driver, fx0.Kind)
	}
	for _, s := range fx0.Settings {
		switch {
		case s.Setting == hostcfg.SettingMTU:
			if s.Value != "1500" || s.Backend != hostcfg.BackendNetlink {
				t.Errorf("mtu = %+v", s)
			}
		case s.Setting == hostcfg.SettingGlobalPause:
			if !strings.Contains(s.Unsupported, "EOPNOTSUPP") || s.Backend != hostcfg.BackendEthtool {
				t.Errorf("global-pause on veth = %+v, want unsupported (EOPNOTSUPP)", s)
			}
		case s.Setting == hostcfg.SettingDCBX, s.Setting == hostcfg.SettingETS, s.Setting == hostcfg.SettingPFCEnable:
			if !strings.Contains(s.Unsupported, "no DCB netlink ops") || !strings.Contains(s.Unsupported, "EOPNOTSUPP") {
				t.Errorf("%s on veth = %+v, want unsupported (EOPNOTSUPP)", s.Setting, s)
			}
		default:
			if s.Unsupported == "" {
				t.Errorf("%s on veth = %+v, want unsupported", s.Setting, s)
			}
		}
	}

	p := hostcfg.Diff(d, obs)
	if len(p.Changes) != 2 || p.Changes[0].Setting != "mtu" || p.Changes[1].Interface != "fx1" || len(p.Errors()) != 0 {
		t.Fatalf("plan = %+v", p)
	}
	res, err := h.Apply(ctx, p)
	if err != nil || len(res.Applied) != 2 {
		t.Fatalf("Apply = %+v, %v", res, err)
	}
	if mtuOf(t, ns, "fx0") != "9000" || mtuOf(t, ns, "fx1") != "9000" {
		t.Error("the kernel does not show MTU 9000 after apply")
	}
	obs, _ = h.Observe(ctx, d)
	if again := hostcfg.Diff(d, obs); !again.Empty() {
		t.Errorf("second plan = %+v", again.Changes)
	}
	if _, err := h.Apply(ctx, res.Undo); err != nil {
		t.Fatal(err)
	}
	if mtuOf(t, ns, "fx0") != "1500" {
		t.Error("undo did not restore MTU 1500")
	}
}

// TestRealKernelENODEV uses a DCB socket outside the veths' namespace: the
// kernel answers ENODEV, which is reported as unsupported.
func TestRealKernelENODEV(t *testing.T) {
	h, _ := vethHost(t)
	outside, err := dcbnl.Open() // the test's own namespace: no fx0 there
	if err != nil {
		t.Fatal(err)
	}
	defer outside.Close()
	h.DCB = outside
	obs, err := h.Observe(context.Background(), vethIntent(t))
	if err != nil {
		t.Fatalf("ENODEV must not fail the host: %v", err)
	}
	fx0, _ := obs.Interface("fx0")
	if s, _ := fx0.Setting(hostcfg.SettingPFCEnable); !strings.Contains(s.Unsupported, "ENODEV") {
		t.Errorf("pfc.enable = %+v, want unsupported (ENODEV)", s)
	}
}

// TestRealKernelMTURollback writes the MTU through real netlink, then a DCB
// write (on the fake kernel, as veth has no DCB) fails: the MTU must be
// restored in the real kernel.
func TestRealKernelMTURollback(t *testing.T) {
	h, ns := vethHost(t)
	k := dcbfake.New()
	k.AddDevice("fx0", dcbfake.MLX5)
	k.AddDevice("fx1", dcbfake.MLX5)
	h.DCB = dcbnl.New(k)
	ctx := context.Background()
	d := vethIntent(t)
	obs, err := h.Observe(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	p := hostcfg.Diff(d, obs)
	k.FailNext("fx0", dcbnl.AttrIEEEPFC, syscall.EIO)
	res, err := h.Apply(ctx, p)
	if !errors.Is(err, syscall.EIO) {
		t.Fatalf("Apply = %v, want EIO", err)
	}
	if got := mtuOf(t, ns, "fx0"); got != "1500" {
		t.Errorf("fx0 MTU %s after rollback, want 1500 restored through netlink", got)
	}
	if got := mtuOf(t, ns, "fx1"); got != "9000" {
		t.Errorf("fx1 MTU %s, want 9000: the other interface proceeds", got)
	}
	rolled := false
	for _, c := range res.RolledBack {
		rolled = rolled || (c.Interface == "fx0" && c.Setting == "mtu" && c.New == "1500")
	}
	if !rolled {
		t.Errorf("RolledBack = %+v, want fx0 mtu back to 1500", res.RolledBack)
	}
}

// TestRdmamapMapperWithoutRDMA runs Mellanox/rdmamap against this machine's
// live /sys and netlink: without an RDMA stack every netdev maps to nothing,
// as ErrNoRDMADevice (the lab VMs test the positive side with rxe).
func TestRdmamapMapperWithoutRDMA(t *testing.T) {
	if _, err := os.Stat("/sys/class/infiniband"); err == nil {
		t.Skip("this machine has RDMA devices; the lab tests the mapping")
	}
	m := hostcfg.RdmamapMapper{Sys: sysfs.NewFS("/sys")}
	for _, netdev := range []string{"lo", "no-such-netdev"} {
		if _, err := m.PortForNetdev(context.Background(), netdev); !errors.Is(err, hostcfg.ErrNoRDMADevice) {
			t.Errorf("PortForNetdev(%s) = %v, want ErrNoRDMADevice", netdev, err)
		}
	}
	if names, err := m.NetdevsWithRDMA(context.Background()); err != nil || len(names) != 0 {
		t.Errorf("NetdevsWithRDMA = %v, %v", names, err)
	}
}
