package hostcfg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
)

// Result is what Apply did.
type Result struct {
	APIVersion string `json:"apiVersion"`
	Host       string `json:"host"`
	// Applied changes were written and read back equal to New; Old holds
	// the pre-image read just before writing.
	Applied []Change `json:"applied"`
	// Unchanged changes were already at New when Apply reached them.
	Unchanged []Change `json:"unchanged,omitempty"`
	// RolledBack changes were written, then restored to their pre-image
	// because a later step on the same interface failed.
	RolledBack []Change `json:"rolledBack,omitempty"`
	// Unsupported changes were refused by the device as something it cannot
	// do (EOPNOTSUPP, rxe's EINVAL for "IB/RoCE v1"); nothing was changed.
	Unsupported []Issue `json:"unsupported,omitempty"`
	// Failed changes, with the located error.
	Failed []Failure `json:"failed,omitempty"`
	// Undo restores the pre-image of Applied, in reverse order:
	// Apply(ctx, result.Undo) rolls the host back.
	Undo Plan `json:"undo"`
}

// Failure is a change that could not be made.
type Failure struct {
	Change
	Error string `json:"error"`
}

// rollbackTimeout bounds the restore after a failure, which runs even when
// the caller's context is already cancelled.
const rollbackTimeout = 30 * time.Second

// Apply executes p: interface by interface, setting by setting in plan
// order. Before each write it reads the live value (the pre-image): equal to
// New means nothing to do, neither Old nor New means the host changed since
// the plan (ErrStalePlan). After the writes it reads every written setting
// again. The interface is the unit of rollback: when a write or a read-back
// fails, the settings of that interface already changed are restored to
// their pre-images in reverse order and Apply moves on to the next
// interface. The error joins every located failure (*SettingError) with
// every failure to restore. Applying a plan twice changes nothing the second
// time.
func (h *Host) Apply(ctx context.Context, p Plan) (Result, error) {
	return h.ApplyRecorded(ctx, p, nil)
}

// Recorder is told about every write Apply is about to make, before it
// makes it: a journal (hostcfg/journal) keeps the pre-images durably, so an
// apply interrupted anywhere — the process killed, the connection gone —
// can be rolled back later. An error from Writing stops the apply before
// that write (and rolls the interface back like any failure).
type Recorder interface {
	Writing(c Change, pre string) error
}

// ApplyRecorded is Apply, telling rec (when not nil) about every write
// before it happens; c.Backend names the backend that will write it.
func (h *Host) ApplyRecorded(ctx context.Context, p Plan, rec Recorder) (Result, error) {
	res := Result{APIVersion: fabric.APIVersion, Host: cmpOr(p.Host, h.Name), Applied: []Change{}}
	var errs []error
	for _, group := range groupByInterface(p.Changes) {
		if err := ctx.Err(); err != nil {
			serr := &SettingError{Interface: group[0].Interface, Op: "writing", Err: err}
			for _, c := range group {
				res.Failed = append(res.Failed, Failure{Change: c, Error: serr.Error()})
			}
			errs = append(errs, serr)
			continue
		}
		errs = append(errs, h.applyInterface(ctx, group, &res, rec))
	}
	res.Undo = Plan{APIVersion: fabric.APIVersion, Host: res.Host, Changes: []Change{}}
	for j := len(res.Applied) - 1; j >= 0; j-- {
		c := res.Applied[j]
		c.Old, c.New = c.New, c.Old
		res.Undo.Changes = append(res.Undo.Changes, c)
	}
	return res, errors.Join(errs...)
}

// groupByInterface splits changes by interface, keeping the order in which
// interfaces first appear and the order of changes within each.
func groupByInterface(cs []Change) [][]Change {
	var groups [][]Change
	at := map[string]int{}
	for _, c := range cs {
		j, ok := at[c.Interface]
		if !ok {
			j = len(groups)
			at[c.Interface] = j
			groups = append(groups, nil)
		}
		groups[j] = append(groups[j], c)
	}
	return groups
}

