package sysfs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// RDMADevices lists /sys/class/infiniband, sorted. No RDMA stack loaded means
// no devices, not an error.
func (s FS) RDMADevices(ctx context.Context) ([]string, error) {
	names, err := s.list(ctx, "class", "infiniband")
	if errors.Is(err, ErrNotExist) {
		return nil, nil
	}
	return names, err
}

// Ports lists the port numbers under /sys/class/infiniband/<dev>/ports, ascending.
func (s FS) Ports(ctx context.Context, dev string) ([]int, error) {
	names, err := s.list(ctx, "class", "infiniband", dev, "ports")
	if err != nil {
		return nil, err
	}
	var ports []int
	for _, n := range names {
		if p, err := strconv.Atoi(n); err == nil && p > 0 {
			ports = append(ports, p)
		}
	}
	slices.Sort(ports)
	return ports, nil
}

// Port is the state of one RDMA port, /sys/class/infiniband/<dev>/ports/<n>/.
type Port struct {
	Device string `json:"device"`
	Port   int    `json:"port"`
	// State is ports/<n>/state without its code: "ACTIVE" for "4: ACTIVE".
	State     string `json:"state"`
	StateCode int    `json:"stateCode"`
	// PhysState is ports/<n>/phys_state without its code: "LinkUp" for "5: LinkUp".
	PhysState     string `json:"physState"`
	PhysStateCode int    `json:"physStateCode"`
	// Rate is ports/<n>/rate verbatim ("100 Gb/sec (4X EDR)"); RateGbps its number.
	Rate     string  `json:"rate"`
	RateGbps float64 `json:"rateGbps"`
	// LinkLayer is ports/<n>/link_layer: "InfiniBand" or "Ethernet".
	LinkLayer string `json:"linkLayer"`
}

// Port reads state, phys_state, rate and link_layer of one port.
func (s FS) Port(ctx context.Context, dev string, port int) (Port, error) {
	base := []string{"class", "infiniband", dev, "ports", strconv.Itoa(port)}
	read := func(name string) (string, error) { return s.readLine(ctx, append(base, name)...) }
	p := Port{Device: dev, Port: port}
	var errs []error
	if v, err := read("state"); err != nil {
		errs = append(errs, err)
	} else if p.StateCode, p.State, err = ParseCodeName(v); err != nil {
		errs = append(errs, fmt.Errorf("reading %s: %w", s.Path(append(base, "state")...), err))
	}
	if v, err := read("phys_state"); err != nil {
		errs = append(errs, err)
	} else if p.PhysStateCode, p.PhysState, err = ParseCodeName(v); err != nil {
		errs = append(errs, fmt.Errorf("reading %s: %w", s.Path(append(base, "phys_state")...), err))
	}
	if v, err := read("rate"); err != nil {
		errs = append(errs, err)
	} else {
		p.Rate = v
		if p.RateGbps, err = ParseRate(v); err != nil {
			errs = append(errs, fmt.Errorf("reading %s: %w", s.Path(append(base, "rate")...), err))
		}
	}
	if v, err := read("link_layer"); err != nil {
		errs = append(errs, err)
	} else {
		p.LinkLayer = v
	}
	return p, errors.Join(errs...)
}

// ParseCodeName parses the "<code>: <name>" form of ports/<n>/state and
// phys_state ("4: ACTIVE", "5: LinkUp").
func ParseCodeName(v string) (int, string, error) {
	c, n, ok := strings.Cut(strings.TrimSpace(v), ":")
	if !ok {
		return 0, "", fmt.Errorf("parsing port state: %q is not \"<code>: <name>\"", v)
	}
	code, err := strconv.Atoi(strings.TrimSpace(c))
	if err != nil || code < 0 {
		return 0, "", fmt.Errorf("parsing port state: %q has no numeric code", v)
	}
	name := strings.TrimSpace(n)
	if name == "" {
		return 0, "", fmt.Errorf("parsing port state: %q has no name", v)
	}
	return code, name, nil
}

// ParseRate parses ports/<n>/rate ("100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)")
// and returns Gb/s.
func ParseRate(v string) (float64, error) {
	f := strings.Fields(v)
	if len(f) < 2 || f[1] != "Gb/sec" {
		return 0, fmt.Errorf("parsing port rate: %q is not \"<n> Gb/sec …\"", v)
	}
	g, err := strconv.ParseFloat(f[0], 64)
	if err != nil || g < 0 || math.IsNaN(g) || math.IsInf(g, 0) {
		return 0, fmt.Errorf("parsing port rate: %q has no number of Gb/sec", v)
	}
	return g, nil
}

// GID is one non-empty entry of a port's GID table.
type GID struct {
	// Index is the entry's number, the file name under ports/<n>/gids/ (perftest -x).
	Index int `json:"index"`
	// GID is ports/<n>/gids/<i> in canonical IPv6 form; a RoCE v2 IPv4 GID reads "::ffff:10.0.0.11".
	GID string `json:"gid"`
	// Type is ports/<n>/gid_attrs/types/<i>: "IB/RoCE v1" or "RoCE v2"; "" when unreadable.
	Type string `json:"type,omitempty"`
	// Netdev is ports/<n>/gid_attrs/ndevs/<i>; "" for InfiniBand GIDs.
	Netdev string `json:"netdev,omitempty"`
}

