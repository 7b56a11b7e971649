package hostops

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
)

// Ops serves a host's lossless settings over the agent protocol: observe,
// show, plan, apply, rollback, recover and settle, through hostcfg and the
// apply journal. Set Open (and Journal), then Register it on a Handler.
// Ops is safe for concurrent use; the Host it opens is shared by the
// requests of one Serve and closed when Serve ends.
type Ops struct {
	// Open returns the host's backends, opened on the first request that
	// needs them.
	Open func(ctx context.Context) (*hostcfg.Host, error)
	// Journal, when set, journals every apply (docs/agent-protocol.md,
	// "Interrupted applies"); nil applies without one.
	Journal *journal.Dir

	mu   sync.Mutex
	host *hostcfg.Host
}

// Register adds the host ops to h, and closing the host to what h closes
// when Serve ends.
func (o *Ops) Register(h *agent.Handler) {
	for op, serve := range map[string]func(context.Context, *hostcfg.Host, agent.Request) agent.Reply{
		agent.OpObserve: o.observe, agent.OpShow: o.show, agent.OpPlan: o.plan, agent.OpApply: o.apply,
		agent.OpRollback: o.rollback, agent.OpRecover: o.recover,
	} {
		h.RegisterRequest(op, func(ctx context.Context, req agent.Request) agent.Reply {
			if err := checkRequest(req); err != nil {
				return agent.Fail(req, agent.ErrorBadRequest, err)
			}
			host, err := o.openHost(ctx)
			if err != nil {
				return agent.Fail(req, agent.ErrorHost, fmt.Errorf("opening the host backends: %w", err))
			}
			return serve(ctx, host, req)
		})
	}
	h.RegisterRequest(agent.OpSettle, func(ctx context.Context, req agent.Request) agent.Reply {
		if err := checkRequest(req); err != nil {
			return agent.Fail(req, agent.ErrorBadRequest, err)
		}
		return o.settle(ctx, req)
	})
	h.OnClose(o.close)
}

// checkRequest says what req lacks for its op, or what it carries that the agent
// refuses before any lookup: names that would leave their sysfs directory,
// numbers outside their settings' ranges, over-long ids.
func checkRequest(req agent.Request) error {
	switch req.Op {
	case agent.OpObserve, agent.OpPlan, agent.OpApply, agent.OpRecover:
		if req.Desired == nil {
			return fmt.Errorf("op %s needs desired", req.Op)
		}
	case agent.OpSettle:
		if req.Desired == nil || req.Journal == "" {
			return errors.New("op settle needs desired and journal")
		}
	case agent.OpRollback:
		if req.Plan == nil {
			return errors.New("op rollback needs plan (an apply's result.undo)")
		}
	}
	var errs []error
	if req.Desired != nil {
		errs = append(errs, agent.CheckIntent("desired", req.Desired))
	}
	if req.Plan != nil {
		errs = append(errs, agent.CheckPlan("plan", req.Plan))
	}
	for i, name := range req.Interfaces {
		errs = append(errs, agent.CheckName(fmt.Sprintf("interfaces[%d]", i), name))
	}
	errs = append(errs, agent.CheckText("journal", req.Journal, agent.MaxNameBytes),
		agent.CheckText("planFingerprint", req.PlanFingerprint, agent.MaxNameBytes))
	return errors.Join(errs...)
}

func (o *Ops) openHost(ctx context.Context) (*hostcfg.Host, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.host != nil {
		return o.host, nil
	}
	if o.Open == nil {
		return nil, errors.New("no host backends configured")
	}
	host, err := o.Open(ctx)
	if err != nil {
		return nil, err
	}
	o.host = host
	return host, nil
}

// close closes the host if one was opened.
func (o *Ops) close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.host == nil {
		return nil
	}
	err := o.host.Close()
	o.host = nil
	return err
}

func (o *Ops) observe(ctx context.Context, host *hostcfg.Host, req agent.Request) agent.Reply {
	obs, _ := host.Observe(ctx, *req.Desired) // located errors are inside obs
	r := agent.OK(req)
	r.Observed = &obs
	r.Journal = o.pending(req.Desired.Host)
	return r
}

func (o *Ops) show(ctx context.Context, host *hostcfg.Host, req agent.Request) agent.Reply {
	obs, _ := host.Show(ctx, req.Interfaces)
	r := agent.OK(req)
	r.Observed = &obs
	return r
}

func (o *Ops) plan(ctx context.Context, host *hostcfg.Host, req agent.Request) agent.Reply {
	obs, _ := host.Observe(ctx, *req.Desired)
	p := hostcfg.Diff(*req.Desired, obs)
	r := agent.OK(req)
	r.Observed, r.Plan, r.Fingerprint = &obs, &p, p.Fingerprint()
	r.Journal = o.pending(req.Desired.Host)
	return r
}

