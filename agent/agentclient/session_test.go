package agentclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/agent"
)

type dying struct{}

func (dying) Exec(_ context.Context, stdin io.Reader, _ io.Writer) error {
	return errors.New("ssh: connection lost")
}

func TestAgentThatDiesIsAnErrorNotAHang(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	err := Call(ctx, dying{}, "preflight", map[string]string{}, nil)
	if !errors.Is(err, ErrEnded) || !strings.Contains(err.Error(), "connection lost") {
		t.Errorf("err = %v, want ErrEnded with the cause", err)
	}
}

func TestRepliesInOrderAndErrors(t *testing.T) {
	h := &agent.Handler{}
	h.Register("echo", func(_ context.Context, args json.RawMessage) (any, error) {
		if string(args) == `"boom"` {
			return nil, errors.New("boom")
		}
		return string(args), nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	s := Open(ctx, Local{Handler: h})
	defer s.Close(ctx)
	for _, a := range []string{"one", "boom", "two"} {
		if err := s.SendOp("echo", a); err != nil {
			t.Fatal(err)
		}
	}
	var got string
	if err := s.Recv(ctx, &got); err != nil || got != `"one"` {
		t.Errorf("first: %q %v", got, err)
	}
	if err := s.Recv(ctx, &got); !errors.Is(err, ErrAgent) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("second: %v, want ErrAgent boom", err)
	}
	if err := s.Recv(ctx, &got); err != nil || got != `"two"` {
		t.Errorf("third: %q %v", got, err)
	}
}

// TestOversizedRequestIsNotSent: a request the agent would refuse for its
// size fails before it travels, naming the limit, and the session goes on.
func TestOversizedRequestIsNotSent(t *testing.T) {
	h := &agent.Handler{}
	h.Register("echo", func(_ context.Context, args json.RawMessage) (any, error) { return len(args), nil })
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	s := Open(ctx, Local{Handler: h})
	defer s.Close(ctx)
	if err := s.SendOp("echo", strings.Repeat("x", agent.MaxRequestBytes)); err == nil || !strings.Contains(err.Error(), "limit of 4194304") {
		t.Errorf("SendOp = %v, want the agent's limit", err)
	}
	var n int
	if err := s.SendOp("echo", "x"); err != nil {
		t.Fatal(err)
	}
	if err := s.Recv(ctx, &n); err != nil || n != 3 {
		t.Errorf("the next request: %d %v", n, err)
	}
}
