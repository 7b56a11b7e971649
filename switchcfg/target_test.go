package switchcfg

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

// memDriver is a driver whose "device" is an intent in memory.
type memDriver struct {
	quantum  int64
	device   fabric.SwitchIntent
	failPush bool
	pushes   int
}

func (d *memDriver) Info() Info                                  { return Info{Name: "mem", ThresholdQuantum: d.quantum} }
func (d *memDriver) CheckPort(string) error                      { return nil }
func (d *memDriver) ReadbackCommands() []string                  { return nil }
func (d *memDriver) Parse(Readback) (fabric.SwitchIntent, error) { return d.device, nil }
func (d *memDriver) ParsePorts(Readback, []string) (fabric.SwitchIntent, error) {
	return d.device, nil
}
func (d *memDriver) Render(i fabric.SwitchIntent) (Config, error) {
	return Config{Platform: "mem", Format: "commands", Text: "mtu"}, nil
}
func (d *memDriver) Push(_ context.Context, _ Session, _ Config, _ PushOptions) (PushResult, error) {
	d.pushes++
	if d.failPush {
		return PushResult{RolledBack: true}, &PushError{Platform: "mem", Step: "committing", Line: "mtu 9216", RolledBack: true, Err: errors.New("% Invalid input")}
	}
	return PushResult{Changed: true, Committed: true}, nil
}

type nopSession struct{}

func (nopSession) Send(context.Context, string) (string, error)         { return "", nil }
func (nopSession) SendConfig(context.Context, []string) (string, error) { return "", nil }
func (nopSession) Close() error                                         { return nil }

func TestTargetPlanApply(t *testing.T) {
	want := fabric.SwitchIntent{Name: "leaf-01", MTU: 9216, Trust: "dscp", PFC: fabric.SwitchPFC{Priorities: []int{3}}}
	d := &memDriver{device: fabric.SwitchIntent{MTU: 1500, Trust: "dscp", PFC: fabric.SwitchPFC{Priorities: []int{}}}}
	tg := &Target{Intent: want, Driver: d, Connect: func(context.Context) (Session, error) { return nopSession{}, nil }}
	changes, err := tg.Plan(context.Background())
	if err != nil || len(changes) < 2 {
		t.Fatalf("plan: %v %+v", err, changes)
	}
	disruptive := false
	for _, c := range changes {
		disruptive = disruptive || (c.Setting == "pfc.priorities" && c.Disruptive)
	}
	if !disruptive {
		t.Errorf("a PFC change is not marked disruptive: %+v", changes)
	}
	d.failPush = true
	_, err = tg.Apply(context.Background(), changes)
	if !errors.Is(err, fabric.ErrRolledBack) || FailedLine(err) == "" && !errors.Is(err, ErrPushFailed) {
		t.Fatalf("a rolled-back push must wrap fabric.ErrRolledBack and ErrPushFailed: %v", err)
	}
	d.failPush = false
	remaining, err := tg.Apply(context.Background(), changes)
	if err != nil || len(remaining) == 0 {
		t.Fatalf("the in-memory device did not change, so verify must report remaining changes: %v %+v", err, remaining)
	}
	d.device = want
	if remaining, _ := tg.Apply(context.Background(), changes); len(remaining) != 0 {
		t.Errorf("converged device still has changes: %+v", remaining)
	}
}

// TestTargetComparesWithinThePlatformQuantum: a target tolerates what its
// driver's Info says the platform rounds thresholds to, and no more.
func TestTargetComparesWithinThePlatformQuantum(t *testing.T) {
	ecn := func(min, max int64) fabric.SwitchIntent {
		return fabric.SwitchIntent{Name: "leaf-01", Trust: "dscp", PFC: fabric.SwitchPFC{Priorities: []int{}},
			Classes: []fabric.SwitchClass{{Name: "roce", Priority: 3, TrafficClass: 3, Queue: 3,
				ECN: &fabric.SwitchECN{MinBytes: min, MaxBytes: max, MaxMarkProbability: 100}}}}
	}
	connect := func(context.Context) (Session, error) { return nopSession{}, nil }
	for quantum, want := range map[int64]int{12288: 0, 0: 2} {
		tg := &Target{Intent: ecn(10000, 20000), Driver: &memDriver{quantum: quantum, device: ecn(12288, 24576)}, Connect: connect}
		changes, err := tg.Plan(context.Background())
		if err != nil || len(changes) != want {
			t.Errorf("quantum %d: %d changes %+v (%v), want %d", quantum, len(changes), changes, err, want)
		}
	}
}

