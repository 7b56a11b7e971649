package hostparse

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// NetdevMap is one line of ibdev2netdev: an RDMA device port and its netdev.
type NetdevMap struct {
	PCI       string `json:"pci,omitempty"` // with -v
	IBDev     string `json:"ibdev"`
	Port      int    `json:"port"`
	PortState string `json:"portState,omitempty"` // with -v: the RDMA port state (ACTIVE, DOWN)
	Netdev    string `json:"netdev"`
	// State is the netdev's state in parentheses: Up or Down. For IPoIB
	// netdevs it is the IPoIB interface, not the IB port.
	State string `json:"state"`
}

// ibdevRe matches "mlx5_0 port 1 ==> ibp26s0 (Down)" and the -v form
// "0000:1a:00.0 mlx5_0 (MT4129 - …) fw 28.39.1002 port 1 (ACTIVE) ==> ibp26s0 (Up)".
var ibdevRe = regexp.MustCompile(`^(?:([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+)?(\S+)\s.*?\bport\s+(\d+)(?:\s+\((\w+)\s*\))?\s+<?==+>\s+(\S+)(?:\s+\((\w+)\))?`)

// ipoibNameRe matches the names IPoIB netdevs get: the IPoIB driver's own
// "ib%d" (drivers/infiniband/ulp/ipoib) with its P_Key children ("ib0.8001"),
// and the predictable names udev builds with the "ib" prefix it gives every
// InfiniBand link (ibp26s0, ibs1, ibo2, ibP57247p0s2, VFs ibp75s0v7).
var ipoibNameRe = regexp.MustCompile(`^ib[a-zA-Z]?\d`)

// IPoIB reports whether the netdev is an IPoIB interface, going by its name:
// its state is the IP side's, not the InfiniBand port's.
func (m NetdevMap) IPoIB() bool { return ipoibNameRe.MatchString(m.Netdev) }

// ParseIBDev2Netdev reads ibdev2netdev [-v] output; trailing "# comments"
// (added in pasted captures) are ignored.
func ParseIBDev2Netdev(r io.Reader) ([]NetdevMap, error) {
	var out []NetdevMap
	var bad error
	err := scan(r, func(n, _ int, raw string) {
		s, _, _ := strings.Cut(raw, "#")
		m := ibdevRe.FindStringSubmatch(strings.TrimSpace(s))
		if m == nil || bad != nil {
			return
		}
		port, err := strconv.Atoi(m[3])
		if err != nil {
			bad = fmt.Errorf("line %d: port %q is no port number", n, clip(m[3]))
			return
		}
		out = append(out, NetdevMap{PCI: m[1], IBDev: m[2], Port: port, PortState: m[4], Netdev: m[5], State: m[6]})
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, fmt.Errorf("parsing ibdev2netdev output: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("parsing ibdev2netdev output: %w", ErrNoData)
	}
	return out, nil
}
