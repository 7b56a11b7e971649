package drivertest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/internal/scripted"
)

// Spec is what Run needs to know about a driver besides its interface.
type Spec struct {
	// Register is the driver package's Register function.
	Register func(*switchcfg.Registry)
	// Goldens are intents the driver must render, by the name of their
	// golden file under testdata/ (go test -update rewrites them).
	Goldens map[string]fabric.SwitchIntent
	// Readback turns a rendering into the read-back the driver's
	// ReadbackCommands would print once the device took it.
	Readback func(t testing.TB, cfg switchcfg.Config) switchcfg.Readback
	// Carried is in as Parse(Readback(Render(in))) returns it: in less what
	// the platform does not carry. Nil compares with Compare alone.
	Carried func(in fabric.SwitchIntent) fabric.SwitchIntent
	// Base builds the intent Rejects edit and Observe pushes, afresh each call.
	Base func() fabric.SwitchIntent
	// Rejects are edits of Base that Render must refuse.
	Rejects []Reject
	// GoodPorts and BadPorts are port names CheckPort must accept and refuse.
	GoodPorts, BadPorts []string
}

// Goldens names intents by golden file: format has one %s, the intent's
// name ("render_%s.golden"); intents maps names to intents or to functions
// building them.
func Goldens[I fabric.SwitchIntent | func() fabric.SwitchIntent](format string, intents map[string]I) map[string]fabric.SwitchIntent {
	out := make(map[string]fabric.SwitchIntent, len(intents))
	for name, in := range intents {
		switch v := any(in).(type) {
		case fabric.SwitchIntent:
			out[fmt.Sprintf(format, name)] = v
		case func() fabric.SwitchIntent:
			out[fmt.Sprintf(format, name)] = v()
		}
	}
	return out
}

// Reject is an intent Render must refuse: Edit applied to Spec.Base. It is
// a plain struct type, so tables of them read {name, edit, notSupported,
// want} in any package.
type Reject = struct {
	Name string
	Edit func(*fabric.SwitchIntent)
	// NotSupported: the error is a platform limit (wraps
	// switchcfg.ErrNotSupported, hence fabric.ErrNotSupported), not a
	// malformed intent.
	NotSupported bool
	// Want is part of the message (which names the platform too).
	Want string
}

// Run checks d against the contract of switchcfg.Driver without a device.
func Run(t *testing.T, d switchcfg.Driver, s Spec) {
	info := d.Info()
	t.Run("Info", func(t *testing.T) { checkInfo(t, d, s) })
	t.Run("CheckPort", func(t *testing.T) {
		for _, p := range append(slices.Clone(s.GoodPorts), info.ExamplePorts...) {
			if err := d.CheckPort(p); err != nil {
				t.Errorf("CheckPort(%q) = %v", p, err)
			}
		}
		for _, p := range s.BadPorts {
			if err := d.CheckPort(p); err == nil {
				t.Errorf("CheckPort(%q) accepted", p)
			}
		}
	})
	for _, golden := range slices.Sorted(maps.Keys(s.Goldens)) {
		in := s.Goldens[golden]
		t.Run("Render/"+golden, func(t *testing.T) {
			cfg, err := d.Render(in)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Platform != info.Name || cfg.Format != info.Format {
				t.Errorf("config labelled %q/%q, want %q/%q", cfg.Platform, cfg.Format, info.Name, info.Format)
			}
			testutil.Golden(t, golden, []byte(cfg.Text))
		})
		t.Run("RenderParseRender/"+golden, func(t *testing.T) { roundTrip(t, d, s, in) })
	}
	for _, r := range s.Rejects {
		t.Run("Rejects/"+r.Name, func(t *testing.T) {
			in := s.Base()
			r.Edit(&in)
			_, err := d.Render(in)
			if err == nil {
				t.Fatal("Render accepted the intent")
			}
			if got := errors.Is(err, switchcfg.ErrNotSupported); got != r.NotSupported || errors.Is(err, fabric.ErrNotSupported) != got {
				t.Errorf("errors.Is(ErrNotSupported) = %v, want %v (and the same for fabric's): %v", got, r.NotSupported, err)
			}
			if !strings.Contains(err.Error(), info.Name) || !strings.Contains(err.Error(), r.Want) {
				t.Errorf("error %q does not name the platform and %q", err, r.Want)
			}
		})
	}
	t.Run("Observe", func(t *testing.T) { checkObserve(t, d, s) })
	t.Run("PushRefusesForeignConfig", func(t *testing.T) {
		f := &scripted.Session{}
		cfg := switchcfg.Config{Platform: "other-os", Format: info.Format, Text: "x"}
		if _, err := d.Push(context.Background(), f, cfg, switchcfg.PushOptions{}); err == nil || len(f.Sent) != 0 {
			t.Fatalf("err %v, sent %q: a configuration of another platform must be refused before anything is sent", err, f.Sent)
		}
	})
}

