package hostcfg_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/configfs"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
)

// issue returns the plan's issue for interface/setting.
func issue(p hostcfg.Plan, iface, setting string) (hostcfg.Issue, bool) {
	for _, i := range p.Issues {
		if i.Interface == iface && i.Setting == setting {
			return i, true
		}
	}
	return hostcfg.Issue{}, false
}

func changedInterfaces(p hostcfg.Plan) map[string]int {
	m := map[string]int{}
	for _, c := range p.Changes {
		m[c.Interface]++
	}
	return m
}

func TestMissingInterfaceIsLocated(t *testing.T) {
	ctx := context.Background()
	f := load(t, "mlx5-ofed")
	d := desired(t, "mlx5-ofed")
	ghost := d.Interfaces[0]
	ghost.Name = "eth9"
	d.Interfaces = append(d.Interfaces, ghost)
	obs, err := f.Host.Observe(ctx, d)
	var se *hostcfg.SettingError
	if !errors.Is(err, hostcfg.ErrNoInterface) || !errors.As(err, &se) || se.Interface != "eth9" {
		t.Fatalf("Observe error = %v, want ErrNoInterface located at eth9", err)
	}
	p := hostcfg.Diff(d, obs)
	if i, ok := issue(p, "eth9", ""); !ok || i.Kind != hostcfg.IssueError {
		t.Errorf("no error issue for eth9: %+v", p.Issues)
	}
	if n := changedInterfaces(p); n["ens1f0np0"] == 0 || n["ens1f1np1"] == 0 {
		t.Errorf("the existing interfaces were not planned: %v", n)
	}
	if _, err := f.Host.Apply(ctx, p); err != nil {
		t.Errorf("Apply of the other interfaces: %v", err)
	}
}

func TestMissingRDMADeviceIsLocated(t *testing.T) {
	f := load(t, "mlx5-ofed")
	if err := os.Remove(filepath.Join(f.Dir, "sys", "class", "infiniband", "mlx5_1")); err != nil {
		t.Fatal(err)
	}
	d := desired(t, "mlx5-ofed")
	obs, err := f.Host.Observe(context.Background(), d)
	if !errors.Is(err, hostcfg.ErrNoRDMADevice) {
		t.Fatalf("Observe error = %v, want ErrNoRDMADevice", err)
	}
	p := hostcfg.Diff(d, obs)
	for _, s := range []string{hostcfg.SettingRoCEMode, hostcfg.SettingRoCEToS} {
		i, ok := issue(p, "ens1f1np1", s)
		if !ok || i.Kind != hostcfg.IssueError || i.Backend != hostcfg.BackendConfigfs {
			t.Errorf("%s on ens1f1np1: issue %+v, %v", s, i, ok)
		}
	}
	if n := changedInterfaces(p); n["ens1f1np1"] != 12 || n["ens1f0np0"] != 13 {
		t.Errorf("changes per interface = %v; only the two RoCE settings of ens1f1np1 should be missing", n)
	}
}

func TestRDMACMMissing(t *testing.T) {
	f := load(t, "rxe")
	if err := os.Remove(filepath.Join(f.Dir, "config", "rdma_cm")); err != nil {
		t.Fatal(err)
	}
	d := desired(t, "rxe")
	obs, err := f.Host.Observe(context.Background(), d)
	if !errors.Is(err, configfs.ErrNoRDMACM) {
		t.Fatalf("Observe error = %v, want ErrNoRDMACM", err)
	}
	p := hostcfg.Diff(d, obs)
	if i, ok := issue(p, "enp0s3", hostcfg.SettingRoCEToS); !ok || !strings.Contains(i.Reason, "rdma_cm module") {
		t.Errorf("roce.tos issue = %+v", i)
	}
	if len(p.Changes) != 1 || p.Changes[0].Setting != hostcfg.SettingMTU {
		t.Errorf("the MTU must still be planned: %+v", p.Changes)
	}
}

// TestReadOnlySysfsRollsBack makes the vendor ECN tree of one interface a
// read-only mount: the kernel refuses the write with EROFS even for root.
func TestReadOnlySysfsRollsBack(t *testing.T) {
	ctx := context.Background()
	f := load(t, "mlx5-ofed")
	dir, err := filepath.EvalSymlinks(filepath.Join(f.Dir, "sys", "class", "net", "ens1f0np0", "ecn"))
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount (needs root): %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, 0) })
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only: %v", err)
	}
	d := desired(t, "mlx5-ofed")
	before, p := plan(t, f, d)
	res, err := f.Host.Apply(ctx, p)
	var se *hostcfg.SettingError
	if !errors.Is(err, syscall.EROFS) || !errors.As(err, &se) ||
		se.Interface != "ens1f0np0" || se.Setting != hostcfg.SettingECNNP || se.Backend != hostcfg.BackendSysfsECN {
		t.Fatalf("Apply error = %v, want EROFS located at ens1f0np0 ecn.np via sysfs-ecn", err)
	}
	if len(res.RolledBack) < 8 {
		t.Errorf("rolled back %d settings, want every one written before ecn.np", len(res.RolledBack))
	}
	unchanged(t, f, d, before, "ens1f0np0")
	if _, again := plan(t, f, d); changedInterfaces(again)["ens1f1np1"] != 0 {
		t.Error("the other interface was not applied")
	}
}

