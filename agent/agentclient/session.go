package agentclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/fabric"
)

// Agent runs one `fabricctl agent` process on a host: the process reads
// stdin until EOF and writes one reply line per request to stdout. Exec
// returns when the process has ended; cancelling ctx ends it.
type Agent interface {
	Exec(ctx context.Context, stdin io.Reader, stdout io.Writer) error
}

// Local serves the agent protocol in this process through h: the agent of
// unit tests and of `fabricctl check` on the local host.
type Local struct{ Handler *agent.Handler }

// Exec serves stdin through the handler.
func (l Local) Exec(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	_, err := l.Handler.Serve(ctx, stdin, stdout)
	return err
}

// ErrEnded: the agent process ended before it replied (errors.Is).
var ErrEnded = errors.New("agent ended without a reply")

// Request builds a request for a registered op with args encoded as JSON.
func Request(op string, args any) (agent.Request, error) {
	req := agent.Request{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: op}
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return req, fmt.Errorf("encoding the arguments of %s: %w", op, err)
		}
		req.Args = b
	}
	return req, nil
}

// Session is one running agent process.
type Session struct {
	in      *io.PipeWriter
	replies chan agent.Reply
	done    chan struct{}
	cancel  context.CancelFunc

	mu      sync.Mutex
	execErr error
	closed  bool
}

// Open starts the agent process on a. Close ends it.
func Open(ctx context.Context, a Agent) *Session {
	ctx, cancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	outR, outW := io.Pipe()
	s := &Session{in: pw, replies: make(chan agent.Reply, 16), done: make(chan struct{}), cancel: cancel}
	go func() {
		err := a.Exec(ctx, pr, outW)
		pr.CloseWithError(io.EOF)
		outW.CloseWithError(err)
		s.mu.Lock()
		s.execErr = err
		s.mu.Unlock()
	}()
	go func() {
		defer close(s.done)
		defer close(s.replies)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
		for sc.Scan() {
			var rep agent.Reply
			if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
				s.setErr(fmt.Errorf("decoding an agent reply: %w", err))
				continue
			}
			s.replies <- rep
		}
		if err := sc.Err(); err != nil {
			s.setErr(fmt.Errorf("reading agent replies: %w", err))
		}
		io.Copy(io.Discard, outR)
	}()
	return s
}

func (s *Session) setErr(err error) {
	s.mu.Lock()
	if s.execErr == nil {
		s.execErr = err
	}
	s.mu.Unlock()
}

// Send writes one request to the agent.
func (s *Session) Send(req agent.Request) error {
	b, err := encodeRequest(req.Op, req)
	if err != nil {
		return err
	}
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("sending the %s request: %w: %w", req.Op, ErrEnded, s.endErr(err))
	}
	return nil
}

// encodeRequest encodes a request, refusing one the agent would refuse
// for its size (agent.MaxRequestBytes) before it travels.
func encodeRequest(op string, req any) ([]byte, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encoding the %s request: %w", op, err)
	}
	if len(b) >= agent.MaxRequestBytes {
		return nil, fmt.Errorf("encoding the %s request: %d bytes, more than the agent's limit of %d", op, len(b), agent.MaxRequestBytes)
	}
	return b, nil
}

// SendOp builds and sends a request for op with args.
func (s *Session) SendOp(op string, args any) error {
	req, err := Request(op, args)
	if err != nil {
		return err
	}
	return s.Send(req)
}

func (s *Session) endErr(fallback error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.execErr != nil {
		return s.execErr
	}
	return fallback
}

// Recv waits for the next reply and decodes its data into out (which may be
// nil). A reply with ok=false is an error wrapping ErrAgent.
func (s *Session) Recv(ctx context.Context, out any) error {
	select {
	case rep, ok := <-s.replies:
		if !ok {
			if err := s.endErr(nil); err != nil {
				return fmt.Errorf("%w: %w", ErrEnded, err)
			}
			return ErrEnded
		}
		return decode(rep, out)
	case <-ctx.Done():
		return fmt.Errorf("waiting for the agent: %w", ctx.Err())
	}
}

func decode(rep agent.Reply, out any) error {
	if !rep.OK {
		if rep.Error == nil {
			return fmt.Errorf("%w: %s failed without a reason", ErrAgent, rep.Op)
		}
		msg := rep.Error.Message
		if len(rep.Error.Details) > 0 {
			msg = fmt.Sprint(rep.Error.Details)
		}
		return fmt.Errorf("%w: %s: %s", ErrAgent, rep.Op, msg)
	}
	if out == nil || len(rep.Data) == 0 {
		return nil
	}
	if err := json.Unmarshal(rep.Data, out); err != nil {
		return fmt.Errorf("decoding the %s reply: %w", rep.Op, err)
	}
	return nil
}

// Close ends stdin (the agent exits after its last reply) and waits for the
// process, at most until ctx is done, when it is cancelled.
func (s *Session) Close(ctx context.Context) error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		s.in.Close()
	}
	s.mu.Unlock()
	select {
	case <-s.done:
	case <-ctx.Done():
		s.cancel()
		<-s.done
	}
	s.cancel()
	return nil
}

// Call runs one request for op on a and decodes its data into out.
func Call(ctx context.Context, a Agent, op string, args, out any) error {
	s := Open(ctx, a)
	defer s.Close(context.WithoutCancel(ctx))
	if err := s.SendOp(op, args); err != nil {
		return err
	}
	s.in.Close()
	return s.Recv(ctx, out)
}
