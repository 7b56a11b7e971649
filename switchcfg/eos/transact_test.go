package eos

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
	"github.com/fabricctl/fabricctl/switchcfg/internal/scripted"
)

// fakeEOS is the scripted Session shared by the driver tests.
type fakeEOS = scripted.Session

const (
	testSession = "fabricctl-test"
	someDiff    = "--- system:/running-config\n+++ session:/fabricctl-test-session-config\n@@ -1,3 +1,4 @@\n hostname leaf\n+qos map dscp 26 to traffic-class 3\n"
)

func pushCase(t *testing.T, f *fakeEOS, o switchcfg.PushOptions) (switchcfg.PushResult, error, []string) {
	t.Helper()
	cfg, err := New().Render(recipe())
	if err != nil {
		t.Fatal(err)
	}
	o.CheckpointName = testSession
	res, err := New().Push(context.Background(), f, cfg, o)
	return res, err, cfg.Lines()
}

func TestPushCommits(t *testing.T) {
	f := &fakeEOS{Replies: map[string]string{"show session-config diffs": someDiff}}
	res, err, lines := pushCase(t, f, switchcfg.PushOptions{ConfirmTimeout: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"configure session " + testSession}, lines...)
	want = append(want, "show session-config diffs", "commit timer 00:01:30", "configure session "+testSession+" commit", "copy running-config startup-config")
	if !slices.Equal(f.Sent, want) {
		t.Errorf("sent\n%s\nwant\n%s", strings.Join(f.Sent, "\n"), strings.Join(want, "\n"))
	}
	if !res.Changed || !res.Committed || res.RolledBack || !strings.Contains(res.Diff, "+qos map dscp 26") {
		t.Errorf("result %+v", res)
	}
}

