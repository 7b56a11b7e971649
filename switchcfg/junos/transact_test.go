package junos

import (
	"context"
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
	"github.com/fabricctl/fabricctl/switchcfg/internal/scripted"
)

// fakeJunos is the scripted Session shared by the driver tests.
type fakeJunos = scripted.Session

const someCompare = "[edit class-of-service forwarding-classes]\n+    class roce queue-num 3 no-loss pfc-priority 3;\n"

func committing(extra map[string]string) map[string]string {
	r := map[string]string{
		"show | compare":     someCompare,
		"commit confirmed 2": "configuration check succeeds\ncommit confirmed will be automatically rolled back in 2 minutes unless confirmed\ncommit complete",
		"commit":             "commit complete",
		"configure private":  "warning: uncommitted changes will be discarded on exit\nEntering configuration mode",
		"rollback 0":         "load complete",
	}
	for k, v := range extra {
		r[k] = v
	}
	return r
}

func pushCase(t *testing.T, f *fakeJunos, o switchcfg.PushOptions) (switchcfg.PushResult, error, []string) {
	t.Helper()
	cfg, err := New().Render(recipe())
	if err != nil {
		t.Fatal(err)
	}
	res, err := New().Push(context.Background(), f, cfg, o)
	return res, err, cfg.Lines()
}

func TestPushCommitsConfirmed(t *testing.T) {
	f := &fakeJunos{Replies: committing(nil)}
	res, err, lines := pushCase(t, f, switchcfg.PushOptions{ConfirmTimeout: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"configure private"}, lines...)
	want = append(want, "show | compare", "commit confirmed 2", "commit", "exit")
	if !slices.Equal(f.Sent, want) {
		t.Errorf("sent\n%s\nwant\n%s", strings.Join(f.Sent, "\n"), strings.Join(want, "\n"))
	}
	if !res.Changed || !res.Committed || !strings.Contains(res.Diff, "+    class roce") {
		t.Errorf("result %+v", res)
	}
}

func TestPushNoDiffDiscards(t *testing.T) {
	f := &fakeJunos{Replies: committing(map[string]string{"show | compare": "\n"})}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || res.Committed || !slices.Equal(f.Sent[len(f.Sent)-2:], []string{"rollback 0", "exit"}) {
		t.Errorf("result %+v, sent %q", res, f.Sent)
	}
}

func TestPushDryRun(t *testing.T) {
	f := &fakeJunos{Replies: committing(nil)}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Committed || res.Diff == "" || slices.Contains(f.Sent, "commit") {
		t.Errorf("result %+v, sent %q", res, f.Sent)
	}
}

