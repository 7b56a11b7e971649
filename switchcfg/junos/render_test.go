package junos

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
	"recipe":     recipe,
	"jvd_queues": jvdQueues,
	"lossy_ecn":  lossyECN,
	"pcp_trust":  pcpTrust,
}

func TestRenderGolden(t *testing.T) {
	for name, build := range intents {
		t.Run(name, func(t *testing.T) {
			cfg, err := New().Render(build())
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Platform != Platform || cfg.Format != "set" {
				t.Errorf("config labelled %q/%q", cfg.Platform, cfg.Format)
			}
			testutil.Golden(t, "render_"+name+".golden", []byte(cfg.Text))
		})
	}
}

// setReadback splits rendered set statements into the two read-backs, the
// way `show configuration ... | display set` prints them.
func setReadback(text string) switchcfg.Readback {
	var cos, ifs []string
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "set class-of-service "):
			cos = append(cos, l)
		case strings.HasPrefix(l, "set interfaces "):
			ifs = append(ifs, l)
		}
	}
	return switchcfg.Readback{
		ReadbackClassOfService: []byte(strings.Join(cos, "\n")),
		ReadbackInterfaces:     []byte(strings.Join(ifs, "\n")),
	}
}

// TestRenderParseRender checks that what Render writes reads back as the
// intent (less what Junos does not carry) and renders to the same text again.
func TestRenderParseRender(t *testing.T) {
	d := New()
	for name, build := range intents {
		t.Run(name, func(t *testing.T) {
			in := build()
			cfg, err := d.Render(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Parse(setReadback(cfg.Text))
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
			if diffs := (switchcfg.CompareOptions{QuantumBytes: ThresholdQuantumBytes}).Compare(in, got); len(diffs) != 0 {
				t.Errorf("Compare(intent, parsed) = %v", diffs)
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
		{"seven no-loss classes", func(in *fabric.SwitchIntent) {
			in.Classes = nil
			in.PFC.Priorities = []int{0, 1, 2, 3, 4, 5, 6}
			for p := 0; p < 7; p++ {
				in.Classes = append(in.Classes, fabric.SwitchClass{Priority: p, TrafficClass: p, Queue: p, DSCP: []int{p}, Lossless: true})
			}
		}, true, "at most 6"},
		{"traffic class not carried", func(in *fabric.SwitchIntent) { in.Classes[1].TrafficClass = 4 }, true, "no separate traffic class"},
		{"lossy priority not carried", func(in *fabric.SwitchIntent) { in.Classes[2].Queue = 5 }, true, "pfc-priority"},
		{"lossless without dscp", func(in *fabric.SwitchIntent) { in.Classes[1].DSCP = nil }, true, "DSCP-based PFC"},
		{"threshold above buffer", func(in *fabric.SwitchIntent) { in.Classes[1].ECN.MaxBytes = 4_000_000 }, true, "queue buffer"},
		{"watchdog alert", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.Action = "alert" }, true, "drop and forward"},
		{"watchdog detection", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.DetectionTimeMs = 150 }, true, "poll intervals"},
		{"PFC priority without class", func(in *fabric.SwitchIntent) { in.PFC.Priorities = []int{3, 5} }, false, "disagree"},
		{"lossless flag without PFC", func(in *fabric.SwitchIntent) { in.Classes[2].Lossless = true }, false, "disagree"},
		{"class name", func(in *fabric.SwitchIntent) { in.Classes[1].Name = "9roce" }, true, `"9roce"`},
		{"mtu", func(in *fabric.SwitchIntent) { in.MTU = 10000 }, true, "MTU 10000"},
		{"bad port", func(in *fabric.SwitchIntent) { in.Ports = append(in.Ports, "Ethernet1") }, false, `"Ethernet1"`},
		{"bad trust", func(in *fabric.SwitchIntent) { in.Trust = "exp" }, true, "trust"},
		{"dscp out of range", func(in *fabric.SwitchIntent) { in.Classes[2].DSCP = []int{-1} }, false, "DSCP -1"},
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

func TestQueueBuffer(t *testing.T) {
	d := &Driver{QueueBufferBytes: 1_500_000}
	cfg, err := d.Render(recipe())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cfg.Text, "set class-of-service drop-profiles roce-dp interpolate fill-level [ 10 100 ]") {
		t.Errorf("150 KB / 1500 KB of a 1.5 MB buffer should be fill levels 10 and 100:\n%s", cfg.Text)
	}
	got, err := d.Parse(setReadback(cfg.Text))
	if err != nil {
		t.Fatal(err)
	}
	if e := got.Classes[1].ECN; e == nil || e.MinBytes != 150000 || e.MaxBytes != 1500000 {
		t.Errorf("read back %+v", e)
	}
	for b, want := range map[int64]int{0: 0, 7499: 0, 7500: 1, 22499: 1, 22500: 2, 45000: 3, 1_500_000: 100} {
		if got := bytesToPercent(b, 1_500_000); got != want {
			t.Errorf("bytesToPercent(%d) = %d, want %d", b, got, want)
		}
	}
}

func TestCheckPort(t *testing.T) {
	d := New()
	for _, ok := range []string{"et-0/0/0", "xe-0/0/47", "ge-1/2/3", "et-0/0/12:1"} {
		if err := d.CheckPort(ok); err != nil {
			t.Errorf("CheckPort(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "et-0/0", "et-*", "ae0", "et-0/0/0.0", "Ethernet1", "et-0/0/1:", "mge-0/0/0"} {
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
