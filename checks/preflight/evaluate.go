package preflight

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/pcitopo"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
)

// Check IDs.
const (
	IDAgent      = "preflight/agent"       // the host's agent answered
	IDRDMADevice = "preflight/rdma-device" // the netdev has an RDMA device
	IDPort       = "preflight/port-active" // ACTIVE / LinkUp
	IDRate       = "preflight/port-rate"   // at the expected rate
	IDGID        = "preflight/roce-gid"    // RoCE v2 IPv4 GID present
	IDMTU        = "preflight/mtu"
	IDLossless   = "preflight/lossless" // live lossless settings equal desired
	IDPCIe       = "preflight/pcie-link"
	IDAER        = "preflight/aer"
	IDAffinity   = "preflight/gpu-nic-affinity"
	IDPeerMem    = "preflight/peer-memory"
	IDPerftest   = "preflight/perftest"
	IDVersions   = "preflight/versions" // fleet: perftest and NCCL versions agree
	IDResolve    = "preflight/name-resolution"
)

// Options tune Evaluate.
type Options struct {
	// ExpectedRate is the port rate every RoCE port must show, Gb/s (0 = any).
	ExpectedRate float64
}

func pass(id, target, summary string) checks.Result {
	return checks.Result{ID: id, Target: target, Status: checks.StatusPass, Summary: summary}
}

func bad(id, target string, st checks.Status, class checks.FailureClass, summary string, evidence ...string) checks.Result {
	return checks.Result{ID: id, Target: target, Status: st, Class: class, Summary: summary, Evidence: evidence}
}

// Evaluate judges one host's facts.
func Evaluate(f Facts, o Options) []checks.Result {
	var out []checks.Result
	host := f.Host
	if f.Observed == nil {
		out = append(out, bad(IDRDMADevice, host, checks.StatusError, "", "the host could not be observed: "+f.ObserveError))
	} else {
		for _, in := range f.Observed.Interfaces {
			out = append(out, evalInterface(host, in, f.Plan, o)...)
		}
		var noDevice []string
		for _, in := range f.Observed.Interfaces {
			if in.RDMA == nil {
				noDevice = append(noDevice, in.Name)
			}
		}
		l := evalLossless(host, f.Plan, noDevice)
		if f.Plan == nil && f.ObserveError != "" {
			l.Summary += ": " + f.ObserveError
		}
		out = append(out, l)
	}
	out = append(out, evalPCI(host, f.PCI)...)
	out = append(out, evalGPUDirect(host, f))
	out = append(out, evalGPUHost(host, f)...)
	if f.Perftest != "" {
		out = append(out, pass(IDPerftest, host, "perftest "+f.Perftest))
	} else {
		out = append(out, bad(IDPerftest, host, checks.StatusError, checks.MissingTool, "perftest is not usable: "+f.PerftestError))
	}
	out = append(out, evalResolve(host, f.Resolved))
	return out
}

func ifaceTarget(host string, in hostcfg.InterfaceState) string {
	if in.RDMA != nil {
		return host + "/" + in.RDMA.Device
	}
	return host + "/" + in.Name
}