func TestPushRejectedLine(t *testing.T) {
	bad := "set class-of-service forwarding-classes class roce pfc-priority 3"
	f := &fakeJunos{Replies: committing(nil), Rejects: map[string]string{bad: "syntax error."}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || !errors.Is(err, switchcfg.ErrPushFailed) || pe.Line != bad || pe.Step != "loading" || !pe.RolledBack || !res.RolledBack {
		t.Fatalf("error %v (%+v), result %+v", err, pe, res)
	}
	if got := f.Sent[len(f.Sent)-3:]; !slices.Equal(got, []string{bad, "rollback 0", "exit"}) {
		t.Errorf("last commands %q", got)
	}
}

func TestPushCommitCheckFails(t *testing.T) {
	f := &fakeJunos{Replies: committing(map[string]string{"commit confirmed 2": "[edit class-of-service interfaces et-0/0/0]\n  'scheduler-map X'\n    Referenced scheduler map X is not defined\nerror: configuration check-out failed"})}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "committing" || !pe.RolledBack || res.Committed {
		t.Fatalf("error %v, result %+v", err, res)
	}
	if !strings.Contains(err.Error(), "check-out failed") || f.Sent[len(f.Sent)-1] != "exit" {
		t.Errorf("error %q, sent %q", err, f.Sent)
	}
}

func TestPushConfirmLost(t *testing.T) {
	f := &fakeJunos{Replies: committing(nil), Drops: map[string]bool{"commit": true}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "confirming" || pe.RolledBack || res.Committed {
		t.Fatalf("error %v, result %+v", err, res)
	}
	// The confirm may have run before the connection dropped: without a
	// way to ask the switch, the error must not promise the rollback.
	if !pe.Unknown || pe.ConfirmPending || !strings.Contains(err.Error(), "outcome unknown") || strings.Contains(err.Error(), "rolls the change back") {
		t.Errorf("error %q must say the outcome is unknown and promise nothing", err)
	}
}

// TestPushConnectionDrop: the connection drops before the commit; no commit
// was sent and the private candidate dies with its session, so the switch
// is as before.
func TestPushConnectionDrop(t *testing.T) {
	f := &fakeJunos{Replies: committing(nil), Drops: map[string]bool{"show | compare": true}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || !pe.RolledBack || !res.RolledBack || !errors.Is(err, io.ErrUnexpectedEOF) || slices.Contains(f.Sent, "commit confirmed 2") {
		t.Fatalf("error %v, result %+v", err, res)
	}
}

// TestPushConfirmLostRecoversOnNewSession: the confirm's reply is lost; on
// a new session `show system commit` still lists the confirmed commit as
// pending, so Push confirms it again.
func TestPushConfirmLostRecoversOnNewSession(t *testing.T) {
	f := &fakeJunos{Replies: committing(nil), Drops: map[string]bool{"commit": true}}
	again := &fakeJunos{Replies: committing(map[string]string{"show system commit": "0   2026-01-02 03:04:05 UTC by admin via cli commit confirmed, rollback in 2mins\n1   2026-01-02 03:00:00 UTC by root via cli\n"})}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{
		Reconnect: func(context.Context) (switchcfg.Session, error) { return again, nil }})
	if err != nil || !res.Committed {
		t.Fatalf("push: %+v %v", res, err)
	}
	if want := []string{"show system commit", "configure private", "commit", "exit"}; !slices.Equal(again.Sent, want) {
		t.Errorf("new session got %q, want %q", again.Sent, want)
	}
}

// TestPushVerifyFailureRollsBack: a read-back that differs after the
// confirmed commit commits rollback 1, which also ends the wait.
func TestPushVerifyFailureRollsBack(t *testing.T) {
	f := &fakeJunos{Replies: committing(map[string]string{"rollback 1": "load complete"})}
	var read []string
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{Verify: func(ctx context.Context, s switchcfg.Session) error {
		out, _ := s.Send(ctx, ReadbackClassOfService)
		read = append(read, out)
		return errors.New("read-back differs")
	}})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "verifying" || !pe.RolledBack || res.Committed {
		t.Fatalf("error %v, result %+v", err, res)
	}
	if got := f.Sent[len(f.Sent)-4:]; !slices.Equal(got, []string{"run " + ReadbackClassOfService, "rollback 1", "commit", "exit"}) {
		t.Errorf("last commands %q: want the read-back from configuration mode, then rollback 1 committed", got)
	}
}

func TestPushRefusesNonSetLines(t *testing.T) {
	f := &fakeJunos{}
	_, err := New().Push(context.Background(), f, switchcfg.Config{Platform: Platform, Format: "set", Text: "rollback 1\n"}, switchcfg.PushOptions{})
	if err == nil || len(f.Sent) != 0 {
		t.Fatalf("err %v, sent %q", err, f.Sent)
	}
}

// TestSimulated runs the driver against the Junos simulator over SSH.
func TestSimulated(t *testing.T) {
	drivertest.RunSimulated(t, New(), drivertest.Simulated{
		DriftEdit: func(t *testing.T, sw *drivertest.Simulator, cfg switchcfg.Config) string {
			m := regexp.MustCompile(`(?m)^set class-of-service schedulers (\S+) explicit-congestion-notification$`).FindStringSubmatch(cfg.Text)
			if m == nil {
				t.Fatal("no ECN scheduler in the rendered config")
			}
			sw.MustApply(t, "set class-of-service schedulers "+m[1]+" transmit-rate percent 40")
			return "classes[roce].bandwidthPercent"
		},
		CommitWords:    []string{"commit"},
		ConfirmCommand: func(string) string { return "commit" },
	})
}
