package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
)

// OpFunc serves a registered op: args is Request.Args, the result becomes Reply.Data.
type OpFunc func(ctx context.Context, args json.RawMessage) (any, error)

// Handler answers agent requests on one host. Set Open and Info, Register
// extra ops, then call Serve (or Handle). The Host is opened on the first
// request that needs it and shared by the rest. A Handler is safe for
// concurrent use.
type Handler struct {
	// Open returns the host's backends; Serve closes the host at the end.
	Open func(ctx context.Context) (*hostcfg.Host, error)
	// Info is the version part of the hello reply (Protocols and Ops are filled in).
	Info Hello
	// Journal, when set, journals every apply (docs/agent-protocol.md,
	// "Interrupted applies"); nil applies without one.
	Journal *journal.Dir

	mu   sync.Mutex
	host *hostcfg.Host
	ops  map[string]OpFunc
}

// Register adds op, served by fn. It panics on a built-in or duplicate name
// (a programming error at start-up, not user input).
func (h *Handler) Register(op string, fn OpFunc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if slices.Contains(builtin, op) || h.ops[op] != nil {
		panic("agent: op " + op + " registered twice")
	}
	if h.ops == nil {
		h.ops = map[string]OpFunc{}
	}
	h.ops[op] = fn
}

var builtin = []string{OpHello, OpObserve, OpShow, OpPlan, OpApply, OpRollback, OpRecover, OpSettle}

// Ops lists every op served, sorted.
func (h *Handler) Ops() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Sorted(func(yield func(string) bool) {
		for _, o := range builtin {
			if !yield(o) {
				return
			}
		}
		for o := range maps.Keys(h.ops) {
			if !yield(o) {
				return
			}
		}
	})
}

func (h *Handler) openHost(ctx context.Context) (*hostcfg.Host, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.host != nil {
		return h.host, nil
	}
	if h.Open == nil {
		return nil, errors.New("no host backends configured")
	}
	host, err := h.Open(ctx)
	if err != nil {
		return nil, err
	}
	h.host = host
	return host, nil
}

// Close closes the host if one was opened.
func (h *Handler) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.host == nil {
		return nil
	}
	err := h.host.Close()
	h.host = nil
	return err
}

// Serve reads requests from r until EOF and writes one reply line per
// request to w. It returns the number of replies that were not OK; a
// request that is not JSON ends the stream (the reader cannot resync).
func (h *Handler) Serve(ctx context.Context, r io.Reader, w io.Writer) (failed int, err error) {
	defer func() { err = errors.Join(err, h.Close()) }()
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	enc := json.NewEncoder(w)
	for {
		var req Request
		derr := dec.Decode(&req)
		if errors.Is(derr, io.EOF) {
			return failed, nil
		}
		var rep Reply
		if derr != nil {
			rep = fail(req, ErrorBadRequest, fmt.Errorf("decoding request: %w", derr))
		} else {
			rep = h.Handle(ctx, req)
		}
		if !rep.OK {
			failed++
		}
		if err := enc.Encode(rep); err != nil {
			return failed, fmt.Errorf("writing reply: %w", err)
		}
		if derr != nil {
			return failed, nil
		}
	}
}

func reply(req Request) Reply {
	return Reply{APIVersion: fabric.APIVersion, Protocol: Protocol, ID: req.ID, Op: req.Op, OK: true}
}

func fail(req Request, kind string, err error) Reply {
	r := reply(req)
	r.OK = false
	r.Error = &Error{Kind: kind, Message: err.Error()}
	if lines := strings.Split(err.Error(), "\n"); len(lines) > 1 {
		r.Error.Message = fmt.Sprintf("%d errors", len(lines))
		r.Error.Details = lines
	}
	return r
}

// Handle answers one request.
func (h *Handler) Handle(ctx context.Context, req Request) Reply {
	if req.APIVersion != fabric.APIVersion {
		return fail(req, ErrorProtocol, fmt.Errorf("apiVersion %q is not %q", req.APIVersion, fabric.APIVersion))
	}
	if req.Protocol < MinProtocol || req.Protocol > Protocol {
		return fail(req, ErrorProtocol, fmt.Errorf("this agent speaks protocol %d..%d, the request protocol %d; deliver a matching fabricctl",
			MinProtocol, Protocol, req.Protocol))
	}
	switch req.Op {
	case OpHello:
		return h.hello(req)
	case OpObserve, OpPlan, OpApply, OpRecover:
		if req.Desired == nil {
			return fail(req, ErrorBadRequest, fmt.Errorf("op %s needs desired", req.Op))
		}
	case OpRollback:
		if req.Plan == nil {
			return fail(req, ErrorBadRequest, errors.New("op rollback needs plan (an apply's result.undo)"))
		}
	case OpSettle:
		if req.Desired == nil || req.Journal == "" {
			return fail(req, ErrorBadRequest, errors.New("op settle needs desired and journal"))
		}
		return h.settle(ctx, req)
	case OpShow:
	default:
		h.mu.Lock()
		fn := h.ops[req.Op]
		h.mu.Unlock()
		if fn == nil {
			return fail(req, ErrorBadRequest, fmt.Errorf("unknown op %q (this agent serves %s)", req.Op, strings.Join(h.Ops(), ", ")))
		}
		data, err := fn(ctx, req.Args)
		if err != nil {
			return fail(req, ErrorOp, err)
		}
		b, err := json.Marshal(data)
		if err != nil {
			return fail(req, ErrorOp, fmt.Errorf("encoding the result of %s: %w", req.Op, err))
		}
		r := reply(req)
		r.Data = b
		return r
	}
	host, err := h.openHost(ctx)
	if err != nil {
		return fail(req, ErrorHost, fmt.Errorf("opening the host backends: %w", err))
	}
	switch req.Op {
	case OpObserve:
		obs, _ := host.Observe(ctx, *req.Desired) // located errors are inside obs
		r := reply(req)
		r.Observed = &obs
		r.Journal = h.pending(req.Desired.Host)
		return r
	case OpShow:
		obs, _ := host.Show(ctx, req.Interfaces)
		r := reply(req)
		r.Observed = &obs
		return r
	case OpPlan:
		obs, _ := host.Observe(ctx, *req.Desired)
		p := hostcfg.Diff(*req.Desired, obs)
		r := reply(req)
		r.Observed, r.Plan, r.Fingerprint = &obs, &p, p.Fingerprint()
		r.Journal = h.pending(req.Desired.Host)
		return r
	case OpApply:
		return h.apply(ctx, host, req)
	case OpRecover:
		return h.recover(ctx, host, req)
	default: // OpRollback
		res, err := host.Apply(ctx, *req.Plan)
		r := reply(req)
		if err != nil {
			r = fail(req, ErrorApply, err)
		} else if req.Journal != "" && h.Journal != nil {
			// The rollback undid the journaled apply: it is settled.
			if serr := h.Journal.Settle(ctx, cmpOr(req.Plan.Host, host.Name), req.Journal); serr != nil {
				r = fail(req, ErrorApply, fmt.Errorf("settling journal %s after the rollback: %w", req.Journal, serr))
			}
		}
		r.Result = &res
		return r
	}
}

