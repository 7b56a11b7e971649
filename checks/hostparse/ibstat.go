package hostparse

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// IBStat is the output of ibstat.
type IBStat struct {
	CAs []CA `json:"cas"`
	// Errors holds lines where ibstat gave up ("ibpanic: … stat of IB device
	// 'mlx5_8' failed"): the listing is incomplete from there.
	Errors   []string `json:"errors,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	NumberErrors
}

// CA is one "CA 'name'" block.
type CA struct {
	Name            string       `json:"name"`
	Type            string       `json:"type,omitempty"` // "MT4129" (ConnectX-7), "MT41692" (BlueField-3)
	NumPorts        int          `json:"numPorts,omitempty"`
	FirmwareVersion string       `json:"firmwareVersion,omitempty"`
	HardwareVersion string       `json:"hardwareVersion,omitempty"`
	NodeGUID        string       `json:"nodeGUID,omitempty"`
	SystemImageGUID string       `json:"systemImageGUID,omitempty"`
	Ports           []IBStatPort `json:"ports,omitempty"`
	Partial         bool         `json:"partial,omitempty"` // the capture began inside this block
}

// IBStatPort is one "Port N:" block.
type IBStatPort struct {
	Port           int     `json:"port"`
	State          string  `json:"state,omitempty"`     // Active, Down, Initializing, Armed
	PhysState      string  `json:"physState,omitempty"` // LinkUp, Disabled, Polling, …
	Rate           float64 `json:"rate,omitempty"`      // Gb/s: 100, 200, 400; a down port may say 10
	BaseLID        int     `json:"baseLID,omitempty"`
	LMC            int     `json:"lmc,omitempty"`
	SMLID          int     `json:"smLID,omitempty"`
	CapabilityMask string  `json:"capabilityMask,omitempty"`
	PortGUID       string  `json:"portGUID,omitempty"`
	LinkLayer      string  `json:"linkLayer,omitempty"` // InfiniBand or Ethernet
}

var (
	caRe     = regexp.MustCompile(`^CA '([^']*)'`)
	ibPortRe = regexp.MustCompile(`^Port (\d+):$`)
)

// ParseIBStat reads the output of ibstat (all CAs or one). Values redacted as
// "..." in a capture, and other numbers that do not parse, become located
// warnings; an ibpanic line is kept in Errors.
func ParseIBStat(r io.Reader) (*IBStat, error) {
	var out IBStat
	var ca *CA
	var port *IBStatPort
	content := false
	num := func(n int, key, val string, dst *int) {
		v, ok := out.index(n, key, val)
		if !ok {
			if !numeric(val) {
				out.Warnings = append(out.Warnings, located(n, "%s %q is not a number", key, val))
			}
			return
		}
		*dst = v
	}
	err := scan(r, func(n, _ int, raw string) {
		s := strings.TrimSpace(raw)
		switch {
		case s == "":
		case strings.HasPrefix(s, "ibpanic:") || strings.HasPrefix(s, "ibwarn:"):
			out.Errors = append(out.Errors, s)
			content = true
		case caRe.MatchString(s):
			out.CAs = append(out.CAs, CA{Name: caRe.FindStringSubmatch(s)[1]})
			ca, port = &out.CAs[len(out.CAs)-1], nil
			content = true
		case ibPortRe.MatchString(s):
			if ca == nil {
				out.CAs = append(out.CAs, CA{Partial: true})
				ca = &out.CAs[len(out.CAs)-1]
			}
			p, _ := out.index(n, "port", ibPortRe.FindStringSubmatch(s)[1])
			ca.Ports = append(ca.Ports, IBStatPort{Port: p})
			port = &ca.Ports[len(ca.Ports)-1]
			content = true
		default:
			key, val, ok := splitKV(s)
			if !ok {
				return
			}
			if port != nil {
				if portAttr(n, port, key, val, num, &out) {
					content = true
				}
				return
			}
			if ca != nil && caAttr(n, ca, key, val, num) {
				content = true
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("parsing ibstat output: %w", err)
	}
	if !content {
		return nil, fmt.Errorf("parsing ibstat output: %w", ErrNoData)
	}
	return &out, nil
}

type numFunc func(n int, key, val string, dst *int)

func caAttr(n int, ca *CA, key, val string, num numFunc) bool {
	switch key {
	case "CA type":
		ca.Type = val
	case "Number of ports":
		num(n, key, val, &ca.NumPorts)
	case "Firmware version":
		ca.FirmwareVersion = val
	case "Hardware version":
		ca.HardwareVersion = val
	case "Node GUID":
		ca.NodeGUID = val
	case "System image GUID":
		ca.SystemImageGUID = val
	default:
		return false
	}
	return true
}

func portAttr(n int, p *IBStatPort, key, val string, num numFunc, out *IBStat) bool {
	switch key {
	case "State":
		p.State = val
	case "Physical state":
		p.PhysState = val
	case "Rate":
		v, ok := out.rate(n, "rate", val)
		if !ok {
			if !numeric(val) {
				out.Warnings = append(out.Warnings, located(n, "rate %q is not a number", val))
			}
			break
		}
		p.Rate = v
	case "Base lid":
		num(n, key, val, &p.BaseLID)
	case "LMC":
		num(n, key, val, &p.LMC)
	case "SM lid":
		num(n, key, val, &p.SMLID)
	case "Capability mask":
		p.CapabilityMask = val
	case "Port GUID":
		p.PortGUID = val
	case "Link layer":
		p.LinkLayer = val
	default:
		return false
	}
	return true
}
