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
	Found     int      `json:"found"`
	Truncated bool     `json:"truncated,omitempty"` // a row was cut off
	Warnings  []string `json:"warnings,omitempty"`
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
			out.Found, _ = strconv.Atoi(gidCountRe.FindStringSubmatch(f[0])[1])
			content = true
		case len(f) >= 3 && isUint(f[1]) && isUint(f[2]):
			content = true
			e, ok := gidRow(f)
			if !ok {
				out.Truncated = true
				out.Warnings = append(out.Warnings, located(n, "incomplete GID row %q", strings.TrimSpace(raw)))
				return
			}
			out.Entries = append(out.Entries, e)
		case len(out.Entries) > 0 || content:
			// A row cut off before its port and index columns.
			if len(f) < 3 && !strings.ContainsAny(f[0], "#$@") {
				out.Truncated = true
				out.Warnings = append(out.Warnings, located(n, "incomplete GID row %q", strings.TrimSpace(raw)))
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
