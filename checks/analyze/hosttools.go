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
	if di.NoDevices || (len(di.Devices) == 0 && len(di.Errors) > 0) {
		return []Finding{devinfoNoDevice(di)}, di, nil
	}
	out := devinfoErrors(di)
	judged := false
	for _, d := range di.Devices {
		for _, p := range d.Ports {
			fs := devinfoPort(fmt.Sprintf("%s/%d", orUnknown(d.ID), p.Port), p, 0)
			judged = judged || len(fs) > 0
			out = append(out, fs...)
		}
	}
	if !judged && len(di.Devices) > 0 {
		// A device or port cut off at either end of an excerpt that shows
		// other ports is only its edge; with no port state at all, nothing
		// here can be judged.
		out = append(out, bad("ibv_devinfo/port-state", orUnknown(di.Devices[0].ID), checks.StatusSkip, "",
			"the capture ends before any port state: nothing to judge"))
	}
	return out, di, nil
}

// devinfoNoDevice is the finding of an ibv_devinfo that listed no device:
// none found, not the one asked for, or none it could open; libibverbs'
// warnings say why.
func devinfoNoDevice(di *hostparse.DevInfo) Finding {
	summary := "ibv_devinfo found no RDMA device (driver not loaded, no verbs provider, or a container without /dev/infiniband)"
	switch {
	case strings.Contains(di.NoDevicesLine, "wasn't found"):
		summary = "ibv_devinfo: " + di.NoDevicesLine + ": the device asked for does not exist on this host"
	case !di.NoDevices:
		summary = fmt.Sprintf("ibv_devinfo could open none of the devices it found (%d × %q)", len(di.Errors), errorText(di.Errors[0]))
	case len(di.LibWarnings) > 0:
		summary += "; libibverbs: " + di.LibWarnings[0]
	}
	f := noDevice("ibv_devinfo/no-device", summary)
	f.Evidence = append(slices.Clone(di.LibWarnings), di.Errors...)
	return f
}

// devinfoErrors warns about the devices ibv_devinfo enumerated but could
// not read: they are missing from the listing.
func devinfoErrors(di *hostparse.DevInfo) []Finding {
	if len(di.Errors) == 0 {
		return nil
	}
	counts := map[string]int{}
	var order []string
	for _, e := range di.Errors {
		t := errorText(e)
		if counts[t] == 0 {
			order = append(order, t)
		}
		counts[t]++
	}
	var parts []string
	for _, t := range order {
		parts = append(parts, fmt.Sprintf("%q ×%d", t, counts[t]))
	}
	return []Finding{bad("ibv_devinfo/unreadable-device", "", checks.StatusWarn, "",
		"ibv_devinfo could not read some devices it found, they are not listed ("+strings.Join(parts, ", ")+
			"): in a container their /dev/infiniband/uverbs* were not passed in, else check the driver", append([]string{}, di.Errors...)...)}
}

// errorText drops the "line N: " a parser put in front of a message.
func errorText(located string) string {
	if _, t, ok := strings.Cut(located, ": "); ok && strings.HasPrefix(located, "line ") {
		return t
	}
	return located
}

// devinfoPort judges one port of ibv_devinfo: its state and, when it is
// active, its MTU. fabricMTU is the MTU the fabric wants (0: the port's own
// max_mtu). A port the capture shows no state of gives no finding.
func devinfoPort(subject string, p hostparse.DevInfoPort, fabricMTU int) []Finding {
	const id = "ibv_devinfo/port-state"
	switch {
	case p.State != "":
		active := strings.Contains(p.State, "ACTIVE")
		out := []Finding{portFinding(id, subject, active, p.State, p.PhysState)}
		if f, ok := mtuFinding("ibv_devinfo/mtu", subject, p, fabricMTU); ok && active {
			out = append(out, f)
		}
		return out
	case p.PhysState == "":
		return nil
	case p.PhysState != "LINK_UP":
		// No logical port state above a physical link that is not up.
		return []Finding{bad(id, subject, checks.StatusFail, checks.PortDown, fmt.Sprintf("physical state %s: the link is not up, the port cannot be active", p.PhysState))}
	case roCEPort(p):
		// A RoCE port's state is its netdev's carrier: the kernel drivers
		// (mlx5 ib, rxe) report PORT_ACTIVE and LINK_UP together.
		return []Finding{pass(id, subject, "physical state LINK_UP (RoCE: the port is active with its link; the state line is not in the capture)")}
	default:
		return []Finding{bad(id, subject, checks.StatusSkip, "", "physical state LINK_UP, but the port state is not in the capture (an InfiniBand port may still wait for its subnet manager)")}
	}
}

// roCEPort reports whether an ibv_devinfo port is RoCE: its link layer, or
// the types of its GIDs (ibv_devinfo -v).
func roCEPort(p hostparse.DevInfoPort) bool {
	if p.LinkLayer != "" {
		return p.LinkLayer == "Ethernet"
	}
	return slices.ContainsFunc(p.GIDs, func(g hostparse.IndexedGID) bool { return strings.HasPrefix(g.Type, "RoCE") })
}