func (o *Ops) rollback(ctx context.Context, host *hostcfg.Host, req agent.Request) agent.Reply {
	res, err := host.Apply(ctx, *req.Plan)
	r := agent.OK(req)
	if err != nil {
		r = agent.Fail(req, agent.ErrorApply, err)
	} else if req.Journal != "" && o.Journal != nil {
		// The rollback undid the journaled apply: it is settled.
		if serr := o.Journal.Settle(ctx, cmpOr(req.Plan.Host, host.Name), req.Journal); serr != nil {
			r = agent.Fail(req, agent.ErrorApply, fmt.Errorf("settling journal %s after the rollback: %w", req.Journal, serr))
		}
	}
	r.Result = &res
	return r
}

// pending is the host's journal when an interrupted apply left one (or an
// apply is running), for observe and plan replies; nil when there is none.
func (o *Ops) pending(name string) *journal.Status {
	if o.Journal == nil {
		return nil
	}
	st, err := o.Journal.Status(name)
	if err != nil || (!st.Pending && !st.InProgress) {
		return nil
	}
	return &st
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// recoverWait bounds how long recover waits for an apply still in
// progress (one whose reply was lost while it went on writing).
const recoverWait = 5 * time.Minute

// recover rolls back the host's pending journal, if any.
func (o *Ops) recover(ctx context.Context, host *hostcfg.Host, req agent.Request) agent.Reply {
	if o.Journal == nil {
		return agent.Fail(req, agent.ErrorRecover, errors.New("this agent keeps no apply journal (no state directory)"))
	}
	wctx, cancel := context.WithTimeout(ctx, recoverWait)
	defer cancel()
	got, err := o.Journal.Recover(wctx, req.Desired.Host, host)
	r := agent.OK(req)
	if err != nil {
		kind := agent.ErrorRecover
		if errors.Is(err, journal.ErrBusy) {
			kind = agent.ErrorBusy
		}
		r = agent.Fail(req, kind, err)
	}
	if got.Found {
		st := journal.Status{Pending: err != nil, Record: got.Record}
		r.Journal, r.Result = &st, &got.Result
	}
	return r
}

// settle removes an acknowledged apply's journal.
func (o *Ops) settle(ctx context.Context, req agent.Request) agent.Reply {
	if o.Journal == nil {
		return agent.OK(req)
	}
	if err := o.Journal.Settle(ctx, req.Desired.Host, req.Journal); err != nil {
		return agent.Fail(req, agent.ErrorApply, err)
	}
	return agent.OK(req)
}

func (o *Ops) apply(ctx context.Context, host *hostcfg.Host, req agent.Request) agent.Reply {
	// The journal comes first: its lock keeps another apply out while this
	// one plans and writes, and an interrupted earlier apply is refused
	// before anything is planned on top of it.
	var txn *journal.Txn
	if o.Journal != nil && !req.DryRun {
		var err error
		txn, err = o.Journal.Begin(req.Desired.Host, req.Journal)
		var ie *journal.InterruptedError
		switch {
		case errors.As(err, &ie):
			r := agent.Fail(req, agent.ErrorInterrupted, err)
			r.Journal = &journal.Status{Pending: true, Record: ie.Record}
			return r
		case errors.Is(err, journal.ErrBusy):
			return agent.Fail(req, agent.ErrorBusy, err)
		case err != nil:
			return agent.Fail(req, agent.ErrorHost, err)
		}
		defer txn.Close()
	}
	obs, _ := host.Observe(ctx, *req.Desired)
	p := hostcfg.Diff(*req.Desired, obs)
	fp := p.Fingerprint()
	if req.PlanFingerprint != "" && req.PlanFingerprint != fp {
		r := agent.Fail(req, agent.ErrorPlanChanged, fmt.Errorf("the host changed since the plan was confirmed (plan %s, now %s)", req.PlanFingerprint, fp))
		r.Plan, r.Fingerprint = &p, fp
		o.finish(txn, &r)
		return r
	}
	r := agent.OK(req)
	r.Plan, r.Fingerprint = &p, fp
	if req.DryRun {
		return r
	}
	var res hostcfg.Result
	var err error
	if txn != nil {
		res, err = host.ApplyRecorded(ctx, p, txn)
	} else {
		res, err = host.Apply(ctx, p)
	}
	if err != nil {
		r = agent.Fail(req, agent.ErrorApply, err)
		r.Plan, r.Fingerprint = &p, fp
	}
	r.Result = &res
	o.finish(txn, &r)
	return r
}

// finish ends a journaled apply: a journal with writes stays (its caller
// settles it once it has the reply, or recovers it) and is named in the
// reply; one without writes is removed.
func (o *Ops) finish(txn *journal.Txn, r *agent.Reply) {
	if txn == nil {
		return
	}
	rec, err := txn.Finish()
	if err != nil {
		msg := "journaling: " + err.Error()
		if r.Error != nil {
			msg = r.Error.Message + "; " + msg
		}
		r.OK, r.Error = false, &agent.Error{Kind: agent.ErrorApply, Message: msg}
		return
	}
	if len(rec.Written) > 0 {
		r.Journal = &journal.Status{Pending: true, Record: rec}
	}
}
