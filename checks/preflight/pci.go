package preflight

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/hostcfg"
)

// pci reads the link state of the intent's NICs (by the netdevs' PCI
// addresses) and of every GPU (PCI class 0x03xxxx from NVIDIA or AMD).
func (g *Gatherer) pci(ctx context.Context, obs *hostcfg.Observed) []PCIDevice {
	var out []PCIDevice
	seen := map[string]bool{}
	if obs != nil {
		for _, in := range obs.Interfaces {
			dev, err := g.Sys.NetDevice(ctx, in.Name)
			if err != nil || dev.Bus != "pci" || dev.BusID == "" || seen[dev.BusID] {
				continue
			}
			seen[dev.BusID] = true
			d := g.pciDevice(dev.BusID, "nic", in.Name)
			if in.RDMA != nil {
				d.RDMADevice = in.RDMA.Device
			}
			out = append(out, d)
		}
	}
	entries, _ := os.ReadDir(g.Sys.Path("bus", "pci", "devices"))
	var gpus []string
	for _, e := range entries {
		class := g.read("bus", "pci", "devices", e.Name(), "class")
		vendor := g.read("bus", "pci", "devices", e.Name(), "vendor")
		if strings.HasPrefix(class, "0x03") && (vendor == "0x10de" || vendor == "0x1002") {
			gpus = append(gpus, e.Name())
		}
	}
	slices.Sort(gpus)
	for i, bdf := range gpus {
		out = append(out, g.pciDevice(bdf, "gpu", "GPU"+strconv.Itoa(i)))
	}
	return out
}

func (g *Gatherer) read(elem ...string) string {
	b, err := os.ReadFile(g.Sys.Path(elem...))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (g *Gatherer) pciDevice(bdf, kind, name string) PCIDevice {
	base := []string{"bus", "pci", "devices", bdf}
	at := func(f string) []string { return append(slices.Clone(base), f) }
	d := PCIDevice{BDF: bdf, Kind: kind, Name: name, NUMANode: -1,
		CurrentSpeed: g.read(at("current_link_speed")...), MaxSpeed: g.read(at("max_link_speed")...),
		CurrentWidth: g.read(at("current_link_width")...), MaxWidth: g.read(at("max_link_width")...)}
	if n, err := strconv.Atoi(g.read(at("numa_node")...)); err == nil {
		d.NUMANode = n
	}
	if p, err := filepath.EvalSymlinks(g.Sys.Path(base...)); err == nil {
		// Below the root, as on a live host: /sys/devices/pci0000:15/….
		if rel, err := filepath.Rel(g.Sys.Root(), p); err == nil && !strings.HasPrefix(rel, "..") {
			p = "/sys/" + rel
		}
		d.Path = p
	}
	for key, file := range map[string]string{"correctable": "aer_dev_correctable", "nonfatal": "aer_dev_nonfatal", "fatal": "aer_dev_fatal"} {
		v := g.read(at(file)...)
		if v == "" {
			continue
		}
		for _, line := range strings.Split(v, "\n") {
			f := strings.Fields(line)
			if len(f) == 2 && strings.HasPrefix(f[0], "TOTAL_ERR_") {
				n, err := strconv.ParseUint(f[1], 10, 64)
				if err == nil {
					if d.AER == nil {
						d.AER = map[string]uint64{}
					}
					d.AER[key] = n
				}
			}
		}
	}
	return d
}
