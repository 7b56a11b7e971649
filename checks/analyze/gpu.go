package analyze

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/hostparse"
	"github.com/fabricctl/fabricctl/checks/pcitopo"
)

// evalSMIQuery reports each GPU's model, driver, CUDA and VBIOS (and the
// fields NVML could not read, which are reported, not judged), and judges
// nvidia-smi's own failure messages, the PCIe link (a width below what the
// GPU and slot support fails; a generation below it warns, since GPUs drop
// the link speed while idle), the PCIe replay counter, and the memory-error
// state (memoryFinding).
func evalSMIQuery(opt Options, name string, data []byte) ([]Finding, any, error) {
	q, err := hostparse.ParseNvidiaSMIQ(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	out := smiFailureFindings("nvidia-smi-q/failure", q.Failures)
	for _, g := range q.GPUs {
		summary := fmt.Sprintf("%s, driver %s, CUDA %s, VBIOS %s, PCIe gen %d/%d x%d/%d (current/max)",
			orUnknown(g.Product), orUnknown(q.Driver), orUnknown(q.CUDA), orUnknown(g.VBIOS), g.PCIeGenCurrent, g.PCIeGenMax, g.WidthCurrent, g.WidthMax)
		if len(g.Unreadable) > 0 {
			summary += "; NVML could not read (Unknown Error, not judged): " + strings.Join(g.Unreadable, ", ")
		}
		out = append(out, pass("nvidia-smi-q/gpu", g.BusID, summary))
		out = append(out, ReplayFinding("nvidia-smi-q/pcie-replays", g.BusID, g.Replays, g.ReplayRollovers))
		if f, ok := smiLinkFinding(g); ok {
			out = append(out, f)
		}
		if f, ok := memoryFinding(g.BusID, g.Memory); ok {
			out = append(out, f)
		}
	}
	if len(q.GPUs) == 0 && len(q.Failures) == 0 {
		out = append(out, bad("nvidia-smi-q/gpu", "", checks.StatusSkip, "", "driver "+orUnknown(q.Driver)+": no GPU block in the capture"))
	}
	return out, q, nil
}

// smiFailureFindings fails every failure message nvidia-smi printed: NVML
// could not reach the driver or a GPU, so the GPU is unusable.
func smiFailureFindings(id string, fs []hostparse.SMIFailure) []Finding {
	var out []Finding
	for _, f := range fs {
		var summary string
		switch f.Kind {
		case hostparse.SMIFailDeviceHandle:
			hint := "NVML cannot reach the GPU: lost, fallen off the bus or needing a reset; see dmesg for Xid"
			if strings.Contains(f.Reason, "Insufficient Permissions") {
				hint = "the user may not open the GPU's device file: /dev/nvidia* permissions, a container without the GPU"
			}
			summary = fmt.Sprintf("nvidia-smi cannot get a handle for GPU %s: %s (%s)", orUnknown(f.BusID), orUnknown(f.Reason), hint)
		case hostparse.SMIFailDriver:
			summary = "nvidia-smi cannot communicate with the NVIDIA driver (the kernel module is not loaded, or not built for this kernel)"
		case hostparse.SMIFailNVMLInit:
			summary = "nvidia-smi cannot initialise NVML: " + orUnknown(f.Reason)
			if strings.Contains(f.Reason, "version mismatch") {
				summary += " (the loaded kernel module and the driver's user-space libraries differ: reload the driver or reboot)"
			}
		case hostparse.SMIFailNoDevices:
			summary = "nvidia-smi finds no GPU (No devices were found): the driver sees no usable GPU"
		case hostparse.SMIFailLibrary:
			summary = "nvidia-smi cannot find libnvidia-ml.so: the driver's user-space libraries are not installed or not visible"
		}
		out = append(out, bad(id, f.BusID, checks.StatusFail, checks.NoDevice, summary, fmt.Sprintf("line %d: %s", f.Line, f.Message)))
	}
	return out
}

// smiLinkFinding compares a GPU's current PCIe link with NVML's maximum,
// which is what the GPU and its slot both support: a narrower link fails
// (lanes lost: a seating, riser or slot problem), a slower one warns (GPUs
// drop the link speed while idle: compare under load).
func smiLinkFinding(g hostparse.SMIGPU) (Finding, bool) {
	const id = "nvidia-smi-q/pcie-link"
	switch {
	case g.WidthMax > 0 && g.WidthCurrent > 0 && g.WidthCurrent < g.WidthMax:
		return bad(id, g.BusID, checks.StatusFail, checks.LowBandwidth, fmt.Sprintf("PCIe link width x%d is below the x%d the GPU and its slot support", g.WidthCurrent, g.WidthMax)), true
	case g.PCIeGenMax > 0 && g.PCIeGenCurrent > 0 && g.PCIeGenCurrent < g.PCIeGenMax:
		return bad(id, g.BusID, checks.StatusWarn, "", fmt.Sprintf("PCIe generation %d is below the maximum %d (GPUs lower the link speed while idle: check it under load)", g.PCIeGenCurrent, g.PCIeGenMax)), true
	case g.PCIeGenMax > 0 && g.WidthMax > 0:
		return pass(id, g.BusID, fmt.Sprintf("PCIe gen %d x%d, at its maximum", g.PCIeGenCurrent, g.WidthCurrent)), true
	}
	return Finding{}, false
}

// memoryFinding judges a GPU's memory-error state the way NVIDIA's memory
// error management guides read it: uncorrectable ECC errors (volatile or
// aggregate), rows remapped or pages retired after uncorrectable errors, a
// remapping failure, unrepairable memory or an exceeded SRAM error
// threshold fail; correctable errors, correctable remaps or retirements and
// a remap or repair waiting for a reset warn. Counters printed "N/A" (ECC
// off or unsupported) are not judged; with none readable there is no
// finding.
func memoryFinding(subject string, m *hostparse.SMIMemory) (Finding, bool) {
	const id = "nvidia-smi-q/memory-errors"
	if m == nil {
		return Finding{}, false
	}
	var fails, warns []string
	seen := false
	count := func(p *int64, list *[]string, what string) {
		if p == nil {
			return
		}
		seen = true
		if *p > 0 {
			*list = append(*list, fmt.Sprintf("%d %s", *p, what))
		}
	}
	flag := func(set bool, list *[]string, what string) {
		if set {
			*list = append(*list, what)
		}
	}
	count(m.VolatileUncorrectable, &fails, "volatile uncorrectable ECC errors (since the driver loaded)")
	count(m.AggregateUncorrectable, &fails, "aggregate uncorrectable ECC errors (lifetime)")
	count(m.RemappedUncorrectable, &fails, "rows remapped after uncorrectable errors")
	count(m.RetiredDoubleBit, &fails, "pages retired after double-bit errors")
	flag(m.RemapFailure, &fails, "row remapping failed (no spare row left: the GPU needs servicing)")
	flag(m.UnrepairableMemory, &fails, "unrepairable memory")
	flag(m.SRAMThresholdExceeded, &fails, "SRAM error threshold exceeded")
	count(m.VolatileCorrectable, &warns, "volatile correctable ECC errors")
	count(m.AggregateCorrectable, &warns, "aggregate correctable ECC errors")
	count(m.RemappedCorrectable, &warns, "rows remapped after correctable errors")
	count(m.RetiredSingleBit, &warns, "pages retired after single-bit errors")
	flag(m.RemapPending, &warns, "a row remap is pending (takes effect at the next GPU reset)")
	flag(m.RetirePending, &warns, "a page retirement is pending (takes effect at the next reboot)")
	for _, r := range m.RepairPending {
		flag(true, &warns, r)
	}
	all := append(slices.Clone(fails), warns...)
	switch {
	case len(fails) > 0:
		return bad(id, subject, checks.StatusFail, "", "GPU memory errors: "+strings.Join(all, "; ")), true
	case len(warns) > 0:
		return bad(id, subject, checks.StatusWarn, "", "GPU memory errors: "+strings.Join(all, "; ")), true
	case seen:
		return pass(id, subject, "no ECC errors, no remapped rows or retired pages"), true
	}
	return Finding{}, false
}

// ReplayFinding judges a GPU's PCIe replay counter ("Replays Since Reset"):
// zero passes, any replay warns (retransmitted TLPs: a marginal slot, riser
// or cable), a rollover of the counter fails.
func ReplayFinding(id, subject string, replays, rollovers *int64) Finding {
	switch {
	case replays == nil:
		return bad(id, subject, checks.StatusSkip, "", "the replay counter is not reported")
	case rollovers != nil && *rollovers > 0:
		return bad(id, subject, checks.StatusFail, checks.LowBandwidth, fmt.Sprintf("PCIe replay counter rolled over %d times (%d replays since reset): the link retransmits constantly", *rollovers, *replays))
	case *replays > 0:
		return bad(id, subject, checks.StatusWarn, "", fmt.Sprintf("%d PCIe replays since reset: link-level retransmissions; watch whether it grows (slot, riser, signal integrity)", *replays))
	}
	return pass(id, subject, "no PCIe replays since reset")
}

// evalSMI judges plain nvidia-smi: its failure messages and the fields it
// prints as ERR! fail (NVML cannot read a GPU it lists), as do volatile
// uncorrectable ECC errors; the GPUs, driver and CUDA are reported.
func evalSMI(opt Options, name string, data []byte) ([]Finding, any, error) {
	s, err := hostparse.ParseNvidiaSMI(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	out := smiFailureFindings("nvidia-smi/failure", s.Failures)
	var names []string
	for _, g := range s.GPUs {
		names = append(names, g.Name)
		out = append(out, smiRowFindings(g)...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(s.GPUs) > 0 || len(s.Failures) == 0 {
		out = append(out, pass("nvidia-smi/gpus", "", fmt.Sprintf("%d× %s, driver %s, CUDA %s", len(s.GPUs), orUnknown(strings.Join(names, ", ")), orUnknown(s.Driver), orUnknown(s.CUDA))))
	}
	return out, s, nil
}

// smiRowFindings judges one GPU entry of the table: ERR! fields fail (NVML
// cannot read the GPU: see dmesg for Xid), volatile uncorrectable ECC errors
// fail and volatile correctable ones (the SB count of old drivers) warn.
func smiRowFindings(g hostparse.SMISummaryGPU) []Finding {
	subject := fmt.Sprintf("GPU%d", g.Index)
	which := fmt.Sprintf("GPU %d (%s, %s)", g.Index, g.Name, orUnknown(g.BusID))
	var out []Finding
	if len(g.Errors) > 0 {
		out = append(out, bad("nvidia-smi/gpu-state", subject, checks.StatusFail, "", fmt.Sprintf("%s: nvidia-smi prints ERR! for %s: NVML cannot read the GPU (a GPU in a bad state: see dmesg for Xid)", which, strings.Join(g.Errors, ", "))))
	}
	switch {
	case g.VolatileUncorrectable != nil && *g.VolatileUncorrectable > 0:
		out = append(out, bad("nvidia-smi/ecc", subject, checks.StatusFail, "", fmt.Sprintf("%s: %d volatile uncorrectable ECC errors since the driver loaded", which, *g.VolatileUncorrectable)))
	case g.VolatileCorrectable != nil && *g.VolatileCorrectable > 0:
		out = append(out, bad("nvidia-smi/ecc", subject, checks.StatusWarn, "", fmt.Sprintf("%s: %d volatile single-bit (correctable) ECC errors since the driver loaded", which, *g.VolatileCorrectable)))
	}
	return out
}

// nvlinkClassRe matches the GPU names of NVLink-class parts, whose NVLinks
// are part of the board (SXM/HGX modules, HBM3 data-centre GPUs, Grace and
// Blackwell superchips): an inactive link there is a fault. PCIe cards
// (names with "PCIe" or the bridged "NVL" variants) reach NVLink only through
// optional bridges, so they are not NVLink-class.
var (
	nvlinkClassRe = regexp.MustCompile(`(?i)SXM|HGX|HBM3|\bG[HB]\d{3}\b|\bB[123]\d\d[A-Z]?\b|\bH(?:100|200|800|20)\b`)
	pcieCardRe    = regexp.MustCompile(`(?i)PCI-?E|\bNVL\b`)
)

// nvlinkClass reports whether a GPU named so has NVLink built in.
func nvlinkClass(name string) bool {
	return nvlinkClassRe.MatchString(name) && !pcieCardRe.MatchString(name)
}

// evalNVLink judges nvidia-smi nvlink -e (error counters: any non-zero
// replay, recovery or CRC count warns) and -s (nvlinkLinkFinding).
func evalNVLink(opt Options, name string, data []byte) ([]Finding, any, error) {
	nl, err := hostparse.ParseNVLink(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	if nl.Inactive && len(nl.GPUs) == 0 {
		return []Finding{bad("nvlink/links", "", checks.StatusSkip, "", "all NVLinks are inactive: no NVLink on this host (or not trained); no GPU named to tell which")}, nl, nil
	}
	// GPU 0 alone: the only GPU this OS sees (a VM or container given one
	// GPU), whose NVLinks have no peer to train with.
	alone := len(nl.GPUs) == 1 && nl.GPUs[0].Index == 0
	for _, g := range nl.GPUs {
		if f, ok := nvlinkErrorFinding(g); ok {
			out = append(out, f)
		}
		if f, ok := nvlinkLinkFinding(g, alone); ok {
			out = append(out, f)
		}
	}
	return out, nl, nil
}

// nvlinkSubject names a GPU of nvidia-smi nvlink output: "GPU3", or the
// block of links a capture shows without their GPU header.
func nvlinkSubject(g hostparse.NVLinkGPU) string {
	if g.Index == hostparse.NoGPUHeader {
		return g.Name
	}
	return fmt.Sprintf("GPU%d", g.Index)
}

// nvlinkErrorFinding judges a GPU's -e counters: any non-zero count warns.
func nvlinkErrorFinding(g hostparse.NVLinkGPU) (Finding, bool) {
	subject := nvlinkSubject(g)
	var errs []string
	counted := 0
	for _, l := range g.Links {
		if l.Errors == nil {
			continue
		}
		counted++
		keys := make([]string, 0, len(l.Errors))
		for k := range l.Errors {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if v := l.Errors[k]; v > 0 {
				errs = append(errs, fmt.Sprintf("link %d %s %d", l.Link, k, v))
			}
		}
	}
	switch {
	case len(errs) > 0:
		return bad("nvlink/errors", subject, checks.StatusWarn, "", "NVLink error counters are not zero: "+strings.Join(errs, "; ")), true
	case counted > 0:
		return pass("nvlink/errors", subject, fmt.Sprintf("%d links, no NVLink errors", counted)), true
	}
	return Finding{}, false
}

// nvlinkLinkFinding judges a GPU's -s link states: links inactive beside
// active ones fail (a link down on a GPU that has NVLink); a GPU with every
// link inactive (listed <inactive>, or NVML's "all links are inActive")
// fails where its name says it is NVLink-class (nvlinkClass) and is skipped
// otherwise (a PCIe card without bridges has no NVLink to judge), or where
// it is the only GPU the system sees (no peer to train a link with).
func nvlinkLinkFinding(g hostparse.NVLinkGPU, alone bool) (Finding, bool) {
	subject := nvlinkSubject(g)
	which := fmt.Sprintf("GPU %d (%s)", g.Index, orUnknown(g.Name))
	var active, inactive []string
	for _, l := range g.Links {
		switch {
		case l.Speed == "":
		case strings.Contains(l.Speed, "inactive"):
			inactive = append(inactive, fmt.Sprint(l.Link))
		default:
			active = append(active, fmt.Sprint(l.Link))
		}
	}
	switch {
	case len(active) > 0 && len(inactive) > 0:
		return bad("nvlink/links", subject, checks.StatusFail, checks.LowBandwidth, fmt.Sprintf("%s: NVLink %s inactive while %d other links are up: %d NVLinks active, %d inactive",
			which, strings.Join(inactive, ", "), len(active), len(active), len(inactive))), true
	case len(active) > 0:
		return pass("nvlink/links", subject, fmt.Sprintf("%d NVLinks active", len(active))), true
	case len(inactive) == 0 && !g.AllInactive:
		return Finding{}, false
	case nvlinkClass(g.Name) && alone:
		return bad("nvlink/links", subject, checks.StatusSkip, "", which+": all NVLinks inactive, and it is the only GPU this system sees (a VM or container with one GPU has no NVLink peer); on a whole node this fails"), true
	case nvlinkClass(g.Name):
		return bad("nvlink/links", subject, checks.StatusFail, checks.LowBandwidth, which+": all NVLinks inactive on an NVLink-class GPU (NVLink not trained: fabric manager, NVSwitch or the GPU's links)"), true
	}
	return bad("nvlink/links", subject, checks.StatusSkip, "", which+": no NVLink active (a GPU without NVLink, or without bridges)"), true
}

// evalP2P judges p2pBandwidthLatencyTest output: every GPU pair that cannot
// reach its peer directly (copies then stage through host memory), and every
// pair whose peer-to-peer bandwidth is below the bandwidth of copies staged
// through the host — peer traffic redirected by PCIe ACS or an IOMMU, or a
// link trained down. A P2P=Enabled matrix without its P2P=Disabled twin has
// no yardstick: its figures are reported as skip. Pairs the capture cut off
// are skipped, not guessed.
// maxListed bounds the pairs a p2p finding names one by one.
const maxListed = 8

func evalP2P(opt Options, name string, data []byte) ([]Finding, any, error) {
	p, err := hostparse.ParseP2PBandwidth(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	n := len(p.GPUs)
	if n == 1 {
		out = append(out, bad("p2p/access", "GPU0", checks.StatusSkip, "", "one GPU: no peer to reach"))
	}
	var cannot []string
	total := 0
	for i := range p.Access {
		for j := range p.Access[i] {
			if i != j && !p.Access[i][j] {
				if total++; total <= maxListed {
					cannot = append(cannot, fmt.Sprintf("GPU%d→GPU%d", i, j))
				}
			}
		}
	}
	switch {
	case total > 0:
		if total > maxListed {
			cannot = append(cannot, fmt.Sprintf("… and %d more", total-maxListed))
		}
		out = append(out, bad("p2p/access", "", checks.StatusWarn, "", fmt.Sprintf("%d of %d GPU pairs cannot reach their peer directly (copies stage through host memory): %s",
			total, len(p.Access)*(len(p.Access)-1), strings.Join(cannot, " ")), "no NVLink between them and PCIe P2P unsupported or blocked (GPUs under different root complexes, ACS, IOMMU, a VM)"))
	case n > 1 && p.Access != nil:
		out = append(out, pass("p2p/access", "", fmt.Sprintf("every pair of the %d GPUs reaches its peer directly", n)))
	}
	for _, bidir := range []bool{false, true} {
		on, okOn := p.Matrix("bandwidth", true, bidir)
		off, okOff := p.Matrix("bandwidth", false, bidir)
		if !okOn {
			continue
		}
		dir := "unidirectional"
		if bidir {
			dir = "bidirectional"
		}
		var slow []string
		best, worst, pairs := 0.0, 0.0, 0
		for i := range on.Values {
			for j := range on.Values[i] {
				v, ok := on.At(i, j)
				if i == j || !ok || (p.Access != nil && i < len(p.Access) && j < len(p.Access[i]) && !p.Access[i][j]) {
					continue
				}
				if pairs == 0 || v < worst {
					worst = v
				}
				best, pairs = max(best, v), pairs+1
				if s, ok := off.At(i, j); okOff && ok && v < s {
					slow = append(slow, fmt.Sprintf("GPU%d→GPU%d %.2f < %.2f GB/s", i, j, v, s))
				}
			}
		}
		if pairs == 0 {
			continue
		}
		m := []checks.Measurement{{Name: "p2p_" + dir + "_min", Value: worst, Unit: checks.UnitGBps}, {Name: "p2p_" + dir + "_max", Value: best, Unit: checks.UnitGBps}}
		if !okOff {
			// Without the P2P=Disabled (staged) matrix nothing in the file says
			// what these figures should reach.
			f := bad("p2p/bandwidth", dir, checks.StatusSkip, "", fmt.Sprintf("peer-to-peer %s bandwidth %.2f to %.2f GB/s over %d pairs; no P2P=Disabled matrix to compare with: no yardstick", dir, worst, best, pairs))
			f.Measurements = m
			out = append(out, f)
			continue
		}
		if len(slow) > 0 {
			n := len(slow)
			if n > maxListed {
				slow = append(slow[:maxListed], fmt.Sprintf("… and %d more", n-maxListed))
			}
			f := bad("p2p/bandwidth", dir, checks.StatusWarn, checks.LowBandwidth, fmt.Sprintf("%d GPU pairs move data peer-to-peer slower than through host memory (%s)", n, dir),
				append(slow, "peer traffic redirected through the root complex (PCIe ACS on the switch, IOMMU) or a link trained down: check lspci -vvv ACSCtl and LnkSta")...)
			f.Measurements = m
			out = append(out, f)
			continue
		}
		f := pass("p2p/bandwidth", dir, fmt.Sprintf("peer-to-peer %s bandwidth %.2f to %.2f GB/s over %d pairs", dir, worst, best, pairs))
		f.Measurements = m
		out = append(out, f)
	}
	if p.Truncated {
		out = append(out, bad("p2p/capture", "", checks.StatusSkip, "", "the capture is cut inside a matrix: pairs it does not show are not judged"))
	}
	return out, p, nil
}

// evalTopo grades each GPU's closest NIC like nvidia-smi topo -m names it:
// PIX/PXB pass, PHB and NODE/SYS warn (GPUDirect RDMA crosses the CPU). A
// cell the capture cut off is unknown, never guessed: a GPU whose row (and
// whose NICs' rows) the capture cut off, or whose shown cells are all worse
// than PXB while others are cut off (the closest NIC may be among them), is
// skipped.
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
		out = append(out, topoGPUFinding(tp, g, nics))
	}
	return out, tp, nil
}

// topoGPUFinding grades GPU g's closest NIC.
func topoGPUFinding(tp *hostparse.Topo, g string, nics []string) Finding {
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
	cut := strings.Join(missing, ",")
	switch {
	case best == "" && len(missing) > 0:
		return bad("topo/gpu-nic-affinity", g, checks.StatusSkip, "", fmt.Sprintf("closest NIC unknown: the capture cuts off %s↔%s", g, cut))
	case best == pcitopo.PIX || best == pcitopo.PXB:
		// A cut-off cell can only be closer: the verdict stands.
		f := pass("topo/gpu-nic-affinity", g, fmt.Sprintf("closest NIC %s via %s", names, best))
		if len(missing) > 0 {
			f.Summary += " (the capture cuts off " + cut + ")"
		}
		return f
	case len(missing) > 0:
		return bad("topo/gpu-nic-affinity", g, checks.StatusSkip, "", fmt.Sprintf("closest NIC unknown: %s via %s shown, the capture cuts off %s↔%s", names, best, g, cut))
	case best == pcitopo.PHB:
		return bad("topo/gpu-nic-affinity", g, checks.StatusWarn, "", fmt.Sprintf("closest NIC %s via PHB: GPUDirect RDMA goes through the CPU's host bridge", names))
	case best == "":
		return bad("topo/gpu-nic-affinity", g, checks.StatusSkip, "", "no PCIe path to any NIC in the matrix")
	}
	return bad("topo/gpu-nic-affinity", g, checks.StatusWarn, "", fmt.Sprintf("closest NIC %s is %s away: GPUDirect RDMA traffic crosses the CPU", names, best))
}
