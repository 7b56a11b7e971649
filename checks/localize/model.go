package localize

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// Sentinels for errors.Is.
var (
	// ErrTopology: the topology cannot carry tests (no host cabled to a
	// leaf, leaves with no path between them, too many equal-cost paths).
	ErrTopology = errors.New("unusable topology")
	// ErrEndpoint: an observation names an endpoint the topology lacks.
	ErrEndpoint = errors.New("unknown test endpoint")
)

// maxPaths bounds the equal-cost paths enumerated between two leaves (a
// two-tier Clos of 64 spines with two parallel uplinks has 128·2 = 256).
const maxPaths = 4096

// component is one thing that can fail.
type component struct {
	ref  checks.SuspectRef
	ends []string // endpoints or devices it touches, for drawings
	// phyEnds are the endpoints whose receive errors implicate it (a cable's two ends).
	phyEnds []fabric.Endpoint
	lossy   bool // a fault makes tests lose packets (everything but a NIC)
	// directional: a cable may corrupt one way only (one fibre, one laser).
	directional bool
	logOdds     float64
}

// link is a cable as a known route crosses it: the component, the
// direction data leaving by one of its ends crosses it, and the device at
// the far end.
type link struct {
	c      int32
	dir    uint8
	access bool // a host's access cable: always among a test's certain hops
	far    string
}

// nicEnd is a test endpoint: one host NIC and the components on its side.
type nicEnd struct {
	name                   string // "host" or "host:iface" as observations write it
	host                   string
	ep                     fabric.Endpoint // the NIC's end of its access cable
	nic, cable, port, leaf int
	leafName               string
}

// hop is a component a test's data crosses, and which way: dirAB from
// the component's A end to its B end, dirBA back, 0 for a switch.
type hop struct {
	c   int32
	dir uint8
	// ack: the test's acknowledgements cross the component the other way
	// (known for access cables, not for ECMP paths).
	ack bool
	// ackOnly: only the acknowledgements cross the component, in
	// direction dir (a known route back that differs from the way there).
	ackOnly bool
}

const (
	dirAB uint8 = 1
	dirBA uint8 = 2
)

// path is one equal-cost way between two leaves, with its probability
// under per-hop ECMP, and the components on it that are not certain, with
// the direction data from the first leaf to the second crosses them.
type path struct {
	p    float64
	hops []hop
}

// Model is the failure model of a topology: its components and how tests
// between endpoints traverse them. Build it once with NewModel; it is
// read-only afterwards and safe for concurrent use.
type Model struct {
	comps  []component
	ids    map[string]int
	ends   map[string]*nicEnd // by endpoint name, and by "host" when the host has one NIC
	byHost map[string][]*nicEnd
	leafOf map[string]int       // leaf name → leaf component
	group  map[string]int       // leaf name → uplink-group component
	paths  map[[2]string][]path // leaf pair → equal-cost paths (la < lb)
	topo   *topology.Topology
	spineN int
	// routes, when known, give every test its path (NewRoutedModel);
	// links indexes the cables by the port a route leaves by.
	routes *Routes
	links  map[fabric.Endpoint]link
}

// NewModel builds the failure model of t with the priors of o: a NIC, an
// access cable and a leaf port per host NIC, every switch (leaves, spines),
// every switch-to-switch cable and every leaf's uplink group.
func NewModel(t *topology.Topology, o Options) (*Model, error) {
	return NewRoutedModel(t, nil, o)
}

