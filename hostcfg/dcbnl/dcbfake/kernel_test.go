package dcbfake_test

import (
	"context"
	"errors"
	"slices"
	"syscall"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/dcbfake"
)

var ctx = context.Background()

func newKernel(t *testing.T) (*dcbfake.Kernel, *dcbnl.Client) {
	t.Helper()
	k := dcbfake.New()
	k.AddDevice("gen0", dcbfake.Generic)
	k.AddDevice("mlx0", dcbfake.MLX5)
	k.AddDeviceWithoutDCB("veth0")
	return k, dcbnl.New(k)
}

// wantErr asserts err matches errno, and whether the kernel reported it
// in-band (the driver refused) or as an NLMSG_ERROR (refused before it).
func wantErr(t *testing.T, err error, errno syscall.Errno, inBand bool) {
	t.Helper()
	if !errors.Is(err, errno) {
		t.Fatalf("got %v, want %v", err, errno)
	}
	var e *dcbnl.Error
	if !errors.As(err, &e) {
		t.Fatalf("%v is not a *dcbnl.Error", err)
	}
	if e.InBand != inBand {
		t.Fatalf("%v: in-band %v, want %v", err, e.InBand, inBand)
	}
}

func mustState(t *testing.T, c *dcbnl.Client, ifname string) dcbnl.IEEEState {
	t.Helper()
	st, err := c.GetIEEE(ctx, ifname)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func dscp(proto uint16, prio uint8) dcbnl.App {
	return dcbnl.App{Selector: dcbnl.SelDSCP, Protocol: proto, Priority: prio}
}

func TestMissingAndNonDCBDevices(t *testing.T) {
	_, c := newKernel(t)
	_, err := c.GetIEEE(ctx, "nosuch0")
	wantErr(t, err, syscall.ENODEV, false)
	wantErr(t, c.SetPFC(ctx, "nosuch0", dcbnl.PFC{}), syscall.ENODEV, false)
	_, err = c.GetIEEE(ctx, "veth0")
	wantErr(t, err, syscall.EOPNOTSUPP, false)
	wantErr(t, c.AddApps(ctx, "veth0", []dcbnl.App{dscp(26, 3)}), syscall.EOPNOTSUPP, false)
	wantErr(t, c.SetDCBX(ctx, "veth0", dcbnl.DCBXHostIEEE), syscall.EOPNOTSUPP, false)
}

func TestGenericAppListSemantics(t *testing.T) {
	_, c := newKernel(t)
	if err := c.AddApps(ctx, "gen0", []dcbnl.App{dscp(26, 3)}); err != nil {
		t.Fatal(err)
	}
	wantErr(t, c.AddApps(ctx, "gen0", []dcbnl.App{dscp(26, 3)}), syscall.EEXIST, true)
	// Same (selector, protocol), another priority: a second entry.
	if err := c.AddApps(ctx, "gen0", []dcbnl.App{dscp(26, 5)}); err != nil {
		t.Fatal(err)
	}
	if got, want := mustState(t, c, "gen0").Apps, []dcbnl.App{dscp(26, 5), dscp(26, 3)}; !slices.Equal(got, want) {
		t.Fatalf("apps = %v, want %v (newest first)", got, want)
	}
	wantErr(t, c.DelApps(ctx, "gen0", []dcbnl.App{dscp(26, 4)}), syscall.ENOENT, true)
	if err := c.DelApps(ctx, "gen0", []dcbnl.App{dscp(26, 3)}); err != nil {
		t.Fatal(err)
	}
	if got := mustState(t, c, "gen0").Apps; !slices.Equal(got, []dcbnl.App{dscp(26, 5)}) {
		t.Fatalf("apps = %v", got)
	}
	// One request, several entries: the kernel stops at the first failure
	// and keeps the entries before it.
	err := c.AddApps(ctx, "gen0", []dcbnl.App{dscp(10, 1), dscp(26, 5), dscp(12, 1)})
	wantErr(t, err, syscall.EEXIST, true)
	if got := mustState(t, c, "gen0").Apps; !slices.Equal(got, []dcbnl.App{dscp(10, 1), dscp(26, 5)}) {
		t.Fatalf("apps after partial add = %v", got)
	}
	// PCP entries (selector 255) travel as DCB_ATTR_DCB_APP and are kept.
	pcp := dcbnl.App{Selector: dcbnl.SelPCP, Protocol: 3, Priority: 3}
	if err := c.AddApps(ctx, "gen0", []dcbnl.App{pcp}); err != nil {
		t.Fatal(err)
	}
	if got := mustState(t, c, "gen0").Apps; got[0] != pcp {
		t.Fatalf("apps = %v, want the PCP entry first", got)
	}
}

func TestMLX5AppSemantics(t *testing.T) {
	k, c := newKernel(t)
	if k.TrustDSCP("mlx0") {
		t.Fatal("a fresh mlx5 port trusts PCP")
	}
	if err := c.AddApps(ctx, "mlx0", []dcbnl.App{dscp(26, 3)}); err != nil {
		t.Fatal(err)
	}
	if !k.TrustDSCP("mlx0") {
		t.Fatal("a DSCP entry must switch mlx5 to DSCP trust")
	}
	// mlx5 keeps one entry per DSCP: adding another priority replaces it,
	// and deleting the old mapping then fails.
	if err := c.AddApps(ctx, "mlx0", []dcbnl.App{dscp(26, 5)}); err != nil {
		t.Fatal(err)
	}
	if got := mustState(t, c, "mlx0").Apps; !slices.Equal(got, []dcbnl.App{dscp(26, 5)}) {
		t.Fatalf("apps = %v, want the replaced entry only", got)
	}
	wantErr(t, c.DelApps(ctx, "mlx0", []dcbnl.App{dscp(26, 3)}), syscall.ENOENT, true)
	// Re-adding what is there is accepted (delete + add inside the driver).
	if err := c.AddApps(ctx, "mlx0", []dcbnl.App{dscp(26, 5)}); err != nil {
		t.Fatal(err)
	}
	wantErr(t, c.AddApps(ctx, "mlx0", []dcbnl.App{{Selector: dcbnl.SelEthertype, Protocol: 0x8915, Priority: 3}}), syscall.EINVAL, true)
	wantErr(t, c.AddApps(ctx, "mlx0", []dcbnl.App{dscp(64, 3)}), syscall.EINVAL, true)
	if err := c.DelApps(ctx, "mlx0", []dcbnl.App{dscp(26, 5)}); err != nil {
		t.Fatal(err)
	}
	if k.TrustDSCP("mlx0") {
		t.Fatal("removing the last DSCP entry must fall back to PCP trust")
	}
	wantErr(t, c.DelApps(ctx, "mlx0", []dcbnl.App{dscp(26, 0)}), syscall.ENOENT, true)
}

func TestMLX5VendorTrustDSCPHasAll64(t *testing.T) {
	k := dcbfake.New()
	k.AddDevice("mlx0", dcbfake.MLX5, dcbfake.VendorTrustDSCP())
	st, err := k.State("mlx0")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Apps) != 64 || !k.TrustDSCP("mlx0") {
		t.Fatalf("%d entries, trust dscp %v", len(st.Apps), k.TrustDSCP("mlx0"))
	}
	if !slices.Contains(st.Apps, dscp(26, 3)) || !slices.Contains(st.Apps, dscp(48, 6)) {
		t.Fatalf("default map must send DSCP d to d>>3: %v", st.Apps)
	}
}

