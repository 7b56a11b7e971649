package dcbnl_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl/dcbfake"
)

var ctx = context.Background()

func dscp(proto uint16, prio uint8) dcbnl.App {
	return dcbnl.App{Selector: dcbnl.SelDSCP, Protocol: proto, Priority: prio}
}

// desired is one host's DCB intent, as hostcfg would derive it.
type desired struct {
	DCBX    uint8
	ETS     dcbnl.ETS // only tx bw, tsa and prio_tc are set
	PFCEn   uint8
	Delay   uint16
	Maxrate dcbnl.Maxrate
	Buffer  dcbnl.Buffer // prio2buffer and buffer_size
	Apps    []dcbnl.App  // selector 5 only
	Trust   []dcbnl.Selector
}

// randomDesired draws a state every flavour can hold exactly: rates in
// whole Gbit/s, buffers in 128-byte cells, at most one entry per DSCP for
// mlx5 (the generic kernel list also gets a DSCP with two priorities).
func randomDesired(r *rand.Rand, f dcbfake.Flavour) desired {
	var d desired
	d.DCBX = dcbnl.DCBXHostIEEE
	if f == dcbfake.Generic && r.IntN(3) == 0 {
		d.DCBX = dcbnl.DCBXHost | dcbnl.DCBXVerCEE
	}
	left := 100
	for tc := range 8 {
		d.ETS.PrioTC[tc] = uint8(r.IntN(8))
		switch {
		case r.IntN(4) == 0:
			d.ETS.TCTSA[tc] = dcbnl.TSAStrict
		case tc == 7:
			d.ETS.TCTSA[tc], d.ETS.TCTxBW[tc] = dcbnl.TSAETS, uint8(left)
			left = 0
		default:
			bw := r.IntN(left + 1)
			d.ETS.TCTSA[tc], d.ETS.TCTxBW[tc] = dcbnl.TSAETS, uint8(bw)
			left -= bw
		}
	}
	if left != 0 { // TC7 drew strict: give the rest to the first ETS TC, or make none ETS
		i := slices.Index(d.ETS.TCTSA[:], dcbnl.TSAETS)
		if i >= 0 {
			d.ETS.TCTxBW[i] += uint8(left)
		}
	}
	d.PFCEn = uint8(r.IntN(256))
	d.Delay = uint16(1 + r.IntN(999))
	for tc := range 8 {
		if r.IntN(3) == 0 {
			d.Maxrate.TCMaxrate[tc] = uint64(1+r.IntN(200)) * 1_000_000
		}
	}
	budget := 327680 / 128
	for i := range 8 {
		d.Buffer.Prio2Buffer[i] = uint8(r.IntN(8))
		cells := r.IntN(budget/4 + 1)
		d.Buffer.BufferSize[i] = uint32(cells * 128)
		budget -= cells
	}
	for _, p := range r.Perm(64)[:r.IntN(12)] {
		d.Apps = append(d.Apps, dscp(uint16(p), uint8(r.IntN(8))))
	}
	if f == dcbfake.Generic && len(d.Apps) > 0 && r.IntN(2) == 0 {
		a := d.Apps[0]
		a.Priority = (a.Priority + 1) % 8
		d.Apps = append(d.Apps, a)
	}
	if f == dcbfake.Generic {
		all := []dcbnl.Selector{dcbnl.SelEthertype, dcbnl.SelStream, dcbnl.SelDgram, dcbnl.SelAny, dcbnl.SelDSCP, dcbnl.SelPCP}
		for _, i := range r.Perm(len(all))[:r.IntN(len(all)+1)] {
			d.Trust = append(d.Trust, all[i])
		}
	}
	return d
}

