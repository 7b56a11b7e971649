package dcbnl

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"syscall"
)

// ErrNotConverged: the state read back after writing is not the state asked for.
var ErrNotConverged = errors.New("dcb state read back differs from the desired state")

// Change reports one read-modify-write of a DCB setting.
type Change[T any] struct {
	Before    T    // read before writing: the pre-image to restore on rollback
	Want      T    // Before with the caller's change applied
	After     T    // read back after writing; Before when nothing was written
	Written   bool // a SET request was sent (and accepted)
	Converged bool // After configures the device as Want does
}

// update is the read-modify-write the DESIGN prescribes: read the whole
// struct, change the copy, write it back only when it differs, read again.
func update[T any](ctx context.Context, c *Client, ifname, what string,
	get func(IEEEState) (T, bool), same func(a, b T) bool,
	mutate func(*T), set func(context.Context, string, T) error) (Change[T], error) {
	var ch Change[T]
	st, err := c.GetIEEE(ctx, ifname)
	if err != nil {
		return ch, fmt.Errorf("updating %s: %w", what, err)
	}
	before, ok := get(st)
	if !ok {
		return ch, fmt.Errorf("updating %s: %w", what, notReported(what, ifname))
	}
	want, _ := get(st) // a second, independent copy
	mutate(&want)
	ch.Before, ch.Want, ch.After = before, want, before
	if same(before, want) {
		ch.Converged = true
		return ch, nil
	}
	if err := set(ctx, ifname, want); err != nil {
		return ch, fmt.Errorf("updating %s: %w", what, err)
	}
	ch.Written = true
	st, err = c.GetIEEE(ctx, ifname)
	if err != nil {
		return ch, fmt.Errorf("updating %s: reading back: %w", what, err)
	}
	if after, ok := get(st); ok {
		ch.After = after
		ch.Converged = same(after, want)
	}
	return ch, nil
}

func ptrValue[T any](p *T) (T, bool) {
	if p == nil {
		var zero T
		return zero, false
	}
	return *p, true
}

// UpdateETS reads ieee_ets, applies mutate to a copy and writes the whole
// struct back when its configuration changed.
func (c *Client) UpdateETS(ctx context.Context, ifname string, mutate func(*ETS)) (Change[ETS], error) {
	return update(ctx, c, ifname, "ETS",
		func(s IEEEState) (ETS, bool) { return ptrValue(s.ETS) },
		ETS.SameConfig, mutate, c.SetETS)
}

// UpdatePFC reads ieee_pfc, applies mutate to a copy and writes the whole
// struct back when pfc_en, mbc or delay changed. Nothing is written when
// they did not, so an mlx5 link is never flapped for nothing.
func (c *Client) UpdatePFC(ctx context.Context, ifname string, mutate func(*PFC)) (Change[PFC], error) {
	return update(ctx, c, ifname, "PFC",
		func(s IEEEState) (PFC, bool) { return ptrValue(s.PFC) },
		PFC.SameConfig, mutate, c.SetPFC)
}

// UpdateMaxrate reads ieee_maxrate, applies mutate to a copy and writes it
// back when it changed. Drivers round rates (mlx5: to 100 Mbit/s below
// 25.5 Gbit/s, to 1 Gbit/s above), so check Converged.
func (c *Client) UpdateMaxrate(ctx context.Context, ifname string, mutate func(*Maxrate)) (Change[Maxrate], error) {
	return update(ctx, c, ifname, "maxrate",
		func(s IEEEState) (Maxrate, bool) { return ptrValue(s.Maxrate) },
		func(a, b Maxrate) bool { return a == b }, mutate, c.SetMaxrate)
}

// UpdateBuffer reads dcbnl_buffer, applies mutate to a copy and writes it
// back when prio2buffer or buffer_size changed.
func (c *Client) UpdateBuffer(ctx context.Context, ifname string, mutate func(*Buffer)) (Change[Buffer], error) {
	return update(ctx, c, ifname, "buffers",
		func(s IEEEState) (Buffer, bool) { return ptrValue(s.Buffer) },
		Buffer.SameConfig, mutate, c.SetBuffer)
}

// UpdateTrust makes the app trust table equal want. It fails with an error
// matching ErrNotReported and syscall.EOPNOTSUPP when the device does not
// report a trust table (mlx5: trust follows the DSCP APP entries instead).
func (c *Client) UpdateTrust(ctx context.Context, ifname string, want []Selector) (Change[[]Selector], error) {
	return update(ctx, c, ifname, "app trust",
		func(s IEEEState) ([]Selector, bool) { return slices.Clone(s.Trust), s.HasTrust },
		slices.Equal[[]Selector],
		func(s *[]Selector) { *s = slices.Clone(want) }, c.SetTrust)
}