func TestMLX5NoAppTrust(t *testing.T) {
	_, c := newKernel(t)
	wantErr(t, c.SetTrust(ctx, "mlx0", []dcbnl.Selector{dcbnl.SelDSCP}), syscall.EOPNOTSUPP, true)
	if st := mustState(t, c, "mlx0"); st.HasTrust {
		t.Fatal("an mlx5 GET must not carry the trust table")
	}
	_, err := c.UpdateTrust(ctx, "mlx0", []dcbnl.Selector{dcbnl.SelDSCP})
	if !errors.Is(err, dcbnl.ErrNotReported) || !errors.Is(err, syscall.EOPNOTSUPP) {
		t.Fatalf("UpdateTrust on mlx5: %v", err)
	}
	// The generic flavour has it, validated as the kernel does.
	if err := c.SetTrust(ctx, "gen0", []dcbnl.Selector{dcbnl.SelDSCP, dcbnl.SelPCP}); err != nil {
		t.Fatal(err)
	}
	if st := mustState(t, c, "gen0"); !st.HasTrust || !slices.Equal(st.Trust, []dcbnl.Selector{dcbnl.SelDSCP, dcbnl.SelPCP}) {
		t.Fatalf("trust = %v (has %v)", st.Trust, st.HasTrust)
	}
	wantErr(t, c.SetTrust(ctx, "gen0", []dcbnl.Selector{dcbnl.SelDSCP, dcbnl.SelDSCP}), syscall.EINVAL, true)
}

