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
		errs = append(errs, h.applyInterface(ctx, group, &res))
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

func (h *Host) applyInterface(ctx context.Context, changes []Change, res *Result) error {
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
