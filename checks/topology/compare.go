package topology

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/fabricctl/fabricctl/fabric"
)

// FindingKind names how the discovered cabling differs from the declared.
type FindingKind string

// The kinds of difference, from the most to the least specific.
const (
	// Swapped: two NICs of one host are each on the other's declared port.
	Swapped FindingKind = "swapped"
	// WrongRail: a host NIC is on a leaf of another rail than declared.
	WrongRail FindingKind = "wrong-rail"
	// WrongLeaf: a host NIC is on another switch (of the same rail, or rails undeclared).
	WrongLeaf FindingKind = "wrong-leaf"
	// WrongPort: a host NIC is on the declared switch, another port.
	WrongPort FindingKind = "wrong-port"
	// Miscabled: a switch-to-switch cable lands elsewhere than declared.
	Miscabled FindingKind = "miscabled"
	// Missing: a declared cable shows no LLDP neighbour at either observed end
	// (unplugged, link down, or LLDP off on the far end).
	Missing FindingKind = "missing"
	// Unexpected: a cable between fabric devices that the fabric does not declare.
	Unexpected FindingKind = "unexpected"
)

// Finding is one difference, about one cable.
type Finding struct {
	Kind FindingKind `json:"kind"`
	// At is the end the finding is about: the host NIC when there is one.
	At fabric.Endpoint `json:"at"`
	// Declared is where At should be cabled (nil for Unexpected).
	Declared *fabric.Endpoint `json:"declared,omitempty"`
	// Discovered is where LLDP says it is (nil for Missing).
	Discovered *fabric.Endpoint `json:"discovered,omitempty"`
	Message    string           `json:"message"`
}

// Compare reports how the discovered topology differs from the declared
// one. observed names the devices whose neighbour tables were read: a
// declared cable can only be checked at an observed end (host observations
// alone cannot see leaf-to-spine cables). A discovered cable between two
// declared devices that no declaration covers is Unexpected; neighbours
// that are not fabric devices (a management switch on eno1) are ignored
// unless they sit on a declared port. Findings are sorted by At.
func Compare(declared, discovered *Topology, observed []string) []Finding {
	return CompareFrom(LLDP, declared, discovered, observed)
}

// Source names how a discovered topology was found; the findings' messages
// speak of it.
type Source string

// The sources.
const (
	// LLDP: neighbour tables of hosts and switches (Discover).
	LLDP Source = "LLDP"
	// IBNetDiscover: an InfiniBand subnet's discovery (ibnetdiscover), which
	// sees every cable of the subnet from one node, so every declared
	// device is observed.
	IBNetDiscover Source = "ibnetdiscover"
)

// CompareFrom is Compare for a topology found by src.
func CompareFrom(src Source, declared, discovered *Topology, observed []string) []Finding {
	obs := map[string]bool{}
	for _, o := range observed {
		obs[o] = true
	}
	var out []Finding
	seen := map[[2]fabric.Endpoint]bool{}
	declFar := func(e fabric.Endpoint) (fabric.Endpoint, bool) {
		for _, l := range declared.LinksAt(e) {
			if o, ok := l.Other(e); ok {
				return o, true
			}
		}
		return fabric.Endpoint{}, false
	}
	for _, l := range discovered.Links {
		if !obs[l.A.Device] && !obs[l.B.Device] || seen[[2]fabric.Endpoint{l.A, l.B}] {
			continue
		}
		seen[[2]fabric.Endpoint{l.A, l.B}] = true
		if isDeclared(declared, l) {
			continue
		}
		farA, okA := declFar(l.A)
		farB, okB := declFar(l.B)
		_, knownA := declared.Node(l.A.Device)
		_, knownB := declared.Node(l.B.Device)
		switch {
		case !okA && !okB:
			if knownA && knownB {
				out = append(out, Finding{Kind: Unexpected, At: l.A, Discovered: ptr(l.B),
					Message: fmt.Sprintf("%s is cabled to %s, which the fabric does not declare", l.A, l.B)})
			}
		case declared.Role(l.A.Device) == RoleHost && okA:
			out = append(out, hostFinding(declared, l.A, farA, l.B))
		case declared.Role(l.B.Device) == RoleHost && okB:
			out = append(out, hostFinding(declared, l.B, farB, l.A))
		case okA:
			out = append(out, Finding{Kind: Miscabled, At: l.A, Declared: ptr(farA), Discovered: ptr(l.B),
				Message: fmt.Sprintf("%s is cabled to %s, declared %s", l.A, l.B, farA)})
		default:
			out = append(out, Finding{Kind: Miscabled, At: l.B, Declared: ptr(farB), Discovered: ptr(l.A),
				Message: fmt.Sprintf("%s is cabled to %s, declared %s", l.B, l.A, farB)})
		}
	}
	for _, l := range declared.Links {
		if !obs[l.A.Device] && !obs[l.B.Device] {
			continue
		}
		if len(discovered.LinksAt(l.A)) > 0 || len(discovered.LinksAt(l.B)) > 0 {
			continue
		}
		var where []string
		for _, e := range []fabric.Endpoint{l.A, l.B} {
			if obs[e.Device] {
				where = append(where, e.String())
			}
		}
		msg := fmt.Sprintf("%s: no LLDP neighbour on %s (unplugged, link down or LLDP off at the far end)", l, joinAnd(where))
		if src == IBNetDiscover {
			msg = fmt.Sprintf("%s: ibnetdiscover found no cable at either end (unplugged, or the link is down)", l)
		}
		out = append(out, Finding{Kind: Missing, At: l.A, Declared: ptr(l.B), Message: msg})
	}
	out = mergeSwaps(out)
	slices.SortFunc(out, func(a, b Finding) int { return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Kind, b.Kind)) })
	return dedupe(out)
}

