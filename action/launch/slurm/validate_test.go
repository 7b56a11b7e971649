package slurm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/action/launch/slurm"
	"github.com/fabricctl/fabricctl/fabric"
)

// TestSlurmSweepRefusesBadLauncherSettings: settings that srun or squeue would read as something
// else (a newline in a partition, an option for the node binary, a job id that is no number, a
// negative bound) and a node label that is no single node name are refused before Slurm is
// asked anything.
func TestSlurmSweepRefusesBadLauncherSettings(t *testing.T) {
	f := sweepFabric(t)
	for name, c := range map[string]struct {
		set  func(*slurm.Launcher)
		edit func(*fabric.Fabric)
		want string
	}{
		"partition newline":   {set: func(l *slurm.Launcher) { l.Partition = "gpu\nmaint" }, want: `--partition "gpu\nmaint": white space or a control character`},
		"empty partition":     {set: func(l *slurm.Launcher) { l.Partition = "gpu,,maint" }, want: `--partition "gpu,,maint": an empty name in the list`},
		"reservation escape":  {set: func(l *slurm.Launcher) { l.Reservation = "r\x1b[2J" }, want: `--reservation "r\x1b[2J": white space or a control character`},
		"node bin option":     {set: func(l *slurm.Launcher) { l.Bin = "--uid=0" }, want: `--node-bin "--uid=0": starts with '-'`},
		"node bin newline":    {set: func(l *slurm.Launcher) { l.Bin = "/opt/fabricctl\n" }, want: `--node-bin "/opt/fabricctl\n": a control character`},
		"job id":              {set: func(l *slurm.Launcher) { l.Allocation = "12;34" }, want: `--slurm-job "12;34": not a job id`},
		"negative bound":      {set: func(l *slurm.Launcher) { l.PreflightBound = -1 }, want: "preflight bound -1ns is negative"},
		"node label list":     {edit: func(f *fabric.Fabric) { f.Spec.Hosts[1].Labels[slurm.NodeLabel] = "gpu01,gpu03" }, want: `host lab-h2: Slurm node "gpu01,gpu03" (label fabricctl.io/slurm-node): invalid node name`},
		"node label brackets": {edit: func(f *fabric.Fabric) { f.Spec.Hosts[0].Labels[slurm.NodeLabel] = "gpu[01-04]" }, want: `host lab-h1: Slurm node "gpu[01-04]"`},
	} {
		c2 := newSim(t, "gpu[01-04]")
		l := &slurm.Launcher{Run: c2}
		if c.set != nil {
			c.set(l)
		}
		fab := f
		if c.edit != nil {
			cp := *f
			cp.Spec.Hosts = append([]fabric.Host(nil), f.Spec.Hosts...)
			for i := range cp.Spec.Hosts {
				cp.Spec.Hosts[i].Labels = map[string]string{slurm.NodeLabel: f.Spec.Hosts[i].Labels[slurm.NodeLabel]}
			}
			c.edit(&cp)
			fab = &cp
		}
		_, err := slurm.Sweep(t.Context(), fab, "sweep.yaml", l, nil, false, preflightRun(fab, l))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", name, err, c.want)
		}
		if st := c2.Steps(); len(st) != 0 {
			t.Errorf("%s: %d srun step(s) ran", name, len(st))
		}
	}
	if err := (&slurm.Launcher{Partition: "gpu,maint", Reservation: "maint", Allocation: "1234", Bin: "/shared/bin/fabricctl"}).Validate(); err != nil {
		t.Errorf("good settings: %v", err)
	}
	if err := (&slurm.Launcher{Allocation: "1234_7"}).Validate(); err != nil {
		t.Errorf("a job array's task: %v", err)
	}
	if err := slurm.CheckNodeName("gpu\x00"); !errors.Is(err, slurm.ErrBadName) {
		t.Errorf("a NUL in a node name: %v", err)
	}
}
