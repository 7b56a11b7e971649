package all

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

func TestRegistryHoldsEveryDriverUnderItsName(t *testing.T) {
	r := Registry()
	names := r.Names()
	if len(names) == 0 {
		t.Fatal("empty registry")
	}
	for _, n := range names {
		d, err := r.Driver(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if d.Info().Name != n {
			t.Errorf("driver registered as %q says %q", n, d.Info().Name)
		}
		if len(d.ReadbackCommands()) == 0 {
			t.Errorf("%s has no read-back command", n)
		}
	}
	// The platforms of DESIGN.md §2.2, exactly.
	if got := strings.Join(names, " "); got != "arista-eos cisco-nxos cumulus-nvue junos sonic" {
		t.Errorf("registered %q", got)
	}
	if got := strings.Join(r.SubnetManagerKinds(), " "); got != "opensm ufm" {
		t.Errorf("registered subnet managers %q", got)
	}
}

// TestSimulatorsCoverEveryPlatform: a platform registered without a
// simulator (or the other way round) fails here, not silently in the lab.
// Every registered driver pushes the lab intent to its simulator over SSH
// and reads it back without drift.
func TestSimulatorsCoverEveryPlatform(t *testing.T) {
	r := Registry()
	if got, want := sim.Platforms(), r.Names(); !slices.Equal(got, want) {
		t.Fatalf("simulated platforms %q, registered %q", got, want)
	}
	for _, n := range r.Names() {
		t.Run(n, func(t *testing.T) {
			d, _ := r.Driver(n)
			drivertest.PushObserve(t, d)
		})
	}
}

// TestSubnetManagerKindsMatchTheFabricSchema: fabric's document grammar
// (the enum of spec.subnetManagers[].kind, which its JSON Schema carries)
// names exactly the registered kinds.
func TestSubnetManagerKindsMatchTheFabricSchema(t *testing.T) {
	f, _ := reflect.TypeOf(fabric.SubnetManager{}).FieldByName("Kind")
	if got, want := f.Tag.Get("enum"), strings.Join(Registry().SubnetManagerKinds(), ","); got != want {
		t.Errorf("fabric.SubnetManager.Kind enum %q, registered kinds %q", got, want)
	}
}

func TestUnknownPlatformListsSortedNames(t *testing.T) {
	r := Registry()
	_, err := r.Driver("ios-xr")
	if !errors.Is(err, switchcfg.ErrUnknownKind) || !errors.Is(err, fabric.ErrUnknownKind) {
		t.Fatalf("got %v", err)
	}
	want := `unknown platform "ios-xr" (valid: ` + strings.Join(r.Names(), ", ") + ")"
	if err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
	names := r.Names()
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Fatalf("names not sorted: %v", names)
		}
	}
	if _, err := r.SubnetManager("sm-x"); !errors.Is(err, fabric.ErrUnknownKind) || !strings.Contains(err.Error(), "valid: opensm, ufm") {
		t.Errorf("unknown subnet-manager kind: %v", err)
	}
}

// TestErrorsAliasFabricSentinels: errors.Is with fabric's sentinels holds
// for switch errors, and the messages stay the switch's own.
func TestErrorsAliasFabricSentinels(t *testing.T) {
	r := Registry()
	in := drivertest.LabIntent(mustDriver(t, r, "arista-eos").Info())
	in.MTU = 9600
	_, err := mustDriver(t, r, "arista-eos").Render(in)
	if !errors.Is(err, fabric.ErrNotSupported) || !errors.Is(err, switchcfg.ErrNotSupported) {
		t.Fatalf("an MTU limit is not ErrNotSupported: %v", err)
	}
	if !strings.Contains(err.Error(), "not supported by platform: MTU 9600") {
		t.Errorf("message %q", err)
	}
}

func mustDriver(t *testing.T, r *switchcfg.Registry, name string) switchcfg.Driver {
	t.Helper()
	d, err := r.Driver(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustInfo(t *testing.T, r *switchcfg.Registry, name string) switchcfg.Info {
	t.Helper()
	d, err := r.Driver(name)
	if err != nil {
		t.Fatal(err)
	}
	return d.Info()
}

// TestEveryDriverReadsPortCounters: every switch platform reads its ports'
// receive error counters (check's localiser relies on them), with a
// command whose output is missing an error naming it.
func TestEveryDriverReadsPortCounters(t *testing.T) {
	r := Registry()
	for _, n := range r.Names() {
		d, _ := r.Driver(n)
		cr, ok := d.(switchcfg.CounterReader)
		if !ok {
			t.Errorf("%s reads no port counters", n)
			continue
		}
		cmds := cr.CounterCommands()
		if len(cmds) == 0 {
			t.Errorf("%s has no counter command", n)
			continue
		}
		if _, err := cr.ParseCounters(switchcfg.Readback{}); err == nil || !strings.Contains(err.Error(), cmds[0]) {
			t.Errorf("%s without output: %v, want an error naming %q", n, err, cmds[0])
		}
	}
}