// apply drives the Client's reconcile helpers to d, in hostcfg's order.
func apply(c *dcbnl.Client, ifname string, f dcbfake.Flavour, d desired) error {
	var errs []error
	if _, err := c.UpdateDCBX(ctx, ifname, d.DCBX); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.UpdateETS(ctx, ifname, func(e *dcbnl.ETS) {
		e.TCTxBW, e.TCTSA, e.PrioTC = d.ETS.TCTxBW, d.ETS.TCTSA, d.ETS.PrioTC
	}); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.UpdatePFC(ctx, ifname, func(p *dcbnl.PFC) { p.PFCEn, p.Delay = d.PFCEn, d.Delay }); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.UpdateMaxrate(ctx, ifname, func(m *dcbnl.Maxrate) { *m = d.Maxrate }); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.UpdateBuffer(ctx, ifname, func(b *dcbnl.Buffer) {
		b.Prio2Buffer, b.BufferSize = d.Buffer.Prio2Buffer, d.Buffer.BufferSize
	}); err != nil {
		errs = append(errs, err)
	}
	if f == dcbfake.Generic {
		if _, err := c.UpdateTrust(ctx, ifname, d.Trust); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := c.ReconcileApps(ctx, ifname, d.Apps, dcbnl.SelDSCP); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// reached checks the fake kernel's state against d.
func reached(k *dcbfake.Kernel, ifname string, f dcbfake.Flavour, d desired) error {
	st, err := k.State(ifname)
	if err != nil {
		return err
	}
	var diffs []string
	check := func(ok bool, what string, got, want any) {
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s = %v, want %v", what, got, want))
		}
	}
	check(st.DCBX == d.DCBX, "dcbx", st.DCBX, d.DCBX)
	check(st.ETS.TCTxBW == d.ETS.TCTxBW && st.ETS.TCTSA == d.ETS.TCTSA && st.ETS.PrioTC == d.ETS.PrioTC, "ets", *st.ETS, d.ETS)
	check(st.PFC.PFCEn == d.PFCEn && st.PFC.Delay == d.Delay, "pfc", *st.PFC, d)
	check(*st.Maxrate == d.Maxrate, "maxrate", *st.Maxrate, d.Maxrate)
	check(st.Buffer.SameConfig(d.Buffer), "buffer", *st.Buffer, d.Buffer)
	got, want := slices.Clone(st.Apps), slices.Clone(d.Apps)
	cmpApp := func(a, b dcbnl.App) int {
		return int(a.Protocol)<<8 | int(a.Priority) - (int(b.Protocol)<<8 | int(b.Priority))
	}
	slices.SortFunc(got, cmpApp)
	slices.SortFunc(want, cmpApp)
	check(slices.Equal(got, want), "apps", got, want)
	if f == dcbfake.Generic {
		check(slices.Equal(st.Trust, d.Trust), "trust", st.Trust, d.Trust)
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s not converged: %v", ifname, diffs)
	}
	return nil
}

func seeds(t *testing.T) []uint64 {
	s := []uint64{1, 2, 3, 4, 5, 6, 7, 8}
	if v := os.Getenv("DCBNL_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("DCBNL_SEED: %v", err)
		}
		return []uint64{n}
	}
	return append(s, uint64(time.Now().UnixNano()))
}

// Tailscale-style convergence: random desired states replayed in random
// order; every transition reaches its state, writes APP adds before APP
// deletes, flaps an mlx5 link only when pfc_en changed, and a second pass
// writes nothing even though the PFC counters moved.
func TestRandomTransitionsConverge(t *testing.T) {
	for _, f := range []dcbfake.Flavour{dcbfake.Generic, dcbfake.MLX5} {
		for _, seed := range seeds(t) {
			t.Run(fmt.Sprintf("%s/seed=%d", f, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 0x64636231))
				states := make([]desired, 6)
				for i := range states {
					states[i] = randomDesired(r, f)
				}
				k := dcbfake.New()
				k.AddDevice("eth0", f)
				c := dcbnl.New(k)
				order := append(r.Perm(len(states)), r.Perm(len(states))...)
				prevPFCEn := uint8(0)
				for step, i := range order {
					d := states[i]
					k.ClearRequests()
					flaps := k.LinkFlaps("eth0")
					if err := apply(c, "eth0", f, d); err != nil {
						t.Fatalf("step %d (state %d): %v", step, i, err)
					}
					if err := reached(k, "eth0", f, d); err != nil {
						t.Fatalf("step %d (state %d): %v", step, i, err)
					}
					checkAddBeforeDelete(t, k.Requests())
					if f == dcbfake.MLX5 {
						want := flaps
						if d.PFCEn != prevPFCEn {
							want++
						}
						if got := k.LinkFlaps("eth0"); got != want {
							t.Fatalf("step %d: %d link flaps, want %d", step, got, want)
						}
					}
					prevPFCEn = d.PFCEn

					k.TickCounters("eth0")
					k.ClearRequests()
					if err := apply(c, "eth0", f, d); err != nil {
						t.Fatalf("step %d, second pass: %v", step, err)
					}
					if w := k.Writes(); len(w) != 0 {
						t.Fatalf("step %d: second pass wrote %d requests, first %+v", step, len(w), w[0])
					}
				}
			})
		}
	}
}