func checkInfo(t *testing.T, d switchcfg.Driver, s Spec) {
	info := d.Info()
	if info.Name == "" || info.Description == "" || !strings.HasPrefix(info.FileExt, ".") {
		t.Errorf("incomplete Info: name %q description %q file extension %q", info.Name, info.Description, info.FileExt)
	}
	if !slices.Contains([]string{"commands", "json", "set"}, info.Format) {
		t.Errorf("Info.Format %q is not commands, json or set", info.Format)
	}
	if info.Session.Scrapli == "" && len(info.Session.ScrapliYAML) == 0 || len(info.Session.ErrorPrefixes) == 0 {
		t.Errorf("Info.Session %+v names no scrapligo definition or no error messages", info.Session)
	}
	if info.MinMTU <= 0 || info.MaxMTU < info.MinMTU || info.ThresholdQuantum < 0 {
		t.Errorf("Info limits: MTU %d..%d, threshold quantum %d", info.MinMTU, info.MaxMTU, info.ThresholdQuantum)
	}
	if len(info.ExamplePorts) < 2 {
		t.Errorf("Info.ExamplePorts %q: want two ports", info.ExamplePorts)
	}
	ports, err := fabric.ExpandPorts(info.PortRange)
	if err != nil || len(ports) < 2 {
		t.Errorf("Info.PortRange %q expands to %d ports: %v", info.PortRange, len(ports), err)
	}
	for _, p := range ports {
		if err := d.CheckPort(p); err != nil {
			t.Errorf("Info.PortRange %q: %v", info.PortRange, err)
			break
		}
	}
	if len(d.ReadbackCommands()) == 0 {
		t.Error("no read-back command")
	}
	if d.Info().ThresholdQuantum != info.ThresholdQuantum || d.Info().Name != info.Name {
		t.Error("Info differs between calls")
	}
	r := switchcfg.NewRegistry()
	s.Register(r)
	if got, err := r.Driver(info.Name); err != nil || got.Info().Name != info.Name {
		t.Errorf("Register: Driver(%q) = %v, %v", info.Name, got, err)
	}
	if _, err := d.Render(LabIntent(info)); err != nil {
		t.Errorf("rendering the lab intent on the example ports: %v", err)
	}
}

// roundTrip: Render → read-back → Parse gives the intent back (what the
// platform carries of it), and rendering that gives the same text.
func roundTrip(t *testing.T, d switchcfg.Driver, s Spec, in fabric.SwitchIntent) {
	cfg, err := d.Render(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := switchcfg.ParseFor(d, s.Readback(t, cfg), fabric.SwitchIntent{Model: in.Model, QueueBufferBytes: in.QueueBufferBytes})
	if err != nil {
		t.Fatal(err)
	}
	if s.Carried != nil {
		if diff := cmp.Diff(s.Carried(in), got); diff != "" {
			t.Errorf("parse(render(intent)) differs (-want +got):\n%s", diff)
		}
	}
	o := switchcfg.CompareOptions{Ports: true, QuantumBytes: switchcfg.QuantumFor(d, in)}
	if diffs := o.Compare(in, got); len(diffs) != 0 {
		t.Errorf("Compare(intent, parse(render(intent))) = %v", diffs)
	}
	// What no device carries (the fabric's switch name, model and queue
	// buffer) comes from the fabric, as at plan time: a SONiC VOQ line
	// card keys its queues by the switch's name.
	if got.Name == "" {
		got.Name = in.Name
	}
	if got.Model == "" {
		got.Model = in.Model
	}
	got.QueueBufferBytes = in.QueueBufferBytes
	// A disabled watchdog and none read alike (no NOS prints the default
	// off), and Compare holds them equal: the second rendering takes the
	// fabric's, as plan does.
	if w := in.PFC.Watchdog; got.PFC.Watchdog == nil && w != nil && !w.Enabled {
		got.PFC.Watchdog = w
	}
	again, err := d.Render(got)
	if err != nil {
		t.Fatal(err)
	}
	if again.Text != cfg.Text {
		t.Errorf("render is not stable:\n%s\n---\n%s", cfg.Text, again.Text)
	}
}

// checkObserve: switchcfg.Observe sends exactly the read-back commands and
// reads what Render wrote.
func checkObserve(t *testing.T, d switchcfg.Driver, s Spec) {
	in := s.Base()
	cfg, err := d.Render(in)
	if err != nil {
		t.Fatal(err)
	}
	rb := s.Readback(t, cfg)
	f := &scripted.Session{Replies: map[string]string{}}
	for cmd, out := range rb {
		f.Replies[cmd] = string(out)
	}
	got, err := switchcfg.Observe(context.Background(), f, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diffs := switchcfg.CompareFor(d, in, got); len(diffs) != 0 {
		t.Errorf("observed intent differs from the rendered one: %v", diffs)
	}
	if got.Platform != d.Info().Name {
		t.Errorf("observed platform %q", got.Platform)
	}
	if !slices.Equal(f.Sent, d.ReadbackCommands()) {
		t.Errorf("sent %q, want the read-back commands %q", f.Sent, d.ReadbackCommands())
	}
}
