package hostparse

import (
	"fmt"
	"io"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// ShowGIDs is the output of Mellanox's show_gids script.
type ShowGIDs struct {
	Entries []GIDEntry `json:"entries"`
	// Found is the script's own count (n_gids_found=N), -1 when the line is missing.
	Found     int  `json:"found"`
	Truncated bool `json:"truncated,omitempty"` // a row was cut off
	// Cut is the port whose rows the capture cut off: the row's own device
	// and port, or the last port listed when the cut came before its port
	// column. GIDs of that port past the cut are unknown, not absent.
	Cut      *GIDPort `json:"cut,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	NumberErrors
}

// GIDPort names one port of an RDMA device.
type GIDPort struct {
	Dev  string `json:"dev"`
	Port int    `json:"port"`
}

// GIDEntry is one row: /sys/class/infiniband/<Dev>/ports/<Port>/gids/<Index>
// with gid_attrs/types/<Index> (Version) and gid_attrs/ndevs/<Index> (Netdev).
type GIDEntry struct {
	Dev     string `json:"dev"`
	Port    int    `json:"port"`
	Index   int    `json:"index"`
	GID     string `json:"gid"`
	IPv4    string `json:"ipv4,omitempty"`    // set for IPv4-mapped GIDs (::ffff:a.b.c.d)
	Version string `json:"version,omitempty"` // v1 (RoCE v1, IB/RoCE) or v2 (RoCE v2); empty on old scripts
	Netdev  string `json:"netdev,omitempty"`
}

var (
	gidCountRe = regexp.MustCompile(`^n_gids_found=(\d+)$`)
	gidHexRe   = regexp.MustCompile(`^[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){7}$`)
)

// ParseShowGIDs reads show_gids output, tab- or space-separated. Empty
// columns (no IPv4 for a link-local GID, no VER or DEV on old scripts) are
// recognised by what the remaining fields look like, not by position.
func ParseShowGIDs(r io.Reader) (*ShowGIDs, error) {
	out := ShowGIDs{Found: -1}
	content := false
	err := scan(r, func(n, _ int, raw string) {
		f := strings.Fields(raw)
		switch {
		case len(f) == 0:
		case f[0] == "DEV" || strings.HasPrefix(f[0], "---"):
			content = true // the header and its underline
		case gidCountRe.MatchString(f[0]):
			if v, ok := out.index(n, "n_gids_found", gidCountRe.FindStringSubmatch(f[0])[1]); ok {
				out.Found = v
			}
			content = true
		case len(f) >= 3 && isUint(f[1]) && isUint(f[2]):
			content = true
			e, ok := gidRow(f)
			if !ok {
				port, _ := strconv.Atoi(f[1])
				out.cut(n, raw, &GIDPort{Dev: f[0], Port: port})
				return
			}
			out.Entries = append(out.Entries, e)
		case len(out.Entries) > 0 || content:
			// A row cut off before its port and index columns.
			if len(f) < 3 && !strings.ContainsAny(f[0], "#$@") {
				out.cut(n, raw, out.lastPort())
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("parsing show_gids output: %w", err)
	}
	if !content {
		return nil, fmt.Errorf("parsing show_gids output: %w", ErrNoData)
	}
	if out.Found >= 0 && !out.Truncated && out.Found != len(out.Entries) {
		out.Warnings = append(out.Warnings, fmt.Sprintf("n_gids_found=%d but %d rows listed", out.Found, len(out.Entries)))
	}
	return &out, nil
}

// cut records a row the capture cut off, in port p (nil: unknown).
func (s *ShowGIDs) cut(n int, raw string, p *GIDPort) {
	s.Truncated, s.Cut = true, p
	s.Warnings = append(s.Warnings, located(n, "incomplete GID row %q", strings.TrimSpace(raw)))
}

// lastPort is the port of the last complete row, nil before any.
func (s *ShowGIDs) lastPort() *GIDPort {
	if len(s.Entries) == 0 {
		return nil
	}
	e := s.Entries[len(s.Entries)-1]
	return &GIDPort{Dev: e.Dev, Port: e.Port}
}

// CutIn reports whether the capture cut off rows of dev/port.
func (s *ShowGIDs) CutIn(dev string, port int) bool {
	return s.Cut != nil && s.Cut.Dev == dev && s.Cut.Port == port
}

// ibDevNameRe matches the names rdma-core's udev rules give devices whose
// link layer is InfiniBand ("ib" + the systemd-style path: ibp26s0,
// ibs1, ibP57247p0s2); RoCE devices are named "roce…", iWARP "iw…".
var ibDevNameRe = regexp.MustCompile(`^ib[a-zA-Z]?\d`)

// LinkLayer says what the rows of dev/port show of its link layer:
// "Ethernet" when any GID has a netdev, an IPv4 address or the RoCE v2 type
// (RoCE GIDs are built from a netdev's addresses); "InfiniBand" when the
// device is named as InfiniBand, or when every GID is typed v1 (the kernel
// types IB GIDs "IB/RoCE v1") and is fe80::<port GUID> without a netdev (a
// RoCE GID always has one); "" when the rows do not say (no VER column).
func (s *ShowGIDs) LinkLayer(dev string, port int) string {
	typed, plain := 0, true
	for _, e := range s.Entries {
		if e.Dev != dev || e.Port != port {
			continue
		}
		if e.Netdev != "" || e.IPv4 != "" || e.Version == "v2" {
			return "Ethernet"
		}
		if e.Version == "v1" {
			typed++
		}
		plain = plain && strings.HasPrefix(strings.ToLower(e.GID), "fe80:")
	}
	switch {
	case ibDevNameRe.MatchString(dev):
		return "InfiniBand"
	case typed > 0 && plain:
		return "InfiniBand"
	}
	return ""
}

func isUint(s string) bool {
	_, err := strconv.ParseUint(s, 10, 16)
	return err == nil
}

// gidRow reads DEV PORT INDEX GID [IPv4] [VER] [DEV].
func gidRow(f []string) (GIDEntry, bool) {
	if len(f) < 4 || !gidHexRe.MatchString(f[3]) {
		return GIDEntry{}, false
	}
	port, _ := strconv.Atoi(f[1])
	idx, _ := strconv.Atoi(f[2])
	e := GIDEntry{Dev: f[0], Port: port, Index: idx, GID: f[3]}
	for _, x := range f[4:] {
		switch {
		case x == "v1" || x == "v2":
			e.Version = x
		case isIPv4(x) && e.IPv4 == "":
			e.IPv4 = x
		default:
			e.Netdev = x
		}
	}
	return e, true
}

func isIPv4(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}

// RoCEv2IPv4 returns the GID perftest's -x and NCCL_IB_GID_INDEX need: the
// RoCE v2 entry of dev/port with an IPv4 address. netdev, when not empty,
// chooses among several (a bond and a VXLAN device sharing one address);
// without it several candidates are ErrAmbiguousGID.
func (s *ShowGIDs) RoCEv2IPv4(dev string, port int, netdev string) (GIDEntry, error) {
	var found []GIDEntry
	for _, e := range s.Entries {
		if e.Dev == dev && e.Port == port && e.Version == "v2" && e.IPv4 != "" && (netdev == "" || e.Netdev == netdev) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return GIDEntry{}, fmt.Errorf("finding the GID index of %s port %d: %w", dev, port, ErrNoGID)
	case 1:
		return found[0], nil
	}
	var idx []string
	for _, e := range found {
		idx = append(idx, fmt.Sprintf("%d (%s on %s)", e.Index, e.IPv4, e.Netdev))
	}
	return GIDEntry{}, fmt.Errorf("finding the GID index of %s port %d: %w: %s", dev, port, ErrAmbiguousGID, strings.Join(idx, ", "))
}
