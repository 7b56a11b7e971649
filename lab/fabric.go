package lab

import (
	"fmt"
	"net/netip"

	"github.com/fabricctl/fabricctl/fabric"
)

// TopologyFromFabric makes every host of a loaded fabric (from the file
// path, named in errors) a VM-host of the lab at its address; the switches'
// and subnet managers' addresses go on the lab bridge beside the
// controller, where their simulators listen. Addresses must be IPv4 inside
// the lab subnet.
func TopologyFromFabric(f *fabric.Fabric, path string) (Topology, error) {
	t := DefaultTopology()
	t.Hosts, t.Extra = nil, nil
	addr := func(kind, name, a string) (netip.Addr, error) {
		ip, err := netip.ParseAddr(a)
		if err != nil || !ip.Is4() {
			return netip.Addr{}, fmt.Errorf("%s: %s %s: address %q: the lab needs an IPv4 address inside %s", path, kind, name, a, t.Subnet)
		}
		return ip, nil
	}
	for _, h := range f.Spec.Hosts {
		ip, err := addr("host", h.Name, h.Address)
		if err != nil {
			return Topology{}, err
		}
		t.Hosts = append(t.Hosts, Host{Name: h.Name, Address: ip})
	}
	for _, s := range f.Spec.Switches {
		ip, err := addr("switch", s.Name, s.Address)
		if err != nil {
			return Topology{}, err
		}
		t.Extra = append(t.Extra, ip)
		sw := Switch{Name: s.Name, Platform: s.Platform, Address: ip}
		if s.SSH != nil {
			sw.User, sw.Port = s.SSH.User, s.SSH.Port
		}
		t.Switches = append(t.Switches, sw)
	}
	for _, s := range f.Spec.SubnetManagers {
		ip, err := addr("subnet manager", s.Name, s.Address)
		if err != nil {
			return Topology{}, err
		}
		t.Extra = append(t.Extra, ip)
	}
	return t, nil
}
