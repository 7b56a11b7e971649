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

	"golang.org/x/sys/unix"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
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

var builtin = []string{OpHello, OpObserve, OpShow, OpPlan, OpApply, OpRollback}

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
	case OpObserve, OpPlan, OpApply:
		if req.Desired == nil {
			return fail(req, ErrorBadRequest, fmt.Errorf("op %s needs desired", req.Op))
		}
	case OpRollback:
		if req.Plan == nil {
			return fail(req, ErrorBadRequest, errors.New("op rollback needs plan (an apply's result.undo)"))
		}
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
		return r
	case OpApply:
		return h.apply(ctx, host, req)
	default: // OpRollback
		res, err := host.Apply(ctx, *req.Plan)
		r := reply(req)
		if err != nil {
			r = fail(req, ErrorApply, err)
		}
		r.Result = &res
		return r
	}
}

func (h *Handler) apply(ctx context.Context, host *hostcfg.Host, req Request) Reply {
	obs, _ := host.Observe(ctx, *req.Desired)
	p := hostcfg.Diff(*req.Desired, obs)
	fp := p.Fingerprint()
	if req.PlanFingerprint != "" && req.PlanFingerprint != fp {
		r := fail(req, ErrorPlanChanged, fmt.Errorf("the host changed since the plan was confirmed (plan %s, now %s)", req.PlanFingerprint, fp))
		r.Plan, r.Fingerprint = &p, fp
		return r
	}
	r := reply(req)
	r.Plan, r.Fingerprint = &p, fp
	if req.DryRun {
		return r
	}
	res, err := host.Apply(ctx, p)
	if err != nil {
		r = fail(req, ErrorApply, err)
		r.Plan, r.Fingerprint = &p, fp
	}
	r.Result = &res
	return r
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