// verifyingDriver commits what it is told except that the device programs
// MTU 9100 instead of 9216 (a value the NOS normalises), then runs
// PushOptions.Verify like a real driver and restores its pre-image when
// the read-back differs.
type verifyingDriver struct {
	memDriver
	restore  bool // restoring works
	verified int
}

func (d *verifyingDriver) Push(ctx context.Context, s Session, _ Config, opt PushOptions) (PushResult, error) {
	pre := d.device
	d.device = fabric.SwitchIntent{MTU: 9100, Trust: "dscp", PFC: fabric.SwitchPFC{Priorities: []int{3}}}
	if opt.Verify == nil {
		return PushResult{Changed: true, Committed: true}, nil
	}
	d.verified++
	if err := opt.Verify(ctx, s); err != nil {
		if d.restore {
			d.device = pre
		}
		return PushResult{Changed: true, RolledBack: d.restore}, &PushError{Platform: "mem", Step: "verifying", RolledBack: d.restore, Err: err}
	}
	return PushResult{Changed: true, Committed: true}, nil
}

// TestTargetVerifyFailureRollsBack: a read-back that differs from the
// intent after the commit makes the driver restore the pre-image, and the
// target reports the outcome it read back: rolled back (the switch is as
// before), with every planned change still outstanding.
func TestTargetVerifyFailureRollsBack(t *testing.T) {
	want := fabric.SwitchIntent{Name: "leaf-01", MTU: 9216, Trust: "dscp", PFC: fabric.SwitchPFC{Priorities: []int{3}}}
	before := fabric.SwitchIntent{MTU: 1500, Trust: "dscp", PFC: fabric.SwitchPFC{Priorities: []int{}}}
	connect := func(context.Context) (Session, error) { return nopSession{}, nil }

	d := &verifyingDriver{memDriver: memDriver{device: before}, restore: true}
	tg := &Target{Intent: want, Driver: d, Connect: connect}
	changes, _ := tg.Plan(context.Background())
	remaining, err := tg.Apply(context.Background(), changes)
	if d.verified != 1 {
		t.Fatalf("the target gave the driver no Verify (verified %d times)", d.verified)
	}
	var pe *PushError
	if !errors.As(err, &pe) || pe.Step != "verifying" || !errors.Is(err, fabric.ErrRolledBack) {
		t.Fatalf("want a rolled-back verify failure, got %v", err)
	}
	if !strings.Contains(err.Error(), "mtu: want 9216, got 9100") || !strings.Contains(err.Error(), "as before the push") {
		t.Errorf("the error does not say what differed and what was reached: %v", err)
	}
	if len(remaining) != len(changes) || d.device.MTU != 1500 {
		t.Errorf("remaining %+v (planned %d), device MTU %d", remaining, len(changes), d.device.MTU)
	}

	// The driver claims a rollback the read-back does not show: no
	// ErrRolledBack, and the error names what moved.
	d = &verifyingDriver{memDriver: memDriver{device: before}}
	tg = &Target{Intent: want, Driver: &lyingDriver{d}, Connect: connect}
	_, err = tg.Apply(context.Background(), changes)
	if errors.Is(err, fabric.ErrRolledBack) || !strings.Contains(err.Error(), "differs from before the push in") {
		t.Fatalf("a rollback the read-back contradicts is reported as one: %v", err)
	}
}

// lyingDriver says it rolled back when it did not.
type lyingDriver struct{ *verifyingDriver }

func (d *lyingDriver) Push(ctx context.Context, s Session, c Config, opt PushOptions) (PushResult, error) {
	res, err := d.verifyingDriver.Push(ctx, s, c, opt)
	var pe *PushError
	if errors.As(err, &pe) {
		pe.RolledBack = true
	}
	return res, err
}