// IPv4 returns the IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d).
func (g GID) IPv4() (netip.Addr, bool) {
	a, err := netip.ParseAddr(g.GID)
	if err != nil || !a.Is4In6() {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// ParseGID parses a gids/<i> file ("fe80:0000:0000:0000:0202:c9ff:fe00:0001").
// It returns the zero Addr, and no error, for an empty (all-zero) entry.
func ParseGID(v string) (netip.Addr, error) {
	a, err := netip.ParseAddr(strings.TrimSpace(v))
	if err != nil || !a.Is6() || a.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("parsing gid: %q is not a 128-bit GID", v)
	}
	if a.IsUnspecified() {
		return netip.Addr{}, nil
	}
	return a, nil
}

// GIDs reads the non-empty entries of ports/<n>/gids with their gid_attrs,
// ascending by index. Attributes of entries the kernel cannot describe are
// left empty (it answers EINVAL for them).
func (s FS) GIDs(ctx context.Context, dev string, port int) ([]GID, error) {
	base := []string{"class", "infiniband", dev, "ports", strconv.Itoa(port)}
	names, err := s.list(ctx, append(base, "gids")...)
	if err != nil {
		return nil, err
	}
	var out []GID
	for _, n := range names {
		i, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		v, err := s.readLine(ctx, append(base, "gids", n)...)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue // the kernel refuses to show some reserved entries
		}
		a, err := ParseGID(v)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.Path(append(base, "gids", n)...), err)
		}
		if !a.IsValid() {
			continue
		}
		g := GID{Index: i, GID: a.String()}
		g.Type, _ = s.readLine(ctx, append(base, "gid_attrs", "types", n)...)
		g.Netdev, _ = s.readLine(ctx, append(base, "gid_attrs", "ndevs", n)...)
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b GID) int { return a.Index - b.Index })
	return out, nil
}

// GIDTypeRoCEv2 is what gid_attrs/types/<i> reads for a RoCE v2 GID.
const GIDTypeRoCEv2 = "RoCE v2"

// RoCEv2IPv4 returns the first RoCE v2 GID holding an IPv4 address of netdev
// ("" matches any netdev): the index perftest's -x needs.
func RoCEv2IPv4(gids []GID, netdev string) (GID, bool) {
	for _, g := range gids {
		if g.Type != GIDTypeRoCEv2 || (netdev != "" && g.Netdev != netdev) {
			continue
		}
		if _, ok := g.IPv4(); ok {
			return g, true
		}
	}
	return GID{}, false
}

// PKeyFullMember is the membership bit of a pkey table entry.
const PKeyFullMember = 0x8000

// ParsePKey parses a pkeys/<i> file ("0xffff").
func ParsePKey(v string) (uint16, error) {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "0x") {
		return 0, fmt.Errorf("parsing pkey: %q is not 0x-prefixed hex", v)
	}
	n, err := strconv.ParseUint(v[2:], 16, 16)
	if err != nil {
		return 0, fmt.Errorf("parsing pkey: %q is not a 16-bit hex number", v)
	}
	return uint16(n), nil
}

// PKeys reads ports/<n>/pkeys/<idx> and returns the non-empty entries in
// index order (0x0000 marks an empty slot).
func (s FS) PKeys(ctx context.Context, dev string, port int) ([]uint16, error) {
	base := []string{"class", "infiniband", dev, "ports", strconv.Itoa(port), "pkeys"}
	names, err := s.list(ctx, base...)
	if err != nil {
		return nil, err
	}
	type entry struct {
		i int
		k uint16
	}
	var ents []entry
	for _, n := range names {
		i, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		v, err := s.readLine(ctx, append(base, n)...)
		if err != nil {
			return nil, err
		}
		k, err := ParsePKey(v)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.Path(append(base, n)...), err)
		}
		if k&^PKeyFullMember != 0 {
			ents = append(ents, entry{i, k})
		}
	}
	slices.SortFunc(ents, func(a, b entry) int { return a.i - b.i })
	out := make([]uint16, len(ents))
	for i, e := range ents {
		out[i] = e.k
	}
	return out, nil
}

// Counters reads every ports/<n>/counters/* file (IB PMA counters).
func (s FS) Counters(ctx context.Context, dev string, port int) (map[string]uint64, error) {
	return s.counterDir(ctx, "class", "infiniband", dev, "ports", strconv.Itoa(port), "counters")
}

// HWCounters reads every ports/<n>/hw_counters/* file (driver counters:
// mlx5 np_cnp_sent, out_of_sequence…, rxe sent_pkts, rcvd_seq_err…).
func (s FS) HWCounters(ctx context.Context, dev string, port int) (map[string]uint64, error) {
	return s.counterDir(ctx, "class", "infiniband", dev, "ports", strconv.Itoa(port), "hw_counters")
}

// counterDir reads one-number files; files that are not a number are
// skipped, unreadable ones are reported together after the rest is read.
func (s FS) counterDir(ctx context.Context, elem ...string) (map[string]uint64, error) {
	names, err := s.list(ctx, elem...)
	if err != nil {
		return nil, err
	}
	out := make(map[string]uint64, len(names))
	var errs []error
	for _, n := range names {
		v, err := s.readLine(ctx, append(elem, n)...)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		if c, err := strconv.ParseUint(v, 10, 64); err == nil {
			out[n] = c
		}
	}
	return out, errors.Join(errs...)
}

// NodeGUID reads /sys/class/infiniband/<dev>/node_guid ("0002:c903:000e:0b72").
func (s FS) NodeGUID(ctx context.Context, dev string) (string, error) {
	return s.readLine(ctx, "class", "infiniband", dev, "node_guid")
}
