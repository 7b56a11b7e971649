package lab

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"sort"
	"strings"
)

// ErrBadTopology is returned for a topology the lab cannot build.
var ErrBadTopology = errors.New("bad lab topology")

// Host is one VM-host of the lab.
type Host struct {
	Name    string     `json:"name"`    // host name inside the VM, e.g. "lab-h1"
	Address netip.Addr `json:"address"` // IPv4 address of its eth0 (and of rxe0's RoCE v2 GID)
}

// Topology is what the lab builds: one VM per host, every VM's eth0 on one bridge in the lab
// network namespace, the controller on the bridge too.
type Topology struct {
	Subnet     netip.Prefix `json:"subnet"`     // e.g. 10.99.0.0/24; every address below lies inside
	Controller netip.Addr   `json:"controller"` // the bridge's address: fabricctl (the controller) reaches the hosts from it
	// Extra are further addresses on the bridge for services that run beside the controller in
	// the lab namespace (switch simulators, a subnet manager).
	Extra []netip.Addr `json:"extra,omitempty"`
	Hosts []Host       `json:"hosts"`
	// Switches get a simulator each, listening on their address (one of Extra) port 22.
	Switches []Switch `json:"switches,omitempty"`
	// Leaves, when set, split the hosts across two leaf "switches" (leaves.go); otherwise every
	// host hangs off the controller's bridge.
	Leaves []Leaf `json:"leaves,omitempty"`
}

// DefaultTopology is the lab fabric of profiles/lab/fabric.yaml: lab-h1..lab-h4 at
// 10.99.0.11..14/24, the controller at 10.99.0.1, switch simulators at 10.99.0.101/102 and the
// subnet manager at 10.99.0.201.
func DefaultTopology() Topology {
	t := Topology{
		Subnet:     netip.MustParsePrefix("10.99.0.0/24"),
		Controller: netip.MustParseAddr("10.99.0.1"),
		Extra: []netip.Addr{netip.MustParseAddr("10.99.0.101"), netip.MustParseAddr("10.99.0.102"),
			netip.MustParseAddr("10.99.0.201")},
	}
	for i := 1; i <= 4; i++ {
		t.Hosts = append(t.Hosts, Host{Name: fmt.Sprintf("lab-h%d", i), Address: netip.AddrFrom4([4]byte{10, 99, 0, byte(10 + i)})})
	}
	return t
}

// ParseHosts reads "NAME=ADDR,NAME=ADDR" (the --host flag).
func ParseHosts(spec string) ([]Host, error) {
	var hosts []Host
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, addr, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("parsing host %q: want NAME=ADDRESS: %w", item, ErrBadTopology)
		}
		a, err := netip.ParseAddr(strings.TrimSpace(addr))
		if err != nil {
			return nil, fmt.Errorf("parsing host %q: %w: %w", item, err, ErrBadTopology)
		}
		hosts = append(hosts, Host{Name: strings.TrimSpace(name), Address: a})
	}
	return hosts, nil
}

var hostNameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// Validate checks what the lab needs: IPv4 only (rxe's GID is the IPv4-mapped one), every
// address inside the subnet and unique, not the network or broadcast address, host names valid
// and unique, and hosts' MAC addresses (derived from the addresses) unique.
func (t Topology) Validate() error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf(format+": %w", append(a, ErrBadTopology)...))
	}
	if !t.Subnet.IsValid() || !t.Subnet.Addr().Is4() || t.Subnet.Bits() < 8 || t.Subnet.Bits() > 29 {
		bad("subnet %v: want an IPv4 prefix between /8 and /29", t.Subnet)
		return errors.Join(errs...)
	}
	t.Subnet = t.Subnet.Masked()
	if len(t.Hosts) == 0 {
		bad("no hosts")
	}
	used := map[netip.Addr]string{}
	check := func(what string, a netip.Addr) {
		switch {
		case !a.IsValid() || !a.Is4():
			bad("%s: address %v is not IPv4", what, a)
			return
		case !t.Subnet.Contains(a):
			bad("%s: address %v outside the lab subnet %v", what, a, t.Subnet)
			return
		case a == t.Subnet.Addr() || a == broadcast(t.Subnet):
			bad("%s: address %v is the subnet's network or broadcast address", what, a)
			return
		}
		if prev, dup := used[a]; dup {
			bad("%s: address %v already used by %s", what, a, prev)
			return
		}
		used[a] = what
	}
	check("controller", t.Controller)
	for _, a := range t.Extra {
		check("extra address", a)
	}
	names := map[string]bool{}
	macs := map[string]string{}
	for i, h := range t.Hosts {
		what := fmt.Sprintf("hosts[%d] %s", i, h.Name)
		if !hostNameRE.MatchString(h.Name) {
			bad("hosts[%d]: name %q: want lower-case letters, digits and '-'", i, h.Name)
		}
		if names[h.Name] {
			bad("hosts[%d]: name %s used twice", i, h.Name)
		}
		names[h.Name] = true
		check(what, h.Address)
		if h.Address.Is4() {
			m := MAC(h.Address)
			if prev, dup := macs[m]; dup {
				bad("%s: MAC %s derived from its address collides with %s", what, m, prev)
			}
			macs[m] = what
		}
	}
	extra := map[netip.Addr]bool{}
	for _, a := range t.Extra {
		extra[a] = true
	}
	for i, sw := range t.Switches {
		if !hostNameRE.MatchString(sw.Name) {
			bad("switches[%d]: name %q: want lower-case letters, digits and '-'", i, sw.Name)
		}
		if names[sw.Name] {
			bad("switches[%d]: name %s used twice", i, sw.Name)
		}
		names[sw.Name] = true
		if !extra[sw.Address] {
			bad("switches[%d] %s: address %v is not one of the bridge's extra addresses", i, sw.Name, sw.Address)
		}
		if sw.Platform == "" {
			bad("switches[%d] %s: no platform", i, sw.Name)
		}
	}
	errs = append(errs, t.validateLeaves())
	return errors.Join(errs...)
}

func broadcast(p netip.Prefix) netip.Addr {
	a := p.Masked().Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3]) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// MAC is the locally administered MAC address the lab gives the NIC with IPv4 address a:
// 52:54:00:63:XX:YY from the address's last two bytes (the bridge uses the controller's).
func MAC(a netip.Addr) string {
	b := a.As4()
	return fmt.Sprintf("52:54:00:63:%02x:%02x", b[2], b[3])
}

// SortedHosts returns the host names in order.
func (t Topology) SortedHosts() []string {
	var n []string
	for _, h := range t.Hosts {
		n = append(n, h.Name)
	}
	sort.Strings(n)
	return n
}
