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
)

// OpFunc serves a registered op: args is Request.Args, the result becomes Reply.Data.
type OpFunc func(ctx context.Context, args json.RawMessage) (any, error)

// RequestFunc serves a registered op from the whole request and answers
// the whole reply (OK or Fail build it): the host ops read Desired, Plan
// and Journal and answer Observed, Plan, Result and Journal.
type RequestFunc func(ctx context.Context, req Request) Reply

// Handler answers agent requests on one host. Set Info, register the ops
// it serves (agent/hostops, the checks' ops), then call Serve (or Handle).
// Only hello is built in. A Handler is safe for concurrent use.
type Handler struct {
	// Info is the version part of the hello reply (Protocols and Ops are filled in).
	Info Hello

	mu      sync.Mutex
	ops     map[string]RequestFunc
	closers []func() error
}

// Register adds op, served by fn: a failing fn is a reply of kind ErrorOp,
// or ErrorBadRequest when its error wraps ErrBadRequest (DecodeArgs,
// CheckName… make such errors).
// It panics on a built-in or duplicate name (a programming error at
// start-up, not user input).
func (h *Handler) Register(op string, fn OpFunc) {
	h.RegisterRequest(op, func(ctx context.Context, req Request) Reply {
		data, err := fn(ctx, req.Args)
		if errors.Is(err, ErrBadRequest) {
			return Fail(req, ErrorBadRequest, err)
		}
		if err != nil {
			return Fail(req, ErrorOp, err)
		}
		b, err := json.Marshal(data)
		if err != nil {
			return Fail(req, ErrorOp, fmt.Errorf("encoding the result of %s: %w", req.Op, err))
		}
		r := OK(req)
		r.Data = b
		return r
	})
}

// RegisterRequest adds op, served by fn from the whole request. It panics
// on a built-in or duplicate name, as Register does.
func (h *Handler) RegisterRequest(op string, fn RequestFunc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if op == OpHello || h.ops[op] != nil {
		panic("agent: op " + op + " registered twice")
	}
	if h.ops == nil {
		h.ops = map[string]RequestFunc{}
	}
	h.ops[op] = fn
}

// OnClose adds fn to what Close runs (and Serve, when it ends): the ops
// close what they keep open across requests, such as the host backends.
func (h *Handler) OnClose(fn func() error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closers = append(h.closers, fn)
}

// Ops lists every op served, sorted.
func (h *Handler) Ops() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Sorted(func(yield func(string) bool) {
		if !yield(OpHello) {
			return
		}
		for o := range maps.Keys(h.ops) {
			if !yield(o) {
				return
			}
		}
	})
}

// Close runs what the ops registered with OnClose, joining their errors.
func (h *Handler) Close() error {
	h.mu.Lock()
	closers := slices.Clone(h.closers)
	h.mu.Unlock()
	var errs []error
	for _, c := range closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// Serve reads requests from r until EOF and writes one reply line per
// request to w. It returns the number of replies that were not OK. A
// request that is not JSON, or that grows past MaxRequestBytes, ends the
// stream (the reader cannot resync): it is answered with ErrorBadRequest
// and nothing after it is read — of an oversized one, no more than
// MaxRequestBytes.
func (h *Handler) Serve(ctx context.Context, r io.Reader, w io.Writer) (failed int, err error) {
	defer func() { err = errors.Join(err, h.Close()) }()
	in := &budgetReader{r: r}
	dec := json.NewDecoder(in)
	dec.DisallowUnknownFields()
	enc := json.NewEncoder(w)
	for n := 1; ; n++ {
		in.limit = dec.InputOffset() + MaxRequestBytes
		var req Request
		derr := dec.Decode(&req)
		if errors.Is(derr, io.EOF) {
			return failed, nil
		}
		var rep Reply
		switch {
		case errors.Is(derr, errTooLarge):
			// Nothing of it is trusted, not even the id.
			rep = Fail(Request{}, ErrorBadRequest, fmt.Errorf("reading request %d: longer than the agent's limit of %d bytes (%d MiB); the rest of the input is not read",
				n, MaxRequestBytes, MaxRequestBytes>>20))
		case derr != nil:
			rep = Fail(echoable(req), ErrorBadRequest, fmt.Errorf("decoding request %d: %w", n, clipErr(derr)))
		default:
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

// errTooLarge ends a request that grew past MaxRequestBytes.
var errTooLarge = errors.New("request too large")

// budgetReader hands out no byte beyond offset limit of its input (the
// decoder's start of the current request plus MaxRequestBytes): past it,
// it fails with errTooLarge, so a request never costs more memory than its
// budget, however long the line is.
type budgetReader struct {
	r     io.Reader
	read  int64 // bytes handed out
	limit int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	room := b.limit - b.read
	if room <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

// echoable is req with an id or op longer than MaxNameBytes left out: a
// reply never echoes more.
func echoable(req Request) Request {
	if len(req.ID) > MaxNameBytes {
		req.ID = ""
	}
	if len(req.Op) > MaxNameBytes {
		req.Op = ""
	}
	return req
}

// OK is the successful reply to req, for an op to fill in.
func OK(req Request) Reply {
	return Reply{APIVersion: fabric.APIVersion, Protocol: Protocol, ID: req.ID, Op: req.Op, OK: true}
}

// Fail is the failed reply to req: err's message, of kind (Error*); an
// error of several lines (errors.Join) keeps each line in Details.
func Fail(req Request, kind string, err error) Reply {
	r := OK(req)
	r.OK = false
	r.Error = &Error{Kind: kind, Message: err.Error()}
	if lines := strings.Split(err.Error(), "\n"); len(lines) > 1 {
		r.Error.Message = fmt.Sprintf("%d errors", len(lines))
		r.Error.Details = lines
	}
	return r
}

// Handle answers one request. An id or op longer than MaxNameBytes is
// refused (ErrorBadRequest) and not echoed.
func (h *Handler) Handle(ctx context.Context, req Request) Reply {
	if e := echoable(req); e.ID != req.ID || e.Op != req.Op {
		n := max(len(req.ID), len(req.Op))
		what := "id"
		if len(req.Op) == n {
			what = "op"
		}
		return Fail(e, ErrorBadRequest, fmt.Errorf("the request's %s is %d bytes, longer than %d", what, n, MaxNameBytes))
	}
	if req.APIVersion != fabric.APIVersion {
		return Fail(req, ErrorProtocol, fmt.Errorf("apiVersion %s is not %q", Clip(req.APIVersion), fabric.APIVersion))
	}
	if req.Protocol < MinProtocol || req.Protocol > Protocol {
		return Fail(req, ErrorProtocol, fmt.Errorf("this agent speaks protocol %d..%d, the request protocol %d; deliver a matching fabricctl",
			MinProtocol, Protocol, req.Protocol))
	}
	if req.Op == OpHello {
		return h.hello(req)
	}
	h.mu.Lock()
	fn := h.ops[req.Op]
	h.mu.Unlock()
	if fn == nil {
		return Fail(req, ErrorBadRequest, fmt.Errorf("unknown op %s (this agent serves %s)", Clip(req.Op), strings.Join(h.Ops(), ", ")))
	}
	return fn(ctx, req)
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
	r := OK(req)
	r.Hello = &info
	return r
}