// checkAddBeforeDelete: within one transition every APP add precedes every
// APP delete, and each write carries exactly one IEEE attribute.
func checkAddBeforeDelete(t *testing.T, reqs []dcbfake.Request) {
	t.Helper()
	lastAdd, firstDel := -1, len(reqs)
	for i, r := range reqs {
		if !r.Write() {
			continue
		}
		if r.Cmd != dcbnl.CmdSetDCBX && len(r.Attrs) != 1 {
			t.Fatalf("request %d carries attributes %v, want exactly one", i, r.Attrs)
		}
		switch {
		case r.Cmd == dcbnl.CmdIEEESet && r.Attrs[0] == dcbnl.AttrIEEEAppTable:
			lastAdd = i
		case r.Cmd == dcbnl.CmdIEEEDel:
			firstDel = min(firstDel, i)
		}
	}
	if lastAdd > firstDel {
		t.Fatalf("an APP add (request %d) came after a delete (request %d)", lastAdd, firstDel)
	}
}

func TestReconcileAppsChangesPriorityWithoutGap(t *testing.T) {
	for _, f := range []dcbfake.Flavour{dcbfake.Generic, dcbfake.MLX5} {
		t.Run(f.String(), func(t *testing.T) {
			k := dcbfake.New()
			k.AddDevice("eth0", f)
			c := dcbnl.New(k)
			if _, err := c.ReconcileApps(ctx, "eth0", []dcbnl.App{dscp(26, 3), dscp(48, 6)}, dcbnl.SelDSCP); err != nil {
				t.Fatal(err)
			}
			k.ClearRequests()
			ch, err := c.ReconcileApps(ctx, "eth0", []dcbnl.App{dscp(26, 5), dscp(48, 6)}, dcbnl.SelDSCP)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ch.Added, []dcbnl.App{dscp(26, 5)}) {
				t.Fatalf("added %v", ch.Added)
			}
			// The generic kernel holds both entries until the delete; mlx5
			// replaced 26→3 on add, so there is nothing left to delete.
			wantDeleted := []dcbnl.App{dscp(26, 3)}
			if f == dcbfake.MLX5 {
				wantDeleted = nil
			}
			if !slices.Equal(ch.Deleted, wantDeleted) {
				t.Fatalf("deleted %v, want %v", ch.Deleted, wantDeleted)
			}
			w := k.Writes()
			if w[0].Cmd != dcbnl.CmdIEEESet {
				t.Fatalf("first write is %s, want the add", w[0].Cmd)
			}
		})
	}
}

func TestReconcileAppsLeavesOtherSelectorsAlone(t *testing.T) {
	k := dcbfake.New()
	k.AddDevice("eth0", dcbfake.Generic)
	c := dcbnl.New(k)
	eth := dcbnl.App{Selector: dcbnl.SelEthertype, Protocol: 0x8915, Priority: 3}
	if err := c.AddApps(ctx, "eth0", []dcbnl.App{eth, dscp(10, 1)}); err != nil {
		t.Fatal(err)
	}
	ch, err := c.ReconcileApps(ctx, "eth0", []dcbnl.App{dscp(26, 3)}, dcbnl.SelDSCP)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ch.After, eth) || slices.Contains(ch.After, dscp(10, 1)) || !slices.Contains(ch.After, dscp(26, 3)) {
		t.Fatalf("after = %v", ch.After)
	}
	if _, err := c.ReconcileApps(ctx, "eth0", []dcbnl.App{eth}, dcbnl.SelDSCP); !errors.Is(err, dcbnl.ErrInvalid) {
		t.Fatalf("an entry outside the scope: %v", err)
	}
	// Without a scope the whole table is managed.
	if _, err := c.ReconcileApps(ctx, "eth0", nil); err != nil {
		t.Fatal(err)
	}
	if st, _ := k.State("eth0"); len(st.Apps) != 0 {
		t.Fatalf("apps = %v", st.Apps)
	}
}

