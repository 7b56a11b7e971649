package fabric

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cablingFabric is a small rail-optimised fabric: two hosts with two NICs
// each, one leaf per rail, one spine, cabled both ways (spec.links and
// hosts[].links).
const cablingFabric = `apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata:
  name: f
spec:
  include: [p.yaml]
  hosts:
    - name: gpu-01
      address: 10.0.0.1
      profile: p
      interfaces: [ens1f0np0, ens2f0np0]
      links: {ens1f0np0: "leaf-r0:swp1", ens2f0np0: "leaf-r1:swp1"}
    - name: gpu-02
      address: 10.0.0.2
      profile: p
      interfaces: [ens1f0np0, ens2f0np0]
  switches:
    - name: leaf-r0
      platform: cumulus-nvue
      address: 10.0.1.1
      profile: p
      ports: ["swp1-32"]
      role: leaf
      rail: 0
    - name: leaf-r1
      platform: cumulus-nvue
      address: 10.0.1.2
      profile: p
      ports: ["swp1-32"]
      rail: 1
    - name: spine-01
      platform: sonic
      address: 10.0.1.3
      profile: p
      ports: ["Ethernet0-7"]
      role: spine
  links:
    - endpoints: [gpu-02:ens1f0np0, leaf-r0:swp2]
    - endpoints: [leaf-r1:swp2, gpu-02:ens2f0np0]
    - endpoints: [leaf-r0:swp31-32, spine-01:Ethernet0-1]
      description: bundle to spine-01
    - endpoints: [spine-01:Ethernet2, leaf-r1:swp31]
`

// cablingPlatforms are testPlatforms that accept only Cumulus swpN and
// SONiC EthernetN ports on those platforms.
type cablingPlatforms struct{ testPlatforms }

var testPortRE = map[string]*regexp.Regexp{
	"cumulus-nvue": regexp.MustCompile(`^swp[0-9]+(s[0-9]+)?$`),
	"sonic":        regexp.MustCompile(`^Ethernet[0-9]+$`),
}

func (cablingPlatforms) CheckPort(platform, port string) error {
	if re, ok := testPortRE[platform]; ok && !re.MatchString(port) {
		return fmt.Errorf("port %q is not a %s port name", port, platform)
	}
	return nil
}

func loadCabling(t *testing.T, fab string) (*Fabric, error) {
	t.Helper()
	return Load("f.yaml", Options{Platforms: cablingPlatforms{}, ReadFile: memFS(map[string]string{"f.yaml": fab, "p.yaml": goodProfile})})
}

func TestCablingResolves(t *testing.T) {
	f, err := loadCabling(t, cablingFabric)
	if err != nil {
		t.Fatalf("valid cabling rejected: %v", err)
	}
	var got []string
	for _, c := range f.Cabling() {
		got = append(got, c.String()+" @"+c.Path)
	}
	want := []string{
		"gpu-01:ens1f0np0 <-> leaf-r0:swp1 @spec.hosts[0].links.ens1f0np0",
		"gpu-01:ens2f0np0 <-> leaf-r1:swp1 @spec.hosts[0].links.ens2f0np0",
		"gpu-02:ens1f0np0 <-> leaf-r0:swp2 @spec.links[0]",
		"gpu-02:ens2f0np0 <-> leaf-r1:swp2 @spec.links[1]",
		"leaf-r0:swp31 <-> spine-01:Ethernet0 @spec.links[2]",
		"leaf-r0:swp32 <-> spine-01:Ethernet1 @spec.links[2]",
		"leaf-r1:swp31 <-> spine-01:Ethernet2 @spec.links[3]",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cabling (-want +got):\n%s", d)
	}
}

