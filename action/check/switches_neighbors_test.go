package check

import (
	"fmt"
	"github.com/fabricctl/fabricctl/action/fleet"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// TestNeighborSource: the switches' own LLDP tables are read over real
// SSH sessions (host keys checked) through each driver's NeighborReader,
// one observation per switch of every platform that has one (Cumulus,
// SONiC, EOS, Junos, NX-OS); a switch that cannot be reached is an error
// naming it, and the others are still read.
func TestNeighborSource(t *testing.T) {
	var sws []simSwitch
	for i, sw := range []struct{ name, platform, peer, port, user string }{
		{"leaf-01", "cumulus-nvue", "leaf-02", "swp49", "cumulus"},
		{"leaf-02", "sonic", "leaf-01", "Ethernet48", "admin"},
		{"leaf-04", "arista-eos", "leaf-01", "Ethernet49/1", "admin"},
		{"leaf-05", "junos", "leaf-01", "et-0/0/49", "admin"},
		{"leaf-06", "cisco-nxos", "leaf-01", "Ethernet1/49", "admin"},
	} {
		sws = append(sws, simSwitch{name: sw.name, port: sw.port, user: sw.user, opt: sim.Options{Platform: sw.platform,
			Neighbors: func() ([]fabric.Neighbor, error) {
				return []fabric.Neighbor{{LocalPort: sw.port, SystemName: sw.peer, ChassisIDType: "mac", ChassisID: fmt.Sprintf("52:54:00:00:00:0%d", i), PortIDType: "ifname", PortID: "swp49"}}, nil
			}}})
	}
	f := simFabric(t, sws)
	obs, errs := NewNeighborSource(f, fleet.Options{Registry: all.Registry()})(t.Context())
	got := map[string]string{}
	for _, o := range obs {
		for _, n := range o.Neighbors {
			got[o.Device] += n.LocalPort + "→" + n.SystemName + ":" + n.PortName()
		}
	}
	want := map[string]string{"leaf-01": "swp49→leaf-02:swp49", "leaf-02": "Ethernet48→leaf-01:swp49",
		"leaf-04": "Ethernet49/1→leaf-01:swp49", "leaf-05": "et-0/0/49→leaf-01:swp49", "leaf-06": "Ethernet1/49→leaf-01:swp49"}
	if !maps.Equal(got, want) {
		t.Errorf("observations %v, want %v", got, want)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "leaf-03") {
		t.Errorf("errors %v, want one naming leaf-03", errs)
	}
}

// simSwitch is a switch simulator of a test fabric: its name, one port,
// the login and the simulator's options (platform, sources).
type simSwitch struct {
	name, port, user string
	opt              sim.Options
}

// simFabric starts a simulator for each switch (real SSH on loopback,
// password from the environment, host keys in a known_hosts file) and
// loads a fabric naming them all, plus leaf-03, an EOS switch nobody
// listens for.
func simFabric(t *testing.T, sws []simSwitch) *fabric.Fabric {
	t.Helper()
	const pw = "lldp-Test-pw-1"
	t.Setenv("LLDP_TEST_PW", pw)
	dir := t.TempDir()
	var known, switches strings.Builder
	for _, sw := range sws {
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
		fmt.Fprintf(&switches, "    - {name: %s, platform: %s, address: 127.0.0.1, profile: roce-lossless, ports: [%s], ssh: {user: %s, port: %s, passwordEnv: LLDP_TEST_PW}}\n", sw.name, opt.Platform, sw.port, sw.user, port)
	}
	switches.WriteString("    - {name: leaf-03, platform: arista-eos, address: 127.0.0.2, profile: roce-lossless, ports: [Ethernet1], ssh: {port: 1, passwordEnv: LLDP_TEST_PW}}\n")
	kh := filepath.Join(dir, "known_hosts")
	os.WriteFile(kh, []byte(known.String()), 0o600)
	fab := fmt.Sprintf(`apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata: {name: lldp}
spec:
  defaults:
    ssh: {knownHostsFile: %s}
  include: [%s]
  switches:
%s`, kh, filepath.Join(testutil.RepoRoot(t), "profiles/roce-lossless.yaml"), switches.String())
	path := filepath.Join(dir, "fabric.yaml")
	os.WriteFile(path, []byte(fab), 0o644)
	f, err := fabric.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
