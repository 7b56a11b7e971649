package nxos

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
	"github.com/fabricctl/fabricctl/switchcfg/internal/scripted"
)

// fakeNXOS is the scripted Session shared by the driver tests.
type fakeNXOS = scripted.Session

const (
	testCheckpoint = "fabricctl-test"
	diffCmd        = "show diff rollback-patch checkpoint " + testCheckpoint + " running-config"
	rollbackCmd    = "rollback running-config checkpoint " + testCheckpoint
	somePatch      = "Collecting Running-Config\n#Generating Rollback Patch\n!!\ninterface Ethernet1/1\n  priority-flow-control mode on\n"
	emptyPatch     = "Collecting Running-Config\n#Generating Rollback Patch\nRollback Patch is Empty\n"
)

func pushCase(t *testing.T, f *fakeNXOS, o switchcfg.PushOptions) (switchcfg.PushResult, error, []string) {
	t.Helper()
	cfg, err := New().Render(recipe())
	if err != nil {
		t.Fatal(err)
	}
	o.CheckpointName = testCheckpoint
	res, err := New().Push(context.Background(), f, cfg, o)
	return res, err, cfg.Lines()
}

func TestPushCommitsAndSaves(t *testing.T) {
	f := &fakeNXOS{Replies: map[string]string{diffCmd: somePatch, "copy running-config startup-config": "[########################################] 100%\nCopy complete, now saving to disk (please wait)...\nCopy complete."}}
	res, err, lines := pushCase(t, f, switchcfg.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"checkpoint " + testCheckpoint, "configure terminal"}, lines...)
	want = append(want, "end", diffCmd, "copy running-config startup-config", "no checkpoint "+testCheckpoint)
	if !slices.Equal(f.Sent, want) {
		t.Errorf("sent\n%s\nwant\n%s", strings.Join(f.Sent, "\n"), strings.Join(want, "\n"))
	}
	if !res.Changed || !res.Committed || res.Diff != "interface Ethernet1/1\n  priority-flow-control mode on" {
		t.Errorf("result %+v", res)
	}
}

func TestPushNoDiff(t *testing.T) {
	f := &fakeNXOS{Replies: map[string]string{diffCmd: emptyPatch}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || res.Committed || f.Sent[len(f.Sent)-2] != diffCmd || f.Sent[len(f.Sent)-1] != "no checkpoint "+testCheckpoint {
		t.Errorf("result %+v, sent %q: want nothing saved or rolled back", res, f.Sent)
	}
}

func TestPushDryRunRollsBack(t *testing.T) {
	f := &fakeNXOS{Replies: map[string]string{diffCmd: somePatch, rollbackCmd: "Rollback completed successfully."}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Committed || res.Diff == "" || f.Sent[len(f.Sent)-2] != rollbackCmd {
		t.Errorf("result %+v, sent %q", res, f.Sent)
	}
}

func TestPushRejectedLineRollsBack(t *testing.T) {
	bad := "    pause pfc-cos 3"
	f := &fakeNXOS{Replies: map[string]string{rollbackCmd: "Rollback completed successfully."}, Rejects: map[string]string{bad: "% Invalid command at '^' marker."}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || !errors.Is(err, switchcfg.ErrPushFailed) {
		t.Fatalf("error %v, want a PushError", err)
	}
	if pe.Line != bad || pe.Step != "loading" || !pe.RolledBack || !res.RolledBack || res.Committed {
		t.Errorf("PushError %+v, result %+v", pe, res)
	}
	if got := f.Sent[len(f.Sent)-3:]; !slices.Equal(got, []string{bad, "end", rollbackCmd}) {
		t.Errorf("last commands %q, want the bad line, end, rollback", got)
	}
}

func TestPushRollbackFails(t *testing.T) {
	f := &fakeNXOS{Replies: map[string]string{diffCmd: somePatch, rollbackCmd: "Rollback failed."},
		Rejects: map[string]string{"copy running-config startup-config": "ERROR: copy failed: no space left on device"}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "saving" || pe.RolledBack || res.RolledBack {
		t.Fatalf("error %v, result %+v", err, res)
	}
	if !strings.Contains(err.Error(), "Rollback failed") || !strings.Contains(err.Error(), "no space left") || !strings.Contains(err.Error(), rollbackCmd) {
		t.Errorf("error %q should carry both failures and the rollback command", err)
	}
}

func TestPushConnectionDrop(t *testing.T) {
	f := &fakeNXOS{Drops: map[string]bool{"end": true}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.RolledBack || res.RolledBack || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error %v, result %+v", err, res)
	}
	if !strings.Contains(err.Error(), "on a new session") {
		t.Errorf("error %q does not say how to restore", err)
	}
	if pe.Checkpoint != testCheckpoint {
		t.Errorf("PushError.Checkpoint %q, want %q for a later Recover", pe.Checkpoint, testCheckpoint)
	}
}

// TestPushConnectionDropRecoversOnNewSession: with PushOptions.Reconnect the
// driver restores the checkpoint over a fresh session, checks the rollback
// patch is empty and deletes the checkpoint.
func TestPushConnectionDropRecoversOnNewSession(t *testing.T) {
	f := &fakeNXOS{Drops: map[string]bool{"end": true}}
	g := &fakeNXOS{Replies: map[string]string{rollbackCmd: "Rollback completed successfully.", diffCmd: emptyPatch}}
	dials := 0
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{Reconnect: func(context.Context) (switchcfg.Session, error) {
		dials++
		return g, nil
	}})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, switchcfg.ErrPushFailed) {
		t.Fatalf("error %v, want a PushError wrapping the drop", err)
	}
	if !pe.RolledBack || !res.RolledBack || res.Committed || pe.Line != "end" || pe.Checkpoint != testCheckpoint || dials != 1 {
		t.Errorf("PushError %+v, result %+v, %d dials", pe, res, dials)
	}
	if want := []string{rollbackCmd, diffCmd, "no checkpoint " + testCheckpoint}; !slices.Equal(g.Sent, want) {
		t.Errorf("new session got %q, want %q", g.Sent, want)
	}
	if !strings.Contains(err.Error(), "new session") {
		t.Errorf("error %q does not say the rollback went over a new session", err)
	}
}

func TestPushConnectionDropRecoveryFails(t *testing.T) {
	for name, reconnect := range map[string]func(context.Context) (switchcfg.Session, error){
		"no connection": func(context.Context) (switchcfg.Session, error) {
			return nil, errors.New("dial tcp: connection refused")
		},
		"rollback fails": func(context.Context) (switchcfg.Session, error) {
			return &fakeNXOS{Replies: map[string]string{rollbackCmd: "Rollback failed."}}, nil
		},
		"patch left": func(context.Context) (switchcfg.Session, error) {
			return &fakeNXOS{Replies: map[string]string{rollbackCmd: "Rollback completed successfully.", diffCmd: somePatch}}, nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := &fakeNXOS{Drops: map[string]bool{"end": true}}
			res, err, _ := pushCase(t, f, switchcfg.PushOptions{Reconnect: reconnect})
			var pe *switchcfg.PushError
			if !errors.As(err, &pe) || pe.RolledBack || res.RolledBack || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error %v, result %+v", err, res)
			}
			if !strings.Contains(err.Error(), rollbackCmd) || pe.Checkpoint != testCheckpoint {
				t.Errorf("error %q does not name the rollback command and checkpoint", err)
			}
		})
	}
}

