package counters

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/action/fleet"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// simFabric starts a Cumulus simulator serving counters (FCS errors on
// swp2) and a SONiC one serving none, and writes a fabric naming them and
// an unreachable leaf-03, every switch on the lossless profile.
func simFabric(t *testing.T) *fabric.Fabric {
	t.Helper()
	const pw = "Counters-test-pw-1"
	t.Setenv("COUNTERS_TEST_PW", pw)
	pc := sim.NewPortCounters("swp1", "swp2")
	pc.Inject(sim.PortErrors{Port: "swp2", FCS: 5, Discards: 2})
	var known, switches strings.Builder
	for _, sw := range []struct {
		name, port, user string
		opt              sim.Options
	}{
		{"leaf-01", "swp1-2", "cumulus", sim.Options{Platform: "cumulus-nvue", Counters: pc.Read}},
		{"leaf-02", "Ethernet0", "admin", sim.Options{Platform: "sonic"}},
	} {
		opt := sw.opt
		opt.Password, opt.Hostname = pw, sw.name
		srv, err := sim.New(opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Listen("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		known.WriteString(srv.KnownHostsLine() + "\n")
		_, port, _ := net.SplitHostPort(srv.Addr())
		fmt.Fprintf(&switches, "    - {name: %s, platform: %s, address: 127.0.0.1, profile: roce-lossless, ports: [%s], ssh: {user: %s, port: %s, passwordEnv: COUNTERS_TEST_PW}}\n",
			sw.name, opt.Platform, sw.port, sw.user, port)
	}
	switches.WriteString("    - {name: leaf-03, platform: arista-eos, address: 127.0.0.2, profile: roce-lossless, ports: [Ethernet1], ssh: {port: 1, passwordEnv: COUNTERS_TEST_PW}}\n")
	dir := t.TempDir()
	kh := filepath.Join(dir, "known_hosts")
	os.WriteFile(kh, []byte(known.String()), 0o600)
	fab := fmt.Sprintf("apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: sims}\nspec:\n  defaults:\n    ssh: {knownHostsFile: %s}\n  include: [%s]\n  switches:\n%s",
		kh, filepath.Join(testutil.RepoRoot(t), "profiles/roce-lossless.yaml"), switches.String())
	path := filepath.Join(dir, "fabric.yaml")
	os.WriteFile(path, []byte(fab), 0o644)
	f, err := fabric.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRunFabricSwitches: the switches' port counters are read over SSH
// (host keys checked) through their drivers' CounterReader, each port a
// row with the command it came from; a switch that reports no port and
// one that cannot be reached are unread with why; the pause columns are
// the profile's lossless priority; --target limits the switches, and a
// --target naming nothing is an error.
func TestRunFabricSwitches(t *testing.T) {
	f := simFabric(t)
	if got := LosslessPriorities(f); !slices.Equal(got, []int{3}) {
		t.Errorf("lossless priorities %v, want the profile's [3]", got)
	}
	rep, err := RunFabric(t.Context(), f, fleet.Options{Registry: all.Registry()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Lossless, []int{3}) {
		t.Errorf("report lossless %v", rep.Lossless)
	}
	if len(rep.Unread) != 2 || rep.Unread[0].Target != "leaf-02" || !strings.Contains(rep.Unread[0].Error, "no port reported counters") ||
		rep.Unread[1].Target != "leaf-03" {
		t.Errorf("unread %+v, want leaf-02 (no port) and leaf-03 (unreachable)", rep.Unread)
	}
	p := portOf(t, rep, "leaf-01", "swp2")
	if p.Tier != Switch || p.Clean || p.Metrics[SymbolCRC].Value != 5 || p.Metrics[RxDiscards].Value != 2 {
		t.Errorf("swp2 %+v, want 5 PHY errors and 2 discards", p)
	}
	for _, c := range p.Counters {
		if c.From != "ip -s -s -j link show" {
			t.Errorf("switch counter from %q", c.From)
		}
	}
	if !portOf(t, rep, "leaf-01", "swp1").Clean {
		t.Errorf("swp1 counted nothing and is not clean")
	}
	one, err := RunFabric(t.Context(), f, fleet.Options{Registry: all.Registry(), Only: []string{"leaf-01"}}, Options{})
	if err != nil || len(one.Unread) != 0 || len(one.Ports) != 2 {
		t.Errorf("--target leaf-01: %+v, %v", one, err)
	}
	if _, err := RunFabric(t.Context(), f, fleet.Options{Registry: all.Registry(), Only: []string{"gpu-99"}}, Options{}); !errors.Is(err, ErrNoTargets) {
		t.Errorf("--target naming nothing: %v, want ErrNoTargets", err)
	}
}
