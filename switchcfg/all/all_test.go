package all

import (
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
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
		if d.Platform() != n {
			t.Errorf("driver registered as %q says %q", n, d.Platform())
		}
		if _, ok := d.(switchcfg.Transactor); !ok {
			t.Errorf("%s does not implement switchcfg.Transactor", n)
		}
		if len(d.ReadbackCommands()) == 0 {
			t.Errorf("%s has no read-back command", n)
		}
	}
	// The platforms of DESIGN.md §2.2, exactly.
	if got := strings.Join(names, " "); got != "arista-eos cisco-nxos cumulus-nvue junos sonic" {
		t.Errorf("registered %q", got)
	}
}

func TestUnknownPlatformListsSortedNames(t *testing.T) {
	r := Registry()
	_, err := r.Driver("ios-xr")
	if !errors.Is(err, switchcfg.ErrUnknownKind) {
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
}
