package junos

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// CmdLLDPNeighbors lists the switch's LLDP neighbours in Junos's JSON
// rendering of the get-lldp-neighbors-information RPC (Junos 14.2 and
// later; every platform has the brief form, `detail` is not on all).
const CmdLLDPNeighbors = "show lldp neighbors | display json"

// ErrLLDP is wrapped by every error about output that is not the JSON of
// `show lldp neighbors`.
var ErrLLDP = errors.New("not show lldp neighbors | display json output")

var _ switchcfg.NeighborReader = (*Driver)(nil)

// NeighborCommands implements switchcfg.NeighborReader.
func (d *Driver) NeighborCommands() []string { return []string{CmdLLDPNeighbors} }

// ParseNeighbors implements switchcfg.NeighborReader.
func (d *Driver) ParseNeighbors(rb switchcfg.Readback) ([]fabric.Neighbor, error) {
	return switchcfg.ParseNeighborOutput(rb, CmdLLDPNeighbors, ParseLLDPNeighbors)
}

// jtext is a Junos JSON leaf: a list of one {"data": "…"} (attributes
// aside). Its value is the first element's data, trimmed.
type jtext []struct {
	Data string `json:"data"`
}

func (t jtext) String() string {
	if len(t) == 0 {
		return ""
	}
	s := strings.TrimSpace(t[0].Data)
	if s == "-" { // Junos's "none" (lldp-local-parent-interface-name)
		return ""
	}
	return s
}

type junosNeighbor struct {
	LocalInterface    jtext `json:"lldp-local-interface"`
	LocalPortID       jtext `json:"lldp-local-port-id"`
	ChassisIDSubtype  jtext `json:"lldp-remote-chassis-id-subtype"`
	ChassisID         jtext `json:"lldp-remote-chassis-id"`
	PortIDSubtype     jtext `json:"lldp-remote-port-id-subtype"`
	PortID            jtext `json:"lldp-remote-port-id"`
	PortDescription   jtext `json:"lldp-remote-port-description"`
	SystemName        jtext `json:"lldp-remote-system-name"`
	TTL               jtext `json:"lldp-ttl"`
	MgmtAddress       jtext `json:"lldp-remote-management-address"`
	SystemDescription []struct {
		Text jtext `json:"lldp-remote-system-description"`
	} `json:"lldp-system-description"`
}

// ParseLLDPNeighbors reads `show lldp neighbors | display json` (brief)
// or `show lldp neighbors detail | display json`:
//
//	{"lldp-neighbors-information": [{"attributes": {"junos:style": "brief"},
//	  "lldp-neighbor-information": [{
//	    "lldp-local-port-id": [{"data": "xe-0/0/0"}],
//	    "lldp-remote-chassis-id-subtype": [{"data": "Mac address"}],
//	    "lldp-remote-chassis-id": [{"data": "50:0b:00:00:01:03"}],
//	    "lldp-remote-port-id-subtype": [{"data": "Interface name"}],
//	    "lldp-remote-port-id": [{"data": "Ethernet1/3"}],
//	    "lldp-remote-system-name": [{"data": "spine1-nxos"}]}]}]}
//
// The local port is the first of lldp-local-interface and
// lldp-local-port-id that is a name: ELS switches (QFX, EX) put the port
// name in lldp-local-port-id in the brief form and its SNMP ifIndex there
// in the detail form, older Junos (MX, non-ELS EX) name the logical
// interface in lldp-local-interface (xe-0/1/0.0). A logical unit is cut
// off, so the port reads as the fabric file writes it (xe-0/1/0).
// Subtypes ("Mac address", "Locally assigned") become lldpd's names;
// an old Junos that sends no remote port ID leaves the description as
// the port. A table without neighbours has no lldp-neighbor-information;
// output without lldp-neighbors-information, or a neighbour without a
// local port name, is an error naming where.
func ParseLLDPNeighbors(out []byte) ([]fabric.Neighbor, error) {
	var doc struct {
		Info *[]struct {
			Neighbors []junosNeighbor `json:"lldp-neighbor-information"`
		} `json:"lldp-neighbors-information"`
	}
	if err := switchcfg.DecodeNeighborJSON(out, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLLDP, err)
	}
	if doc.Info == nil {
		return nil, fmt.Errorf("%w: no lldp-neighbors-information", ErrLLDP)
	}
	var ns []fabric.Neighbor
	for i, info := range *doc.Info {
		for j, e := range info.Neighbors {
			local := localPort(e.LocalInterface.String(), e.LocalPortID.String())
			if local == "" {
				return nil, fmt.Errorf("%w: lldp-neighbors-information[%d].lldp-neighbor-information[%d]: no local port name (interface %q, port ID %q)",
					ErrLLDP, i, j, e.LocalInterface.String(), e.LocalPortID.String())
			}
			n := fabric.Neighbor{LocalPort: local, Protocol: "LLDP",
				ChassisID: e.ChassisID.String(), SystemName: e.SystemName.String(),
				PortID: e.PortID.String(), PortDescription: e.PortDescription.String()}
			n.ChassisIDType = fabric.LLDPSubtype(e.ChassisIDSubtype.String(), n.ChassisID)
			n.PortIDType = fabric.LLDPSubtype(e.PortIDSubtype.String(), n.PortID)
			if n.PortID == "" {
				n.PortIDType = ""
			}
			if len(e.SystemDescription) > 0 {
				n.SystemDescription = e.SystemDescription[0].Text.String()
			}
			if a := e.MgmtAddress.String(); a != "" {
				n.MgmtAddresses = []string{a}
			}
			if ttl, err := strconv.Atoi(e.TTL.String()); err == nil && ttl > 0 {
				n.TTL = ttl
			}
			ns = append(ns, n)
		}
	}
	return ns, nil
}

// unitRE is a Junos logical unit at the end of an interface name.
var unitRE = regexp.MustCompile(`\.[0-9]+$`)

// localPort is the first candidate that names an interface (not an
// ifIndex), its logical unit cut off.
func localPort(candidates ...string) string {
	for _, c := range candidates {
		if c == "" || strings.ContainsAny(c, " \t") || fabric.InferPortIDType(c) == "local" {
			continue
		}
		return unitRE.ReplaceAllString(c, "")
	}
	return ""
}
