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

// evalSMIQuery reports each GPU's model, driver, CUDA and VBIOS, and judges
// the PCIe replay counter: link-level retransmissions mean a marginal link.
// The current PCIe generation and width drop while a GPU idles, so they are
// reported, not judged.
func evalSMIQuery(opt Options, name string, data []byte) ([]Finding, any, error) {
	q, err := hostparse.ParseNvidiaSMIQ(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, g := range q.GPUs {
		out = append(out, pass("nvidia-smi-q/gpu", g.BusID, fmt.Sprintf("%s, driver %s, CUDA %s, VBIOS %s, PCIe gen %d/%d x%d/%d (current/max)",
			orUnknown(g.Product), orUnknown(q.Driver), orUnknown(q.CUDA), orUnknown(g.VBIOS), g.PCIeGenCurrent, g.PCIeGenMax, g.WidthCurrent, g.WidthMax)))
		out = append(out, ReplayFinding("nvidia-smi-q/pcie-replays", g.BusID, g.Replays, g.ReplayRollovers))
	}
	if len(q.GPUs) == 0 {
		out = append(out, bad("nvidia-smi-q/gpu", "", checks.StatusSkip, "", "driver "+orUnknown(q.Driver)+": no GPU block in the capture"))
	}
	return out, q, nil
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

func evalSMI(opt Options, name string, data []byte) ([]Finding, any, error) {
	s, err := hostparse.ParseNvidiaSMI(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, g := range s.GPUs {
		names = append(names, g.Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return []Finding{pass("nvidia-smi/gpus", "", fmt.Sprintf("%d× %s, driver %s, CUDA %s", len(s.GPUs), orUnknown(strings.Join(names, ", ")), s.Driver, s.CUDA))}, s, nil
}

// evalNVLink judges nvidia-smi nvlink -e (error counters: any non-zero
// replay, recovery or CRC count warns) and -s (a GPU with some links up and
// others inactive warns; a GPU without active links is reported).
func evalNVLink(opt Options, name string, data []byte) ([]Finding, any, error) {
	nl, err := hostparse.ParseNVLink(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	if nl.Inactive && len(nl.GPUs) == 0 {
		return []Finding{bad("nvlink/links", "", checks.StatusSkip, "", "all NVLinks are inactive: no NVLink on this host (or not trained)")}, nl, nil
	}
	for _, g := range nl.GPUs {
		subject := fmt.Sprintf("GPU%d", g.Index)
		var counted, inactive, active int
		var errs []string
		for _, l := range g.Links {
			if l.Errors != nil {
				counted++
				for _, k := range slices.Sorted(func(yield func(string) bool) {
					for k := range l.Errors {
						if !yield(k) {
							return
						}
					}
				}) {
					if v := l.Errors[k]; v > 0 {
						errs = append(errs, fmt.Sprintf("link %d %s %d", l.Link, k, v))
					}
				}
			}
			switch {
			case l.Speed == "":
			case strings.Contains(l.Speed, "inactive"):
				inactive++
			default:
				active++
			}
		}
		switch {
		case len(errs) > 0:
			out = append(out, bad("nvlink/errors", subject, checks.StatusWarn, "", "NVLink error counters are not zero: "+strings.Join(errs, "; ")))
		case counted > 0:
			out = append(out, pass("nvlink/errors", subject, fmt.Sprintf("%d links, no NVLink errors", counted)))
		}
		switch {
		case active > 0 && inactive > 0:
			out = append(out, bad("nvlink/links", subject, checks.StatusWarn, "", fmt.Sprintf("%d NVLinks active, %d inactive", active, inactive)))
		case active > 0:
			out = append(out, pass("nvlink/links", subject, fmt.Sprintf("%d NVLinks active", active)))
		case inactive > 0:
			out = append(out, bad("nvlink/links", subject, checks.StatusSkip, "", "no NVLink active on this GPU"))
		}
	}
	return out, nl, nil
}

// evalP2P judges p2pBandwidthLatencyTest output: every GPU pair that cannot
// reach its peer directly (copies then stage through host memory), and every
// pair whose peer-to-peer bandwidth is below the bandwidth of copies staged
// through the host — peer traffic redirected by PCIe ACS or an IOMMU, or a
// link trained down. Pairs the capture cut off are skipped, not guessed.
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