// UpdateDCBX makes the DCBX mode equal mode (DCBXHostIEEE for fabricctl),
// read from IEEE_GET's DCB_ATTR_DCBX.
func (c *Client) UpdateDCBX(ctx context.Context, ifname string, mode uint8) (Change[uint8], error) {
	return update(ctx, c, ifname, "dcbx mode",
		func(s IEEEState) (uint8, bool) { return s.DCBX, s.HasDCBX },
		func(a, b uint8) bool { return a == b },
		func(m *uint8) { *m = mode }, c.SetDCBX)
}

// AppChanges reports what ReconcileApps did.
type AppChanges struct {
	Before  []App `json:"before"`  // the whole APP table read first: the pre-image
	Added   []App `json:"added"`   // entries this call added, in the order sent
	Deleted []App `json:"deleted"` // entries this call deleted, in the order sent
	After   []App `json:"after"`   // the whole APP table read back at the end
}

// Written reports whether any request changed the table.
func (a AppChanges) Written() bool { return len(a.Added)+len(a.Deleted) > 0 }

func compareApps(a, b App) int {
	return cmp.Or(cmp.Compare(a.Selector, b.Selector), cmp.Compare(a.Protocol, b.Protocol), cmp.Compare(a.Priority, b.Priority))
}

// inScope reports whether a's selector is managed: every selector when
// scope is empty.
func inScope(a App, scope []Selector) bool {
	return len(scope) == 0 || slices.Contains(scope, a.Selector)
}

// diffApps returns the entries of x that are not in y, sorted, without duplicates.
func diffApps(x, y []App, scope []Selector) []App {
	var out []App
	for _, a := range x {
		if inScope(a, scope) && !slices.Contains(y, a) && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, compareApps)
	return out
}

// ReconcileApps makes ifname's APP table hold exactly want among the entries
// whose selector is in scope (all selectors when scope is empty); entries
// outside the scope are left alone. It adds missing entries first, one
// request per entry, then reads the table again and deletes the stale
// entries still present, one request per entry — so a DSCP never loses its
// mapping in between, and drivers that replace on add (mlx5 keeps one entry
// per DSCP) are handled too. EEXIST on add and ENOENT on delete count as
// already done. It ends by reading the table back and fails with
// ErrNotConverged when the scope does not hold exactly want.
//
// On error the returned AppChanges lists what was already done, for rollback:
// ReconcileApps(ctx, ifname, changes.Before, scope...) restores the pre-image.
func (c *Client) ReconcileApps(ctx context.Context, ifname string, want []App, scope ...Selector) (AppChanges, error) {
	var ch AppChanges
	for _, a := range want {
		if !inScope(a, scope) {
			return ch, fmt.Errorf("reconciling app table: entry %v outside the selectors %v: %w", a, scope, ErrInvalid)
		}
	}
	st, err := c.GetIEEE(ctx, ifname)
	if err != nil {
		return ch, fmt.Errorf("reconciling app table: %w", err)
	}
	ch.Before, ch.After = st.Apps, st.Apps

	for _, a := range diffApps(want, st.Apps, scope) {
		err := c.AddApps(ctx, ifname, []App{a})
		switch {
		case err == nil:
			ch.Added = append(ch.Added, a)
		case errors.Is(err, syscall.EEXIST):
		default:
			return ch, fmt.Errorf("reconciling app table: %w", err)
		}
	}
	if len(ch.Added) > 0 {
		if st, err = c.GetIEEE(ctx, ifname); err != nil {
			return ch, fmt.Errorf("reconciling app table: %w", err)
		}
	}
	stale := diffApps(st.Apps, want, scope)
	for _, a := range stale {
		err := c.DelApps(ctx, ifname, []App{a})
		switch {
		case err == nil:
			ch.Deleted = append(ch.Deleted, a)
		case errors.Is(err, syscall.ENOENT):
		default:
			return ch, fmt.Errorf("reconciling app table: %w", err)
		}
	}
	if len(ch.Added) == 0 && len(stale) == 0 {
		return ch, nil // nothing differed: nothing written, nothing to re-read
	}
	if st, err = c.GetIEEE(ctx, ifname); err != nil {
		return ch, fmt.Errorf("reconciling app table: reading back: %w", err)
	}
	ch.After = st.Apps
	missing, extra := diffApps(want, st.Apps, scope), diffApps(st.Apps, want, scope)
	if len(missing)+len(extra) > 0 {
		return ch, fmt.Errorf("reconciling app table on %s: missing %v, unexpected %v: %w", ifname, missing, extra, ErrNotConverged)
	}
	return ch, nil
}
