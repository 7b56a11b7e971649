package fabric

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer safe for the engine's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// With a logger (fabricctl -v), plan and apply log each target's start and
// outcome (issue 13: -v logged nothing for plan, apply and drift).
func TestEngineLogsPlanAndApply(t *testing.T) {
	var buf syncBuffer
	e := &Engine{Log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	ok := &fakeTarget{name: "leaf-01", tier: TierSwitch, want: map[string]string{"mtu": "9216"}, have: map[string]string{}}
	bad := &fakeTarget{name: "gpu-01", tier: TierHost, planErr: errors.New("connection refused")}
	targets := []Target{ok, bad}
	p := e.Plan(t.Context(), targets)
	e.Apply(t.Context(), targets, p, ApplyOptions{})
	out := buf.b.String()
	for _, want := range []string{
		`msg=planning targets=2`,
		`msg=planned target=leaf-01 tier=switch changes=1`,
		`level=WARN msg="planning failed" target=gpu-01 tier=host error="planning gpu-01: connection refused"`,
		`msg=applying tier=switch targets=1`,
		`msg="applying changes" target=leaf-01 changes=1`,
		`msg=applied target=leaf-01 tier=switch outcome=changed`,
		`msg=applied target=gpu-01 tier=host outcome=failed`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}
