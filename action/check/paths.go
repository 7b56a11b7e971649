package check

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// PairPath is what was learned of one pairwise test's paths with its flow
// label pinned (spec.checks.pairwise.flowLabel: auto): the client (the
// sender) and the server as the fabric names their hosts, the netdev of
// each one's tested NIC ("" where the host has one cabled NIC), the flow
// label both sides carried, and the two directions read from their traces
// (rdma.ReadTraced): the data there, the acknowledgements back.
type PairPath struct {
	Client, Server         string
	ClientPort, ServerPort string
	FlowLabel              int
	There, Back            rdma.LearnedPath
}

// PathRoutes turns the learned paths into the localiser's known routes
// (localize.Routes, for localize.NewRoutedModel, as the InfiniBand
// forwarding tables are): each known direction becomes a traced path over
// topo's cabling, the ports the data leaves by from the sender's NIC to
// the receiver's leaf port. A leaf that does not answer (it bridges, the
// spines route) is put back where the cabling fixes it. A direction that
// is not known, or that the cabling cannot follow (the trace starts at
// another leaf, two cables join two switches it names), is left out with
// a note saying why: the localiser then weighs that test's equal-cost
// paths as it does without routes. Routes is nil when no direction was
// usable.
func PathRoutes(topo *topology.Topology, paths []PairPath) (*localize.Routes, []string) {
	var notes []string
	routes := localize.NewRoutes()
	used := 0
	for _, p := range paths {
		src, errS := hostEnd(topo, p.Client, p.ClientPort)
		dst, errD := hostEnd(topo, p.Server, p.ServerPort)
		if err := errors.Join(errS, errD); err != nil {
			notes = append(notes, fmt.Sprintf("%s → %s: %v", p.Client, p.Server, err))
			continue
		}
		for _, d := range []struct {
			from, to fabric.Endpoint
			path     rdma.LearnedPath
		}{{src, dst, p.There}, {dst, src, p.Back}} {
			what := fmt.Sprintf("%s → %s", d.from.Device, d.to.Device)
			if !d.path.Known {
				notes = append(notes, fmt.Sprintf("%s: %s", what, d.path.Why))
				continue
			}
			egress, err := Egress(topo, d.from, d.to, d.path.Switches)
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: %v", what, err))
				continue
			}
			routes.Traced(d.from, d.to, egress)
			used++
		}
	}
	if used == 0 {
		return nil, notes
	}
	return routes, notes
}

// ErrPathCabling: a learned path does not follow the declared cabling.
var ErrPathCabling = errors.New("the path does not follow the cabling")

// Egress is the ports data from src to dst leaves by when it crosses
// switches in order: src itself, each switch's port cabled to the next,
// the last switch's port cabled to dst (what localize.Routes.Traced
// takes). The first and last switches must be src's and dst's leaves; a
// leaf missing at either end is added where it is the only switch cabled
// to src (or dst) and to the next switch. Two switches joined by more
// than one cable, or by none, are an error wrapping ErrPathCabling.
func Egress(topo *topology.Topology, src, dst fabric.Endpoint, switches []string) ([]fabric.Endpoint, error) {
	srcLeaf, okS := cabledTo(topo, src)
	dstLeaf, okD := cabledTo(topo, dst)
	if !okS || !okD || len(switches) == 0 {
		return nil, fmt.Errorf("%w: %s or %s is not cabled to one switch port, or no switch answered", ErrPathCabling, src, dst)
	}
	sws := slices.Clone(switches)
	if sws[0] != srcLeaf.Device {
		if _, err := between(topo, srcLeaf.Device, sws[0]); err != nil {
			return nil, fmt.Errorf("%w: the trace starts at %s, not at %s (%s's leaf)", ErrPathCabling, sws[0], srcLeaf.Device, src.Device)
		}
		sws = append([]string{srcLeaf.Device}, sws...)
	}
	if sws[len(sws)-1] != dstLeaf.Device {
		if _, err := between(topo, sws[len(sws)-1], dstLeaf.Device); err != nil {
			return nil, fmt.Errorf("%w: the trace ends at %s, not at %s (%s's leaf)", ErrPathCabling, sws[len(sws)-1], dstLeaf.Device, dst.Device)
		}
		sws = append(sws, dstLeaf.Device)
	}
	out := []fabric.Endpoint{src}
	for i := 0; i+1 < len(sws); i++ {
		e, err := between(topo, sws[i], sws[i+1])
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return append(out, dstLeaf), nil
}

// cabledTo is the one switch port cabled to e.
func cabledTo(topo *topology.Topology, e fabric.Endpoint) (fabric.Endpoint, bool) {
	ls := topo.LinksAt(e)
	if len(ls) != 1 {
		return fabric.Endpoint{}, false
	}
	return ls[0].Other(e)
}

// between is a's port of the one cable joining switches a and b.
func between(topo *topology.Topology, a, b string) (fabric.Endpoint, error) {
	var ends []fabric.Endpoint
	for _, l := range topo.LinksOf(a) {
		switch {
		case l.A.Device == a && l.B.Device == b:
			ends = append(ends, l.A)
		case l.B.Device == a && l.A.Device == b:
			ends = append(ends, l.B)
		}
	}
	switch len(ends) {
	case 1:
		return ends[0], nil
	case 0:
		return fabric.Endpoint{}, fmt.Errorf("%w: no cable joins %s and %s", ErrPathCabling, a, b)
	}
	var names []string
	for _, e := range ends {
		names = append(names, e.String())
	}
	return fabric.Endpoint{}, fmt.Errorf("%w: %d cables join %s and %s (%s): a trace names switches, not ports", ErrPathCabling, len(ends), a, b, strings.Join(names, ", "))
}

// hostEnd is the host's end of the access cable of its tested NIC: the
// one named port, or the host's only access cable.
func hostEnd(topo *topology.Topology, host, port string) (fabric.Endpoint, error) {
	var ends []fabric.Endpoint
	for _, l := range topo.LinksOf(host) {
		if l.Kind == topology.Access && l.A.Device == host && (port == "" || l.A.Port == port) {
			ends = append(ends, l.A)
		}
	}
	if len(ends) != 1 {
		return fabric.Endpoint{}, fmt.Errorf("%w: %s has %d cabled NICs named %q", ErrPathCabling, host, len(ends), port)
	}
	return ends[0], nil
}