// NewRoutedModel is NewModel for a fabric whose routes are known (r,
// InfiniBand's forwarding tables: IBRoutes): a test crosses the cables and
// switches of its route, and its acknowledgements those of the route
// back, instead of a mixture of equal-cost paths; a cable or uplink may
// also run slow without loss (a link trained at a lower width or speed). A
// pair the routes do not lead through is modelled as NewModel does. A nil
// r is NewModel.
func NewRoutedModel(t *topology.Topology, r *Routes, o Options) (*Model, error) {
	o = o.withDefaults()
	m := &Model{ids: map[string]int{}, ends: map[string]*nicEnd{}, byHost: map[string][]*nicEnd{},
		leafOf: map[string]int{}, group: map[string]int{}, paths: map[[2]string][]path{}, topo: t, routes: r}
	if r != nil {
		m.links = map[fabric.Endpoint]link{}
	}
	add := func(kind checks.SuspectKind, id, name string, ends []string, phy []fabric.Endpoint) int {
		if i, ok := m.ids[id]; ok {
			return i
		}
		m.ids[id] = len(m.comps)
		m.comps = append(m.comps, component{ref: checks.SuspectRef{Kind: kind, Component: id, Name: name}, ends: ends,
			phyEnds: phy, lossy: kind != checks.SuspectNIC, logOdds: o.logOdds(kind),
			directional: kind == checks.SuspectCable || kind == checks.SuspectUplink})
		return len(m.comps) - 1
	}
	isSwitch := func(name string) bool {
		r := t.Role(name)
		return r == topology.RoleLeaf || r == topology.RoleSpine || r == topology.RoleSwitch
	}
	for _, n := range t.Nodes {
		switch n.Role {
		case topology.RoleLeaf:
			m.leafOf[n.Name] = add(checks.SuspectLeaf, "leaf:"+n.Name, "leaf "+n.Name, []string{n.Name}, nil)
		case topology.RoleSpine, topology.RoleSwitch:
			add(checks.SuspectSpine, "switch:"+n.Name, string(n.Role)+" "+n.Name, []string{n.Name}, nil)
			if n.Role == topology.RoleSpine {
				m.spineN++
			}
		}
	}
	for _, l := range t.Links {
		switch {
		case l.Kind == topology.Access && isSwitch(l.B.Device):
			leaf, ok := m.leafOf[l.B.Device]
			if !ok { // a host on a switch that is not a leaf: make it one
				leaf = add(checks.SuspectLeaf, "leaf:"+l.B.Device, "leaf "+l.B.Device, []string{l.B.Device}, nil)
				m.leafOf[l.B.Device] = leaf
			}
			e := &nicEnd{name: l.A.String(), host: l.A.Device, ep: l.A, leaf: leaf, leafName: l.B.Device}
			e.nic = add(checks.SuspectNIC, "nic:"+l.A.String(), fmt.Sprintf("NIC %s of %s", l.A.Port, l.A.Device), []string{l.A.String()}, nil)
			e.cable = add(checks.SuspectCable, "cable:"+l.A.String(), "cable "+l.String(), []string{l.A.String(), l.B.String()}, []fabric.Endpoint{l.A, l.B})
			e.port = add(checks.SuspectSwitchPort, "port:"+l.B.String(), "port "+l.B.String(), []string{l.B.String()}, nil)
			m.ends[e.name] = e
			m.byHost[e.host] = append(m.byHost[e.host], e)
			if m.links != nil {
				m.links[l.A] = link{c: int32(e.cable), dir: dirAB, access: true, far: l.B.Device}
				m.links[l.B] = link{c: int32(e.cable), dir: dirBA, access: true, far: l.A.Device}
			}
		case l.Kind == topology.Fabric:
			c := add(checks.SuspectUplink, "link:"+l.A.String(), "uplink "+l.String(), []string{l.A.String(), l.B.String()}, []fabric.Endpoint{l.A, l.B})
			if m.links != nil {
				m.links[l.A] = link{c: int32(c), dir: dirAB, far: l.B.Device}
				m.links[l.B] = link{c: int32(c), dir: dirBA, far: l.A.Device}
			}
		}
	}
	if len(m.ends) == 0 {
		return nil, fmt.Errorf("building the failure model: %w: no host is cabled to a switch", ErrTopology)
	}
	for h, es := range m.byHost {
		if len(es) == 1 {
			m.ends[h] = es[0]
		}
	}
	leaves := make([]string, 0, len(m.leafOf))
	for l := range m.leafOf {
		leaves = append(leaves, l)
	}
	slices.Sort(leaves)
	for _, l := range leaves {
		if len(t.LinksOf(l)) > 0 && hasFabricLink(t, l) {
			m.group[l] = add(checks.SuspectUplinkGroup, "uplinks:"+l, "uplinks of leaf "+l, []string{l}, nil)
		}
	}
	g := newSwitchGraph(t)
	for i, a := range leaves {
		for _, b := range leaves[i+1:] {
			ps, err := m.equalCostPaths(a, b, g)
			if err != nil {
				return nil, fmt.Errorf("building the failure model: %w", err)
			}
			m.paths[[2]string{a, b}] = ps
		}
	}
	return m, nil
}

func hasFabricLink(t *topology.Topology, leaf string) bool {
	for _, l := range t.LinksOf(leaf) {
		if l.Kind == topology.Fabric {
			return true
		}
	}
	return false
}

