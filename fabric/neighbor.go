package fabric

import "strings"

// Neighbor is one LLDP neighbour a device sees on one of its ports: what a
// host's lldpd (`lldpcli show neighbors`) or a switch's LLDP table reports.
// It is the common currency of discovered topology: fabric/lldp parses host
// output into it, switch drivers parse their read-back into it
// (switchcfg.NeighborReader), and checks/topology compares it with the
// declared cabling.
type Neighbor struct {
	// LocalPort is the reporting device's own port: a host netdev (ens1f0np0)
	// or a switch port (swp1, Ethernet1/1).
	LocalPort string `json:"localPort"`
	// Protocol is how the neighbour was learnt: LLDP, CDPv2, EDP, … (lldpd's "via").
	Protocol string `json:"protocol,omitempty"`
	// ChassisIDType is the chassis ID subtype as lldpd names it: mac, ip,
	// local, ifname, ifalias.
	ChassisIDType string `json:"chassisIdType,omitempty"`
	ChassisID     string `json:"chassisId,omitempty"`
	// SystemName is the neighbour's SysName TLV, often a FQDN (leaf-01.dc1.example.com).
	SystemName        string `json:"systemName,omitempty"`
	SystemDescription string `json:"systemDescription,omitempty"`
	// PortIDType is the port ID subtype: ifname, mac, local, ifalias, ip.
	// Junos sends its SNMP ifIndex as a "local" port ID and the port name as
	// the description; Cumulus, SONiC and EOS send the port name as "ifname".
	PortIDType      string `json:"portIdType,omitempty"`
	PortID          string `json:"portId,omitempty"`
	PortDescription string `json:"portDescription,omitempty"`
	// MgmtAddresses are the management addresses the neighbour advertises.
	MgmtAddresses []string `json:"mgmtAddresses,omitempty"`
	// TTL is the advertised time to live in seconds (0 when absent).
	TTL int `json:"ttl,omitempty"`
}

// PortName is the neighbour's port as a name to match against a fabric:
// the port ID when it is an interface name (or a locally assigned ID that
// is not a bare number), else the port description (Junos sends the ifIndex
// as ID and the name as description), else the port ID as it is.
func (n Neighbor) PortName() string {
	switch n.PortIDType {
	case "ifname", "ifalias":
		if n.PortID != "" {
			return n.PortID
		}
	case "local":
		if n.PortID != "" && !allDigits(n.PortID) {
			return n.PortID
		}
	}
	if n.PortDescription != "" {
		return n.PortDescription
	}
	return n.PortID
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// InferPortIDType guesses the subtype of a port ID that a NOS's summary
// prints without it (SONiC's show lldp table, EOS's show lldp neighbors):
// a MAC address (colon, dash or Cisco dotted form) is "mac", digits (an
// ifIndex) "local", anything else an interface name, "ifname"; "" stays "".
func InferPortIDType(id string) string {
	switch {
	case id == "":
		return ""
	case macLike(id):
		return "mac"
	case allDigits(id):
		return "local"
	}
	return "ifname"
}

func macLike(s string) bool {
	hex := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			hex++
		case c == ':' || c == '-' || c == '.':
		default:
			return false
		}
	}
	return hex == 12 && len(s) >= 14 // separated: 17 (aa:bb:…) or 14 (aabb.ccdd.eeff)
}

// LLDPSubtype turns a chassis or port ID subtype as a NOS spells it in its
// neighbour table ("Mac address" on Junos, "Mac Address" and "Locally
// Assigned" on NX-OS, "Interface name", …) into lldpd's name: mac, ifname,
// ifalias, local, ip. A name it does not know (or none, or an old NX-OS's
// bare subtype number) is inferred from the ID as InferPortIDType does.
func LLDPSubtype(name, id string) string {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "mac address", "mac", "macaddress":
		return "mac"
	case "interface name", "ifname", "interfacename":
		return "ifname"
	case "interface alias", "ifalias", "interfacealias":
		return "ifalias"
	case "locally assigned", "local", "locallyassigned":
		return "local"
	case "network address", "ip", "networkaddress":
		return "ip"
	}
	return InferPortIDType(id)
}