func TestMLX5PFCFlapsOnlyOnPFCEnChange(t *testing.T) {
	k, c := newKernel(t)
	st := mustState(t, c, "mlx0")
	if st.PFC.Delay != 7 || st.PFC.PFCCap != 8 {
		t.Fatalf("initial pfc = %+v, want cable length 7, cap 8", *st.PFC)
	}
	p := *st.PFC
	p.PFCEn = 1 << 3
	if err := c.SetPFC(ctx, "mlx0", p); err != nil {
		t.Fatal(err)
	}
	if k.LinkFlaps("mlx0") != 1 {
		t.Fatalf("flaps = %d after changing pfc_en", k.LinkFlaps("mlx0"))
	}
	p.Delay = 5 // cable length only
	if err := c.SetPFC(ctx, "mlx0", p); err != nil {
		t.Fatal(err)
	}
	if k.LinkFlaps("mlx0") != 1 || mustState(t, c, "mlx0").PFC.Delay != 5 {
		t.Fatalf("flaps = %d, delay %d", k.LinkFlaps("mlx0"), mustState(t, c, "mlx0").PFC.Delay)
	}
	p.Delay = 0 // mlx5 ignores 0 and keeps the cable length
	if err := c.SetPFC(ctx, "mlx0", p); err != nil {
		t.Fatal(err)
	}
	if d := mustState(t, c, "mlx0").PFC.Delay; d != 5 {
		t.Fatalf("delay = %d after writing 0, want 5 kept", d)
	}
	// UpdatePFC with nothing to change writes nothing, so it cannot flap.
	k.ClearRequests()
	ch, err := c.UpdatePFC(ctx, "mlx0", func(p *dcbnl.PFC) { p.PFCEn = 1 << 3 })
	if err != nil || ch.Written || len(k.Writes()) != 0 || k.LinkFlaps("mlx0") != 1 {
		t.Fatalf("no-op UpdatePFC: %+v %v, %d writes, %d flaps", ch, err, len(k.Writes()), k.LinkFlaps("mlx0"))
	}
}