// switchGraph is the switches and the cables between them, with the
// distances to each destination leaf computed once.
type switchGraph struct {
	adj  map[string][]topology.Link
	dist map[string]map[string]int
}

func newSwitchGraph(t *topology.Topology) *switchGraph {
	g := &switchGraph{adj: map[string][]topology.Link{}, dist: map[string]map[string]int{}}
	for _, l := range t.Links {
		if l.Kind == topology.Fabric {
			g.adj[l.A.Device] = append(g.adj[l.A.Device], l)
			g.adj[l.B.Device] = append(g.adj[l.B.Device], l)
		}
	}
	return g
}

// distTo returns the hop count of every switch to b (breadth first).
func (g *switchGraph) distTo(b string) map[string]int {
	if d, ok := g.dist[b]; ok {
		return d
	}
	dist := map[string]int{b: 0}
	queue := []string{b}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, l := range g.adj[u] {
			v := l.A.Device
			if v == u {
				v = l.B.Device
			}
			if _, seen := dist[v]; !seen {
				dist[v] = dist[u] + 1
				queue = append(queue, v)
			}
		}
	}
	g.dist[b] = dist
	return dist
}

// equalCostPaths enumerates the shortest switch paths from leaf a to leaf
// b with their probabilities under per-hop ECMP (every next hop on a
// shortest path equally likely, every parallel cable to it too).
func (m *Model) equalCostPaths(a, b string, g *switchGraph) ([]path, error) {
	adj, dist := g.adj, g.distTo(b)
	if _, ok := dist[a]; !ok {
		return nil, fmt.Errorf("%w: no switch path between leaves %s and %s", ErrTopology, a, b)
	}
	var out []path
	var walk func(u string, p float64, hops []hop) error
	walk = func(u string, p float64, hops []hop) error {
		if u == b {
			if len(out) >= maxPaths {
				return fmt.Errorf("%w: more than %d equal-cost paths between %s and %s", ErrTopology, maxPaths, a, b)
			}
			out = append(out, path{p: p, hops: slices.Clone(hops)})
			return nil
		}
		var next []topology.Link
		for _, l := range adj[u] {
			v := l.A.Device
			if v == u {
				v = l.B.Device
			}
			if d, ok := dist[v]; ok && d == dist[u]-1 {
				next = append(next, l)
			}
		}
		for _, l := range next {
			v := l.A.Device
			if v == u {
				v = l.B.Device
			}
			dir := dirAB
			if l.A.Device != u {
				dir = dirBA
			}
			c := append(hops, hop{c: int32(m.ids["link:"+l.A.String()]), dir: dir})
			if v != b {
				if sw, ok := m.ids["switch:"+v]; ok {
					c = append(c, hop{c: int32(sw)})
				} else if lf, ok := m.leafOf[v]; ok { // transit through another leaf
					c = append(c, hop{c: int32(lf)})
				}
			}
			if err := walk(v, p/float64(len(next)), c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(a, 1, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// endpoint resolves an observation's endpoint name.
func (m *Model) endpoint(name string) (*nicEnd, error) {
	if e, ok := m.ends[name]; ok {
		return e, nil
	}
	if es := m.byHost[name]; len(es) > 1 {
		var names []string
		for _, e := range es {
			names = append(names, e.name)
		}
		slices.Sort(names)
		return nil, fmt.Errorf("%w: host %s has %d cabled NICs; name one (%s)", ErrEndpoint, name, len(es), strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("%w: %q is no host NIC cabled to a leaf", ErrEndpoint, name)
}

// testName is how tests name an endpoint: the host alone when it has one
// cabled NIC, "host:iface" otherwise.
func (m *Model) testName(e *nicEnd) string {
	if len(m.byHost[e.host]) == 1 {
		return e.host
	}
	return e.name
}

// Components returns the references of every component, in model order.
func (m *Model) Components() []checks.SuspectRef {
	out := make([]checks.SuspectRef, len(m.comps))
	for i, c := range m.comps {
		out[i] = c.ref
	}
	return out
}

// Endpoints returns the names of the test endpoints (one per cabled host
// NIC, "host:iface"), sorted.
func (m *Model) Endpoints() []string {
	var out []string
	for _, es := range m.byHost {
		for _, e := range es {
			out = append(out, e.name)
		}
	}
	slices.Sort(out)
	return out
}
