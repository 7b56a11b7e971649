package hostcfg_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/dcbfake"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

var fixtureHosts = []string{"mlx5-ofed", "mlx5-upstream", "mlx5-ib", "rxe"}

func load(t *testing.T, host string) *hostcfgtest.Fixture {
	t.Helper()
	return hostcfgtest.Load(t, filepath.Join("testdata", "hosts", host))
}

func desired(t *testing.T, host string) fabric.HostIntent {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "desired", host+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var d fabric.HostIntent
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// golden writes v as JSON with the fixture's private directory masked.
func golden(t *testing.T, f *hostcfgtest.Fixture, name string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, name, []byte(strings.ReplaceAll(string(b), f.Dir, "<fixture>")+"\n"))
}

func plan(t *testing.T, f *hostcfgtest.Fixture, d fabric.HostIntent) (hostcfg.Observed, hostcfg.Plan) {
	t.Helper()
	obs, err := f.Host.Observe(context.Background(), d)
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}
	return obs, hostcfg.Diff(d, obs)
}

// unchanged checks that iface reads back exactly as in before.
func unchanged(t *testing.T, f *hostcfgtest.Fixture, d fabric.HostIntent, before hostcfg.Observed, iface string) {
	t.Helper()
	after, err := f.Host.Observe(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	b, a := values(before), values(after)
	for k := range b {
		if strings.HasPrefix(k, iface+" ") && a[k] != b[k] {
			t.Errorf("%s = %q after rollback, was %q", k, a[k], b[k])
		}
	}
}

// values flattens an Observed to interface/setting → value for comparisons.
func values(o hostcfg.Observed) map[string]string {
	m := map[string]string{}
	for _, i := range o.Interfaces {
		for _, s := range i.Settings {
			m[i.Name+" "+s.Setting] = s.Value + s.Unsupported + s.Error
		}
	}
	return m
}

func TestPlanAndShowGolden(t *testing.T) {
	for _, h := range fixtureHosts {
		t.Run(h, func(t *testing.T) {
			f := load(t, h)
			_, p := plan(t, f, desired(t, h))
			golden(t, f, "plan-"+h+".golden", p)
			show, err := f.Host.Show(context.Background(), nil)
			if err != nil {
				t.Fatalf("Show: %v", err)
			}
			golden(t, f, "show-"+h+".golden", show)
		})
	}
}

func TestPlanFlagsDisruptiveChanges(t *testing.T) {
	f := load(t, "mlx5-upstream")
	_, p := plan(t, f, desired(t, "mlx5-upstream"))
	disruptive := map[string]bool{}
	for _, c := range p.Changes {
		disruptive[c.Setting] = c.Disruptive
		if c.Disruptive && c.Reason == "" {
			t.Errorf("%s is disruptive without a reason", c.Setting)
		}
	}
	for s, want := range map[string]bool{"pfc.enable": true, "mtu": true, "ets": false, "pfc.delay": false, "roce.tos": false} {
		if got, ok := disruptive[s]; !ok || got != want {
			t.Errorf("%s disruptive = %v (planned %v), want %v", s, got, ok, want)
		}
	}
	if !p.Disruptive() || !p.Drift() || p.Empty() {
		t.Error("plan summary methods disagree with the changes")
	}
}

// snapshot records every file's modification time under the fixture.
func snapshot(t *testing.T, dir string) map[string]time.Time {
	m := map[string]time.Time{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			m[p] = fi.ModTime()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestApplyConvergesAndIsIdempotent applies each fixture host's desired
// state through the real dcbnl encoder/decoder on the fake kernel, then
// checks that a new plan is empty and that a second apply writes nothing
// at all: no DCB SET, no netlink or ethtool write, no file touched.
func TestApplyConvergesAndIsIdempotent(t *testing.T) {
	ctx := context.Background()
	for _, h := range fixtureHosts {
		t.Run(h, func(t *testing.T) {
			f := load(t, h)
			d := desired(t, h)
			_, p := plan(t, f, d)
			if len(p.Changes) == 0 {
				t.Fatal("the fixture is already converged: nothing would be tested")
			}
			res, err := f.Host.Apply(ctx, p)
			if err != nil {
				t.Fatalf("Apply: %v\nfailed: %+v", err, res.Failed)
			}
			if len(res.Applied)+len(res.Unchanged) != len(p.Changes) {
				t.Errorf("applied %d + unchanged %d of %d changes", len(res.Applied), len(res.Unchanged), len(p.Changes))
			}
			_, again := plan(t, f, d)
			if len(again.Changes) != 0 {
				t.Fatalf("not converged; still to change: %+v", again.Changes)
			}

			f.Kernel.ClearRequests()
			links, eth, mk := f.Links.Writes(), f.Ethtool.Writes(), f.ConfigFS.Mkdirs()
			before := snapshot(t, f.Dir)
			res2, err := f.Host.Apply(ctx, again)
			if err != nil || len(res2.Applied) != 0 {
				t.Fatalf("second Apply = %+v, %v", res2, err)
			}
			if w := f.Kernel.Writes(); len(w) != 0 {
				t.Errorf("second apply sent %d DCB writes", len(w))
			}
			if f.Links.Writes() != links || f.Ethtool.Writes() != eth || f.ConfigFS.Mkdirs() != mk {
				t.Error("second apply wrote through netlink, ethtool or configfs")
			}
			if diff := cmp.Diff(before, snapshot(t, f.Dir)); diff != "" {
				t.Errorf("second apply touched files (-before +after):\n%s", diff)
			}
		})
	}
}

func TestPFCFlapsOnlyWhenChanged(t *testing.T) {
	ctx := context.Background()
	f := load(t, "mlx5-upstream")
	d := desired(t, "mlx5-upstream")
	_, p := plan(t, f, d)
	if _, err := f.Host.Apply(ctx, p); err != nil {
		t.Fatal(err)
	}
	if n := f.Kernel.LinkFlaps("ens3f0np0"); n != 1 {
		t.Fatalf("link flaps after enabling PFC = %d, want 1", n)
	}
	d.Interfaces[0].RoCE.ToS = 104
	d.Interfaces[0].PFC.Delay = 20
	_, p = plan(t, f, d)
	if len(p.Changes) != 2 {
		t.Fatalf("plan = %+v, want pfc.delay and roce.tos", p.Changes)
	}
	if _, err := f.Host.Apply(ctx, p); err != nil {
		t.Fatal(err)
	}
	if n := f.Kernel.LinkFlaps("ens3f0np0"); n != 1 {
		t.Errorf("changing the PFC delay flapped the link (flaps %d): pfc_en must not be rewritten", n)
	}
}

func TestPlanSurvivesJSON(t *testing.T) {
	f := load(t, "mlx5-ofed")
	_, p := plan(t, f, desired(t, "mlx5-ofed"))
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var decoded hostcfg.Plan
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	if decoded.Fingerprint() != p.Fingerprint() {
		t.Error("fingerprint changed through JSON")
	}
	if _, err := f.Host.Apply(context.Background(), decoded); err != nil {
		t.Fatalf("Apply of a decoded plan: %v", err)
	}
	if _, again := plan(t, f, desired(t, "mlx5-ofed")); len(again.Changes) != 0 {
		t.Errorf("decoded plan did not converge: %+v", again.Changes)
	}
}

func TestUndoRestoresThePreImage(t *testing.T) {
	ctx := context.Background()
	f := load(t, "mlx5-ofed")
	d := desired(t, "mlx5-ofed")
	before, p := plan(t, f, d)
	res, err := f.Host.Apply(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Undo.Changes) != len(res.Applied) {
		t.Fatalf("undo has %d changes for %d applied", len(res.Undo.Changes), len(res.Applied))
	}
	if _, err := f.Host.Apply(ctx, res.Undo); err != nil {
		t.Fatalf("Apply(undo): %v", err)
	}
	after, err := f.Host.Observe(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(values(before), values(after)); diff != "" {
		t.Errorf("undo did not restore the pre-image (-before +after):\n%s", diff)
	}
}

// TestRollbackOnDriverFailure injects a driver failure per DCB attribute on
// one interface of a two-port host: that interface must read back exactly as
// before (pre-image restored, in reverse order), the error must name the
// interface, setting and backend, and the other interface must be applied.
func TestRollbackOnDriverFailure(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		inject  func(k *dcbfake.Kernel)
		setting string
	}{
		{"ETS", func(k *dcbfake.Kernel) { k.FailNext("ens1f0np0", dcbnl.AttrIEEEETS, syscall.EIO) }, "ets"},
		{"PFC", func(k *dcbfake.Kernel) { k.FailNext("ens1f0np0", dcbnl.AttrIEEEPFC, syscall.EIO) }, "pfc.delay"},
		{"APP", func(k *dcbfake.Kernel) { k.FailNext("ens1f0np0", dcbnl.AttrIEEEAppTable, syscall.EIO) }, "dscp-map"},
		{"SDCBX", func(k *dcbfake.Kernel) { k.FailNextRequest("ens1f0np0", dcbnl.CmdSetDCBX, syscall.EIO) }, "dcbx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := load(t, "mlx5-ofed")
			d := desired(t, "mlx5-ofed")
			before, p := plan(t, f, d)
			tc.inject(f.Kernel)
			res, err := f.Host.Apply(ctx, p)
			if !errors.Is(err, syscall.EIO) {
				t.Fatalf("Apply error = %v, want EIO", err)
			}
			var se *hostcfg.SettingError
			if !errors.As(err, &se) || se.Interface != "ens1f0np0" || se.Setting != tc.setting || se.Backend != "dcbnl" || se.Op != "writing" {
				t.Errorf("error %q is not located at ens1f0np0 %s via dcbnl", err, tc.setting)
			}
			if len(res.RolledBack) == 0 {
				t.Error("nothing rolled back")
			}
			unchanged(t, f, d, before, "ens1f0np0")
			if _, p2 := plan(t, f, d); len(p2.Changes) == 0 || p2.Changes[0].Interface != "ens1f0np0" {
				t.Errorf("after a failed ens1f0np0 only ens1f0np0 should remain to change: %+v", p2.Changes)
			} else {
				for _, c := range p2.Changes {
					if c.Interface != "ens1f0np0" {
						t.Errorf("ens1f1np1 was not applied: %s still %q", c.Setting, c.Old)
					}
				}
			}
		})
	}
}

// TestConcurrentObserve runs Observe from several goroutines on one Host
// (run with -race): the Host and its backends are safe for concurrent use.
func TestConcurrentObserve(t *testing.T) {
	f := load(t, "mlx5-ofed")
	d := desired(t, "mlx5-ofed")
	want, _ := plan(t, f, d)
	errs := make(chan error, 4)
	got := make(chan hostcfg.Observed, 4)
	for range 4 {
		go func() {
			o, err := f.Host.Observe(context.Background(), d)
			errs <- err
			got <- o
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(values(want), values(<-got)); diff != "" {
			t.Errorf("concurrent Observe differs (-want +got):\n%s", diff)
		}
	}
}
