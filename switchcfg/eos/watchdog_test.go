package eos

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// A disabled watchdog switches the watchdog off on the intent's ports and
// writes nothing global: no action, no default timers. `watchdog:
// {enabled: false}` resolves to action drop, which no one asked for, and
// the global settings are the watchdog of every port, those outside the
// intent too. AVD's eos_cli_config_gen writes nothing for a disabled
// watchdog either (switchcfg/vendorcheck: TestEOSRendersMatchAVD). It
// still reads back as the intent, without drift, and renders again the
// same.
func TestDisabledWatchdogWritesNothingGlobal(t *testing.T) {
	for name, wd := range map[string]fabric.SwitchPFCWatchdog{
		"enabled false":           {Action: "drop"}, // as `watchdog: {enabled: false}` resolves
		"with timers and forward": {PollIntervalMs: 50, DetectionTimeMs: 150, RestorationTimeMs: 1500, Action: "forward"},
		"alert":                   {PollIntervalMs: 100, DetectionTimeMs: 200, RestorationTimeMs: 400, Action: "alert"},
	} {
		t.Run(name, func(t *testing.T) {
			in := recipe()
			in.PFC.Watchdog = &wd
			d := New()
			cfg, err := d.Render(in)
			if err != nil {
				t.Fatal(err)
			}
			offs := 0
			for _, l := range strings.Split(cfg.Text, "\n") {
				switch t2 := strings.TrimSpace(l); {
				case strings.Contains(l, "pause watchdog") && !strings.HasPrefix(l, " "):
					t.Errorf("global watchdog line for a disabled watchdog: %q", l)
				case t2 == "no priority-flow-control pause watchdog":
					offs++
				case strings.Contains(t2, "pause watchdog") && !strings.HasPrefix(t2, "no "):
					t.Errorf("port watchdog setting for a disabled watchdog: %q", l)
				}
			}
			if offs != len(in.Ports) {
				t.Errorf("%d ports switch the watchdog off, want %d:\n%s", offs, len(in.Ports), cfg.Text)
			}
			got, err := switchcfg.ParseFor(d, asRunning(cfg.Text), fabric.SwitchIntent{Model: in.Model})
			if err != nil {
				t.Fatal(err)
			}
			if diffs := (switchcfg.CompareOptions{Ports: true}).Compare(in, got); len(diffs) != 0 {
				t.Errorf("drift after pushing a disabled watchdog: %v", diffs)
			}
			if w := got.PFC.Watchdog; w != nil && w.Enabled {
				t.Errorf("reads back enabled: %+v", *w)
			}
			got.PFC.Watchdog = in.PFC.Watchdog // as plan does: the fabric's
			again, err := d.Render(got)
			if err != nil {
				t.Fatal(err)
			}
			if again.Text != cfg.Text {
				t.Errorf("render is not stable:\n%s\n---\n%s", cfg.Text, again.Text)
			}
		})
	}
}