func isDeclared(declared *Topology, l Link) bool {
	for _, d := range declared.LinksAt(l.A) {
		if o, _ := d.Other(l.A); o == l.B {
			return true
		}
	}
	return false
}

// hostFinding classifies a host NIC found elsewhere than declared.
func hostFinding(declared *Topology, nic, want, got fabric.Endpoint) Finding {
	f := Finding{At: nic, Declared: ptr(want), Discovered: ptr(got)}
	wantNode, _ := declared.Node(want.Device)
	gotNode, gotKnown := declared.Node(got.Device)
	switch {
	case got.Device == want.Device:
		f.Kind = WrongPort
		f.Message = fmt.Sprintf("%s is on %s, declared %s (same switch, another port)", nic, got, want)
	case gotKnown && wantNode.Rail != nil && gotNode.Rail != nil && *wantNode.Rail != *gotNode.Rail:
		f.Kind = WrongRail
		f.Message = fmt.Sprintf("%s is on %s of rail %d, declared %s of rail %d", nic, got, *gotNode.Rail, want, *wantNode.Rail)
	default:
		f.Kind = WrongLeaf
		what := "another switch"
		if !gotKnown {
			what = "a device the fabric does not know"
		}
		f.Message = fmt.Sprintf("%s is on %s (%s), declared %s", nic, got, what, want)
	}
	return f
}

// mergeSwaps folds two findings about NICs of one host that sit on each
// other's declared ports into one Swapped finding.
func mergeSwaps(fs []Finding) []Finding {
	drop := map[int]bool{}
	var out []Finding
	for i := range fs {
		if drop[i] || fs[i].Declared == nil || fs[i].Discovered == nil || fs[i].Kind == Miscabled || fs[i].Kind == Unexpected {
			continue
		}
		for j := i + 1; j < len(fs); j++ {
			a, b := fs[i], fs[j]
			if drop[j] || b.Declared == nil || b.Discovered == nil || a.At.Device != b.At.Device {
				continue
			}
			if *a.Discovered == *b.Declared && *b.Discovered == *a.Declared {
				drop[i], drop[j] = true, true
				first, second := a, b
				if second.At.Compare(first.At) < 0 {
					first, second = second, first
				}
				out = append(out, Finding{Kind: Swapped, At: first.At, Declared: first.Declared, Discovered: first.Discovered,
					Message: fmt.Sprintf("%s and %s of host %s are swapped: %s is on %s and %s on %s", first.At.Port, second.At.Port,
						first.At.Device, first.At.Port, first.Discovered, second.At.Port, second.Discovered)})
				break
			}
		}
	}
	for i, f := range fs {
		if !drop[i] {
			out = append(out, f)
		}
	}
	return out
}

func dedupe(fs []Finding) []Finding {
	return slices.CompactFunc(fs, func(a, b Finding) bool { return a.Kind == b.Kind && a.At == b.At && a.Message == b.Message })
}

func ptr(e fabric.Endpoint) *fabric.Endpoint { return &e }

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return s[0] + " and " + s[1]
}