// step is a change that was (or may have been) written, with its pre-image.
type step struct {
	c   Change
	k   *knob
	pre string
}

func (h *Host) applyInterface(ctx context.Context, changes []Change, res *Result, rec Recorder) error {
	name := changes[0].Interface
	var written []step
	fail := func(c Change, backend, op string, err error) error {
		serr := &SettingError{Interface: name, Setting: c.Setting, Backend: backend, Op: op, Err: err}
		res.Failed = append(res.Failed, Failure{Change: c, Error: serr.Error()})
		return errors.Join(serr, h.rollback(ctx, name, written, res))
	}
	i, err := h.probe(ctx, name, false)
	if err != nil {
		serr := &SettingError{Interface: name, Op: "probing", Err: err}
		for _, c := range changes {
			res.Failed = append(res.Failed, Failure{Change: c, Error: serr.Error()})
		}
		return serr
	}
	for _, c := range changes {
		if err := ctx.Err(); err != nil {
			return fail(c, c.Backend, "writing", err)
		}
		b := i.bind(ctx, c.Setting)
		if b.err != nil {
			return fail(c, b.backend, "probing", b.err)
		}
		if b.knob == nil {
			res.Unsupported = append(res.Unsupported, issueOf(c, b.backend, b.unsupported))
			continue
		}
		k := b.knob
		if k.set == nil {
			return fail(c, k.backend, "writing", ErrExternal)
		}
		pre, err := k.get(ctx)
		switch {
		case errors.Is(err, ErrNotSupported):
			res.Unsupported = append(res.Unsupported, issueOf(c, k.backend, err.Error()))
			continue
		case err != nil:
			return fail(c, k.backend, "reading", err)
		case pre == c.New:
			res.Unchanged = append(res.Unchanged, c)
			continue
		case pre != c.Old:
			return fail(c, k.backend, "writing", fmt.Errorf("planned from %q, now %q: %w", c.Old, pre, ErrStalePlan))
		}
		if rec != nil {
			jc := c
			jc.Backend = k.backend
			if err := rec.Writing(jc, pre); err != nil {
				return fail(c, k.backend, "journaling", err)
			}
		}
		h.log().Debug("writing", "interface", name, "setting", c.Setting, "backend", k.backend, "old", pre, "new", c.New)
		err = k.set(ctx, c.New)
		if errors.Is(err, ErrNotSupported) {
			if now, gerr := k.get(ctx); gerr == nil && now == pre {
				res.Unsupported = append(res.Unsupported, issueOf(c, k.backend, err.Error()))
				continue // refused before anything changed
			}
		}
		written = append(written, step{c: c, k: k, pre: pre}) // a failed write may have half-happened
		if err != nil {
			return fail(c, k.backend, "writing", err)
		}
	}
	for _, s := range written {
		v, err := s.k.get(ctx)
		if err == nil && v != s.c.New {
			err = fmt.Errorf("wrote %q, read back %q: %w", s.c.New, v, ErrNotConverged)
		}
		if err != nil {
			return fail(s.c, s.k.backend, "verifying", err)
		}
	}
	for _, s := range written {
		c := s.c
		c.Old, c.Backend = s.pre, s.k.backend
		res.Applied = append(res.Applied, c)
	}
	return nil
}

