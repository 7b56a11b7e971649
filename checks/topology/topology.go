package topology

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// Role is a node's place in the fabric.
type Role string

// The roles. A switch without a declared role is a leaf when a host is
// cabled to it, a spine when only switches are, and RoleSwitch otherwise.
const (
	RoleHost   Role = "host"
	RoleLeaf   Role = "leaf"
	RoleSpine  Role = "spine"
	RoleSwitch Role = "switch"
)

// Node is a host or a switch.
type Node struct {
	Name string `json:"name"`
	Role Role   `json:"role"`
	// Rail is the rail a leaf serves in a rail-optimised fabric.
	Rail *int `json:"rail,omitempty"`
}

// LinkKind says what a cable joins.
type LinkKind string

// The link kinds.
const (
	Access LinkKind = "access" // a host NIC to a switch port
	Fabric LinkKind = "fabric" // two switches (a leaf's uplink to a spine, an inter-leaf link)
)

// Link is one cable. A is the host end of an access link; otherwise the
// endpoint that sorts first.
type Link struct {
	A    fabric.Endpoint `json:"a"`
	B    fabric.Endpoint `json:"b"`
	Kind LinkKind        `json:"kind"`
}

// String writes "A <-> B".
func (l Link) String() string { return l.A.String() + " <-> " + l.B.String() }

// Other returns the end of l that is not e (and false when e is not an end).
func (l Link) Other(e fabric.Endpoint) (fabric.Endpoint, bool) {
	switch e {
	case l.A:
		return l.B, true
	case l.B:
		return l.A, true
	}
	return fabric.Endpoint{}, false
}

// Topology is a fabric's nodes and cables, declared or discovered. Build it
// with Declared, Discover or New; it is read-only afterwards and safe for
// concurrent reads.
type Topology struct {
	Nodes []Node `json:"nodes"`
	Links []Link `json:"links"`

	byName map[string]int
	byEnd  map[fabric.Endpoint][]int
}

// New builds a topology from nodes and links: nodes sorted by name, links
// oriented (host end first) and sorted, duplicates dropped, roles of
// switches without one inferred from the links.
func New(nodes []Node, links []Link) *Topology {
	t := &Topology{byName: map[string]int{}, byEnd: map[fabric.Endpoint][]int{}}
	for _, n := range nodes {
		if _, dup := t.byName[n.Name]; dup || n.Name == "" {
			continue
		}
		t.byName[n.Name] = len(t.Nodes)
		t.Nodes = append(t.Nodes, n)
	}
	seen := map[[2]fabric.Endpoint]bool{}
	for _, l := range links {
		l = t.orient(l)
		k := [2]fabric.Endpoint{l.A, l.B}
		if seen[k] || l.A == l.B {
			continue
		}
		seen[k] = true
		t.Links = append(t.Links, l)
	}
	t.inferRoles()
	slices.SortFunc(t.Nodes, func(a, b Node) int { return cmp.Compare(a.Name, b.Name) })
	t.reindex()
	for i := range t.Links {
		t.Links[i] = t.orient(t.Links[i])
	}
	slices.SortFunc(t.Links, func(a, b Link) int { return cmp.Or(a.A.Compare(b.A), a.B.Compare(b.B)) })
	t.reindex()
	return t
}

func (t *Topology) reindex() {
	t.byName = make(map[string]int, len(t.Nodes))
	for i, n := range t.Nodes {
		t.byName[n.Name] = i
	}
	t.byEnd = make(map[fabric.Endpoint][]int, 2*len(t.Links))
	for i, l := range t.Links {
		t.byEnd[l.A] = append(t.byEnd[l.A], i)
		t.byEnd[l.B] = append(t.byEnd[l.B], i)
	}
}

// orient puts the host end first and sets the kind.
func (t *Topology) orient(l Link) Link {
	ha, hb := t.role(l.A.Device) == RoleHost, t.role(l.B.Device) == RoleHost
	if hb && !ha || ha == hb && l.B.Compare(l.A) < 0 {
		l.A, l.B = l.B, l.A
	}
	l.Kind = Fabric
	if ha || hb {
		l.Kind = Access
	}
	return l
}

func (t *Topology) role(name string) Role {
	if i, ok := t.byName[name]; ok {
		return t.Nodes[i].Role
	}
	return ""
}