// TestRecover: the switchcfg.Recoverer a caller uses with PushError.Checkpoint.
func TestRecover(t *testing.T) {
	var r switchcfg.Recoverer = New()
	g := &fakeNXOS{Replies: map[string]string{rollbackCmd: "Rollback completed successfully.", diffCmd: emptyPatch}}
	if err := r.Recover(context.Background(), g, testCheckpoint); err != nil {
		t.Fatal(err)
	}
	bad := &fakeNXOS{Replies: map[string]string{rollbackCmd: "Rollback completed successfully.", diffCmd: somePatch}}
	err := r.Recover(context.Background(), bad, testCheckpoint)
	if err == nil || !strings.Contains(err.Error(), "priority-flow-control mode on") {
		t.Errorf("a rollback that leaves a patch: %v", err)
	}
	if slices.Contains(bad.Sent, "no checkpoint "+testCheckpoint) {
		t.Error("the checkpoint was deleted although the switch does not match it")
	}
}

func TestPushCheckpointRefused(t *testing.T) {
	f := &fakeNXOS{Rejects: map[string]string{"checkpoint " + testCheckpoint: "ERROR: Checkpoint name already in use"}}
	res, err, _ := pushCase(t, f, switchcfg.PushOptions{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "checkpointing" || !pe.RolledBack || len(f.Sent) != 1 || res.Changed {
		t.Fatalf("error %v, sent %q", err, f.Sent)
	}
}

// TestSimulated runs the driver against the NX-OS simulator over SSH,
// including the recovery from a checkpoint after a dropped connection.
func TestSimulated(t *testing.T) {
	drivertest.RunSimulated(t, New(), drivertest.Simulated{
		DriftEdit: func(t *testing.T, sw *drivertest.Simulator, cfg switchcfg.Config) string {
			sw.MustApply(t, drivertest.Rewrite(t, cfg, `drop-probability 100`, `drop-probability 50`)...)
			return "classes[roce].ecn.maxMarkProbability"
		},
		CommitWords:     []string{"copy running-config"},
		ListCheckpoints: "show checkpoint summary",
	})
}