// mlx5 after "mlnx_qos --trust dscp" holds all 64 DSCP entries; reaching a
// full 64-entry map changes only the entries that differ.
func TestReconcileAppsFromVendorTrust(t *testing.T) {
	k := dcbfake.New()
	k.AddDevice("eth0", dcbfake.MLX5, dcbfake.VendorTrustDSCP())
	c := dcbnl.New(k)
	var want []dcbnl.App
	for d := range 64 {
		want = append(want, dscp(uint16(d), 0))
	}
	want[26], want[48] = dscp(26, 3), dscp(48, 6)
	ch, err := c.ReconcileApps(ctx, "eth0", want, dcbnl.SelDSCP)
	if err != nil {
		t.Fatal(err)
	}
	// DSCP 0..7, 26 and 48 already map as wanted (d>>3 is 0, 3, 6).
	if len(ch.Added) != 64-10 || len(ch.Deleted) != 0 || !k.TrustDSCP("eth0") {
		t.Fatalf("added %d, deleted %d, trust dscp %v", len(ch.Added), len(ch.Deleted), k.TrustDSCP("eth0"))
	}
	if st, _ := k.State("eth0"); len(st.Apps) != 64 {
		t.Fatalf("%d entries after reconcile", len(st.Apps))
	}
}

// A failure part-way leaves a record of what was done, and reconciling to
// Before restores the pre-image.
func TestReconcileAppsFailureAndRollback(t *testing.T) {
	sortApps := func(apps []dcbnl.App) []dcbnl.App {
		apps = slices.Clone(apps)
		slices.SortFunc(apps, func(a, b dcbnl.App) int {
			return int(a.Protocol)<<8 | int(a.Priority) - (int(b.Protocol)<<8 | int(b.Priority))
		})
		return apps
	}
	want := []dcbnl.App{dscp(26, 3), dscp(48, 6)}
	for _, tc := range []struct {
		name          string
		fail          dcbnl.App
		added, delled []dcbnl.App
	}{
		// Adds go in (selector, protocol, priority) order: 26 then 48.
		{"second add", dscp(48, 6), []dcbnl.App{dscp(26, 3)}, nil},
		// Deletes come after all adds, in the same order: 10 then 12.
		{"first delete", dscp(10, 1), want, nil},
		{"second delete", dscp(12, 1), want, []dcbnl.App{dscp(10, 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := dcbfake.New()
			k.AddDevice("eth0", dcbfake.Generic)
			c := dcbnl.New(k)
			if err := c.AddApps(ctx, "eth0", []dcbnl.App{dscp(10, 1), dscp(12, 1)}); err != nil {
				t.Fatal(err)
			}
			before, _ := k.State("eth0")
			k.FailApp("eth0", tc.fail, syscall.ENOSPC)
			ch, err := c.ReconcileApps(ctx, "eth0", want, dcbnl.SelDSCP)
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("got %v, want ENOSPC", err)
			}
			if !slices.Equal(ch.Added, tc.added) || !slices.Equal(ch.Deleted, tc.delled) {
				t.Fatalf("recorded added %v deleted %v, want %v %v", ch.Added, ch.Deleted, tc.added, tc.delled)
			}
			if !slices.Equal(sortApps(ch.Before), sortApps(before.Apps)) {
				t.Fatalf("Before = %v, want %v", ch.Before, before.Apps)
			}
			if _, err := c.ReconcileApps(ctx, "eth0", ch.Before, dcbnl.SelDSCP); err != nil {
				t.Fatal(err)
			}
			after, _ := k.State("eth0")
			if !slices.Equal(sortApps(after.Apps), sortApps(before.Apps)) {
				t.Fatalf("rollback reached %v, want %v", after.Apps, before.Apps)
			}
		})
	}
}

// A failed write returns the pre-image and leaves the device as it was.
func TestUpdateFailureKeepsPreImage(t *testing.T) {
	k := dcbfake.New()
	k.AddDevice("eth0", dcbfake.MLX5)
	c := dcbnl.New(k)
	k.FailNext("eth0", dcbnl.AttrIEEEPFC, syscall.EIO)
	ch, err := c.UpdatePFC(ctx, "eth0", func(p *dcbnl.PFC) { p.PFCEn = 1 << 3 })
	if !errors.Is(err, syscall.EIO) || ch.Written || ch.Before.PFCEn != 0 || ch.Want.PFCEn != 1<<3 {
		t.Fatalf("UpdatePFC with a failing driver: %+v %v", ch, err)
	}
	if st, _ := k.State("eth0"); st.PFC.PFCEn != 0 || k.LinkFlaps("eth0") != 0 {
		t.Fatalf("device changed: %+v", *st.PFC)
	}
	// A driver that rounds: written, but not converged, and no error.
	m, err := c.UpdateMaxrate(ctx, "eth0", func(m *dcbnl.Maxrate) { m.TCMaxrate[3] = 30_500_000 })
	if err != nil || !m.Written || m.Converged || m.After.TCMaxrate[3] != 30_000_000 {
		t.Fatalf("UpdateMaxrate rounding: %+v %v", m, err)
	}
}
