package sonic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// fakeSONiC is a scripted stand-in for a SONiC shell: a running CONFIG_DB,
// checkpoints, files written by here-documents and the generic config
// updater's commands. The real simulator lives in switchcfg/sim.
type fakeSONiC struct {
	running     ConfigDB
	checkpoints map[string][]byte
	files       map[string]string
	log         []string
	fail        map[string]error // by command prefix
}

func newFakeSONiC(t *testing.T) *fakeSONiC {
	return &fakeSONiC{running: defaultDB(t), checkpoints: map[string][]byte{}, files: map[string]string{}, fail: map[string]error{}}
}

func (f *fakeSONiC) Send(ctx context.Context, cmd string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	f.log = append(f.log, cmd)
	for prefix, err := range f.fail {
		if strings.HasPrefix(cmd, prefix) {
			return "", err
		}
	}
	fields := strings.Fields(cmd)
	switch {
	case cmd == CmdRunningConfig:
		return string(f.running.JSON()), nil
	case strings.HasPrefix(cmd, "sudo config checkpoint "):
		f.checkpoints[fields[3]] = f.running.JSON()
	case strings.HasPrefix(cmd, "cat > "):
		head, body, _ := strings.Cut(cmd, "\n")
		body = strings.TrimSuffix(body, "\n"+heredocEnd)
		f.files[strings.Fields(head)[2]] = body
	case strings.HasPrefix(cmd, "sudo config apply-patch "):
		var ops []PatchOp
		if err := json.Unmarshal([]byte(f.files[fields[len(fields)-1]]), &ops); err != nil {
			return "Failed to apply patch: " + err.Error(), nil
		}
		target := f.running
		if fields[3] == "--dry-run" {
			target, _ = DecodeConfigDB(f.running.JSON())
		}
		if err := ApplyPatch(target, ops); err != nil {
			return "Failed to apply patch: " + err.Error(), nil
		}
		return "Patch applied successfully.", nil
	case strings.HasPrefix(cmd, "sudo config rollback "):
		saved, ok := f.checkpoints[fields[3]]
		if !ok {
			return "Error: checkpoint not found", nil
		}
		f.running, _ = DecodeConfigDB(saved)
	case cmd == "sudo config save -y":
	default:
		return "", errors.New("fake: unknown command " + cmd)
	}
	return "", nil
}

func (f *fakeSONiC) SendConfig(ctx context.Context, lines []string) (string, error) {
	return "", errors.New("fake: SONiC has no configuration mode")
}

func (f *fakeSONiC) Close() error { return nil }

