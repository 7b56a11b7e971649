package analyze

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/hostparse"
)

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
	var badNumbers []string
	partials := 0
	for _, d := range devs {
		badNumbers = append(badNumbers, d.BadNumbers...)
		subject := d.Address
		if subject == "" {
			// Blocks without a header (a capture cut inside one, or grep
			// excerpts of LnkCap/LnkSta pairs) are numbered in order.
			if partials++; partials == 1 {
				subject = "(partial block)"
			} else {
				subject = fmt.Sprintf("(partial block %d)", partials)
			}
		}
		if d.LinkSta != nil {
			out = append(out, pcieLinkFinding(devs, d, subject))
		}
		if d.AER != nil {
			switch {
			case len(d.AER.Uncorrectable) > 0:
				out = append(out, bad("lspci/aer", subject, checks.StatusFail, "", "AER uncorrectable error bits set: "+strings.Join(d.AER.Uncorrectable, " "), d.Description))
			case len(d.AER.Correctable) > 0:
				out = append(out, bad("lspci/aer", subject, checks.StatusWarn, "", "AER correctable error bits set: "+strings.Join(d.AER.Correctable, " "), d.Description))
			}
		}
		if f, ok := devStaFinding(subject, d); ok {
			out = append(out, f)
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
	out = append(out, numbersFindings(KindLSPCI, badNumbers)...)
	return out, devs, nil
}

// devStaMeaning says what each DevSta error bit latches (PCIe Base
// Specification, Device Status register; pciutils ls-caps.c prints them).
var devStaMeaning = map[string]string{
	"CorrErr":     "correctable error detected",
	"NonFatalErr": "non-fatal uncorrectable error detected",
	"FatalErr":    "fatal uncorrectable error detected",
	"UnsupReq":    "unsupported request detected",
}

// devStaFinding judges the device's DevSta error bits: FatalErr+ fails,
// CorrErr+, NonFatalErr+ or UnsupReq+ warn (the bits latch until cleared, so
// they may be old: compare the AER counters and dmesg), none passes.
func devStaFinding(subject string, d hostparse.PCIDevice) (Finding, bool) {
	if d.DevSta == nil {
		return Finding{}, false
	}
	if len(d.DevSta) == 0 {
		return pass("lspci/devsta", subject, "no DevSta error bits set"), true
	}
	var what []string
	for _, b := range d.DevSta {
		what = append(what, b+"+ ("+devStaMeaning[b]+")")
	}
	st := checks.StatusWarn
	if slices.Contains(d.DevSta, "FatalErr") {
		st = checks.StatusFail
	}
	return bad("lspci/devsta", subject, st, "", "DevSta error bits set: "+strings.Join(what, ", ")+"; latched until cleared: check /sys/bus/pci/devices/<bdf>/aer_dev_* and dmesg", d.Description), true
}

// pcieLinkFinding judges a device's LnkSta against its LnkCap. A link runs at
// the lesser capability of its two ends, so a link its partner limits is not
// degraded (a x16 root port with a x2 device behind it). A narrower or
// slower link fails, except a GPU whose only shortfall is speed: GPUs lower
// the link speed while idle, so that warns (compare under load).
func pcieLinkFinding(devs []hostparse.PCIDevice, d hostparse.PCIDevice, subject string) Finding {
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
	slow := d.LinkSta.SpeedDowngraded && !bounded(true)
	narrow := d.LinkSta.WidthDowngraded && !bounded(false)
	var probs []string
	if slow {
		probs = append(probs, fmt.Sprintf("link speed %s is below its capability", d.LinkSta.Speed))
	}
	if narrow {
		probs = append(probs, fmt.Sprintf("link width x%d is below its capability", d.LinkSta.Width))
	}
	switch {
	case slow && !narrow && gpuDevice(d):
		return bad("lspci/pcie-link", subject, checks.StatusWarn, "", probs[0]+" (GPUs lower the link speed while idle: check it under load)", d.Description)
	case len(probs) > 0:
		return bad("lspci/pcie-link", subject, checks.StatusFail, checks.LowBandwidth, strings.Join(probs, "; "), d.Description)
	case d.LinkSta.SpeedDowngraded || d.LinkSta.WidthDowngraded:
		return pass("lspci/pcie-link", subject, fmt.Sprintf("%s x%d: below its own capability, but the most its link partner %s supports", d.LinkSta.Speed, d.LinkSta.Width, partner.Address))
	}
	return pass("lspci/pcie-link", subject, fmt.Sprintf("%s x%d, at its capability", d.LinkSta.Speed, d.LinkSta.Width))
}
