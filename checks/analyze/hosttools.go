package analyze

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/hostparse"
	"github.com/fabricctl/fabricctl/checks/pcitopo"
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

// mellanox reports whether an lspci description is an NVIDIA/Mellanox NIC.
func mellanox(d hostparse.PCIDevice) bool {
	return strings.Contains(d.Description, "Mellanox") || strings.Contains(d.Description, "ConnectX") || strings.Contains(d.Description, "BlueField")
}

func gpuDevice(d hostparse.PCIDevice) bool {
	return strings.Contains(d.Description, "NVIDIA") && (strings.HasPrefix(d.Class, "3D controller") || strings.HasPrefix(d.Class, "VGA"))
}

// RecommendedMaxReadReq is the PCIe Max Read Request size NVIDIA's tuning
// guides set for ConnectX adapters (setpci … 68.w), bytes.
const RecommendedMaxReadReq = 4096

func evalLSPCI(opt Options, name string, data []byte) ([]Finding, any, error) {
	devs, err := hostparse.ParsePCI(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	var gpus, nics []hostparse.PCIDevice
	for _, d := range devs {
		subject := d.Address
		if subject == "" {
			subject = "(partial block)"
		}
		if d.LinkSta != nil {
			var probs []string
			// A link runs at the lesser capability of its two ends: a x16 root
			// port with a x2 device behind it is not degraded.
			partner, known := hostparse.LinkPartner(devs, d)
			bounded := func(speed bool) bool {
				if !known || partner.LinkCap == nil {
					return false
				}
				if speed {
					return partner.LinkCap.GTps > 0 && d.LinkSta.GTps >= partner.LinkCap.GTps
				}
				return partner.LinkCap.Width > 0 && d.LinkSta.Width >= partner.LinkCap.Width
			}
			if d.LinkSta.SpeedDowngraded && !bounded(true) {
				probs = append(probs, fmt.Sprintf("link speed %s is below its capability", d.LinkSta.Speed))
			}
			if d.LinkSta.WidthDowngraded && !bounded(false) {
				probs = append(probs, fmt.Sprintf("link width x%d is below its capability", d.LinkSta.Width))
			}
			if len(probs) > 0 {
				out = append(out, bad("lspci/pcie-link", subject, checks.StatusFail, checks.LowBandwidth, strings.Join(probs, "; "), d.Description))
			} else if d.LinkSta.SpeedDowngraded || d.LinkSta.WidthDowngraded {
				out = append(out, pass("lspci/pcie-link", subject, fmt.Sprintf("%s x%d: below its own capability, but the most its link partner %s supports", d.LinkSta.Speed, d.LinkSta.Width, partner.Address)))
			} else {
				out = append(out, pass("lspci/pcie-link", subject, fmt.Sprintf("%s x%d, at its capability", d.LinkSta.Speed, d.LinkSta.Width)))
			}
		}
		if d.AER != nil {
			switch {
			case len(d.AER.Uncorrectable) > 0:
				out = append(out, bad("lspci/aer", subject, checks.StatusFail, "", "AER uncorrectable error bits set: "+strings.Join(d.AER.Uncorrectable, " "), d.Description))
			case len(d.AER.Correctable) > 0:
				out = append(out, bad("lspci/aer", subject, checks.StatusWarn, "", "AER correctable error bits set: "+strings.Join(d.AER.Correctable, " "), d.Description))
			}
		}
		if mellanox(d) && d.MaxReadReq > 0 {
			if d.MaxReadReq < RecommendedMaxReadReq {
				out = append(out, bad("lspci/max-read-request", subject, checks.StatusWarn, "", fmt.Sprintf("MaxReadReq %d bytes; %d is recommended for ConnectX (setpci -s %s 68.w)", d.MaxReadReq, RecommendedMaxReadReq, d.Address)))
			} else {
				out = append(out, pass("lspci/max-read-request", subject, fmt.Sprintf("MaxReadReq %d bytes", d.MaxReadReq)))
			}
		}
		switch {
		case gpuDevice(d) && d.Address != "":
			gpus = append(gpus, d)
		case mellanox(d) && d.Address != "" && !strings.HasSuffix(d.Address, ".1"):
			nics = append(nics, d)
		}
	}
	for _, g := range gpus {
		for _, n := range nics {
			bridges, common := hostparse.PathBridges(devs, g.Address, n.Address)
			if !common {
				continue // not below one switch in this capture: no peer-to-peer path to judge here
			}
			var redirect []string
			for _, b := range bridges {
				if b.ACSRedirects() {
					redirect = append(redirect, b.Address)
				}
			}
			subject := g.Address + "↔" + n.Address
			if len(redirect) > 0 {
				out = append(out, bad("lspci/acs", subject, checks.StatusFail, "", fmt.Sprintf("ACS redirects peer-to-peer requests on %s between GPU %s and NIC %s: GPUDirect RDMA detours through the root complex (disable ACS, e.g. setpci … ECAP_ACS+6.w=0)", strings.Join(redirect, ", "), g.Address, n.Address)))
			} else {
				out = append(out, pass("lspci/acs", subject, fmt.Sprintf("no ACS redirect on the %d switch ports between GPU %s and NIC %s", len(bridges), g.Address, n.Address)))
			}
		}
	}
	return out, devs, nil
}

// evalTopo grades each GPU's closest NIC like nvidia-smi topo -m names it:
// PIX/PXB pass, PHB and NODE/SYS warn (GPUDirect RDMA crosses the CPU). A
// GPU whose row (and whose NICs' rows) the capture cut off is unknown: never
// a verdict on cells that are not there.
func evalTopo(opt Options, name string, data []byte) ([]Finding, any, error) {
	tp, err := hostparse.ParseTopo(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var gpus, nics []string
	for _, d := range tp.Devices {
		switch {
		case strings.HasPrefix(d, "GPU"):
			gpus = append(gpus, d)
		case strings.HasPrefix(d, "NIC"), strings.HasPrefix(d, "mlx"):
			nics = append(nics, d)
		}
	}
	if len(nics) == 0 {
		return []Finding{bad("topo/gpu-nic-affinity", "", checks.StatusSkip, "", fmt.Sprintf("the topology lists %d GPUs and no NIC", len(gpus)))}, tp, nil
	}
	var out []Finding
	for _, g := range gpus {
		best, bestNICs := pcitopo.Path(""), []string(nil)
		var missing []string
		for _, n := range nics {
			p, err := tp.Path(g, n)
			switch {
			case errors.Is(err, hostparse.ErrTruncated):
				missing = append(missing, n)
				continue
			case err != nil:
				continue
			}
			switch {
			case best == "" || p.Closer(best):
				best, bestNICs = p, []string{tp.NICName(n)}
			case p == best:
				bestNICs = append(bestNICs, tp.NICName(n))
			}
		}
		names := strings.Join(bestNICs, ",")
		switch {
		case len(missing) > 0 && best != pcitopo.PIX:
			out = append(out, bad("topo/gpu-nic-affinity", g, checks.StatusSkip, "", fmt.Sprintf("closest NIC unknown: the capture cuts off %s↔%s", g, strings.Join(missing, ","))))
		case best == pcitopo.PIX || best == pcitopo.PXB:
			f := pass("topo/gpu-nic-affinity", g, fmt.Sprintf("closest NIC %s via %s", names, best))
			if len(missing) > 0 {
				f.Summary += " (the capture cuts off " + strings.Join(missing, ",") + ")"
			}
			out = append(out, f)
		case best == pcitopo.PHB:
			out = append(out, bad("topo/gpu-nic-affinity", g, checks.StatusWarn, "", fmt.Sprintf("closest NIC %s via PHB: GPUDirect RDMA goes through the CPU's host bridge", names)))
		case best == "":
			out = append(out, bad("topo/gpu-nic-affinity", g, checks.StatusSkip, "", "no PCIe path to any NIC in the matrix"))
		default:
			out = append(out, bad("topo/gpu-nic-affinity", g, checks.StatusWarn, "", fmt.Sprintf("closest NIC %s is %s away: GPUDirect RDMA traffic crosses the CPU", names, best)))
		}
	}
	return out, tp, nil
}