func TestParseEndpoint(t *testing.T) {
	for in, want := range map[string]Endpoint{
		"leaf-01:swp1":          {"leaf-01", "swp1"},
		"qfx-01:et-0/0/1:3":     {"qfx-01", "et-0/0/1:3"}, // Junos channelised port
		" gpu-01:ens1f0np0 ":    {"gpu-01", "ens1f0np0"},
		"eos-01:Ethernet1/1/1":  {"eos-01", "Ethernet1/1/1"},
		"nxos-01:Ethernet1/1-2": {"nxos-01", "Ethernet1/1-2"},
	} {
		got, err := ParseEndpoint(in)
		if err != nil || got != want {
			t.Errorf("ParseEndpoint(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "leaf-01", "leaf-01:", ":swp1"} {
		if _, err := ParseEndpoint(bad); err == nil {
			t.Errorf("ParseEndpoint(%q) accepted", bad)
		}
	}
}

func TestNeighborPortName(t *testing.T) {
	for _, c := range []struct {
		n    Neighbor
		want string
	}{
		{Neighbor{PortIDType: "ifname", PortID: "swp46", PortDescription: "BXVWNR2:lom2"}, "swp46"},
		{Neighbor{PortIDType: "local", PortID: "512", PortDescription: "xe-0/0/1"}, "xe-0/0/1"}, // Junos
		{Neighbor{PortIDType: "local", PortID: "Eth1/1"}, "Eth1/1"},
		{Neighbor{PortIDType: "mac", PortID: "00:00:00:00:00:02", PortDescription: "eth1"}, "eth1"}, // a Linux host's lldpd
		{Neighbor{PortIDType: "mac", PortID: "00:00:00:00:00:02"}, "00:00:00:00:00:02"},
	} {
		if got := c.n.PortName(); got != c.want {
			t.Errorf("%+v: PortName %q, want %q", c.n, got, c.want)
		}
	}
}

func TestCablingInvalid(t *testing.T) {
	P := func(old, new string) string { return edit(t, cablingFabric, old, new) }
	cases := []struct {
		name, fab string
		want      []string
	}{
		{"unknown switch", P("[gpu-02:ens1f0np0, leaf-r0:swp2]", "[gpu-02:ens1f0np0, leaf-r9:swp2]"),
			[]string{`f.yaml:38:37: spec.links[0].endpoints[1]: no host or switch named "leaf-r9" (did you mean "leaf-r0"?)`}},
		{"unknown switch in host links", P(`ens2f0np0: "leaf-r1:swp1"`, `ens2f0np0: "leaf-1:swp1"`),
			[]string{`f.yaml:12:53: spec.hosts[0].links.ens2f0np0: no host or switch named "leaf-1"`}},
		{"port not valid on the platform", P("spine-01:Ethernet2", "spine-01:Eth2"),
			[]string{`f.yaml:42:19: spec.links[3].endpoints[0]: spine-01: port "Eth2" is not a sonic port name`}},
		{"port not configured", P("leaf-r1:swp31]", "leaf-r1:swp40]"),
			[]string{"spec.links[3].endpoints[1]: swp40 is not in spec.switches[1].ports of leaf-r1, so its lossless settings would not be configured"}},
		{"port used twice", P("leaf-r0:swp2]", "leaf-r0:swp1]"),
			[]string{"f.yaml:12:26: spec.hosts[0].links.ens1f0np0: leaf-r0:swp1 is already cabled by spec.links[0].endpoints[1]"}},
		{"host interface cabled twice", P("[leaf-r1:swp2, gpu-02:ens2f0np0]", "[leaf-r1:swp2, gpu-02:ens1f0np0]"),
			[]string{"spec.links[1].endpoints[1]: gpu-02:ens1f0np0 is already cabled by spec.links[0].endpoints[0]"}},
		{"interface not among the host's", P(`ens1f0np0: "leaf-r0:swp1"`, `ens3f0np0: "leaf-r0:swp1"`),
			[]string{"spec.hosts[0].links.ens3f0np0: host gpu-01 has no interface ens3f0np0 among its interfaces (ens1f0np0, ens2f0np0)"}},
		{"not device:port", P("[spine-01:Ethernet2, leaf-r1:swp31]", "[spine-01, leaf-r1:swp31]"),
			[]string{`spec.links[3].endpoints[0]: "spine-01" is not DEVICE:PORT`}},
		{"three endpoints", P("[spine-01:Ethernet2, leaf-r1:swp31]", "[spine-01:Ethernet2, leaf-r1:swp31, leaf-r0:swp30]"),
			[]string{"spec.links[3].endpoints: a link has exactly two endpoints (DEVICE:PORT), not 3"}},
		{"bundle of unequal ends", P("spine-01:Ethernet0-1]", "spine-01:Ethernet0-2]"),
			[]string{"spec.links[2].endpoints: the ends name 2 and 3 ports; a bundle pairs ports one to one"}},
		{"cable to itself", P("[spine-01:Ethernet2, leaf-r1:swp31]", "[spine-01:Ethernet2, spine-01:Ethernet3]"),
			[]string{"spec.links[3]: a cable from spine-01 to itself (Ethernet2, Ethernet3)"}},
		{"host to host", P("[spine-01:Ethernet2, leaf-r1:swp31]", "[gpu-01:ens1f0np0, gpu-02:ens1f0np0]"),
			[]string{"spec.links[3]: a cable between two hosts (gpu-01:ens1f0np0, gpu-02:ens1f0np0)"}},
		{"host links to a host", P(`ens2f0np0: "leaf-r1:swp1"`, `ens2f0np0: "gpu-02:ens1f0np0"`),
			[]string{"spec.hosts[0].links.ens2f0np0: gpu-02 is a host; an interface is cabled to a switch port (SWITCH:PORT)"}},
		{"host on a spine", P(`ens2f0np0: "leaf-r1:swp1"`, `ens2f0np0: "spine-01:Ethernet5"`),
			[]string{"spec.hosts[0].links.ens2f0np0: gpu-01:ens2f0np0 is cabled to spine-01:Ethernet5, which is a spine (spec.switches[2].role); hosts are cabled to leaves"}},
		{"two nics on one rail", P(`ens2f0np0: "leaf-r1:swp1"`, `ens2f0np0: "leaf-r0:swp3"`),
			[]string{"spec.hosts[0].links.ens2f0np0: ens1f0np0 and ens2f0np0 of host gpu-01 are both on rail 0 (leaves leaf-r0 and leaf-r0)"}},
		{"rail out of range", P("      rail: 1\n", "      rail: 300\n"),
			[]string{"f.yaml:30:13: spec.switches[1].rail: 300 is outside 0..255"}},
		{"bad role", P("      role: leaf\n", "      role: tor\n"),
			[]string{`spec.switches[0].role: "tor" is not one of leaf, spine`}},
		{"topology schedule without a leaf", P("  links:\n    - endpoints: [gpu-02:ens1f0np0, leaf-r0:swp2]\n    - endpoints: [leaf-r1:swp2, gpu-02:ens2f0np0]\n",
			"  checks:\n    pairwise: {schedule: topology}\n  links:\n"),
			[]string{"spec.hosts[1]: schedule topology needs to know each host's leaf: cable gpu-02 (links) or give it a leaf label"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadCabling(t, c.fab)
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("want located errors, got %v", err)
			}
			for _, w := range c.want {
				found := false
				for _, e := range errs {
					found = found || strings.Contains(e.Error(), w)
				}
				if !found {
					t.Errorf("no error contains %q; got:\n%v", w, err)
				}
			}
			for _, e := range errs {
				if e.Pos.File == "" || e.Pos.Line == 0 {
					t.Errorf("error without a position: %v", e)
				}
			}
		})
	}
}

// TestCablingWithoutPlatforms: with no platform registry, port names are
// still checked against the switch's configured ports.
func TestCablingWithoutPlatforms(t *testing.T) {
	fab := edit(t, cablingFabric, "spine-01:Ethernet2", "spine-01:Eth2")
	_, err := Load("f.yaml", Options{ReadFile: memFS(map[string]string{"f.yaml": fab, "p.yaml": goodProfile})})
	if err == nil || !strings.Contains(err.Error(), "Eth2 is not in spec.switches[2].ports of spine-01") {
		t.Fatalf("got %v", err)
	}
}
