package fabric

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// IBNodeKind says what an InfiniBand node of the fabric is.
type IBNodeKind string

// The node kinds.
const (
	IBHost          IBNodeKind = "host"
	IBSubnetManager IBNodeKind = "subnet-manager"
	IBSwitchNode    IBNodeKind = "switch"
)

// IBNode is one node of the declared InfiniBand fabric, as the checks look
// it up on the wire.
type IBNode struct {
	// Name is the cabling's name: a host, HOST/HCA, a subnet manager or a switch.
	Name string     `json:"name"`
	Kind IBNodeKind `json:"kind"`
	// Host is the fabric host or subnet manager the node belongs to (empty for a switch).
	Host string `json:"host,omitempty"`
	// HCA is the device of a HOST/HCA node.
	HCA string `json:"hca,omitempty"`
	// GUID is a switch's node GUID (0 when not declared).
	GUID uint64 `json:"guid,omitempty"`
	// PortGUIDs are a CA's port GUIDs by port number when declared
	// (spec.hosts[].portGuids, port N the Nth).
	PortGUIDs map[int]uint64 `json:"portGuids,omitempty"`
	// Ports is a switch's number of ports (0 for a CA).
	Ports int `json:"ports,omitempty"`
}

// IBCable is one declared InfiniBand cable with the width and speed it must
// run at ("" when neither the link nor the fabric says).
type IBCable struct {
	A, B  Endpoint
	Width string `json:"width,omitempty"`
	Speed string `json:"speed,omitempty"`
	// Path is where the cable is declared ("spec.infiniband.links[3]").
	Path string `json:"path"`
}

// String writes "A <-> B".
func (c IBCable) String() string { return c.A.String() + " <-> " + c.B.String() }