// mtuFinding judges a port's active_mtu against want, the fabric's MTU when
// one is given, else the port's own max_mtu: below it, every RoCE/IB message
// is cut into smaller packets (RoCE takes the MTU from the netdev's: 1500 →
// 1024; InfiniBand from the subnet manager's partition MTU). ok is false
// when the port shows no MTU.
func mtuFinding(id, subject string, p hostparse.DevInfoPort, want int) (Finding, bool) {
	if p.ActiveMTU <= 0 || p.MaxMTU <= 0 {
		return Finding{}, false
	}
	what, target := "its max_mtu", p.MaxMTU
	if want > 0 {
		what, target = "the fabric's MTU", want
	}
	m := []checks.Measurement{{Name: "active_mtu", Value: float64(p.ActiveMTU), Unit: checks.UnitBytes}}
	if p.ActiveMTU >= target {
		f := pass(id, subject, fmt.Sprintf("active_mtu %d, %s %d", p.ActiveMTU, what, target))
		f.Measurements = m
		return f, true
	}
	fix := "InfiniBand takes it from the subnet manager's partition MTU"
	switch {
	case target > p.MaxMTU:
		fix = fmt.Sprintf("the port's max_mtu is %d", p.MaxMTU)
	case roCEPort(p):
		fix = "RoCE takes it from the netdev's MTU (1500 gives 1024): raise that to 4200 or more for 4096"
	case p.LinkLayer == "":
		fix = "RoCE takes it from the netdev's MTU, InfiniBand from the partition MTU"
	}
	f := bad(id, subject, checks.StatusWarn, "", fmt.Sprintf("active_mtu %d is below %s %d: %s", p.ActiveMTU, what, target, fix))
	f.Measurements = m
	return f, true
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
	var ports []hostparse.GIDPort
	for _, g := range sg.Entries {
		dp := hostparse.GIDPort{Dev: g.Dev, Port: g.Port}
		if !slices.Contains(ports, dp) {
			ports = append(ports, dp)
		}
	}
	if len(ports) == 0 {
		return []Finding{bad("show_gids/roce-gid", "", checks.StatusFail, checks.NoDevice, "no GID at all: no RDMA device with an address in this namespace")}, sg, nil
	}
	var out []Finding
	for _, dp := range ports {
		out = append(out, gidFinding(sg, dp))
	}
	return out, sg, nil
}

// gidFinding judges one port of show_gids by its link layer: an InfiniBand
// port needs no RoCE GID; a RoCE port needs exactly one RoCE v2 IPv4 GID
// (the one NCCL_IB_GID_INDEX and perftest -x take).
func gidFinding(sg *hostparse.ShowGIDs, dp hostparse.GIDPort) Finding {
	const id = "show_gids/roce-gid"
	subject := fmt.Sprintf("%s/%d", dp.Dev, dp.Port)
	if sg.LinkLayer(dp.Dev, dp.Port) == "InfiniBand" {
		return pass(id, subject, "InfiniBand port (GIDs fe80::<port GUID>, no netdev): addressed by LID and GID, RoCE GIDs do not apply")
	}
	g, err := sg.RoCEv2IPv4(dp.Dev, dp.Port, "")
	mine := func(e hostparse.GIDEntry) bool { return e.Dev == dp.Dev && e.Port == dp.Port }
	switch {
	case err == nil:
		f := pass(id, subject, fmt.Sprintf("RoCE v2 IPv4 GID %s at index %d (perftest -x %d)", g.IPv4, g.Index, g.Index))
		f.Measurements = []checks.Measurement{{Name: "gid_index", Value: float64(g.Index), Unit: checks.UnitCount}}
		return f
	case errors.Is(err, hostparse.ErrAmbiguousGID):
		return bad(id, subject, checks.StatusWarn, "", fmt.Sprintf("several RoCE v2 IPv4 GIDs: pin the netdev (NCCL_IB_GID_INDEX / perftest -x): %v", err))
	case !slices.ContainsFunc(sg.Entries, func(e hostparse.GIDEntry) bool { return mine(e) && e.Version != "" }):
		return bad(id, subject, checks.StatusSkip, "", "this show_gids prints no GID types (VER column empty): whether a RoCE v2 GID exists is unknown")
	case sg.CutIn(dp.Dev, dp.Port):
		return cutGIDFinding(sg, dp, subject)
	case slices.ContainsFunc(sg.Entries, func(e hostparse.GIDEntry) bool { return mine(e) && e.Version == "v2" && globalIPv6(e) }):
		return bad(id, subject, checks.StatusWarn, "", "only IPv6 RoCE v2 GIDs, no IPv4 one: NCCL picks IPv4 by default (NCCL_IB_ADDR_FAMILY=AF_INET6 to use IPv6)")
	default:
		return bad(id, subject, checks.StatusFail, checks.QPBringUp, fmt.Sprintf("no usable RoCE v2 IPv4 GID: %v", err))
	}
}

