package topology

import (
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// Observation is the LLDP neighbour table one device reported: a host's
// lldpd (fabric/lldp) or a switch's read-back (switchcfg.NeighborReader).
type Observation struct {
	Device    string            `json:"device"`
	Neighbors []fabric.Neighbor `json:"neighbors"`
}

// Discover builds the topology the observations show. A neighbour is named
// after the known node (from the declared topology, may be nil) whose name
// equals its system name, or its system name's first label (FQDNs), case
// aside; a neighbour no known node matches keeps its system name, or
// "chassis:<id>" when it sends none. Its port is the name Neighbor.PortName
// gives, or whichever of its port ID and description the known node's
// cabling uses. A cable seen from both ends is one link; ends that disagree
// give two. Observed devices are nodes with their known role; neighbours
// are nodes with their known role, or a switch role inferred from the links.
func Discover(obs []Observation, known *Topology) *Topology {
	bySystem := map[string]string{}
	if known != nil {
		for _, n := range known.Nodes {
			bySystem[strings.ToLower(n.Name)] = n.Name
		}
	}
	resolve := func(n fabric.Neighbor) string {
		if name, ok := bySystem[strings.ToLower(strings.TrimSpace(n.SystemName))]; ok {
			return name
		}
		if name, ok := bySystem[shortName(n.SystemName)]; ok {
			return name
		}
		if n.SystemName != "" {
			return strings.TrimSpace(n.SystemName)
		}
		return "chassis:" + n.ChassisID
	}
	portOf := func(device string, n fabric.Neighbor) string {
		name := n.PortName()
		if known == nil {
			return name
		}
		if len(known.LinksAt(fabric.Endpoint{Device: device, Port: name})) > 0 {
			return name
		}
		for _, cand := range []string{n.PortID, n.PortDescription} {
			if cand != "" && len(known.LinksAt(fabric.Endpoint{Device: device, Port: cand})) > 0 {
				return cand
			}
		}
		for _, cand := range []string{name, n.PortID, n.PortDescription} {
			if p, ok := abbreviates(cand, knownPorts(known, device)); ok {
				return p
			}
		}
		return name
	}
	nodeOf := func(name string) Node {
		if n, ok := known.Node(name); ok {
			return n
		}
		return Node{Name: name}
	}
	var nodes []Node
	var links []Link
	for _, o := range obs {
		nodes = append(nodes, nodeOf(o.Device))
		for _, n := range o.Neighbors {
			if n.LocalPort == "" {
				continue
			}
			far := resolve(n)
			nodes = append(nodes, nodeOf(far))
			links = append(links, Link{A: fabric.Endpoint{Device: o.Device, Port: n.LocalPort}, B: fabric.Endpoint{Device: far, Port: portOf(far, n)}})
		}
	}
	// Nodes without a known role that an observation names as a host stay
	// switches: only the declared topology says who is a host.
	return New(nodes, links)
}

// knownPorts are the ports of device in the known topology's cabling.
func knownPorts(t *Topology, device string) []string {
	var out []string
	for _, l := range t.LinksOf(device) {
		for _, e := range []fabric.Endpoint{l.A, l.B} {
			if e.Device == device {
				out = append(out, e.Port)
			}
		}
	}
	return out
}

// abbreviates returns the one port of ports that short names in a CLI's
// short form: the same interface number, and a type word that the long
// one starts with, case aside ("Eth1/54" and "Et1/54" for "Ethernet1/54",
// "Gi0/1" for "GigabitEthernet0/1", "ethernet8" for "Ethernet8"). NX-OS,
// EOS and IOS print and advertise such names; the cabling is declared in
// the long form. No match, or more than one, is false.
func abbreviates(short string, ports []string) (string, bool) {
	st, sn := splitPort(short)
	if st == "" || sn == "" {
		return "", false
	}
	var found []string
	for _, p := range ports {
		lt, ln := splitPort(p)
		if ln == sn && len(lt) >= len(st) && strings.EqualFold(lt[:len(st)], st) {
			found = append(found, p)
		}
	}
	slices.Sort(found)
	found = slices.Compact(found)
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// splitPort splits a port name into its type word and the rest, which
// starts at the first digit ("Ethernet1/54" → "Ethernet", "1/54").
func splitPort(p string) (typ, num string) {
	i := strings.IndexAny(p, "0123456789")
	if i <= 0 {
		return "", ""
	}
	return p[:i], p[i:]
}

// Observed returns the names of the devices of obs, sorted.
func Observed(obs []Observation) []string {
	var out []string
	for _, o := range obs {
		out = append(out, o.Device)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
