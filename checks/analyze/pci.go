package analyze

import (
	"bytes"
	"fmt"
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
