package analyze

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/hostparse"
)

func pass(id, subject, summary string) Finding {
	return Finding{ID: id, Status: checks.StatusPass, Subject: subject, Summary: summary}
}

func bad(id, subject string, st checks.Status, class checks.FailureClass, summary string, evidence ...string) Finding {
	return Finding{ID: id, Status: st, Class: class, Subject: subject, Summary: summary, Evidence: evidence}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// portFinding judges one RDMA port: ACTIVE passes, anything else fails.
func portFinding(id, subject string, active bool, state, phys string) Finding {
	if active {
		return pass(id, subject, "port "+state)
	}
	return bad(id, subject, checks.StatusFail, checks.PortDown, fmt.Sprintf("port is %s (physical state %s)", orUnknown(state), orUnknown(phys)))
}

// noDevice is the finding of a host without any RDMA device.
func noDevice(id, summary string) Finding {
	return bad(id, "", checks.StatusFail, checks.NoDevice, summary)
}

func evalDevInfo(opt Options, name string, data []byte) ([]Finding, any, error) {
	di, err := hostparse.ParseDevInfo(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	if di.NoDevices {
		return []Finding{noDevice("ibv_devinfo/no-device", "ibv_devinfo found no RDMA device (driver not loaded, or a container without /dev/infiniband)")}, di, nil
	}
	var out []Finding
	for _, d := range di.Devices {
		for _, p := range d.Ports {
			subject := fmt.Sprintf("%s/%d", orUnknown(d.ID), p.Port)
			if p.State == "" {
				continue // a fragment without the state line
			}
			out = append(out, portFinding("ibv_devinfo/port-state", subject, strings.Contains(p.State, "ACTIVE"), p.State, p.PhysState))
		}
	}
	return out, di, nil
}

func evalIBStat(opt Options, name string, data []byte) ([]Finding, any, error) {
	st, err := hostparse.ParseIBStat(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, ca := range st.CAs {
		for _, p := range ca.Ports {
			if p.State == "" {
				continue
			}
			f := portFinding("ibstat/port-state", fmt.Sprintf("%s/%d", orUnknown(ca.Name), p.Port), p.State == "Active", p.State, p.PhysState)
			if p.Rate > 0 {
				f.Measurements = []checks.Measurement{{Name: "rate", Value: p.Rate, Unit: checks.UnitGbps}}
			}
			out = append(out, f)
		}
	}
	for _, e := range st.Errors {
		out = append(out, bad("ibstat/incomplete", "", checks.StatusWarn, "", "ibstat gave up, the listing stops there: "+e))
	}
	return out, st, nil
}

func evalShowGIDs(opt Options, name string, data []byte) ([]Finding, any, error) {
	sg, err := hostparse.ParseShowGIDs(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	type devPort struct {
		dev  string
		port int
	}
	var ports []devPort
	for _, g := range sg.Entries {
		dp := devPort{g.Dev, g.Port}
		if !slices.Contains(ports, dp) {
			ports = append(ports, dp)
		}
	}
	if len(ports) == 0 {
		return []Finding{bad("show_gids/roce-gid", "", checks.StatusFail, checks.NoDevice, "no GID at all: no RDMA device with an address in this namespace")}, sg, nil
	}
	var out []Finding
	for _, dp := range ports {
		subject := fmt.Sprintf("%s/%d", dp.dev, dp.port)
		g, err := sg.RoCEv2IPv4(dp.dev, dp.port, "")
		switch {
		case errors.Is(err, hostparse.ErrAmbiguousGID):
			out = append(out, bad("show_gids/roce-gid", subject, checks.StatusWarn, "", fmt.Sprintf("several RoCE v2 IPv4 GIDs: pin the netdev (NCCL_IB_GID_INDEX / perftest -x): %v", err)))
		case err != nil && !slices.ContainsFunc(sg.Entries, func(e hostparse.GIDEntry) bool { return e.Dev == dp.dev && e.Port == dp.port && e.Version != "" }):
			out = append(out, bad("show_gids/roce-gid", subject, checks.StatusSkip, "", "this show_gids prints no GID types (VER column empty): whether a RoCE v2 GID exists is unknown"))
		case err != nil && sg.Truncated:
			out = append(out, bad("show_gids/roce-gid", subject, checks.StatusSkip, "", "the capture was cut off before a RoCE v2 IPv4 GID of this port: unknown"))
		case err != nil:
			out = append(out, bad("show_gids/roce-gid", subject, checks.StatusFail, checks.QPBringUp, fmt.Sprintf("no usable RoCE v2 IPv4 GID: %v", err)))
		default:
			f := pass("show_gids/roce-gid", subject, fmt.Sprintf("RoCE v2 IPv4 GID %s at index %d (perftest -x %d)", g.IPv4, g.Index, g.Index))
			f.Measurements = []checks.Measurement{{Name: "gid_index", Value: float64(g.Index), Unit: checks.UnitCount}}
			out = append(out, f)
		}
	}
	return out, sg, nil
}

func evalIBDev2Netdev(opt Options, name string, data []byte) ([]Finding, any, error) {
	m, err := hostparse.ParseIBDev2Netdev(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, e := range m {
		subject := fmt.Sprintf("%s/%d", e.IBDev, e.Port)
		if e.PortState != "" && e.PortState != "ACTIVE" {
			out = append(out, bad("ibdev2netdev/port-state", subject, checks.StatusFail, checks.PortDown, fmt.Sprintf("port is %s (netdev %s)", e.PortState, e.Netdev)))
			continue
		}
		// Without -v the state in parentheses is the netdev's: for IPoIB it says
		// nothing about the IB port, so it is reported, not judged.
		out = append(out, pass("ibdev2netdev/mapping", subject, fmt.Sprintf("→ %s (%s)", e.Netdev, orUnknown(e.State))))
	}
	return out, m, nil
}

func evalIBLinkInfo(opt Options, name string, data []byte) ([]Finding, any, error) {
	li, err := hostparse.ParseIBLinkInfo(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, n := range li.Nodes {
		for _, l := range n.Links {
			subject := fmt.Sprintf("%s/%d", orUnknown(n.Name), l.Port)
			if l.State != "Active" || l.PhysState != "LinkUp" {
				out = append(out, bad("iblinkinfo/link-state", subject, checks.StatusFail, checks.PortDown, fmt.Sprintf("link %s/%s to %s", l.State, l.PhysState, orUnknown(l.Peer))))
				continue
			}
			out = append(out, pass("iblinkinfo/link-state", subject, fmt.Sprintf("%s %g Gb/s per lane to %s", l.Width, l.LaneGbps, orUnknown(l.Peer))))
		}
	}
	return out, li, nil
}
