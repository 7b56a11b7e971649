package ibfabric

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/checks/ibdiag"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// ErrNoCabling: the fabric declares no InfiniBand cabling (spec.infiniband).
var ErrNoCabling = errors.New("the fabric declares no InfiniBand cabling (spec.infiniband)")

// Declared is what the fabric file says of its InfiniBand side.
type Declared struct {
	Nodes  []fabric.IBNode
	Cables []fabric.IBCable
	// Topology is the declared cabling as checks/topology builds it.
	Topology *topology.Topology
	// SubnetManagers are the declared subnet managers' names, in file order.
	SubnetManagers []string
	// Partitions are the first subnet manager's partitions (one subnet).
	Partitions []fabric.PartitionIntent
	// GUIDs are the hosts' declared port GUIDs; MemberHosts the partition
	// member hosts (whose GUIDs are discovered when not declared).
	GUIDs       map[string][]string
	MemberHosts []string

	byName map[string]fabric.IBNode
}

// Declare reads the declared InfiniBand fabric of a validated fabric.
func Declare(f *fabric.Fabric) (*Declared, error) {
	if f.Spec.InfiniBand == nil {
		return nil, fmt.Errorf("checking %s: %w", f.Metadata.Name, ErrNoCabling)
	}
	d := &Declared{Nodes: f.IBNodes(), Cables: f.IBCabling(), Topology: topology.DeclaredIB(f), GUIDs: map[string][]string{}}
	for _, sm := range f.Spec.SubnetManagers {
		d.SubnetManagers = append(d.SubnetManagers, sm.Name)
	}
	for _, h := range f.Spec.Hosts {
		if len(h.PortGUIDs) > 0 {
			d.GUIDs[h.Name] = h.PortGUIDs
		}
	}
	if r := f.Resolve(); len(r.SubnetManagers) > 0 {
		d.Partitions = r.SubnetManagers[0].Partitions
		seen := map[string]bool{}
		for _, p := range d.Partitions {
			for _, m := range p.Members {
				if m.Host != "" && !seen[m.Host] {
					seen[m.Host] = true
					d.MemberHosts = append(d.MemberHosts, m.Host)
				}
			}
		}
	}
	d.index()
	return d, nil
}

func (d *Declared) index() {
	d.byName = map[string]fabric.IBNode{}
	for _, n := range d.Nodes {
		d.byName[n.Name] = n
	}
}

// Node returns the declared node called name.
func (d *Declared) Node(name string) (fabric.IBNode, bool) {
	if d.byName == nil {
		d.index()
	}
	n, ok := d.byName[name]
	return n, ok
}

// Identify names a node seen on the wire: the declared node with its GUID
// (a switch's node GUID, a CA's port GUID), else the one its
// NodeDescription names, else the description itself (or the GUID when the
// description is empty) with known false.
func (d *Declared) Identify(typ ibdiag.NodeType, guid uint64, desc string) (string, bool) {
	fields := strings.Fields(desc)
	for _, n := range d.Nodes {
		switch {
		case n.Kind == fabric.IBSwitchNode && typ == ibdiag.Switch:
			if n.GUID != 0 && n.GUID == guid || n.GUID == 0 && len(fields) > 0 && (desc == n.Name || fields[0] == n.Name) {
				return n.Name, true
			}
		case n.Kind != fabric.IBSwitchNode && typ == ibdiag.CA:
			for _, g := range n.PortGUIDs {
				if g == guid {
					return n.Name, true
				}
			}
		}
	}
	if typ == ibdiag.CA && len(fields) > 0 {
		for _, n := range d.Nodes {
			if n.Kind == fabric.IBSwitchNode || len(n.PortGUIDs) > 0 || fields[0] != n.Host {
				continue
			}
			if n.HCA == "" || len(fields) > 1 && fields[1] == n.HCA {
				return n.Name, true
			}
		}
	}
	if desc == "" {
		return fmt.Sprintf("0x%016x", guid), false
	}
	if _, clash := d.Node(desc); clash {
		// described as a declared node, but not the declared GUID: another
		// device (a replaced switch) must not pass for it
		return fmt.Sprintf("%s (GUID 0x%016x)", desc, guid), false
	}
	return desc, false
}