func evalInterface(host string, in hostcfg.InterfaceState, plan *hostcfg.Plan, o Options) []checks.Result {
	target := ifaceTarget(host, in)
	if in.Name == fabric.AllRDMANetdevs {
		return []checks.Result{bad(IDRDMADevice, host, checks.StatusFail, checks.NoDevice,
			"no RDMA device on this host: no netdev has one (RDMA driver not loaded? ls /sys/class/infiniband)", in.Error)}
	}
	if in.Error != "" {
		return []checks.Result{bad(IDRDMADevice, target, checks.StatusFail, checks.NoDevice, fmt.Sprintf("netdev %s: %s", in.Name, in.Error))}
	}
	if in.RDMA == nil {
		return []checks.Result{bad(IDRDMADevice, target, checks.StatusFail, checks.NoDevice, fmt.Sprintf("netdev %s has no RDMA device", in.Name))}
	}
	r := in.RDMA
	out := []checks.Result{pass(IDRDMADevice, target, fmt.Sprintf("%s port %d serves %s", r.Device, r.Port.Port, in.Name))}
	if r.Error != "" && r.State == "" {
		if strings.Contains(r.Error, "no such file or directory") {
			// the port's sysfs directory is gone: the device is being removed (or half there)
			out = append(out, bad(IDPort, target, checks.StatusFail, checks.PortDown, "the port has vanished: "+r.Error))
			return out
		}
		out = append(out, bad(IDPort, target, checks.StatusError, checks.PortDown, "reading the port: "+r.Error))
		return out
	}
	if r.State != "ACTIVE" || (r.PhysState != "" && r.PhysState != "LinkUp") {
		out = append(out, bad(IDPort, target, checks.StatusFail, checks.PortDown, fmt.Sprintf("port %d is %s/%s, not ACTIVE/LinkUp", r.Port.Port, r.State, r.PhysState)))
	} else {
		out = append(out, pass(IDPort, target, "ACTIVE/LinkUp"))
	}
	rate := checks.Result{ID: IDRate, Target: target, Status: checks.StatusPass, Summary: r.Rate,
		Measurements: []checks.Measurement{{Name: "rate", Value: r.RateGbps, Unit: checks.UnitGbps}}}
	if o.ExpectedRate > 0 && r.RateGbps != o.ExpectedRate {
		rate.Status, rate.Class = checks.StatusFail, checks.LowBandwidth
		rate.Summary = fmt.Sprintf("port rate %s, expected %g Gb/s", r.Rate, o.ExpectedRate)
	}
	out = append(out, rate)
	if r.LinkLayer == "Ethernet" {
		if r.RoCEv2IPv4GIDIndex >= 0 {
			g := checks.Result{ID: IDGID, Target: target, Status: checks.StatusPass,
				Summary:      fmt.Sprintf("RoCE v2 IPv4 GID at index %d", r.RoCEv2IPv4GIDIndex),
				Measurements: []checks.Measurement{{Name: "gid_index", Value: float64(r.RoCEv2IPv4GIDIndex), Unit: checks.UnitCount}}}
			for _, gid := range r.GIDs {
				if gid.Index == r.RoCEv2IPv4GIDIndex {
					g.Summary += " (" + gid.GID + ")"
				}
			}
			out = append(out, g)
		} else {
			var ev []string
			for _, gid := range r.GIDs {
				ev = append(ev, fmt.Sprintf("gid %d %s %s %s", gid.Index, gid.GID, gid.Type, gid.Netdev))
			}
			out = append(out, bad(IDGID, target, checks.StatusFail, checks.QPBringUp,
				fmt.Sprintf("no RoCE v2 IPv4 GID on %s: perftest -x has no index to use (no IPv4 address on %s?)", r.Device, in.Name), ev...))
		}
	}
	out = append(out, evalMTU(target, in, plan))
	return out
}

func evalMTU(target string, in hostcfg.InterfaceState, plan *hostcfg.Plan) checks.Result {
	s, ok := in.Setting(hostcfg.SettingMTU)
	if !ok {
		return bad(IDMTU, target, checks.StatusSkip, "", "MTU is not managed here")
	}
	if plan != nil {
		for _, c := range plan.Changes {
			if c.Interface == in.Name && c.Setting == hostcfg.SettingMTU {
				return bad(IDMTU, target, checks.StatusFail, "", fmt.Sprintf("MTU of %s is %s, desired %s", in.Name, c.Old, c.New))
			}
		}
	}
	if s.Error != "" {
		return bad(IDMTU, target, checks.StatusError, "", "reading the MTU: "+s.Error)
	}
	return pass(IDMTU, target, "MTU "+s.Value)
}