// inferRoles gives switches without a role one from their cables.
func (t *Topology) inferRoles() {
	hostCabled, switchCabled := map[string]bool{}, map[string]bool{}
	for _, l := range t.Links {
		ra, rb := t.role(l.A.Device), t.role(l.B.Device)
		if ra == RoleHost {
			hostCabled[l.B.Device] = true
		}
		if rb == RoleHost {
			hostCabled[l.A.Device] = true
		}
		if ra != RoleHost && rb != RoleHost {
			switchCabled[l.A.Device], switchCabled[l.B.Device] = true, true
		}
	}
	for i, n := range t.Nodes {
		if n.Role != "" {
			continue
		}
		switch {
		case hostCabled[n.Name]:
			t.Nodes[i].Role = RoleLeaf
		case switchCabled[n.Name]:
			t.Nodes[i].Role = RoleSpine
		default:
			t.Nodes[i].Role = RoleSwitch
		}
	}
}

// Declared is the topology the fabric file declares: its hosts and
// switches (with their declared role and rail) and its cabling.
func Declared(f *fabric.Fabric) *Topology {
	var nodes []Node
	for _, h := range f.Spec.Hosts {
		nodes = append(nodes, Node{Name: h.Name, Role: RoleHost})
	}
	for _, s := range f.Spec.Switches {
		n := Node{Name: s.Name, Role: Role(s.Role)}
		if s.Rail != nil {
			r := *s.Rail
			n.Rail = &r
		}
		nodes = append(nodes, n)
	}
	var links []Link
	for _, c := range f.Cabling() {
		links = append(links, Link{A: c.A, B: c.B})
	}
	return New(nodes, links)
}

// DeclaredIB is the InfiniBand topology the fabric file declares
// (spec.infiniband): its switches, every channel-adapter node the cabling
// names (a host, HOST/HCA or subnet manager, all RoleHost) and its cables,
// whose ports are the IB port numbers ("leaf-01:7"). Nil when the fabric
// declares no InfiniBand cabling.
func DeclaredIB(f *fabric.Fabric) *Topology {
	if f.Spec.InfiniBand == nil {
		return nil
	}
	var nodes []Node
	for _, n := range f.IBNodes() {
		r := RoleHost
		if n.Kind == fabric.IBSwitchNode {
			r = ""
		}
		nodes = append(nodes, Node{Name: n.Name, Role: r})
	}
	var links []Link
	for _, c := range f.IBCabling() {
		links = append(links, Link{A: c.A, B: c.B})
	}
	return New(nodes, links)
}

// Node returns the node called name.
func (t *Topology) Node(name string) (Node, bool) {
	if t == nil {
		return Node{}, false
	}
	i, ok := t.byName[name]
	if !ok {
		return Node{}, false
	}
	return t.Nodes[i], true
}

// Role returns the role of the node called name ("" when unknown).
func (t *Topology) Role(name string) Role {
	n, _ := t.Node(name)
	return n.Role
}

// LinksAt returns the cables at an endpoint (more than one only in a
// discovered topology where the two ends disagree).
func (t *Topology) LinksAt(e fabric.Endpoint) []Link {
	if t == nil {
		return nil
	}
	var out []Link
	for _, i := range t.byEnd[e] {
		out = append(out, t.Links[i])
	}
	return out
}

// LinksOf returns the cables with an end on device, in link order.
func (t *Topology) LinksOf(device string) []Link {
	var out []Link
	for _, l := range t.Links {
		if l.A.Device == device || l.B.Device == device {
			out = append(out, l)
		}
	}
	return out
}

// Names returns the names of the nodes with role r, sorted.
func (t *Topology) Names(r Role) []string {
	var out []string
	for _, n := range t.Nodes {
		if n.Role == r {
			out = append(out, n.Name)
		}
	}
	return out
}

// Validate reports links whose ends name no node, for topologies built
// from outside data (a report read back).
func (t *Topology) Validate() error {
	for i, l := range t.Links {
		for _, e := range []fabric.Endpoint{l.A, l.B} {
			if _, ok := t.byName[e.Device]; !ok {
				return fmt.Errorf("links[%d] %s: no node %q", i, l, e.Device)
			}
			if e.Port == "" {
				return fmt.Errorf("links[%d] %s: an end without a port", i, l)
			}
		}
	}
	return nil
}

// Rebuild restores the indexes of a topology decoded from JSON.
func (t *Topology) Rebuild() *Topology {
	if t == nil {
		return nil
	}
	return New(t.Nodes, t.Links)
}

// shortName is the part of a system name before the first dot, lowercased:
// LLDP system names are often FQDNs (leaf-01.dc1.example.net).
func shortName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexByte(s, '.'); i > 0 {
		return s[:i]
	}
	return s
}