// rollback restores the pre-images of written, newest first. Settings whose
// live value already equals the pre-image are left alone.
func (h *Host) rollback(ctx context.Context, name string, written []step, res *Result) error {
	if len(written) == 0 {
		return nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	var errs []error
	for j := len(written) - 1; j >= 0; j-- {
		s := written[j]
		if cur, err := s.k.get(rctx); err == nil && cur == s.pre {
			continue
		}
		h.log().Debug("restoring", "interface", name, "setting", s.c.Setting, "backend", s.k.backend, "value", s.pre)
		err := s.k.set(rctx, s.pre)
		if err == nil {
			var v string
			if v, err = s.k.get(rctx); err == nil && v != s.pre {
				err = fmt.Errorf("restored %q, read back %q: %w", s.pre, v, ErrNotConverged)
			}
		}
		if err != nil {
			errs = append(errs, &SettingError{Interface: name, Setting: s.c.Setting, Backend: s.k.backend, Op: "restoring", Err: err})
			continue
		}
		c := s.c
		c.Old, c.New, c.Backend = s.c.New, s.pre, s.k.backend
		res.RolledBack = append(res.RolledBack, c)
	}
	return errors.Join(errs...)
}

func issueOf(c Change, backend, reason string) Issue {
	return Issue{Target: c.Target, Interface: c.Interface, Setting: c.Setting, Backend: backend,
		Kind: IssueUnsupported, Desired: c.New, Observed: c.Old, Reason: reason}
}

// Restore executes p (an undo plan: each change sets a setting back from
// Old to New) one setting at a time and independently: a setting already at
// New is left alone, one at Old is written and read back, one at neither
// was changed by someone else since and is refused (ErrStalePlan). Unlike
// Apply, a failure never undoes the settings already restored: a rollback
// must get as far back as it can. Restored settings are in Result.Applied.
func (h *Host) Restore(ctx context.Context, p Plan) (Result, error) {
	res := Result{APIVersion: fabric.APIVersion, Host: cmpOr(p.Host, h.Name), Applied: []Change{}}
	var errs []error
	for _, group := range groupByInterface(p.Changes) {
		name := group[0].Interface
		i, err := h.probe(ctx, name, false)
		if err != nil {
			serr := &SettingError{Interface: name, Op: "probing", Err: err}
			for _, c := range group {
				res.Failed = append(res.Failed, Failure{Change: c, Error: serr.Error()})
			}
			errs = append(errs, serr)
			continue
		}
		for _, c := range group {
			if err := h.restoreOne(ctx, i, c, &res); err != nil {
				res.Failed = append(res.Failed, Failure{Change: c, Error: err.Error()})
				errs = append(errs, err)
			}
		}
	}
	res.Undo = Plan{APIVersion: fabric.APIVersion, Host: res.Host, Changes: []Change{}}
	return res, errors.Join(errs...)
}

func (h *Host) restoreOne(ctx context.Context, i *iface, c Change, res *Result) error {
	serr := func(backend, op string, err error) error {
		return &SettingError{Interface: c.Interface, Setting: c.Setting, Backend: backend, Op: op, Err: err}
	}
	b := i.bind(ctx, c.Setting)
	switch {
	case b.err != nil:
		return serr(b.backend, "probing", b.err)
	case b.knob == nil:
		res.Unsupported = append(res.Unsupported, issueOf(c, b.backend, b.unsupported))
		return nil
	case b.knob.set == nil:
		return serr(b.knob.backend, "restoring", ErrExternal)
	}
	k := b.knob
	cur, err := k.get(ctx)
	switch {
	case err != nil:
		return serr(k.backend, "reading", err)
	case cur == c.New:
		res.Unchanged = append(res.Unchanged, c)
		return nil
	case cur != c.Old:
		return serr(k.backend, "restoring", fmt.Errorf("wrote %q, now %q: %w", c.Old, cur, ErrStalePlan))
	}
	h.log().Debug("restoring", "interface", c.Interface, "setting", c.Setting, "backend", k.backend, "value", c.New)
	if err := k.set(ctx, c.New); err != nil {
		return serr(k.backend, "restoring", err)
	}
	if v, err := k.get(ctx); err != nil || v != c.New {
		if err == nil {
			err = fmt.Errorf("restored %q, read back %q: %w", c.New, v, ErrNotConverged)
		}
		return serr(k.backend, "restoring", err)
	}
	c.Old, c.Backend = cur, k.backend
	res.Applied = append(res.Applied, c)
	return nil
}