// IBNodes returns the nodes of the declared InfiniBand fabric: its switches
// and every CA node the cabling names (hosts, HOST/HCA, subnet managers),
// sorted by name. It assumes a validated fabric.
func (f *Fabric) IBNodes() []IBNode {
	ib := f.Spec.InfiniBand
	if ib == nil {
		return nil
	}
	var out []IBNode
	seen := map[string]bool{}
	for _, s := range ib.Switches {
		g, _ := parseIBGUID(s.GUID)
		out = append(out, IBNode{Name: s.Name, Kind: IBSwitchNode, GUID: g, Ports: s.Ports})
		seen[s.Name] = true
	}
	hosts, sms := f.hostsAndSubnetManagers()
	for _, c := range f.IBCabling() {
		for _, e := range []Endpoint{c.A, c.B} {
			if seen[e.Device] {
				continue
			}
			seen[e.Device] = true
			host, hca, _ := strings.Cut(e.Device, "/")
			n := IBNode{Name: e.Device, Kind: IBHost, Host: host, HCA: hca}
			if sms[host] {
				n.Kind = IBSubnetManager
			}
			if i, ok := hosts[host]; ok && hca == "" {
				for j, g := range f.Spec.Hosts[i].PortGUIDs {
					if v, err := parseIBGUID(g); err == nil {
						if n.PortGUIDs == nil {
							n.PortGUIDs = map[int]uint64{}
						}
						n.PortGUIDs[j+1] = v
					}
				}
			}
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b IBNode) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// IBCabling returns every declared InfiniBand cable, with its width and
// speed, sorted by A then B; a CA end (host, HOST/HCA, subnet manager) is A
// when the other end is a switch. It assumes a validated fabric and skips
// anything malformed.
func (f *Fabric) IBCabling() []IBCable {
	ib := f.Spec.InfiniBand
	if ib == nil {
		return nil
	}
	sw := map[string]bool{}
	for _, s := range ib.Switches {
		sw[s.Name] = true
	}
	var out []IBCable
	for i, l := range ib.Links {
		if len(l.Endpoints) != 2 {
			continue
		}
		a, errA := parseIBEndpoint(l.Endpoints[0])
		b, errB := parseIBEndpoint(l.Endpoints[1])
		if errA != nil || errB != nil {
			continue
		}
		if !sw[b.Device] && sw[a.Device] || sw[a.Device] == sw[b.Device] && b.Compare(a) < 0 {
			a, b = b, a
		}
		out = append(out, IBCable{A: a, B: b, Width: cmp.Or(l.Width, ib.LinkWidth), Speed: cmp.Or(l.Speed, ib.LinkSpeed),
			Path: fmt.Sprintf("spec.infiniband.links[%d]", i)})
	}
	slices.SortFunc(out, func(x, y IBCable) int { return cmp.Or(x.A.Compare(y.A), x.B.Compare(y.B)) })
	return out
}

// IBVantage returns the host whose agent runs the InfiniBand diagnostics:
// spec.infiniband.vantage, else the first host of spec.hosts that the
// cabling (IBCabling's order) names, else "". It assumes a validated
// fabric.
func (f *Fabric) IBVantage() string {
	ib := f.Spec.InfiniBand
	if ib == nil {
		return ""
	}
	if ib.Vantage != "" {
		return ib.Vantage
	}
	hosts := map[string]bool{}
	for _, h := range f.Spec.Hosts {
		hosts[h.Name] = true
	}
	for _, c := range f.IBCabling() {
		for _, e := range []Endpoint{c.A, c.B} {
			if host, _, _ := strings.Cut(e.Device, "/"); hosts[host] {
				return host
			}
		}
	}
	return ""
}

var hcaRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`)

// parseIBEndpoint reads NODE:PORT with a port 1..254.
func parseIBEndpoint(s string) (Endpoint, error) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return Endpoint{}, fmt.Errorf("%q is not NODE:PORT (e.g. ib-h1:1, ib-h1/mlx5_1:1 or leaf-01:7)", s)
	}
	dev, port := strings.TrimSpace(s[:i]), s[i+1:]
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 254 || port != strconv.Itoa(n) {
		return Endpoint{}, fmt.Errorf("%q: port %q is not an InfiniBand port number 1..254", s, port)
	}
	return Endpoint{Device: dev, Port: port}, nil
}

func parseIBGUID(s string) (uint64, error) {
	if !guidRE.MatchString(s) {
		return 0, fmt.Errorf("%q is not a GUID (0x followed by 16 hex digits)", s)
	}
	return strconv.ParseUint(s[2:], 16, 64)
}

// ibCabling validates spec.infiniband (widths and speeds are enums the
// decoder checked): the vantage (a declared host), switch names
// (unique, not a host, subnet manager or Ethernet switch), GUIDs and port
// counts, and every link: two NODE:PORT ends naming a declared IB switch
// (port within its count), a host (port within its portGuids when it
// lists them; HOST/HCA with an HCA name) or a subnet manager, no port
// cabled twice, no cable from a node to itself.
func (v *validator) ibCabling(ib *InfiniBandFabric) {
	const base = "spec.infiniband"
	// Widths and speeds are enums: the strict decoder checked them.
	f := v.f
	hosts, sms := f.hostsAndSubnetManagers()
	eth := map[string]bool{}
	for _, s := range f.Spec.Switches {
		eth[s.Name] = true
	}
	hostOrSM := func(n string) bool { _, ok := hosts[n]; return ok || sms[n] }
	switches := map[string]int{}
	guids := map[uint64]string{}
	for i, s := range ib.Switches {
		sp := fmt.Sprintf("%s.switches[%d]", base, i)
		switch {
		case s.Name == "":
			v.ferr(sp+".name", "required")
		case !nameRE.MatchString(s.Name):
			v.ferr(sp+".name", "%q: a switch name is lowercase letters, digits, '.', '_' and '-'", s.Name)
		case hostOrSM(s.Name):
			v.ferr(sp+".name", "%q is already a host or subnet manager; an InfiniBand node has one name", s.Name)
		case eth[s.Name]:
			v.ferr(sp+".name", "%q is already an Ethernet switch (spec.switches); InfiniBand switches are configured by the subnet manager, not by fabricctl", s.Name)
		default:
			if _, dup := switches[s.Name]; dup {
				v.ferr(sp+".name", "switch %q is declared twice", s.Name)
			} else {
				switches[s.Name] = i
			}
		}
		if s.GUID != "" {
			g, err := parseIBGUID(s.GUID)
			switch {
			case err != nil:
				v.ferr(sp+".guid", "%v", err)
			case guids[g] != "":
				v.ferr(sp+".guid", "GUID %s is already switch %s's", s.GUID, guids[g])
			default:
				guids[g] = s.Name
			}
		}
		if s.Ports < 1 || s.Ports > 254 {
			v.ferr(sp+".ports", "%d is outside 1..254 (the switch's number of external ports)", s.Ports)
		}
	}
	var names []string
	for n := range hosts {
		names = append(names, n)
	}
	for n := range sms {
		names = append(names, n)
	}
	for n := range switches {
		names = append(names, n)
	}
	slices.Sort(names)
	if ib.Vantage != "" {
		if _, ok := hosts[ib.Vantage]; !ok {
			var hs []string
			for n := range hosts {
				hs = append(hs, n)
			}
			slices.Sort(hs)
			v.ferr(base+".vantage", "no host named %q: the vantage is a host of spec.hosts, whose agent runs the diagnostics%s", ib.Vantage, suggest(ib.Vantage, hs))
		}
	}
	used := map[Endpoint]string{}
	for i, l := range ib.Links {
		lp := fmt.Sprintf("%s.links[%d]", base, i)
		if len(l.Endpoints) != 2 {
			v.ferr(lp+".endpoints", "a link has exactly two endpoints (NODE:PORT), not %d", len(l.Endpoints))
			continue
		}
		var ends [2]Endpoint
		ok := true
		for k, s := range l.Endpoints {
			ep := fmt.Sprintf("%s.endpoints[%d]", lp, k)
			e, err := parseIBEndpoint(s)
			if err != nil {
				v.ferr(ep, "%v", err)
				ok = false
				continue
			}
			port, _ := strconv.Atoi(e.Port)
			host, hca, multi := strings.Cut(e.Device, "/")
			if si, isSwitch := switches[e.Device]; isSwitch {
				if n := ib.Switches[si].Ports; port > n && n > 0 {
					v.ferr(ep, "switch %s has ports 1..%d (spec.infiniband.switches[%d].ports)", e.Device, n, si)
					ok = false
				}
			} else if hi, isHost := hosts[host]; isHost || sms[host] {
				switch {
				case multi && !hcaRE.MatchString(hca):
					v.ferr(ep, "%q is not an HCA name (HOST/HCA:PORT, e.g. %s/mlx5_1:1)", hca, host)
					ok = false
				case isHost && !multi && len(f.Spec.Hosts[hi].PortGUIDs) > 0 && port > len(f.Spec.Hosts[hi].PortGUIDs):
					v.ferr(ep, "host %s lists %d port GUIDs (spec.hosts[%d].portGuids), so it has no port %d", host, len(f.Spec.Hosts[hi].PortGUIDs), hi, port)
					ok = false
				}
			} else {
				if eth[e.Device] {
					v.ferr(ep, "%q is an Ethernet switch (spec.switches); declare InfiniBand switches in spec.infiniband.switches", e.Device)
				} else {
					v.ferr(ep, "no host, subnet manager or InfiniBand switch named %q%s", e.Device, suggest(e.Device, names))
				}
				ok = false
			}
			ends[k] = e
		}
		if !ok {
			continue
		}
		if ends[0].Device == ends[1].Device {
			v.ferr(lp+".endpoints", "a cable from %s to itself (ports %s and %s)", ends[0].Device, ends[0].Port, ends[1].Port)
			continue
		}
		for k, e := range ends {
			ep := fmt.Sprintf("%s.endpoints[%d]", lp, k)
			if prev, dup := used[e]; dup {
				v.ferr(ep, "%s is already cabled by %s", e, prev)
				continue
			}
			used[e] = lp
		}
	}
}

// hostsAndSubnetManagers indexes the fabric's hosts (name → position in
// spec.hosts) and names its subnet managers: the nodes an InfiniBand
// endpoint may name besides the IB switches.
func (f *Fabric) hostsAndSubnetManagers() (map[string]int, map[string]bool) {
	hosts := map[string]int{}
	for i, h := range f.Spec.Hosts {
		hosts[h.Name] = i
	}
	sms := map[string]bool{}
	for _, sm := range f.Spec.SubnetManagers {
		sms[sm.Name] = true
	}
	return hosts, sms
}