// cutGIDFinding judges a port whose rows the capture cut off before a RoCE
// v2 IPv4 GID. The kernel adds a GID of every type the port supports for
// each address (drivers/infiniband/core/roce_gid_mgmt.c), so a port that
// shows RoCE v2 GIDs and an IPv4 address as a v1 GID has its v2 twin; else
// the GID is unknown.
func cutGIDFinding(sg *hostparse.ShowGIDs, dp hostparse.GIDPort, subject string) Finding {
	var v1, v2 bool
	var addr hostparse.GIDEntry
	for _, e := range sg.Entries {
		if e.Dev != dp.Dev || e.Port != dp.Port {
			continue
		}
		v2 = v2 || e.Version == "v2"
		if e.Version == "v1" && e.IPv4 != "" && !v1 {
			v1, addr = true, e
		}
	}
	if v1 && v2 {
		return pass("show_gids/roce-gid", subject, fmt.Sprintf("the capture is cut before it, but the port has RoCE v2 GIDs and %s (v1 GID index %d), so the kernel gave it a RoCE v2 IPv4 GID too", addr.IPv4, addr.Index))
	}
	return bad("show_gids/roce-gid", subject, checks.StatusSkip, "", "the capture was cut off before a RoCE v2 IPv4 GID of this port: unknown")
}

// globalIPv6 reports whether a GID is an IPv6 address beyond the link
// (neither link-local fe80:: nor IPv4-mapped).
func globalIPv6(e hostparse.GIDEntry) bool {
	g := strings.ToLower(e.GID)
	return e.IPv4 == "" && !strings.HasPrefix(g, "fe80:") && !strings.HasPrefix(g, "0000:0000:0000:0000:0000:ffff:")
}

func evalIBDev2Netdev(opt Options, name string, data []byte) ([]Finding, any, error) {
	m, err := hostparse.ParseIBDev2Netdev(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, e := range m {
		out = append(out, netdevFinding(e))
	}
	return out, m, nil
}

// netdevFinding judges one ibdev2netdev line. With -v the RDMA port state is
// printed and judged. Without it only the netdev's state is: a RoCE port
// cannot be up while its netdev is Down, but an IPoIB netdev Down says
// nothing certain about its InfiniBand port.
func netdevFinding(e hostparse.NetdevMap) Finding {
	subject := fmt.Sprintf("%s/%d", e.IBDev, e.Port)
	switch {
	case e.PortState != "" && e.PortState != "ACTIVE":
		return bad("ibdev2netdev/port-state", subject, checks.StatusFail, checks.PortDown, fmt.Sprintf("port is %s (netdev %s)", e.PortState, e.Netdev))
	case e.PortState != "" || !strings.EqualFold(e.State, "Down"):
		return pass("ibdev2netdev/mapping", subject, fmt.Sprintf("→ %s (%s)", e.Netdev, orUnknown(e.State)))
	case e.IPoIB():
		return bad("ibdev2netdev/netdev-state", subject, checks.StatusWarn, "", fmt.Sprintf("IPoIB netdev %s is Down: only IP over InfiniBand is down here; the InfiniBand port's own state is not shown (ibdev2netdev -v, ibstat)", e.Netdev))
	default:
		return bad("ibdev2netdev/netdev-state", subject, checks.StatusFail, checks.PortDown, fmt.Sprintf("netdev %s is Down: the RoCE port cannot be active without it", e.Netdev))
	}
}

func evalIBLinkInfo(opt Options, name string, data []byte) ([]Finding, any, error) {
	li, err := hostparse.ParseIBLinkInfo(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, n := range li.Nodes {
		for _, l := range n.Links {
			out = append(out, linkFinding(n, l))
		}
	}
	return out, li, nil
}

// linkFinding judges one iblinkinfo port: a link to a peer must be
// Active/LinkUp at the width and speed both ends support (iblinkinfo says
// "Could be …" otherwise); a switch port without a peer is simply not
// cabled, but a CA port without one is a host port that is down.
func linkFinding(n hostparse.IBLinkNode, l hostparse.IBLinkPort) Finding {
	const id = "iblinkinfo/link-state"
	subject := fmt.Sprintf("%s/%d", orUnknown(n.Name), l.Port)
	up := l.State == "Active" && l.PhysState == "LinkUp"
	switch {
	case !l.Connected() && !up && n.Type == "Switch":
		return pass(id, subject, fmt.Sprintf("unconnected switch port (%s/%s, no peer)", l.State, l.PhysState))
	case !up:
		return bad(id, subject, checks.StatusFail, checks.PortDown, fmt.Sprintf("link %s/%s to %s", l.State, l.PhysState, orUnknown(l.Peer)))
	case l.CouldBe != "":
		return bad(id, subject, checks.StatusFail, checks.LowBandwidth, fmt.Sprintf("link to %s trained at %s %g Gbps per lane, could be %s (iblinkinfo): a cable, port or setting limits it", orUnknown(l.Peer), l.Width, l.LaneGbps, l.CouldBe))
	}
	return pass(id, subject, fmt.Sprintf("%s %g Gb/s per lane to %s", l.Width, l.LaneGbps, orUnknown(l.Peer)))
}
