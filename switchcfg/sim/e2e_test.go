package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
	"github.com/fabricctl/fabricctl/switchcfg/sim/simtest"
)

// These tests drive the real drivers (switchcfg/all) over real SSH to the
// simulator: render → push → observe → compare, drift, and transaction
// safety (issue 5 items 6 and 7).

// driftEdits change one value on the simulator directly, as an operator
// would out of band; each returns the Compare field that must then differ.
var driftEdits = map[string]func(t *testing.T, sw *simtest.Switch, cfg switchcfg.Config) string{
	"cumulus-nvue": func(t *testing.T, sw *simtest.Switch, _ switchcfg.Config) string {
		mustApply(t, sw, "nv set qos congestion-control default-global traffic-class 3 probability 50")
		return "classes[roce].ecn.maxMarkProbability"
	},
	"sonic": func(t *testing.T, sw *simtest.Switch, _ switchcfg.Config) string {
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
		mustApply(t, sw, "["+strings.Join(ops, ",")+"]")
		return "classes[roce].ecn.maxMarkProbability"
	},
	"arista-eos": func(t *testing.T, sw *simtest.Switch, cfg switchcfg.Config) string {
		mustApply(t, sw, rewrite(t, cfg, `max-mark-probability 100`, `max-mark-probability 50`)...)
		return "classes[roce].ecn.maxMarkProbability"
	},
	"cisco-nxos": func(t *testing.T, sw *simtest.Switch, cfg switchcfg.Config) string {
		mustApply(t, sw, rewrite(t, cfg, `drop-probability 100`, `drop-probability 50`)...)
		return "classes[roce].ecn.maxMarkProbability"
	},
	"junos": func(t *testing.T, sw *simtest.Switch, cfg switchcfg.Config) string {
		m := regexp.MustCompile(`(?m)^set class-of-service schedulers (\S+) explicit-congestion-notification$`).FindStringSubmatch(cfg.Text)
		if m == nil {
			t.Fatal("no ECN scheduler in the rendered config")
		}
		mustApply(t, sw, "set class-of-service schedulers "+m[1]+" transmit-rate percent 40")
		return "classes[roce].bandwidthPercent"
	},
}

// rewrite returns the rendered lines with one value replaced everywhere (the
// device keeps everything else as it is).
func rewrite(t *testing.T, cfg switchcfg.Config, from, to string) []string {
	t.Helper()
	if !strings.Contains(cfg.Text, from) {
		t.Fatalf("rendered config has no %q", from)
	}
	return strings.Split(strings.ReplaceAll(cfg.Text, from, to), "\n")
}

func mustApply(t *testing.T, sw *simtest.Switch, lines ...string) {
	t.Helper()
	if err := sw.Apply(lines...); err != nil {
		t.Fatal(err)
	}
}

// commitWords are the commands that change a platform's running
// configuration for good; an unchanged push must send none of them.
var commitWords = map[string][]string{
	"cumulus-nvue": {"nv config apply"},
	"sonic":        {"config checkpoint", "apply-patch /tmp", "config save"},
	"arista-eos":   {"commit"},
	"cisco-nxos":   {"copy running-config"},
	"junos":        {"commit"},
}

type fixture struct {
	platform string
	sw       *simtest.Switch
	tr       switchcfg.Transactor
	drv      switchcfg.Driver
	intent   fabric.SwitchIntent
	cfg      switchcfg.Config
	pushes   int
	// reconnect sets PushOptions.Reconnect to dial the simulator again.
	reconnect bool
}

func newFixture(t *testing.T, platform string) *fixture {
	t.Helper()
	drv, err := all.Registry().Driver(platform)
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := drv.(switchcfg.Transactor)
	if !ok {
		t.Fatalf("%s driver is not a Transactor", platform)
	}
	f := &fixture{platform: platform, drv: drv, tr: tr, intent: simtest.LabIntent(platform)}
	if f.cfg, err = drv.Render(f.intent); err != nil {
		t.Fatalf("rendering: %v", err)
	}
	f.sw = simtest.Start(t, sim.Options{Platform: platform, Now: fixedNow})
	return f
}

