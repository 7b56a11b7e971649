package fabric

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Endpoint is one end of a cable: a device of the fabric and its port (a
// switch port name or a host's netdev).
type Endpoint struct {
	Device string `json:"device"`
	Port   string `json:"port"`
}

// String writes the endpoint as "DEVICE:PORT".
func (e Endpoint) String() string { return e.Device + ":" + e.Port }

// Compare orders endpoints by device, then naturally by port (swp2 before swp10).
func (e Endpoint) Compare(o Endpoint) int {
	if c := cmp.Compare(e.Device, o.Device); c != 0 {
		return c
	}
	switch {
	case e.Port == o.Port:
		return 0
	case naturalLess(e.Port, o.Port):
		return -1
	}
	return 1
}

// ParseEndpoint reads "DEVICE:PORT". The device is everything before the
// first colon (device names hold none); the port may hold colons, as Junos
// channelised ports do (et-0/0/1:3).
func ParseEndpoint(s string) (Endpoint, error) {
	dev, port, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || dev == "" || port == "" {
		return Endpoint{}, fmt.Errorf("%q is not DEVICE:PORT (e.g. leaf-01:swp1 or gpu-01:ens1f0np0)", s)
	}
	return Endpoint{Device: dev, Port: port}, nil
}

// Cable is one declared cable. A is the host end when one end is a host,
// otherwise the end whose endpoint sorts first.
type Cable struct {
	A, B Endpoint
	// Path is where the cable is declared ("spec.links[3]" or
	// "spec.hosts[2].links.ens1f0np0"), for messages.
	Path string `json:"path"`
}

// String writes "A <-> B".
func (c Cable) String() string { return c.A.String() + " <-> " + c.B.String() }

// Cabling returns every cable the fabric declares, port ranges expanded,
// host ends first, sorted by A then B. It assumes a validated fabric and
// skips anything malformed.
func (f *Fabric) Cabling() []Cable {
	isHost := make(map[string]bool, len(f.Spec.Hosts))
	for _, h := range f.Spec.Hosts {
		isHost[h.Name] = true
	}
	var out []Cable
	for i, l := range f.Spec.Links {
		pairs, err := expandLink(l)
		if err != nil {
			continue
		}
		for _, p := range pairs {
			out = append(out, orient(Cable{A: p[0], B: p[1], Path: fmt.Sprintf("spec.links[%d]", i)}, isHost))
		}
	}
	for i, h := range f.Spec.Hosts {
		for _, ifn := range sortedKeys(h.Links) {
			far, err := ParseEndpoint(h.Links[ifn])
			if err != nil {
				continue
			}
			out = append(out, Cable{A: Endpoint{h.Name, ifn}, B: far, Path: fmt.Sprintf("spec.hosts[%d].links.%s", i, ifn)})
		}
	}
	slices.SortFunc(out, func(a, b Cable) int { return cmp.Or(a.A.Compare(b.A), a.B.Compare(b.B)) })
	return out
}

func orient(c Cable, isHost map[string]bool) Cable {
	if isHost[c.B.Device] && !isHost[c.A.Device] || isHost[c.A.Device] == isHost[c.B.Device] && c.B.Compare(c.A) < 0 {
		c.A, c.B = c.B, c.A
	}
	return c
}

// expandLink turns a link into its cables: one per port when both ends are
// ranges of equal length, else the single cable it names.
func expandLink(l Link) ([][2]Endpoint, error) {
	if len(l.Endpoints) != 2 {
		return nil, fmt.Errorf("a link has exactly two endpoints, not %d", len(l.Endpoints))
	}
	var ends [2][]Endpoint
	for k, s := range l.Endpoints {
		e, err := ParseEndpoint(s)
		if err != nil {
			return nil, err
		}
		ports, err := ExpandPorts(e.Port)
		if err != nil {
			return nil, err
		}
		for _, p := range ports {
			ends[k] = append(ends[k], Endpoint{e.Device, p})
		}
	}
	if len(ends[0]) != len(ends[1]) {
		return nil, fmt.Errorf("the ends name %d and %d ports; a bundle pairs ports one to one", len(ends[0]), len(ends[1]))
	}
	out := make([][2]Endpoint, len(ends[0]))
	for i := range out {
		out[i] = [2]Endpoint{ends[0][i], ends[1][i]}
	}
	return out, nil
}

// cabling validates spec.links and spec.hosts[].links against the targets:
// endpoints name known hosts and switches, switch ports are valid on the
// platform and configured (listed in the switch's ports), host interfaces
// are the host's RoCE interfaces when it lists them, no port is cabled
// twice, no cable joins a device to itself or two hosts, a spine carries no
// host, and no host has two interfaces on one rail.
func (v *validator) cabling() {
	f := v.f
	hosts := make(map[string]int, len(f.Spec.Hosts))
	for i, h := range f.Spec.Hosts {
		hosts[h.Name] = i
	}
	switches := make(map[string]int, len(f.Spec.Switches))
	for i, s := range f.Spec.Switches {
		if _, dup := switches[s.Name]; !dup {
			switches[s.Name] = i
		}
	}
	var devices []string
	for n := range hosts {
		devices = append(devices, n)
	}
	for n := range switches {
		devices = append(devices, n)
	}
	sort.Strings(devices)
	// configured ports per switch, expanded lazily
	configured := map[string]map[string]bool{}
	portsOf := func(sw string) map[string]bool {
		if m, ok := configured[sw]; ok {
			return m
		}
		m := map[string]bool{}
		for _, pr := range f.Spec.Switches[switches[sw]].Ports {
			ps, _ := ExpandPorts(pr)
			for _, p := range ps {
				m[p] = true
			}
		}
		configured[sw] = m
		return m
	}
	used := map[Endpoint]string{} // endpoint → path of the cable that uses it
	// endpoint checks one end; path is where to report, what the YAML shows.
	endpoint := func(path string, e Endpoint) bool {
		if hi, ok := hosts[e.Device]; ok {
			h := f.Spec.Hosts[hi]
			if !v.ifnames.match(ifnameRE, e.Port) {
				v.ferr(path, "%q is not a Linux interface name of host %s", e.Port, e.Device)
				return false
			}
			if len(h.Interfaces) > 0 && !slices.Contains(h.Interfaces, e.Port) {
				v.ferr(path, "host %s has no interface %s among its interfaces (%s)", e.Device, e.Port, strings.Join(h.Interfaces, ", "))
				return false
			}
			return true
		}
		si, ok := switches[e.Device]
		if !ok {
			v.ferr(path, "no host or switch named %q%s", e.Device, suggest(e.Device, devices))
			return false
		}
		s := f.Spec.Switches[si]
		if v.platforms != nil {
			if err := v.platforms.CheckPort(s.Platform, e.Port); err != nil {
				v.ferr(path, "%s: %v", e.Device, err)
				return false
			}
		}
		if !portsOf(e.Device)[e.Port] {
			v.ferr(path, "%s is not in spec.switches[%d].ports of %s, so its lossless settings would not be configured", e.Port, si, e.Device)
			return false
		}
		return true
	}
	use := func(path string, e Endpoint) {
		if prev, dup := used[e]; dup {
			v.ferr(path, "%s is already cabled by %s", e, prev)
			return
		}
		used[e] = path
	}
	cable := func(path string, a, b Endpoint, paths [2]string) {
		okA, okB := endpoint(paths[0], a), endpoint(paths[1], b)
		if !okA || !okB {
			return
		}
		_, hostA := hosts[a.Device]
		_, hostB := hosts[b.Device]
		switch {
		case a.Device == b.Device:
			v.ferr(path, "a cable from %s to itself (%s, %s)", a.Device, a.Port, b.Port)
			return
		case hostA && hostB:
			v.ferr(path, "a cable between two hosts (%s, %s): fabricctl models host-to-switch and switch-to-switch cabling", a, b)
			return
		}
		use(paths[0], a)
		use(paths[1], b)
	}
	for i, l := range f.Spec.Links {
		lp := fmt.Sprintf("spec.links[%d]", i)
		if len(l.Endpoints) != 2 {
			v.ferr(lp+".endpoints", "a link has exactly two endpoints (DEVICE:PORT), not %d", len(l.Endpoints))
			continue
		}
		var ends [2][]Endpoint
		bad := false
		for k, s := range l.Endpoints {
			ep := fmt.Sprintf("%s.endpoints[%d]", lp, k)
			e, err := ParseEndpoint(s)
			if err != nil {
				v.ferr(ep, "%v", err)
				bad = true
				continue
			}
			ports, err := ExpandPorts(e.Port)
			if err != nil {
				v.ferr(ep, "%v", err)
				bad = true
				continue
			}
			for _, p := range ports {
				ends[k] = append(ends[k], Endpoint{e.Device, p})
			}
		}
		if bad {
			continue
		}
		if len(ends[0]) != len(ends[1]) {
			v.ferr(lp+".endpoints", "the ends name %d and %d ports; a bundle pairs ports one to one", len(ends[0]), len(ends[1]))
			continue
		}
		for j := range ends[0] {
			cable(lp, ends[0][j], ends[1][j], [2]string{lp + ".endpoints[0]", lp + ".endpoints[1]"})
		}
	}
	for i, h := range f.Spec.Hosts {
		for _, ifn := range sortedKeys(h.Links) {
			lp := fmt.Sprintf("spec.hosts[%d].links.%s", i, ifn)
			far, err := ParseEndpoint(h.Links[ifn])
			if err != nil {
				v.ferr(lp, "%v", err)
				continue
			}
			if _, isHost := hosts[far.Device]; isHost {
				v.ferr(lp, "%s is a host; an interface is cabled to a switch port (SWITCH:PORT)", far.Device)
				continue
			}
			cable(lp, Endpoint{h.Name, ifn}, far, [2]string{lp, lp})
		}
	}
	v.roles(hosts, switches, used)
	if c := f.Spec.Checks; c != nil && c.Pairwise != nil && c.Pairwise.Schedule == "topology" {
		leafOf := map[string]bool{}
		for e := range used {
			if _, ok := hosts[e.Device]; ok {
				leafOf[e.Device] = true
			}
		}
		for i, h := range f.Spec.Hosts {
			if !leafOf[h.Name] && h.Labels["leaf"] == "" {
				v.ferr(fmt.Sprintf("spec.hosts[%d]", i), "schedule topology needs to know each host's leaf: cable %s (links) or give it a leaf label", h.Name)
			}
		}
	}
}

// roles checks the declared tiers and rails against the validated cables:
// a spine has no host cabled to it, and a host has at most one interface on
// each rail.
func (v *validator) roles(hosts, switches map[string]int, used map[Endpoint]string) {
	f := v.f
	for i, s := range f.Spec.Switches {
		if s.Rail != nil && (*s.Rail < 0 || *s.Rail > 255) {
			v.ferr(fmt.Sprintf("spec.switches[%d].rail", i), "%d is outside 0..255", *s.Rail)
		}
	}
	// Walk the cables in a stable order: sort the used host endpoints.
	var hostEnds []Endpoint
	for e := range used {
		if _, ok := hosts[e.Device]; ok {
			hostEnds = append(hostEnds, e)
		}
	}
	slices.SortFunc(hostEnds, Endpoint.Compare)
	far := map[Endpoint]Endpoint{}
	for _, c := range f.Cabling() {
		far[c.A] = c.B
	}
	type railUse struct {
		ifn, leaf string
	}
	rails := map[string]map[int]railUse{}
	for _, e := range hostEnds {
		sw, ok := far[e]
		if !ok {
			continue
		}
		si, ok := switches[sw.Device]
		if !ok {
			continue
		}
		s := f.Spec.Switches[si]
		path := used[e]
		if s.Role == "spine" {
			v.ferr(path, "%s is cabled to %s, which is a spine (spec.switches[%d].role); hosts are cabled to leaves", e, sw, si)
			continue
		}
		if s.Rail == nil {
			continue
		}
		if rails[e.Device] == nil {
			rails[e.Device] = map[int]railUse{}
		}
		if prev, dup := rails[e.Device][*s.Rail]; dup {
			v.ferr(path, "%s and %s of host %s are both on rail %d (leaves %s and %s)", prev.ifn, e.Port, e.Device, *s.Rail, prev.leaf, sw.Device)
			continue
		}
		rails[e.Device][*s.Rail] = railUse{e.Port, sw.Device}
	}
}