func TestPermissionDenied(t *testing.T) {
	ctx := context.Background()
	f := load(t, "mlx5-upstream")
	d := desired(t, "mlx5-upstream")
	before, p := plan(t, f, d)
	f.Kernel.SetUnprivileged(true)
	_, err := f.Host.Apply(ctx, p)
	var se *hostcfg.SettingError
	if !errors.Is(err, syscall.EPERM) || !errors.As(err, &se) || se.Setting != hostcfg.SettingDCBX {
		t.Fatalf("Apply error = %v, want EPERM located at dcbx", err)
	}
	after, _ := f.Host.Observe(ctx, d)
	if b, a := values(before), values(after); b["ens3f0np0 mtu"] != a["ens3f0np0 mtu"] || b["ens3f0np0 global-pause"] != a["ens3f0np0 global-pause"] {
		t.Errorf("mtu/pause not restored after EPERM: before %q %q, after %q %q",
			b["ens3f0np0 mtu"], b["ens3f0np0 global-pause"], a["ens3f0np0 mtu"], a["ens3f0np0 global-pause"])
	}
}

func TestDCBUnknownToKernelIsUnsupported(t *testing.T) {
	f := load(t, "mlx5-ofed")
	f.Kernel.RemoveDevice("ens1f1np1") // the DCB socket's namespace has no such netdev
	d := desired(t, "mlx5-ofed")
	obs, err := f.Host.Observe(context.Background(), d)
	if err != nil {
		t.Fatalf("ENODEV from DCB netlink must not fail the host: %v", err)
	}
	p := hostcfg.Diff(d, obs)
	for _, s := range []string{hostcfg.SettingDCBX, hostcfg.SettingETS, hostcfg.SettingPFCEnable, hostcfg.SettingDSCPMap} {
		if i, ok := issue(p, "ens1f1np1", s); !ok || i.Kind != hostcfg.IssueUnsupported || !strings.Contains(i.Reason, "ENODEV") {
			t.Errorf("%s: issue %+v", s, i)
		}
	}
	// qos/trust is the vendor file: still served without DCB netlink.
	if _, ok := issue(p, "ens1f1np1", hostcfg.SettingTrust); ok {
		t.Error("trust should still be served by sysfs-qos")
	}
}

type linksIface = hostcfg.Links

// flakyLinks fails the SetMTU call number failOn with EBUSY.
type flakyLinks struct {
	linksIface
	calls, failOn int
	onSet         func()
}

func (l *flakyLinks) SetMTU(ctx context.Context, name string, mtu int) error {
	l.calls++
	if l.calls == l.failOn {
		return syscall.EBUSY
	}
	err := l.linksIface.SetMTU(ctx, name, mtu)
	if l.onSet != nil {
		l.onSet()
	}
	return err
}

func TestRollbackFailureReportsBothErrors(t *testing.T) {
	f := load(t, "mlx5-upstream")
	d := desired(t, "mlx5-upstream")
	_, p := plan(t, f, d)
	f.Host.Links = &flakyLinks{linksIface: f.Links, failOn: 2} // the restore of the MTU fails
	f.Kernel.FailNext("ens3f0np0", dcbnl.AttrIEEEETS, syscall.EIO)
	_, err := f.Host.Apply(context.Background(), p)
	if !errors.Is(err, syscall.EIO) || !errors.Is(err, syscall.EBUSY) {
		t.Fatalf("Apply error = %v, want both the apply error (EIO) and the restore error (EBUSY)", err)
	}
	if !strings.Contains(err.Error(), "restoring mtu on ens3f0np0 via netlink") {
		t.Errorf("restore failure not located: %v", err)
	}
}

func TestCancelledContextRollsBack(t *testing.T) {
	f := load(t, "mlx5-upstream")
	d := desired(t, "mlx5-upstream")
	before, p := plan(t, f, d)
	ctx, cancel := context.WithCancel(context.Background())
	f.Host.Links = &flakyLinks{linksIface: f.Links, onSet: cancel} // Ctrl-C right after the MTU write
	_, err := f.Host.Apply(ctx, p)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Apply error = %v, want context.Canceled", err)
	}
	after, _ := f.Host.Observe(context.Background(), d)
	if b, a := values(before)["ens3f0np0 mtu"], values(after)["ens3f0np0 mtu"]; a != b {
		t.Errorf("MTU %s after a cancelled apply, was %s: the rollback must finish despite the cancel", a, b)
	}
}

