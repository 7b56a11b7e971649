package eos

import (
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/google/go-cmp/cmp"
)

var intents = map[string]func() fabric.SwitchIntent{
	"recipe":    recipe,
	"lossy_ecn": lossyECN,
	"pcp_trust": pcpTrust,
}

func TestRenderGolden(t *testing.T) {
	for name, build := range intents {
		t.Run(name, func(t *testing.T) {
			cfg, err := New().Render(build())
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Platform != Platform || cfg.Format != "commands" {
				t.Errorf("config labelled %q/%q", cfg.Platform, cfg.Format)
			}
			testutil.Golden(t, "render_"+name+".golden", []byte(cfg.Text))
		})
	}
}

// TestRenderParseRender checks that what Render writes reads back as the
// intent (less what EOS does not carry) and renders to the same text again.
func TestRenderParseRender(t *testing.T) {
	d := New()
	for name, build := range intents {
		t.Run(name, func(t *testing.T) {
			in := build()
			cfg, err := d.Render(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Parse(asRunning(cfg.Text))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(carried(in), got); diff != "" {
				t.Errorf("parse(render(intent)) differs (-want +got):\n%s", diff)
			}
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

func TestRenderRejects(t *testing.T) {
	tests := []struct {
		name         string
		edit         func(*fabric.SwitchIntent)
		notSupported bool
		want         string
	}{
		{"three no-drop priorities", func(in *fabric.SwitchIntent) {
			in.PFC.Priorities = []int{0, 3, 6}
			in.Classes[0].Lossless, in.Classes[2].Lossless = true, true
		}, true, "at most 2"},
		// The profiles' default switchMtu is 9216: the error says the fix.
		{"mtu 9216", func(in *fabric.SwitchIntent) { in.MTU = 9216 }, true, "MTU 9216 outside arista-eos's 68..9214: set switchMtu: 9214 in the profile's spec.ethernet"},
		{"strict below round-robin", func(in *fabric.SwitchIntent) { in.Classes[2].Queue = 1 }, true, "must sit above"},
		{"shared traffic class", func(in *fabric.SwitchIntent) { in.Classes[2].TrafficClass = 3 }, true, "share traffic class"},
		{"watchdog too fast", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.DetectionTimeMs = 5 }, true, "detection time"},
		{"unknown action", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.Action = "reboot" }, true, "action"},
		{"shared tx-queue, different scheduling", func(in *fabric.SwitchIntent) { in.Classes[0].Queue = 3; in.Classes[0].BandwidthPercent = 40 }, false, "shares queue 3"},
		{"bad port", func(in *fabric.SwitchIntent) { in.Ports = append(in.Ports, "swp1") }, false, `"swp1"`},
		{"bad trust", func(in *fabric.SwitchIntent) { in.Trust = "ip" }, true, "trust"},
		{"dscp out of range", func(in *fabric.SwitchIntent) { in.Classes[1].DSCP = []int{64} }, false, "DSCP 64"},
		{"thresholds reversed", func(in *fabric.SwitchIntent) { in.Classes[1].ECN.MinBytes = 2000000 }, false, "min <= max"},
		{"lossless flag without PFC", func(in *fabric.SwitchIntent) { in.Classes[2].Lossless = true }, false, "disagree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := recipe()
			tt.edit(&in)
			_, err := New().Render(in)
			if err == nil {
				t.Fatal("Render accepted the intent")
			}
			if got := errors.Is(err, switchcfg.ErrNotSupported); got != tt.notSupported {
				t.Errorf("errors.Is(ErrNotSupported) = %v for %v", got, err)
			}
			if !strings.Contains(err.Error(), Platform) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name the platform and %q", err, tt.want)
			}
		})
	}
}

func TestCheckPort(t *testing.T) {
	d := New()
	for _, ok := range []string{"Ethernet1", "Ethernet1/1", "Ethernet3/1/4", "Ethernet49/1"} {
		if err := d.CheckPort(ok); err != nil {
			t.Errorf("CheckPort(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Ethernet0", "ethernet1", "Et1", "Ethernet1/1/1/1", "Ethernet1/", "swp1", "Port-Channel1"} {
		if err := d.CheckPort(bad); err == nil {
			t.Errorf("CheckPort(%q) accepted", bad)
		}
	}
}

func TestRegister(t *testing.T) {
	r := switchcfg.NewRegistry()
	Register(r)
	if d, err := r.Driver(Platform); err != nil || d.Platform() != Platform {
		t.Fatalf("Driver(%q) = %v, %v", Platform, d, err)
	}
}