// push runs one Push on a fresh session with a unique checkpoint name.
func (f *fixture) push(t *testing.T, opt switchcfg.PushOptions) (switchcfg.PushResult, error) {
	t.Helper()
	f.pushes++
	if opt.CheckpointName == "" {
		opt.CheckpointName = fmt.Sprintf("fabricctl-test-%d", f.pushes)
	}
	if f.reconnect {
		opt.Reconnect = func(context.Context) (switchcfg.Session, error) { return f.sw.Dial(t), nil }
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return f.tr.Push(ctx, f.sw.Dial(t), f.cfg, opt)
}

func (f *fixture) observe(t *testing.T) fabric.SwitchIntent {
	t.Helper()
	got, err := f.tr.Observe(context.Background(), f.sw.Dial(t))
	if err != nil {
		t.Fatalf("observing: %v", err)
	}
	return got
}

func diffFields(d []switchcfg.Diff) []string {
	var out []string
	for _, x := range d {
		out = append(out, x.Field)
	}
	return out
}

func TestEndToEndPushObserveDrift(t *testing.T) {
	for _, platform := range sim.Platforms() {
		t.Run(platform, func(t *testing.T) {
			f := newFixture(t, platform)
			if d := switchcfg.Compare(f.intent, f.observe(t)); len(d) == 0 {
				t.Fatal("a fresh switch already matches the intent; the test proves nothing")
			}
			res, err := f.push(t, switchcfg.PushOptions{})
			if err != nil {
				t.Fatalf("push: %v", err)
			}
			if !res.Changed || !res.Committed || res.Diff == "" {
				t.Fatalf("first push: %+v", res)
			}
			if d := switchcfg.Compare(f.intent, f.observe(t)); len(d) != 0 {
				t.Fatalf("drift right after the push: %v\nrunning:\n%s", d, f.sw.Running())
			}

			// The same intent again: the device reports no diff, nothing is committed.
			running, stats, sent := f.sw.Running(), f.sw.Stats(), len(f.sw.Commands())
			res, err = f.push(t, switchcfg.PushOptions{})
			if err != nil || res.Changed || res.Committed {
				t.Fatalf("second push: %+v, %v", res, err)
			}
			if f.sw.Running() != running {
				t.Fatal("the second push changed the running configuration")
			}
			after := f.sw.Stats()
			if after.Commits != stats.Commits || after.ConfirmedCommits != stats.ConfirmedCommits || after.Saves != stats.Saves {
				t.Fatalf("the second push committed: before %+v, after %+v", stats, after)
			}
			for _, c := range f.sw.Commands()[sent:] {
				for _, w := range commitWords[platform] {
					if strings.Contains(c, w) {
						t.Fatalf("the second push sent %q", c)
					}
				}
			}

			// Drift: one value edited on the device is exactly one diff.
			field := driftEdits[platform](t, f.sw, f.cfg)
			if got := diffFields(switchcfg.Compare(f.intent, f.observe(t))); len(got) != 1 || got[0] != field {
				t.Fatalf("after editing %s on the device, Compare says %q", field, got)
			}
		})
	}
}

// middleLine is a configuration line in the middle of the rendering: after
// some lines were loaded, before the rest.
func (f *fixture) middleLine(t *testing.T) string {
	t.Helper()
	if f.platform == "sonic" {
		// SONiC's rendering is a CONFIG_DB document; the push's middle is
		// the apply-patch after the checkpoint, the here-document and the dry run.
		return fmt.Sprintf("sudo config apply-patch /tmp/fabricctl-test-%d.json-patch", f.pushes+1)
	}
	lines := f.cfg.Lines()
	return strings.TrimSpace(lines[len(lines)/2])
}

// pushFailsCleanly pushes with a fault armed and checks that the running
// configuration is exactly as before and the error names the line.
func (f *fixture) pushFailsCleanly(t *testing.T, faults sim.Faults, line string, recover func(*switchcfg.PushError)) {
	t.Helper()
	before := f.sw.Running()
	f.sw.SetFaults(faults)
	_, err := f.push(t, switchcfg.PushOptions{})
	f.sw.SetFaults(sim.Faults{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) {
		t.Fatalf("want a *switchcfg.PushError, got %v", err)
	}
	if !strings.Contains(err.Error(), line) {
		t.Fatalf("the error does not name the failing line %q: %v", line, err)
	}
	if recover != nil {
		recover(pe)
	}
	if got := f.sw.Running(); got != before {
		t.Fatalf("running configuration changed by a failed push (%v):\n%s", err, unifiedDiffForTest(before, got))
	}
}

func TestTransactionSafetyConnectionDrop(t *testing.T) {
	for _, platform := range sim.Platforms() {
		t.Run(platform, func(t *testing.T) {
			f := newFixture(t, platform)
			line := f.middleLine(t)
			// NX-OS has no candidate: the lines before the drop are live, and
			// the driver recovers over a new session from Reconnect. The
			// others never committed, so there is nothing to roll back.
			f.reconnect = true
			f.pushFailsCleanly(t, sim.Faults{DropOn: line}, line, func(pe *switchcfg.PushError) {
				if strings.TrimSpace(pe.Line) != line {
					t.Fatalf("PushError.Line %q, want %q", pe.Line, line)
				}
				if platform == "cisco-nxos" && !pe.RolledBack {
					t.Fatalf("NX-OS did not recover over a new session: %v", pe)
				}
			})
			f.reconnect = false
			// The switch still takes a clean push afterwards.
			if _, err := f.push(t, switchcfg.PushOptions{}); err != nil {
				t.Fatalf("push after the drop: %v", err)
			}
			if d := switchcfg.Compare(f.intent, f.observe(t)); len(d) != 0 {
				t.Fatalf("drift after recovering: %v", d)
			}
		})
	}
}

// TestNXOSRecoverAfterDrop: without PushOptions.Reconnect, NX-OS reports the
// drop unrecovered and names its checkpoint; the caller's Recover on a new
// session restores the running configuration and deletes the checkpoint.
func TestNXOSRecoverAfterDrop(t *testing.T) {
	f := newFixture(t, "cisco-nxos")
	line := f.middleLine(t)
	f.pushFailsCleanly(t, sim.Faults{DropOn: line}, line, func(pe *switchcfg.PushError) {
		if pe.RolledBack {
			t.Fatal("NX-OS claims a rollback over a dropped connection")
		}
		if want := fmt.Sprintf("fabricctl-test-%d", f.pushes); pe.Checkpoint != want {
			t.Fatalf("PushError.Checkpoint %q, want %q", pe.Checkpoint, want)
		}
		r, ok := f.drv.(switchcfg.Recoverer)
		if !ok {
			t.Fatal("the NX-OS driver is not a switchcfg.Recoverer")
		}
		if err := r.Recover(context.Background(), f.sw.Dial(t), pe.Checkpoint); err != nil {
			t.Fatalf("recovering: %v", err)
		}
	})
	out, err := f.sw.Dial(t).Send(context.Background(), "show checkpoint summary")
	if err != nil || strings.Contains(out, fmt.Sprintf("fabricctl-test-%d", f.pushes)) {
		t.Errorf("the recovered checkpoint is still on the switch (%v):\n%s", err, out)
	}
}

func TestTransactionSafetyRejectedLine(t *testing.T) {
	for _, platform := range sim.Platforms() {
		t.Run(platform, func(t *testing.T) {
			f := newFixture(t, platform)
			line := f.middleLine(t)
			f.pushFailsCleanly(t, sim.Faults{Reject: line}, line, func(pe *switchcfg.PushError) {
				if strings.TrimSpace(pe.Line) != line || !pe.RolledBack {
					t.Fatalf("PushError line %q rolled back %v; want line %q, rolled back", pe.Line, pe.RolledBack, line)
				}
			})
		})
	}
}

func TestTransactionSafetyConfirmTimeout(t *testing.T) {
	confirm := map[string]func(name string) string{
		"arista-eos":   func(name string) string { return "configure session " + name + " commit" },
		"junos":        func(string) string { return "commit" },
		"cumulus-nvue": func(string) string { return "nv config apply -y" },
	}
	for _, platform := range sim.Platforms() {
		t.Run(platform, func(t *testing.T) {
			mk, ok := confirm[platform]
			if !ok {
				t.Skipf("%s has no confirmed commit (PushOptions.ConfirmTimeout does not apply)", platform)
			}
			f := newFixture(t, platform)
			line := mk(fmt.Sprintf("fabricctl-test-%d", f.pushes+1))
			f.pushFailsCleanly(t, sim.Faults{DropOn: line}, line, func(pe *switchcfg.PushError) {
				if pe.Step != "confirming" {
					t.Fatalf("failed step %q, want confirming", pe.Step)
				}
				if !f.sw.ConfirmPending() {
					t.Fatal("no confirmed commit is pending after the confirm was lost")
				}
				// The confirm window passes: the device rolls back by itself.
				if !f.sw.ExpireConfirm() {
					t.Fatal("no confirm timer to expire")
				}
			})
			if f.sw.Stats().AutoRollbacks != 1 {
				t.Fatalf("stats %+v", f.sw.Stats())
			}
		})
	}
}

func unifiedDiffForTest(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	seen := map[string]int{}
	for _, l := range al {
		seen[l]++
	}
	for _, l := range bl {
		if seen[l] > 0 {
			seen[l]--
			continue
		}
		out = append(out, "+"+l)
	}
	for l, n := range seen {
		for ; n > 0; n-- {
			out = append(out, "-"+l)
		}
	}
	return strings.Join(out, "\n")
}

// intentVariants depart from the lab intent in the ways profiles do, so the
// simulator's grammars are checked against more of what the drivers render.
var intentVariants = map[string]func(in *fabric.SwitchIntent){
	"pcp-trust": func(in *fabric.SwitchIntent) {
		in.Trust = "pcp"
		for i := range in.Classes {
			in.Classes[i].DSCP = nil
		}
	},
	"lossy-ecn": func(in *fabric.SwitchIntent) {
		in.PFC = fabric.SwitchPFC{Priorities: []int{}}
		in.Classes[1].Lossless = false
	},
	"queue-shift": func(in *fabric.SwitchIntent) {
		in.Classes[1].TrafficClass, in.Classes[1].Queue = 4, 4
	},
	"watchdog-off": func(in *fabric.SwitchIntent) {
		in.PFC.Watchdog = nil
	},
}

// TestEndToEndIntentVariants pushes the lab intent, then a variant of it on
// top: the drivers must remove what the variant no longer wants, and the
// simulator must take their "no"/unset/delete lines.
func TestEndToEndIntentVariants(t *testing.T) {
	for _, platform := range sim.Platforms() {
		for name, vary := range intentVariants {
			t.Run(platform+"/"+name, func(t *testing.T) {
				f := newFixture(t, platform)
				if _, err := f.push(t, switchcfg.PushOptions{}); err != nil {
					t.Fatalf("pushing the lab intent: %v", err)
				}
				vary(&f.intent)
				var err error
				if f.cfg, err = f.drv.Render(f.intent); errors.Is(err, switchcfg.ErrNotSupported) {
					t.Skipf("%s cannot express it: %v", platform, err)
				} else if err != nil {
					t.Fatal(err)
				}
				if _, err = f.push(t, switchcfg.PushOptions{}); err != nil {
					t.Fatalf("push: %v", err)
				}
				if d := switchcfg.Compare(f.intent, f.observe(t)); len(d) != 0 {
					t.Fatalf("drift after the push: %v", d)
				}
			})
		}
	}
}
