package hostcfg

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg/link"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// parsePKeySetting returns the pkey of an "ipoib.0x8002" or "pkey.0x0002" setting.
func parsePKeySetting(setting, prefix string) (uint16, error) {
	v := strings.TrimPrefix(setting, prefix)
	if len(v) != 6 || !strings.HasPrefix(v, "0x") {
		return 0, fmt.Errorf("%q: want %s0xNNNN: %w", setting, prefix, ErrUnknownSetting)
	}
	n, err := strconv.ParseUint(v[2:], 16, 16)
	if err != nil {
		return 0, fmt.Errorf("%q: want %s0xNNNN: %w", setting, prefix, ErrUnknownSetting)
	}
	return uint16(n), nil
}

// bindIPoIB binds "ipoib.0x8002" on an IPoIB parent netdev: whether a child
// with that pkey exists. Writing "present" creates <parent>.8002 through
// netlink; writing "absent" deletes the child.
func (i *iface) bindIPoIB(setting string) binding {
	pkey, err := parsePKeySetting(setting, prefixIPoIB)
	if err != nil {
		return binding{backend: BackendNetlink, err: err}
	}
	if i.link.EncapType != "infiniband" {
		return unsupported(BackendNetlink, "%s is not an IPoIB netdev (link type %s)", i.name, i.link.EncapType)
	}
	pkey |= link.PKeyFullMember
	children := func(ctx context.Context) ([]link.Link, error) {
		ls, err := i.h.Links.Links(ctx)
		if err != nil {
			return nil, err
		}
		parent := i.link.Index
		return slices.DeleteFunc(ls, func(l link.Link) bool {
			return l.ParentIndex != parent || l.Index == parent || l.PKey|link.PKeyFullMember != pkey
		}), nil
	}
	return binding{knob: &knob{
		backend: BackendNetlink,
		get: func(ctx context.Context) (string, error) {
			cs, err := children(ctx)
			if err != nil {
				return "", err
			}
			if len(cs) > 0 {
				return present, nil
			}
			return absent, nil
		},
		set: func(ctx context.Context, v string) error {
			switch v {
			case present:
				return i.h.Links.AddIPoIB(ctx, i.name, link.IPoIBChildName(i.name, pkey), pkey)
			case absent:
				cs, err := children(ctx)
				if err != nil {
					return err
				}
				for _, c := range cs {
					if err := i.h.Links.Delete(ctx, c.Name); err != nil {
						return err
					}
				}
				return nil
			}
			return fmt.Errorf("parsing %q: not %s or %s: %w", v, present, absent, ErrBadValue)
		},
	}}
}

// ibParents lists the IPoIB netdevs that are not children: where partitions'
// IPoIB children are made.
func (h *Host) ibParents(ctx context.Context) ([]string, error) {
	ls, err := h.Links.Links(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range ls {
		if l.EncapType == "infiniband" && (l.ParentIndex == 0 || l.ParentIndex == l.Index) {
			out = append(out, l.Name)
		}
	}
	return out, nil
}

// ibPorts lists every RDMA port whose link layer is InfiniBand.
func (h *Host) ibPorts(ctx context.Context) ([]sysfs.Port, error) {
	devs, err := h.Sys.RDMADevices(ctx)
	if err != nil {
		return nil, err
	}
	var out []sysfs.Port
	for _, d := range devs {
		ports, err := h.Sys.Ports(ctx, d)
		if err != nil {
			return nil, err
		}
		for _, n := range ports {
			p, err := h.Sys.Port(ctx, d, n)
			if err != nil && p.LinkLayer == "" {
				return nil, err
			}
			if p.LinkLayer == "InfiniBand" {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// membership reads a partition's membership from a port's pkey table:
// "full", "limited" or "absent" (a full entry wins when both are present).
func membership(keys []uint16, pkey uint16) string {
	pkey &^= sysfs.PKeyFullMember
	out := absent
	for _, k := range keys {
		if k&^sysfs.PKeyFullMember != pkey {
			continue
		}
		if k&sysfs.PKeyFullMember != 0 {
			return memberFull
		}
		out = memberLimited
	}
	return out
}

// membershipMatches reports whether an observed membership satisfies the
// desired one: "both" is met by either kind of entry.
func membershipMatches(desired, observed string) bool {
	if desired == memberBoth {
		return observed == memberFull || observed == memberLimited
	}
	return desired == observed
}

// partitionSettings returns the desired pkey.* values (on every IB port) and
// ipoib.* values (on every IPoIB parent) of a host's partitions.
func partitionSettings(parts []fabric.HostPartition) (pkeys, ipoib []desiredValue) {
	for _, p := range parts {
		m := p.Membership
		if m == "" {
			m = memberFull
		}
		pkeys = append(pkeys, desiredValue{PKeySetting(p.PKey), m})
		if p.IPoIB {
			ipoib = append(ipoib, desiredValue{IPoIBSetting(p.PKey), present})
		}
	}
	sortValues(pkeys)
	sortValues(ipoib)
	return pkeys, ipoib
}

func sortValues(v []desiredValue) {
	slices.SortStableFunc(v, func(a, b desiredValue) int { return compareSettings(a.setting, b.setting) })
}