// evalLossless reports drift of the lossless settings (MTU apart) as a
// failure and settings the device cannot do as a warning. The RoCE settings
// of a netdev without an RDMA device (noDevice) cannot be read; that netdev
// already fails preflight/rdma-device, so they are not also undecided.
func evalLossless(host string, plan *hostcfg.Plan, noDevice []string) checks.Result {
	if plan == nil {
		return bad(IDLossless, host, checks.StatusError, "", "the live lossless settings could not be read")
	}
	var drift, unsupported, errs []string
	for _, c := range plan.Changes {
		if c.Setting == hostcfg.SettingMTU {
			continue
		}
		drift = append(drift, fmt.Sprintf("%s %s: live %s, desired %s (%s)", c.Interface, c.Setting, c.Old, c.New, c.Backend))
	}
	for _, is := range plan.Issues {
		line := fmt.Sprintf("%s %s: %s", is.Interface, is.Setting, is.Reason)
		rdmaSetting := is.Setting == hostcfg.SettingRoCEMode || is.Setting == hostcfg.SettingRoCEToS
		switch {
		case is.Kind != hostcfg.IssueUnsupported && rdmaSetting && slices.Contains(noDevice, is.Interface):
			unsupported = append(unsupported, line+" (the netdev has no RDMA device)")
		case is.Kind == hostcfg.IssueUnsupported:
			unsupported = append(unsupported, line)
		default:
			errs = append(errs, line)
		}
	}
	switch {
	case len(drift) > 0:
		return bad(IDLossless, host, checks.StatusFail, "", fmt.Sprintf("%d lossless settings differ from the fabric file (run fabricctl apply)", len(drift)), append(drift, errs...)...)
	case len(errs) > 0:
		return bad(IDLossless, host, checks.StatusError, "", fmt.Sprintf("%d settings could not be read", len(errs)), errs...)
	case len(unsupported) > 0:
		return bad(IDLossless, host, checks.StatusWarn, "", fmt.Sprintf("live settings match; %d desired settings are not supported by the device", len(unsupported)), unsupported...)
	}
	return pass(IDLossless, host, "live lossless settings equal the desired ones")
}

// pcieGTs reads "16.0 GT/s PCIe" (or "8 GT/s") as a number.
func pcieGTs(s string) float64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func evalPCI(host string, devs []PCIDevice) []checks.Result {
	var out []checks.Result
	var gpus, nics []pcitopo.Device
	for _, d := range devs {
		target := host + "/" + d.Name
		if d.RDMADevice != "" {
			target = host + "/" + d.RDMADevice
		}
		switch {
		case d.MaxSpeed == "" || d.MaxWidth == "":
			out = append(out, bad(IDPCIe, target, checks.StatusSkip, "", fmt.Sprintf("%s %s reports no PCIe link (virtual device)", d.Kind, d.BDF)))
		case pcieGTs(d.CurrentSpeed) < pcieGTs(d.MaxSpeed) || d.CurrentWidth != d.MaxWidth:
			out = append(out, bad(IDPCIe, target, checks.StatusFail, checks.LowBandwidth,
				fmt.Sprintf("%s %s runs at %s x%s, capable of %s x%s", d.Kind, d.BDF, d.CurrentSpeed, d.CurrentWidth, d.MaxSpeed, d.MaxWidth)))
		default:
			out = append(out, pass(IDPCIe, target, fmt.Sprintf("%s x%s (max)", d.CurrentSpeed, d.CurrentWidth)))
		}
		if d.AER == nil && d.MaxSpeed != "" {
			out = append(out, bad(IDAER, target, checks.StatusSkip, "", "AER unavailable (kernel does not own PCIe: no aer_dev_* in sysfs; firmware-first error handling or a VM)"))
		}
		if d.AER != nil {
			switch {
			case d.AER["fatal"] > 0 || d.AER["nonfatal"] > 0:
				out = append(out, bad(IDAER, target, checks.StatusFail, "", fmt.Sprintf("uncorrectable PCIe errors: %d fatal, %d non-fatal", d.AER["fatal"], d.AER["nonfatal"])))
			case d.AER["correctable"] > 0:
				out = append(out, bad(IDAER, target, checks.StatusWarn, "", fmt.Sprintf("%d correctable PCIe errors", d.AER["correctable"])))
			default:
				out = append(out, pass(IDAER, target, "no AER errors"))
			}
		}
		if d.Path == "" {
			continue
		}
		pd := pcitopo.Device{Name: d.Name, SysfsPath: d.Path, NUMANode: d.NUMANode}
		if d.RDMADevice != "" {
			pd.Name = d.RDMADevice
		}
		if d.Kind == "gpu" {
			gpus = append(gpus, pd)
		} else {
			nics = append(nics, pd)
		}
	}
	if len(gpus) == 0 {
		return append(out, bad(IDAffinity, host, checks.StatusSkip, "", "no GPU"))
	}
	for _, g := range gpus {
		if len(nics) == 0 {
			out = append(out, bad(IDAffinity, host+"/"+g.Name, checks.StatusSkip, "", "no RDMA NIC on PCIe to pair the GPU with"))
			continue
		}
		best, path, err := pcitopo.Closest(g, nics)
		if err != nil {
			out = append(out, bad(IDAffinity, host+"/"+g.Name, checks.StatusError, "", err.Error()))
			continue
		}
		names := make([]string, len(best))
		for i, b := range best {
			names[i] = b.Name
		}
		r := pass(IDAffinity, host+"/"+g.Name, fmt.Sprintf("closest NIC %s via %s", strings.Join(names, ","), path))
		if path == pcitopo.NODE || path == pcitopo.SYS {
			r.Status = checks.StatusWarn
			r.Summary += ": GPUDirect RDMA crosses the CPU"
		}
		out = append(out, r)
	}
	return out
}

