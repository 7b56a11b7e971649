package eos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// CmdLLDPNeighbors lists the switch's LLDP neighbours as eAPI JSON.
const CmdLLDPNeighbors = "show lldp neighbors | json"

// ErrLLDP is wrapped by every error about output that is not the JSON of
// `show lldp neighbors`.
var ErrLLDP = errors.New("not show lldp neighbors | json output")

// NeighborCommands implements switchcfg.NeighborReader.
func (d *Driver) NeighborCommands() []string { return []string{CmdLLDPNeighbors} }

// ParseNeighbors implements switchcfg.NeighborReader.
func (d *Driver) ParseNeighbors(rb switchcfg.Readback) ([]fabric.Neighbor, error) {
	return switchcfg.ParseNeighborOutput(rb, CmdLLDPNeighbors, ParseLLDPNeighbors)
}

// ParseLLDPNeighbors reads EOS's `show lldp neighbors | json`:
//
//	{"lldpNeighbors": [{"port": "Ethernet4", "neighborDevice": "vlab-03",
//	  "neighborPort": "fortyGigE0/12", "ttl": 120}], "tablesInserts": 5, …}
//
// The summary does not say the port ID's subtype: a MAC address is "mac",
// digits "local", anything else "ifname". An entry without a local port
// is an error naming its index.
func ParseLLDPNeighbors(out []byte) ([]fabric.Neighbor, error) {
	var doc struct {
		LLDPNeighbors *[]struct {
			Port           string `json:"port"`
			NeighborDevice string `json:"neighborDevice"`
			NeighborPort   string `json:"neighborPort"`
			TTL            int    `json:"ttl"`
		} `json:"lldpNeighbors"`
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLLDP, err)
	}
	if doc.LLDPNeighbors == nil {
		return nil, fmt.Errorf("%w: no lldpNeighbors list", ErrLLDP)
	}
	var ns []fabric.Neighbor
	for i, e := range *doc.LLDPNeighbors {
		if e.Port == "" {
			return nil, fmt.Errorf("%w: lldpNeighbors[%d]: no port", ErrLLDP, i)
		}
		n := fabric.Neighbor{LocalPort: e.Port, Protocol: "LLDP", SystemName: e.NeighborDevice, PortID: e.NeighborPort, TTL: max(e.TTL, 0)}
		n.PortIDType = fabric.InferPortIDType(n.PortID)
		ns = append(ns, n)
	}
	return ns, nil
}