func (f *fakeSONiC) sent(prefix string) bool {
	for _, l := range f.log {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

func renderLab(t *testing.T) switchcfg.Config {
	t.Helper()
	cfg, err := New().Render(labSwitch(t))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestPushObservePushAgain(t *testing.T) {
	ctx := context.Background()
	d, f := New(), newFakeSONiC(t)
	opt := switchcfg.PushOptions{CheckpointName: "fabricctl-test"}
	res, err := d.Push(ctx, f, renderLab(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || !res.Committed || !strings.Contains(res.Diff, "/DSCP_TO_TC_MAP/FABRICCTL") {
		t.Fatalf("first push %+v", res)
	}
	for _, want := range []string{"sudo config checkpoint fabricctl-test", "cat > /tmp/fabricctl-test.json-patch <<'FABRICCTL_PATCH'\n",
		"sudo config apply-patch --dry-run /tmp/fabricctl-test.json-patch", "sudo config apply-patch /tmp/fabricctl-test.json-patch", "sudo config save -y"} {
		if !f.sent(want) {
			t.Errorf("not sent: %q", want)
		}
	}
	got, err := switchcfg.Observe(ctx, f, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diffs := (switchcfg.CompareOptions{Ports: true}).Compare(labSwitch(t), got); len(diffs) != 0 {
		t.Fatalf("drift after push: %v", diffs)
	}

	f.log = nil
	res, err = d.Push(ctx, f, renderLab(t), opt)
	if err != nil || res.Changed || res.Committed {
		t.Fatalf("second push %+v %v", res, err)
	}
	if len(f.log) != 1 || f.log[0] != CmdRunningConfig {
		t.Fatalf("an unchanged switch gets only the read: %q", f.log)
	}
}

func TestPushDryRunTakesNoCheckpoint(t *testing.T) {
	d, f := New(), newFakeSONiC(t)
	before := string(f.running.JSON())
	res, err := d.Push(context.Background(), f, renderLab(t), switchcfg.PushOptions{DryRun: true})
	if err != nil || !res.Changed || res.Committed {
		t.Fatalf("%+v %v", res, err)
	}
	if f.sent("sudo config checkpoint") || !f.sent("sudo config apply-patch --dry-run") || string(f.running.JSON()) != before {
		t.Fatalf("log %q", f.log)
	}
}

func TestPushFailuresRestoreTheRunningConfig(t *testing.T) {
	cases := map[string]struct {
		failPrefix string
		step       string
		rolledBack bool
		rollback   bool // a rollback command was needed
	}{
		"checkpoint fails": {"sudo config checkpoint", "checkpointing", true, false},
		"dry run fails":    {"sudo config apply-patch --dry-run", "diffing", true, false},
		"apply fails":      {"sudo config apply-patch /tmp", "committing", true, true},
		"save fails":       {"sudo config save", "saving", true, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d, f := New(), newFakeSONiC(t)
			before := string(f.running.JSON())
			f.fail[tc.failPrefix] = errors.New("Failed to apply patch due to: connection lost")
			_, err := d.Push(context.Background(), f, renderLab(t), switchcfg.PushOptions{CheckpointName: "cp1"})
			var pe *switchcfg.PushError
			if !errors.As(err, &pe) || pe.Step != tc.step || pe.RolledBack != tc.rolledBack || !strings.HasPrefix(pe.Line, tc.failPrefix) {
				t.Fatalf("got %#v (%v)", pe, err)
			}
			if f.sent("sudo config rollback cp1") != tc.rollback {
				t.Errorf("rollback sent: %v, want %v (%q)", !tc.rollback, tc.rollback, f.log)
			}
			if string(f.running.JSON()) != before {
				t.Error("running configuration changed")
			}
		})
	}
}

func TestPushApplyRejectedByTheSwitchRollsBack(t *testing.T) {
	d, f := New(), newFakeSONiC(t)
	before := string(f.running.JSON())
	// The switch applies part of the patch, then reports failure.
	wrapped := &partialApply{fakeSONiC: f}
	_, err := d.Push(context.Background(), wrapped, renderLab(t), switchcfg.PushOptions{CheckpointName: "cp2"})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "committing" || !pe.RolledBack || !strings.Contains(err.Error(), "Failed to apply patch") {
		t.Fatalf("got %v", err)
	}
	if string(f.running.JSON()) != before {
		t.Error("running configuration not restored")
	}
}

// partialApply changes the running config and then fails, as a patch that
// breaks half-way does.
type partialApply struct{ *fakeSONiC }

func (p *partialApply) Send(ctx context.Context, cmd string) (string, error) {
	if strings.HasPrefix(cmd, "sudo config apply-patch /tmp") {
		p.log = append(p.log, cmd)
		p.running.set(tPort, "Ethernet0", "mtu", "1500")
		return "Failed to apply patch due to: YANG validation failed", nil
	}
	return p.fakeSONiC.Send(ctx, cmd)
}

func TestPushRefusesBeforeTouching(t *testing.T) {
	d, f := New(), newFakeSONiC(t)
	if _, err := d.Push(context.Background(), f, switchcfg.Config{Platform: "cumulus-nvue", Text: "nv set x"}, switchcfg.PushOptions{}); err == nil {
		t.Error("foreign config accepted")
	}
	if _, err := d.Push(context.Background(), f, switchcfg.Config{Platform: Platform, Text: "not json"}, switchcfg.PushOptions{}); err == nil {
		t.Error("bad JSON accepted")
	}
	delete(f.running[tPort], "Ethernet8")
	_, err := d.Push(context.Background(), f, renderLab(t), switchcfg.PushOptions{})
	if err == nil || !strings.Contains(err.Error(), "Ethernet8") {
		t.Errorf("missing port: %v", err)
	}
	for _, l := range f.log {
		if l != CmdRunningConfig {
			t.Errorf("touched the switch: %q", l)
		}
	}
}

// TestSimulated runs the driver against the SONiC simulator over SSH.
func TestSimulated(t *testing.T) {
	drivertest.RunSimulated(t, New(), drivertest.Simulated{
		DriftEdit: func(t *testing.T, sw *drivertest.Simulator, _ switchcfg.Config) string {
			var db map[string]map[string]map[string]any
			if err := json.Unmarshal([]byte(sw.Running()), &db); err != nil {
				t.Fatal(err)
			}
			var ops []string
			for name := range db["WRED_PROFILE"] {
				ops = append(ops, fmt.Sprintf(`{"op": "replace", "path": "/WRED_PROFILE/%s/green_drop_probability", "value": "50"}`, name))
			}
			if len(ops) == 0 {
				t.Fatal("the push created no WRED_PROFILE")
			}
			sw.MustApply(t, "["+strings.Join(ops, ",")+"]")
			return "classes[roce].ecn.maxMarkProbability"
		},
		CommitWords: []string{"config checkpoint", "apply-patch /tmp", "config save"},
		// The rendering is a CONFIG_DB document; the push's middle is the
		// apply-patch after the checkpoint, the here-document and the dry run.
		MiddleLine: func(_ switchcfg.Config, checkpoint string) string {
			return "sudo config apply-patch /tmp/" + checkpoint + ".json-patch"
		},
	})
}

// lossy is a session to a fakeSONiC whose connection dies right after the
// switch ran the command lose (its reply is lost); every later command on
// it fails, as on a dead SSH session.
type lossy struct {
	*fakeSONiC
	lose string
	dead bool
	sent []string
}

func (l *lossy) Send(ctx context.Context, cmd string) (string, error) {
	if l.dead {
		return "", fmt.Errorf("sending %q: session closed", cmd)
	}
	l.sent = append(l.sent, cmd)
	out, err := l.fakeSONiC.Send(ctx, cmd)
	if l.lose != "" && strings.HasPrefix(cmd, l.lose) {
		l.dead = true
		return "", fmt.Errorf("sending %q: connection lost", cmd)
	}
	return out, err
}

// TestPushApplyPatchReplyLost is issue 13's case: apply-patch ran, its reply
// was lost. The rollback goes over a new session, not the dead one, and the
// switch is read back before the push says it rolled back.
func TestPushApplyPatchReplyLost(t *testing.T) {
	f := newFakeSONiC(t)
	before := string(f.running.JSON())
	dead := &lossy{fakeSONiC: f, lose: "sudo config apply-patch /tmp"}
	fresh := &lossy{fakeSONiC: f}
	res, err := New().Push(context.Background(), dead, renderLab(t), switchcfg.PushOptions{CheckpointName: "cp3",
		Reconnect: func(context.Context) (switchcfg.Session, error) { return fresh, nil }})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "committing" || !pe.RolledBack || !res.RolledBack {
		t.Fatalf("got %v", err)
	}
	if got := fmt.Sprint(fresh.sent); got != "[sudo config rollback cp3 "+CmdRunningConfig+"]" {
		t.Errorf("new session got %s, want the rollback then the read-back", got)
	}
	if string(f.running.JSON()) != before {
		t.Error("running configuration not restored")
	}

	// Without a way to reconnect the error says the rollback did not happen
	// and how to run it.
	f = newFakeSONiC(t)
	dead = &lossy{fakeSONiC: f, lose: "sudo config apply-patch /tmp"}
	_, err = New().Push(context.Background(), dead, renderLab(t), switchcfg.PushOptions{CheckpointName: "cp4"})
	if !errors.As(err, &pe) || pe.RolledBack || !strings.Contains(err.Error(), `run "sudo config rollback cp4" on the switch`) {
		t.Fatalf("got %v", err)
	}
}