func evalResolve(host string, rs []Resolution) checks.Result {
	var ok, names, addrs []string
	for _, r := range rs {
		switch {
		case r.Error == "":
			ok = append(ok, r.Name+" → "+strings.Join(r.Addrs, ","))
		case r.Address:
			addrs = append(addrs, r.Name+": "+r.Error)
		default:
			names = append(names, r.Name+": "+r.Error)
		}
	}
	switch {
	case len(addrs) > 0:
		return bad(IDResolve, host, checks.StatusFail, checks.OOBConnect, fmt.Sprintf("%d peer addresses do not resolve", len(addrs)), append(addrs, names...)...)
	case len(names) > 0:
		return bad(IDResolve, host, checks.StatusWarn, "", fmt.Sprintf("%d peer names do not resolve here (mpirun and NCCL's bootstrap use names)", len(names)), names...)
	case len(ok) == 0:
		return bad(IDResolve, host, checks.StatusSkip, "", "no peers")
	}
	return checks.Result{ID: IDResolve, Target: host, Status: checks.StatusPass, Summary: fmt.Sprintf("all %d peer names resolve", len(ok)), Evidence: ok}
}

// Fleet compares facts across hosts: perftest and NCCL versions must agree.
func Fleet(all []Facts) []checks.Result {
	var out []checks.Result
	for _, tool := range []struct {
		name string
		get  func(Facts) string
	}{{"perftest", func(f Facts) string { return f.Perftest }}, {"nccl", func(f Facts) string { return f.NCCL }}} {
		by := map[string][]string{}
		for _, f := range all {
			v := tool.get(f)
			if v == "" {
				v = "none"
			}
			by[v] = append(by[v], f.Host)
		}
		target := "fleet/" + tool.name
		if len(by) <= 1 {
			for v := range by {
				out = append(out, pass(IDVersions, target, fmt.Sprintf("%s %s on every host", tool.name, v)))
			}
			continue
		}
		var ev []string
		for _, v := range slices.SortedFunc(func(yield func(string) bool) {
			for k := range by {
				if !yield(k) {
					return
				}
			}
		}, cmp.Compare) {
			ev = append(ev, fmt.Sprintf("%s %s: %s", tool.name, v, strings.Join(by[v], ", ")))
		}
		out = append(out, bad(IDVersions, target, checks.StatusWarn, "", fmt.Sprintf("%s versions differ across hosts", tool.name), ev...))
	}
	return out
}
