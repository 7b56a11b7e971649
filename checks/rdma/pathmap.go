package rdma

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// Switch labels that declare the addresses a switch answers a traceroute
// from (beside its spec.switches[].address): ICMP time-exceeded comes from
// a routed interface's address or, where the switch is set to, from its
// loopback, rarely from its management address. Values are IP literals,
// separated by commas or spaces ("10.9.1.1, 10.9.2.1").
const (
	LabelLoopback  = "loopback"
	LabelAddresses = "addresses"
)

// SwitchAddrs maps every address the fabric declares for a switch (its
// address when that is an IP literal, and those of its loopback and
// addresses labels) to the switch's name. An address two switches
// declare maps to neither: an answer from it names no switch.
func SwitchAddrs(f *fabric.Fabric) map[netip.Addr]string {
	out := map[netip.Addr]string{}
	dup := map[netip.Addr]bool{}
	add := func(s, name string) {
		a, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil {
			return
		}
		a = a.Unmap()
		if prev, ok := out[a]; ok && prev != name {
			dup[a] = true
		}
		out[a] = name
	}
	for _, sw := range f.Spec.Switches {
		add(sw.Address, sw.Name)
		for _, l := range []string{LabelLoopback, LabelAddresses} {
			for _, v := range strings.FieldsFunc(sw.Labels[l], func(r rune) bool { return r == ',' || r == ' ' }) {
				add(v, sw.Name)
			}
		}
	}
	for a := range dup {
		delete(out, a)
	}
	return out
}

// LearnedPath is one direction of a test, read from its traces against
// the fabric's switches.
type LearnedPath struct {
	// Switches are the switches that answered, in the order the probes
	// met them (leaf, spine, leaf); set when Known.
	Switches []string `json:"switches,omitempty"`
	Known    bool     `json:"known"`
	// Why says, when the path is not known, what kept it hidden.
	Why string `json:"why,omitempty"`
	// Deterministic is false when two traces of the same 5-tuple took
	// different paths (set by ReadTraced; true for a single trace read).
	Deterministic bool `json:"deterministic"`
}

// NotObservableOnLink is LearnedPath.Why for a peer on the source's own
// link: only bridges lie between them (the soft-RoCE lab's Linux bridges),
// and bridges answer no traceroute.
const NotObservableOnLink = "paths not observable: no routed hop between the leaves (the peer is on the source's own link)"

// ReadPath reads one trace. Hops are read up to the last that answered:
// the hops after it are silent because the peer's RoCE NIC consumes UDP
// 4791 and answers nothing (mlx5 steers it to the RDMA engine, rxe's
// socket takes it), not because the path is unknown. A silent hop before
// an answering one, a hop answered from two addresses, an unreachable
// (!N, !H …), an address no switch declares, all leave the path unknown,
// saying which. onLink (the agent's reading of its routing table) says
// NotObservableOnLink.
func ReadPath(tr Trace, onLink *bool, owners map[netip.Addr]string) LearnedPath {
	if onLink != nil && *onLink {
		return LearnedPath{Why: NotObservableOnLink, Deterministic: true}
	}
	last := -1
	for i, h := range tr.Hops {
		if h.Answered() {
			last = i
		}
	}
	if last < 0 {
		return LearnedPath{Why: fmt.Sprintf("no hop answered within %d hops: the switches send no ICMP time-exceeded for UDP (or drop it), or no router lies between the hosts", len(tr.Hops)), Deterministic: true}
	}
	var sws []string
	for _, h := range tr.Hops[:last+1] {
		switch {
		case !h.Answered():
			return LearnedPath{Why: fmt.Sprintf("hop %d did not answer: the path has a gap", h.TTL), Deterministic: true}
		case len(h.Addrs) > 1:
			return LearnedPath{Why: fmt.Sprintf("hop %d answered from %s: the 5-tuple took several paths", h.TTL, strings.Join(h.Addrs, " and "))}
		case len(h.Notes) > 0:
			return LearnedPath{Why: fmt.Sprintf("hop %d (%s) answered %s: unreachable", h.TTL, h.Addrs[0], strings.Join(h.Notes, " ")), Deterministic: true}
		}
		a, err := netip.ParseAddr(h.Addrs[0])
		if err != nil {
			return LearnedPath{Why: fmt.Sprintf("hop %d: %q is not an address", h.TTL, h.Addrs[0]), Deterministic: true}
		}
		if t, err := netip.ParseAddr(tr.Target); err == nil && t.Unmap() == a.Unmap() {
			break // the peer itself (no RoCE on 4791 there): the path ended
		}
		sw, ok := owners[a.Unmap()]
		if !ok {
			return LearnedPath{Why: fmt.Sprintf("hop %d: %s is no declared switch's address (declare it in the switch's %s label)", h.TTL, a, LabelAddresses), Deterministic: true}
		}
		sws = append(sws, sw)
	}
	if len(sws) == 0 {
		return LearnedPath{Why: NotObservableOnLink, Deterministic: true}
	}
	return LearnedPath{Switches: sws, Known: true, Deterministic: true}
}

// ReadTraced reads every trace of one OpTracePath reply: the path when
// all its traces agree, not Deterministic (and not Known) when two known
// traces of the one 5-tuple went different ways, and why nothing was
// learned when the op failed.
func ReadTraced(t Traced, owners map[netip.Addr]string) LearnedPath {
	if t.Error != "" && len(t.Traces) == 0 {
		return LearnedPath{Why: t.Error, Deterministic: true}
	}
	if len(t.Traces) == 0 {
		return LearnedPath{Why: "nothing was traced", Deterministic: true}
	}
	first := ReadPath(t.Traces[0], t.OnLink, owners)
	for i, tr := range t.Traces[1:] {
		p := ReadPath(tr, t.OnLink, owners)
		if !p.Deterministic {
			return p
		}
		if first.Known && p.Known && !slices.Equal(first.Switches, p.Switches) {
			return LearnedPath{Why: fmt.Sprintf("traces 1 and %d of one 5-tuple went %s and %s: the fabric's ECMP is not deterministic for it (adaptive routing, flowlet switching, or a route still settling)",
				i+2, strings.Join(first.Switches, " → "), strings.Join(p.Switches, " → "))}
		}
		if !p.Known && first.Known {
			first = p // the weaker reading wins
		}
	}
	return first
}
