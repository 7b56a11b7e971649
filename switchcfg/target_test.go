package switchcfg

import (
	"context"
	"errors"
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