func TestStalePlanIsRefused(t *testing.T) {
	ctx := context.Background()
	f := load(t, "mlx5-upstream")
	d := desired(t, "mlx5-upstream")
	_, p := plan(t, f, d)
	// Someone else turns PFC on priority 4 after the plan was made.
	if _, err := dcbnl.New(f.Kernel).UpdatePFC(ctx, "ens3f0np0", func(x *dcbnl.PFC) { x.PFCEn = 0x10 }); err != nil {
		t.Fatal(err)
	}
	_, err := f.Host.Apply(ctx, p)
	var se *hostcfg.SettingError
	if !errors.Is(err, hostcfg.ErrStalePlan) || !errors.As(err, &se) || se.Setting != hostcfg.SettingPFCEnable {
		t.Fatalf("Apply error = %v, want ErrStalePlan at pfc.enable", err)
	}
	if st, _ := f.Kernel.State("ens3f0np0"); st.PFC.PFCEn != 0x10 {
		t.Errorf("the other writer's pfc_en was overwritten: %#x", st.PFC.PFCEn)
	}
}

func TestHandMadePlans(t *testing.T) {
	ctx := context.Background()
	f := load(t, "mlx5-ib")
	for _, tc := range []struct {
		c    hostcfg.Change
		want error
	}{
		{hostcfg.Change{Interface: "ib0", Setting: "colour", Old: "red", New: "blue"}, hostcfg.ErrUnknownSetting},
		{hostcfg.Change{Interface: "ib0", Setting: hostcfg.SettingMTU, Old: "2044", New: "big"}, hostcfg.ErrBadValue},
		{hostcfg.Change{Interface: "ib0", Setting: "ipoib.0x8002", Old: "absent", New: "maybe"}, hostcfg.ErrBadValue},
		{hostcfg.Change{Interface: "mlx5_0/1", Setting: "pkey.0x0002", Old: "absent", New: "full"}, hostcfg.ErrNoInterface},
	} {
		_, err := f.Host.Apply(ctx, hostcfg.Plan{Changes: []hostcfg.Change{tc.c}})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s=%s: %v, want %v", tc.c.Setting, tc.c.New, err, tc.want)
		}
	}
}

func TestPartitions(t *testing.T) {
	ctx := context.Background()
	f := load(t, "mlx5-ib")
	d := desired(t, "mlx5-ib")
	_, p := plan(t, f, d)
	if len(p.Changes) != 1 || p.Changes[0].Setting != "ipoib.0x8002" || p.Changes[0].New != "present" {
		t.Fatalf("changes = %+v, want the storage IPoIB child only (tenant-a's 0x8004 exists)", p.Changes)
	}
	for setting, kind := range map[string]string{"pkey.0x0003": hostcfg.IssueExternal, "pkey.0x0005": hostcfg.IssueExternal} {
		if i, ok := issue(p, "mlx5_0/1", setting); !ok || i.Kind != kind {
			t.Errorf("%s: %+v", setting, i)
		}
	}
	for _, s := range []string{"pkey.0x0002", "pkey.0x0004"} { // full present; "both" met by 0x8004
		if i, ok := issue(p, "mlx5_0/1", s); ok {
			t.Errorf("%s reported although satisfied: %+v", s, i)
		}
	}
	if !p.Drift() {
		t.Error("pkey drift owned by the SM must still count as drift")
	}
	res, err := f.Host.Apply(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	l, err := f.Links.Link(ctx, "ib0.8002")
	if err != nil || l.PKey != 0x8002 {
		t.Errorf("child ib0.8002 = %+v, %v", l, err)
	}
	if _, err := f.Host.Apply(ctx, res.Undo); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Links.Link(ctx, "ib0.8002"); err == nil {
		t.Error("undo left ib0.8002 in place")
	}
}

func TestAllRDMANetdevsWithoutAny(t *testing.T) {
	f := load(t, "mlx5-ofed")
	if err := os.RemoveAll(filepath.Join(f.Dir, "sys", "class", "infiniband")); err != nil {
		t.Fatal(err)
	}
	d := desired(t, "mlx5-upstream") // interfaces: ["*"]
	obs, err := f.Host.Observe(context.Background(), d)
	if !errors.Is(err, hostcfg.ErrNoRDMADevice) {
		t.Fatalf("Observe = %v, want ErrNoRDMADevice", err)
	}
	p := hostcfg.Diff(d, obs)
	if i, ok := issue(p, fabric.AllRDMANetdevs, ""); !ok || i.Kind != hostcfg.IssueError {
		t.Errorf("issues = %+v", p.Issues)
	}
}