// pending is the host's journal when an interrupted apply left one (or an
// apply is running), for observe and plan replies; nil when there is none.
func (h *Handler) pending(name string) *journal.Status {
	if h.Journal == nil {
		return nil
	}
	st, err := h.Journal.Status(name)
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
func (h *Handler) recover(ctx context.Context, host *hostcfg.Host, req Request) Reply {
	if h.Journal == nil {
		return fail(req, ErrorRecover, errors.New("this agent keeps no apply journal (no state directory)"))
	}
	wctx, cancel := context.WithTimeout(ctx, recoverWait)
	defer cancel()
	got, err := h.Journal.Recover(wctx, req.Desired.Host, host)
	r := reply(req)
	if err != nil {
		kind := ErrorRecover
		if errors.Is(err, journal.ErrBusy) {
			kind = ErrorBusy
		}
		r = fail(req, kind, err)
	}
	if got.Found {
		st := journal.Status{Pending: err != nil, Record: got.Record}
		r.Journal, r.Result = &st, &got.Result
	}
	return r
}

// settle removes an acknowledged apply's journal.
func (h *Handler) settle(ctx context.Context, req Request) Reply {
	if h.Journal == nil {
		return reply(req)
	}
	if err := h.Journal.Settle(ctx, req.Desired.Host, req.Journal); err != nil {
		return fail(req, ErrorApply, err)
	}
	return reply(req)
}

func (h *Handler) apply(ctx context.Context, host *hostcfg.Host, req Request) Reply {
	// The journal comes first: its lock keeps another apply out while this
	// one plans and writes, and an interrupted earlier apply is refused
	// before anything is planned on top of it.
	var txn *journal.Txn
	if h.Journal != nil && !req.DryRun {
		var err error
		txn, err = h.Journal.Begin(req.Desired.Host, req.Journal)
		var ie *journal.InterruptedError
		switch {
		case errors.As(err, &ie):
			r := fail(req, ErrorInterrupted, err)
			r.Journal = &journal.Status{Pending: true, Record: ie.Record}
			return r
		case errors.Is(err, journal.ErrBusy):
			return fail(req, ErrorBusy, err)
		case err != nil:
			return fail(req, ErrorHost, err)
		}
		defer txn.Close()
	}
	obs, _ := host.Observe(ctx, *req.Desired)
	p := hostcfg.Diff(*req.Desired, obs)
	fp := p.Fingerprint()
	if req.PlanFingerprint != "" && req.PlanFingerprint != fp {
		r := fail(req, ErrorPlanChanged, fmt.Errorf("the host changed since the plan was confirmed (plan %s, now %s)", req.PlanFingerprint, fp))
		r.Plan, r.Fingerprint = &p, fp
		h.finish(txn, &r)
		return r
	}
	r := reply(req)
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
		r = fail(req, ErrorApply, err)
		r.Plan, r.Fingerprint = &p, fp
	}
	r.Result = &res
	h.finish(txn, &r)
	return r
}

// finish ends a journaled apply: a journal with writes stays (its caller
// settles it once it has the reply, or recovers it) and is named in the
// reply; one without writes is removed.
func (h *Handler) finish(txn *journal.Txn, r *Reply) {
	if txn == nil {
		return
	}
	rec, err := txn.Finish()
	if err != nil {
		msg := "journaling: " + err.Error()
		if r.Error != nil {
			msg = r.Error.Message + "; " + msg
		}
		r.OK, r.Error = false, &Error{Kind: ErrorApply, Message: msg}
		return
	}
	if len(rec.Written) > 0 {
		r.Journal = &journal.Status{Pending: true, Record: rec}
	}
}

func (h *Handler) hello(req Request) Reply {
	info := h.Info
	for v := MinProtocol; v <= Protocol; v++ {
		info.Protocols = append(info.Protocols, v)
	}
	info.Ops = h.Ops()
	if info.Hostname == "" {
		info.Hostname, _ = os.Hostname()
	}
	if info.Kernel == "" {
		var u unix.Utsname
		if unix.Uname(&u) == nil {
			info.Kernel = string(bytes.TrimRight(u.Release[:], "\x00"))
		}
	}
	r := reply(req)
	r.Hello = &info
	return r
}