func TestPushNoDiffAborts(t *testing.T) {
	f := &fakeEOS{Replies: map[string]string{"show session-config diffs": "--- system:/running-config\n+++ session:/x\n"}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || res.Committed || res.Diff != "" {
		t.Errorf("result %+v, want no change", res)
	}
	if last := f.Sent[len(f.Sent)-1]; last != "abort" || slices.ContainsFunc(f.Sent, func(s string) bool { return strings.HasPrefix(s, "commit") }) {
		t.Errorf("sent %q, want the session aborted and nothing committed", f.Sent)
	}
}

func TestPushDryRun(t *testing.T) {
	f := &fakeEOS{Replies: map[string]string{"show session-config diffs": someDiff}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Committed || res.Diff == "" || f.Sent[len(f.Sent)-1] != "abort" {
		t.Errorf("result %+v, sent %q", res, f.Sent)
	}
}

func TestPushRejectedLineAborts(t *testing.T) {
	bad := "   priority-flow-control priority 3 no-drop"
	f := &fakeEOS{Rejects: map[string]string{bad: "% Invalid input (at token 1: 'priority-flow-control')"}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || !errors.Is(err, switchcfg.ErrPushFailed) {
		t.Fatalf("error %v, want a PushError", err)
	}
	if pe.Line != bad || pe.Step != "loading" || !pe.RolledBack || !res.RolledBack {
		t.Errorf("PushError %+v, result %+v", pe, res)
	}
	if !strings.Contains(err.Error(), "% Invalid input") {
		t.Errorf("error %q lacks the device message", err)
	}
	if got := f.Sent[len(f.Sent)-2:]; got[0] != bad || got[1] != "abort" {
		t.Errorf("last commands %q, want the bad line then abort", got)
	}
}

func TestPushConnectionDrop(t *testing.T) {
	f := &fakeEOS{Drops: map[string]bool{"show session-config diffs": true}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "diffing" || pe.RolledBack || res.RolledBack || res.Committed {
		t.Fatalf("error %v (%+v), result %+v", err, pe, res)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "rollback not confirmed") {
		t.Errorf("error %q", err)
	}
}

func TestPushCommitRefused(t *testing.T) {
	f := &fakeEOS{Replies: map[string]string{"show session-config diffs": someDiff},
		Rejects: map[string]string{"commit timer 00:02:00": "% Cannot commit: session has conflicting changes"}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "committing" || !pe.RolledBack || res.Committed {
		t.Fatalf("error %v, result %+v", err, res)
	}
	if f.Sent[len(f.Sent)-1] != "abort" {
		t.Errorf("sent %q, want abort last", f.Sent)
	}
}

func TestPushConfirmLost(t *testing.T) {
	f := &fakeEOS{Replies: map[string]string{"show session-config diffs": someDiff},
		Drops: map[string]bool{"configure session " + testSession + " commit": true}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "confirming" || pe.RolledBack || res.Committed {
		t.Fatalf("error %v, result %+v", err, res)
	}
	// The confirm may have run before the connection dropped: without a
	// way to ask the switch, the error must not promise the timer's rollback.
	if !pe.Unknown || pe.ConfirmPending || !strings.Contains(err.Error(), "outcome unknown") || strings.Contains(err.Error(), "rolls the change back") {
		t.Errorf("error %q must say the outcome is unknown and promise nothing", err)
	}
}

func TestPushSaveFails(t *testing.T) {
	f := &fakeEOS{Replies: map[string]string{"show session-config diffs": someDiff},
		Rejects: map[string]string{"copy running-config startup-config": "% Error copying system:/running-config to flash:/startup-config (No space left on device)"}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "saving" || pe.RolledBack || res.Committed || !res.Changed {
		t.Fatalf("error %v, result %+v", err, res)
	}
	if !strings.Contains(err.Error(), "not saved") {
		t.Errorf("error %q does not say the change runs unsaved", err)
	}
}

func TestHHMMSS(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "00:00:01", 90 * time.Second: "00:01:30", 2*time.Hour + 3*time.Second: "02:00:03"} {
		if got := hhmmss(d); got != want {
			t.Errorf("hhmmss(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestSimulated runs the driver against the EOS simulator over SSH.
func TestSimulated(t *testing.T) {
	drivertest.RunSimulated(t, New(), drivertest.Simulated{
		DriftEdit: func(t *testing.T, sw *drivertest.Simulator, cfg switchcfg.Config) string {
			sw.MustApply(t, drivertest.Rewrite(t, cfg, `max-mark-probability 100`, `max-mark-probability 50`)...)
			return "classes[roce].ecn.maxMarkProbability"
		},
		CommitWords:    []string{"commit"},
		ConfirmCommand: func(session string) string { return "configure session " + session + " commit" },
	})
}

// TestPushConfirmLostRecoversOnNewSession: the confirm's reply is lost;
// on a new session the session still waits for its timer, so Push confirms
// it again and saves.
func TestPushConfirmLostRecoversOnNewSession(t *testing.T) {
	confirm := "configure session " + testSession + " commit"
	f := &fakeEOS{Replies: map[string]string{"show session-config diffs": someDiff}, Drops: map[string]bool{confirm: true}}
	again := &fakeEOS{Replies: map[string]string{"show configuration sessions": "  Name  State  User\n  ----  -----  ----\n  " +
		testSession + "   pendingCommitTimer   admin\n"}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{
		Reconnect: func(context.Context) (switchcfg.Session, error) { return again, nil }})
	if err != nil || !res.Committed {
		t.Fatalf("push: %+v %v", res, err)
	}
	if want := []string{"show configuration sessions", confirm, "copy running-config startup-config"}; !slices.Equal(again.Sent, want) {
		t.Errorf("new session got %q, want %q", again.Sent, want)
	}
}

// TestPushVerifyFailureAbortsTheTimer: a read-back that differs after the
// commit timer aborts the session, which rolls the commit back now.
func TestPushVerifyFailureAbortsTheTimer(t *testing.T) {
	f := &fakeEOS{Replies: map[string]string{"show session-config diffs": someDiff}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{Verify: func(context.Context, switchcfg.Session) error {
		return errors.New("read-back differs")
	}})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "verifying" || !pe.RolledBack || res.Committed {
		t.Fatalf("error %v, result %+v", err, res)
	}
	if last := f.Sent[len(f.Sent)-1]; last != "configure session "+testSession+" abort" {
		t.Errorf("sent %q, want the timer's session aborted last", f.Sent)
	}
}
