package nxos

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
// intent (less what NX-OS does not carry) and renders to the same text again.
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
		{"four no-drop classes", func(in *fabric.SwitchIntent) {
			in.PFC.Priorities = []int{0, 3, 6, 7}
			in.Classes[0].Lossless, in.Classes[2].Lossless = true, true
			in.Classes = append(in.Classes, fabric.SwitchClass{Name: "seven", Priority: 7, TrafficClass: 7, Queue: 7, Lossless: true})
		}, true, "at most 3"},
		{"queue differs from qos-group", func(in *fabric.SwitchIntent) { in.Classes[1].Queue = 4 }, true, "c-out-8q-qN"},
		{"lossy priority not carried", func(in *fabric.SwitchIntent) { in.Classes[2].TrafficClass, in.Classes[2].Queue = 5, 5 }, true, "pfc-cos"},
		{"two strict classes", func(in *fabric.SwitchIntent) { in.Classes[0].Strict = true; in.Classes[0].BandwidthPercent = 0 }, true, "at most 1"},
		{"strict with bandwidth", func(in *fabric.SwitchIntent) { in.Classes[2].BandwidthPercent = 5 }, true, "no bandwidth share"},
		{"PFC priority without class", func(in *fabric.SwitchIntent) { in.PFC.Priorities = []int{3, 4} }, false, "disagree"},
		{"watchdog action", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.Action = "forward" }, true, "drops"},
		{"watchdog detection not a multiple", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.DetectionTimeMs = 250 }, true, "times the 100 ms"},
		{"watchdog interval too short", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.PollIntervalMs = 50 }, true, "interval 50 ms"},
		{"mtu too large", func(in *fabric.SwitchIntent) { in.MTU = 9300 }, true, "MTU 9300"},
		{"class name", func(in *fabric.SwitchIntent) { in.Classes[1].Name = "ro ce" }, true, `"ro ce"`},
		{"shared priority", func(in *fabric.SwitchIntent) {
			in.PFC.Priorities, in.Classes[1].Priority = []int{4}, 4
			in.Classes = append(in.Classes, fabric.SwitchClass{Name: "x", Priority: 4, TrafficClass: 4, Queue: 4})
		}, false, "priority 4 already used"},
		{"bad port", func(in *fabric.SwitchIntent) { in.Ports = append(in.Ports, "Ethernet1") }, false, `"Ethernet1"`},
		{"bad trust", func(in *fabric.SwitchIntent) { in.Trust = "" }, true, "trust"},
		{"dscp twice", func(in *fabric.SwitchIntent) { in.Classes[2].DSCP = []int{26} }, false, "DSCP 26"},
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
	for _, ok := range []string{"Ethernet1/1", "Ethernet1/49/4", "Ethernet2/10"} {
		if err := d.CheckPort(ok); err != nil {
			t.Errorf("CheckPort(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Ethernet1", "Eth1/1", "ethernet1/1", "Ethernet1/0", "Ethernet1/1/1/1", "mgmt0", "port-channel1"} {
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

func TestDSCPSpec(t *testing.T) {
	for want, in := range map[string][]int{"26": {26}, "0-25,27-47,49-63": nil, "1,3-5,7": {7, 5, 4, 3, 1}} {
		if in == nil {
			for d := 0; d < 64; d++ {
				if d != 26 && d != 48 {
					in = append(in, d)
				}
			}
		}
		if got := dscpSpec(in); got != want {
			t.Errorf("dscpSpec(%v) = %q, want %q", in, got, want)
		}
	}
}
