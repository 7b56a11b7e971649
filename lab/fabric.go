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
	leaves, err := leavesFromCabling(f, path)
	if err != nil {
		return Topology{}, err
	}
	t.Leaves = leaves
	return t, nil
}

// leavesFromCabling makes a two-leaf lab of a fabric whose declared cabling
// puts every host on one of two switches (profiles/lab/two-leaf.yaml); a
// fabric without host cabling gets the one-bridge lab (nil).
func leavesFromCabling(f *fabric.Fabric, path string) ([]Leaf, error) {
	isHost := map[string]bool{}
	for _, h := range f.Spec.Hosts {
		isHost[h.Name] = true
	}
	byLeaf := map[string]*Leaf{}
	var order []string
	cabled := map[string]bool{}
	for _, c := range f.Cabling() {
		switch {
		case isHost[c.A.Device] && !isHost[c.B.Device]:
			if cabled[c.A.Device] {
				return nil, fmt.Errorf("%s: %s: host %s has two cables; the lab gives each host one NIC", path, c.Path, c.A.Device)
			}
			cabled[c.A.Device] = true
			l := byLeaf[c.B.Device]
			if l == nil {
				l = &Leaf{Name: c.B.Device, Ports: map[string]string{}}
				byLeaf[c.B.Device] = l
				order = append(order, c.B.Device)
			}
			l.Hosts = append(l.Hosts, c.A.Device)
			l.Ports[c.A.Device] = c.B.Port
		case !isHost[c.A.Device] && !isHost[c.B.Device] && (c.A.Port != TrunkPort || c.B.Port != TrunkPort):
			return nil, fmt.Errorf("%s: %s: %s: the lab's inter-leaf link is %s on both leaves", path, c.Path, c, TrunkPort)
		}
	}
	if len(cabled) == 0 {
		return nil, nil
	}
	for _, h := range f.Spec.Hosts {
		if !cabled[h.Name] {
			return nil, fmt.Errorf("%s: host %s has no cable: a lab with cabling needs every host on a leaf", path, h.Name)
		}
	}
	if len(order) != 2 {
		return nil, fmt.Errorf("%s: the hosts are cabled to %d switches; the lab builds two leaves", path, len(order))
	}
	return []Leaf{*byLeaf[order[0]], *byLeaf[order[1]]}, nil
}