func TestMLX5InitialETSAndValidation(t *testing.T) {
	_, c := newKernel(t)
	ets := *mustState(t, c, "mlx0").ETS
	if ets.PrioTC != [8]uint8{1, 0, 2, 3, 4, 5, 6, 7} {
		t.Fatalf("initial prio_tc = %v", ets.PrioTC)
	}
	for name, dev := range map[string]string{"mlx5": "mlx0", "generic": "gen0"} {
		t.Run(name, func(t *testing.T) {
			good := dcbnl.ETS{TCTxBW: [8]uint8{50, 0, 0, 50}, PrioTC: [8]uint8{0, 0, 0, 3, 0, 0, 6, 0},
				TCTSA: [8]dcbnl.TSA{dcbnl.TSAETS, dcbnl.TSAETS, dcbnl.TSAETS, dcbnl.TSAETS, dcbnl.TSAETS, dcbnl.TSAETS, dcbnl.TSAStrict, dcbnl.TSAETS}}
			if err := c.SetETS(ctx, dev, good); err != nil {
				t.Fatal(err)
			}
			bad := good
			bad.TCTxBW[3] = 40 // sums to 90
			wantErr(t, c.SetETS(ctx, dev, bad), syscall.EINVAL, true)
			bad = good
			bad.TCTSA[5] = 7
			wantErr(t, c.SetETS(ctx, dev, bad), syscall.EINVAL, true)
			bad = good
			bad.PrioTC[2] = 8
			wantErr(t, c.SetETS(ctx, dev, bad), syscall.EINVAL, true)
			if got := *mustState(t, c, dev).ETS; !got.SameConfig(good) {
				t.Fatalf("rejected writes changed ETS: %+v", got)
			}
			cbs := good
			cbs.TCTSA[7] = dcbnl.TSACBS
			err := c.SetETS(ctx, dev, cbs)
			if name == "mlx5" {
				wantErr(t, err, syscall.EINVAL, true)
			} else if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestMaxrateAndBuffer(t *testing.T) {
	_, c := newKernel(t)
	// mlx5 rounds to 100 Mbit/s below 25.5 Gbit/s, to 1 Gbit/s above.
	if err := c.SetMaxrate(ctx, "mlx0", dcbnl.Maxrate{TCMaxrate: [8]uint64{1: 1_234_567, 2: 30_500_000, 3: 1}}); err != nil {
		t.Fatal(err)
	}
	if got := mustState(t, c, "mlx0").Maxrate.TCMaxrate; got != [8]uint64{1: 1_200_000, 2: 30_000_000, 3: 100_000} {
		t.Fatalf("mlx5 maxrate = %v", got)
	}
	wantErr(t, c.SetMaxrate(ctx, "mlx0", dcbnl.Maxrate{TCMaxrate: [8]uint64{256_000_000}}), syscall.EINVAL, true)

	buf := *mustState(t, c, "mlx0").Buffer
	buf.Prio2Buffer[3] = 1
	buf.BufferSize[1] = 100_000 // mlx5 rounds down to 128-byte cells
	if err := c.SetBuffer(ctx, "mlx0", buf); err != nil {
		t.Fatal(err)
	}
	if got := mustState(t, c, "mlx0").Buffer; got.BufferSize[1] != 99_968 || got.Prio2Buffer[3] != 1 {
		t.Fatalf("mlx5 buffer = %+v", got)
	}
	buf.Prio2Buffer[0] = 8
	wantErr(t, c.SetBuffer(ctx, "gen0", buf), syscall.EINVAL, true)
	buf.Prio2Buffer[0] = 0
	buf.BufferSize[2] = 1 << 20 // more than the port has
	wantErr(t, c.SetBuffer(ctx, "gen0", buf), syscall.EINVAL, true)
}

func TestDCBX(t *testing.T) {
	_, c := newKernel(t)
	if m, err := c.GetDCBX(ctx, "mlx0"); err != nil || m != dcbnl.DCBXVerCEE|dcbnl.DCBXVerIEEE {
		t.Fatalf("initial mlx5 dcbx = %#x, %v", m, err)
	}
	ch, err := c.UpdateDCBX(ctx, "mlx0", dcbnl.DCBXHostIEEE)
	if err != nil || !ch.Written || !ch.Converged || ch.After != dcbnl.DCBXHostIEEE {
		t.Fatalf("UpdateDCBX: %+v %v", ch, err)
	}
	if err := c.SetDCBX(ctx, "mlx0", dcbnl.DCBXLLDManaged|dcbnl.DCBXVerIEEE); !errors.Is(err, dcbnl.ErrDCBXRejected) {
		t.Fatalf("LLD-managed on mlx5: %v", err)
	}
	if err := c.SetDCBX(ctx, "gen0", dcbnl.DCBXHost|dcbnl.DCBXVerCEE|dcbnl.DCBXVerIEEE); !errors.Is(err, dcbnl.ErrDCBXRejected) {
		t.Fatalf("two versions on generic: %v", err)
	}
}
