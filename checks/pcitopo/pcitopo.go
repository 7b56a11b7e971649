package pcitopo

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Path is how two PCIe devices reach each other, closest first.
type Path string

// The path classes, as nvidia-smi topo -m prints them.
const (
	Self Path = "X"    // the same device
	PIX  Path = "PIX"  // at most one PCIe switch
	PXB  Path = "PXB"  // several switches, no host bridge
	PHB  Path = "PHB"  // the same host bridge
	NODE Path = "NODE" // different host bridges, same NUMA node
	SYS  Path = "SYS"  // different NUMA nodes
)

var pathRank = map[Path]int{Self: 0, PIX: 1, PXB: 2, PHB: 3, NODE: 4, SYS: 5}

// Closer reports whether p is a shorter path than q.
func (p Path) Closer(q Path) bool { return pathRank[p] < pathRank[q] }

// Sentinels for errors.Is.
var (
	// ErrNotPCI: the path has no PCI host bridge (a soft-RoCE rxe device, a typo).
	ErrNotPCI = errors.New("not a PCI device path")
	// ErrNotPath: a topology cell that is not a PCIe path class (NV#, X, a typo).
	ErrNotPath = errors.New("not a PCIe path class")
)

// ParsePath reads a PCIe class as nvidia-smi prints it; NV# cells are NVLink,
// not PCIe, and give ErrNotPath (see NVLinks).
func ParsePath(s string) (Path, error) {
	p := Path(strings.TrimSpace(s))
	if _, ok := pathRank[p]; !ok {
		return "", fmt.Errorf("parsing topology cell %q: %w", s, ErrNotPath)
	}
	return p, nil
}

// NVLinks reads an "NV#" cell: NV18 → 18 bonded NVLinks.
func NVLinks(s string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "NV")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0
}

// Device is a PCIe function as sysfs shows it.
type Device struct {
	Name string // what to call it in messages: "GPU0", "mlx5_0"
	// SysfsPath is the resolved device path, e.g.
	// /sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0
	// (readlink -f /sys/bus/pci/devices/0000:18:00.0). Relative link targets
	// ("../../../devices/pci0000:15/…") work too.
	SysfsPath string
	// NUMANode is /sys/bus/pci/devices/<bdf>/numa_node; -1 when the platform does not say.
	NUMANode int
}

var (
	hostBridgeRe = regexp.MustCompile(`^pci[0-9a-fA-F]{4}:[0-9a-fA-F]{2}$`)
	bdfRe        = regexp.MustCompile(`^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$`)
)

// hops splits a sysfs path into its host bridge and the BDFs below it.
func hops(d Device) (bridge string, chain []string, err error) {
	segs := strings.Split(strings.Trim(d.SysfsPath, "/"), "/")
	start := -1
	for i, s := range segs {
		if hostBridgeRe.MatchString(s) {
			start = i
			break
		}
	}
	if start < 0 {
		return "", nil, fmt.Errorf("reading PCI path of %s %q: %w", d.Name, d.SysfsPath, ErrNotPCI)
	}
	for _, s := range segs[start+1:] {
		if !bdfRe.MatchString(s) {
			break // e.g. …/0000:18:00.0/infiniband/mlx5_0: stop at the function
		}
		chain = append(chain, strings.ToLower(s))
	}
	if len(chain) == 0 {
		return "", nil, fmt.Errorf("reading PCI path of %s %q: no device below host bridge %s: %w", d.Name, d.SysfsPath, segs[start], ErrNotPCI)
	}
	return strings.ToLower(segs[start]), chain, nil
}

// Classify returns the path class between a and b.
func Classify(a, b Device) (Path, error) {
	ba, ca, err := hops(a)
	if err != nil {
		return "", fmt.Errorf("classifying %s↔%s: %w", a.Name, b.Name, err)
	}
	bb, cb, err := hops(b)
	if err != nil {
		return "", fmt.Errorf("classifying %s↔%s: %w", a.Name, b.Name, err)
	}
	if ba != bb {
		if a.NUMANode == b.NUMANode {
			return NODE, nil
		}
		return SYS, nil
	}
	// Common ancestors, not counting the devices themselves.
	k := 0
	for k < len(ca)-1 && k < len(cb)-1 && ca[k] == cb[k] {
		k++
	}
	if ca[len(ca)-1] == cb[len(cb)-1] && len(ca) == len(cb) && k == len(ca)-1 {
		return Self, nil
	}
	if k == 0 {
		return PHB, nil // different root ports of one host bridge
	}
	// Switch s has its upstream port at index 2s-1 and downstream port at 2s;
	// the root port (index 0) counts as switch 0. The lowest common ancestor,
	// at index k-1, is one switch both sides cross.
	switches := func(chain []string) int {
		seen := map[int]bool{}
		for i := k - 1; i <= len(chain)-2; i++ {
			seen[(i+1)/2] = true
		}
		return len(seen)
	}
	if switches(ca)+switches(cb)-1 <= 1 {
		return PIX, nil
	}
	return PXB, nil
}

// Closest returns the devices among candidates with the shortest path to d,
// and that path. It fails when any path cannot be classified.
func Closest(d Device, candidates []Device) ([]Device, Path, error) {
	var best []Device
	bestPath := Path("")
	for _, c := range candidates {
		p, err := Classify(d, c)
		if err != nil {
			return nil, "", err
		}
		switch {
		case bestPath == "" || p.Closer(bestPath):
			best, bestPath = []Device{c}, p
		case p == bestPath:
			best = append(best, c)
		}
	}
	return best, bestPath, nil
}
