package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
	"github.com/fabricctl/fabricctl/switchcfg/session"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
	"github.com/fabricctl/fabricctl/switchcfg/sim/simtest"
)

// replayOutcome is what a recorded push-then-observe produced.
type replayOutcome struct {
	push  switchcfg.PushResult
	drift []switchcfg.Diff
}

// pushThenObserve runs the driver's Push and Observe on one session.
func pushThenObserve(t *testing.T, d switchcfg.Driver, s switchcfg.Session, cfg switchcfg.Config, in fabric.SwitchIntent) replayOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := d.Push(ctx, s, cfg, switchcfg.PushOptions{CheckpointName: "fabricctl-replay", ConfirmTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	got, err := switchcfg.Observe(ctx, s, d, nil)
	if err != nil {
		t.Fatalf("observe: %v", err)
	}
	return replayOutcome{push: res, drift: switchcfg.CompareFor(d, in, got)}
}

// TestDriverReplay replays, for every driver, a recorded transcript of a full
// push followed by an observe (testdata/replay/<platform>.transcript, recorded
// from the simulator with -update) through scrapligo's file transport, with
// no network: the driver must send the recorded commands, see a committed
// change and find no drift. A driver that changes what it sends fails here
// until the transcript is re-recorded.
func TestDriverReplay(t *testing.T) {
	reg := all.Registry()
	for _, platform := range reg.Names() {
		t.Run(platform, func(t *testing.T) {
			drv, _ := reg.Driver(platform)
			in := drivertest.LabIntent(drv.Info())
			cfg, err := drv.Render(in)
			if err != nil {
				t.Fatal(err)
			}
			transcript := filepath.Join("testdata", "replay", platform+".transcript")
			commandsFile := filepath.Join("testdata", "replay", platform+".commands")
			if *testutil.Update {
				record(t, platform, drv, cfg, in, transcript, commandsFile)
			}
			want, err := os.ReadFile(commandsFile)
			if err != nil {
				t.Fatalf("reading recorded commands (record with -update): %v", err)
			}
			r, err := session.Replay(context.Background(), platform, drv.Info().Session, transcript, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			out := pushThenObserve(t, drv, r, cfg, in)
			if got := strings.Join(r.History(), "\n---\n") + "\n"; got != string(want) {
				t.Fatalf("the driver sent other commands than recorded (re-record with -update):\n%s", got)
			}
			if !out.push.Changed || !out.push.Committed || len(out.drift) != 0 {
				t.Fatalf("replayed push %+v, drift %v", out.push, out.drift)
			}
		})
	}
}

// record runs the push against a simulator, saving the transcript and the
// commands sent.
func record(t *testing.T, platform string, drv switchcfg.Driver, cfg switchcfg.Config, in fabric.SwitchIntent, transcript, commandsFile string) {
	t.Helper()
	sw := simtest.Start(t, sim.Options{Platform: platform, Now: func() time.Time {
		return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	}})
	rec := &session.Recorder{}
	opt := sw.Options()
	opt.Record = rec
	c := sw.DialWith(t, opt)
	out := pushThenObserve(t, drv, c, cfg, in)
	if !out.push.Committed || len(out.drift) != 0 {
		t.Fatalf("recording: push %+v, drift %v", out.push, out.drift)
	}
	_ = c.Close()
	if err := os.MkdirAll(filepath.Dir(transcript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := rec.WriteFile(transcript); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(commandsFile, []byte(strings.Join(c.History(), "\n---\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
