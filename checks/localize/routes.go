package localize

import (
	"errors"
	"fmt"
	"slices"

	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// ErrNoRoute: the routes do not lead from a test's source to its
// destination (a forwarding table without the destination, a port with no
// cable, a loop).
var ErrNoRoute = errors.New("no known route")

// maxHops bounds a walk through forwarding tables (InfiniBand's directed
// routes stop at 64 hops too).
const maxHops = 64

// Routes are the paths tests take when the fabric's forwarding is known
// rather than hashed: per switch, the port it forwards each destination
// endpoint out of (InfiniBand's linear forwarding tables: OpenSM's routing
// engines, min-hop, up-down or ftree with its D-mod-K spreading, give every
// destination LID one output port per switch), and paths traced end to
// end (ibtracert), which take precedence over the tables. Endpoints and
// ports are named as the topology names them ("leaf-01:7", "gpu-01:1").
//
// Build it with NewRoutes and Forward/Traced, or from the InfiniBand
// diagnostics with IBRoutes; hand it to NewRoutedModel. A Routes is not
// safe for concurrent changes; once built, reading it is.
type Routes struct {
	next   map[string]map[fabric.Endpoint]string // switch → destination → out port
	traced map[[2]fabric.Endpoint][]fabric.Endpoint
}

// NewRoutes returns empty routes.
func NewRoutes() *Routes {
	return &Routes{next: map[string]map[fabric.Endpoint]string{}, traced: map[[2]fabric.Endpoint][]fabric.Endpoint{}}
}

// Forward records that switch sw sends what is bound for dst out of port.
func (r *Routes) Forward(sw string, dst fabric.Endpoint, port string) {
	t := r.next[sw]
	if t == nil {
		t = map[fabric.Endpoint]string{}
		r.next[sw] = t
	}
	t[dst] = port
}

// Traced records the path from src to dst as a trace found it: the ports
// the data leaves by, from src itself to the last switch's port towards
// dst.
func (r *Routes) Traced(src, dst fabric.Endpoint, egress []fabric.Endpoint) {
	r.traced[[2]fabric.Endpoint{src, dst}] = slices.Clone(egress)
}

// Len returns how many forwarding entries and traced paths r holds.
func (r *Routes) Len() (entries, traced int) {
	for _, t := range r.next {
		entries += len(t)
	}
	return entries, len(r.traced)
}

// Path returns the ports the data from src to dst leaves by over the
// cabling of t: src itself, then each switch's output port, the last one
// cabled to dst. A traced path is returned as traced; otherwise the
// forwarding tables are walked from the switch src is cabled to. An
// error wraps ErrNoRoute and names where the walk stopped.
func (r *Routes) Path(t *topology.Topology, src, dst fabric.Endpoint) ([]fabric.Endpoint, error) {
	if p, ok := r.traced[[2]fabric.Endpoint{src, dst}]; ok {
		return slices.Clone(p), nil
	}
	out := []fabric.Endpoint{src}
	at := src
	for range maxHops {
		far, err := farEnd(t, at)
		if err != nil {
			return nil, err
		}
		if far == dst {
			return out, nil
		}
		port, ok := r.next[far.Device][dst]
		if !ok {
			return nil, fmt.Errorf("%w from %s to %s: %s forwards nothing to it", ErrNoRoute, src, dst, far.Device)
		}
		at = fabric.Endpoint{Device: far.Device, Port: port}
		out = append(out, at)
	}
	return nil, fmt.Errorf("%w from %s to %s: more than %d hops (a loop)", ErrNoRoute, src, dst, maxHops)
}

// farEnd is the port cabled to e.
func farEnd(t *topology.Topology, e fabric.Endpoint) (fabric.Endpoint, error) {
	for _, l := range t.LinksAt(e) {
		if far, ok := l.Other(e); ok {
			return far, nil
		}
	}
	return fabric.Endpoint{}, fmt.Errorf("%w: port %s is not cabled", ErrNoRoute, e)
}
