package link

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// ErrNotFound is wrapped when no link has the name asked for.
var ErrNotFound = errors.New("no such link")

// PKeyFullMember is the membership bit the kernel ORs into every IPoIB child's pkey.
const PKeyFullMember = 0x8000

// Link is what fabricctl needs to know about one netdev (RTM_GETLINK).
type Link struct {
	Name  string `json:"name"`  // IFLA_IFNAME
	Index int    `json:"index"` // ifi_index
	// ParentIndex is IFLA_LINK: the parent of an IPoIB child or the peer of a veth.
	ParentIndex int `json:"parentIndex,omitempty"`
	MTU         int `json:"mtu"` // IFLA_MTU
	// Kind is IFLA_INFO_KIND ("veth", "ipoib"), "device" for hardware netdevs.
	Kind string `json:"kind"`
	// EncapType is the ARPHRD type by name: "ether", "infiniband", "loopback".
	EncapType string `json:"encapType"`
	OperState string `json:"operState"` // IFLA_OPERSTATE ("up", "down")
	// ParentDev and ParentDevBus are IFLA_PARENT_DEV_NAME and IFLA_PARENT_DEV_BUS_NAME
	// ("0000:08:00.0", "pci"): the hardware behind the netdev, namespace-proof.
	ParentDev    string `json:"parentDev,omitempty"`
	ParentDevBus string `json:"parentDevBus,omitempty"`
	// PKey of an IPoIB link (IFLA_IPOIB_PKEY), full-member bit included.
	PKey uint16 `json:"pkey,omitempty"`
}

// Handle talks RTNETLINK through vishvananda/netlink in one network
// namespace. It is safe for concurrent use (calls are serialised).
type Handle struct {
	mu sync.Mutex
	h  *netlink.Handle
}

// Open returns a Handle in the caller's network namespace.
func Open() (*Handle, error) { return OpenNetns("") }

// OpenNetns returns a Handle in the network namespace at nsPath ("" = the caller's).
func OpenNetns(nsPath string) (*Handle, error) {
	if nsPath == "" {
		// RTNETLINK only: opening every family fails on kernels that lack
		// one (the lab VM's), and links need nothing else.
		h, err := netlink.NewHandle(unix.NETLINK_ROUTE)
		if err != nil {
			return nil, fmt.Errorf("opening netlink handle: %w", err)
		}
		return &Handle{h: h}, nil
	}
	ns, err := netns.GetFromPath(nsPath)
	if err != nil {
		return nil, fmt.Errorf("opening network namespace %s: %w", nsPath, err)
	}
	defer ns.Close()
	h, err := netlink.NewHandleAt(ns, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, fmt.Errorf("opening netlink handle in %s: %w", nsPath, err)
	}
	return &Handle{h: h}, nil
}

// Close releases the netlink sockets.
func (h *Handle) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.h.Close()
}

func convert(l netlink.Link) Link {
	a := l.Attrs()
	out := Link{
		Name: a.Name, Index: a.Index, ParentIndex: a.ParentIndex, MTU: a.MTU,
		Kind: l.Type(), EncapType: a.EncapType, OperState: a.OperState.String(),
		ParentDev: a.ParentDev, ParentDevBus: a.ParentDevBus,
	}
	if ib, ok := l.(*netlink.IPoIB); ok {
		out.PKey = ib.Pkey
	}
	return out
}

func (h *Handle) byName(name string) (netlink.Link, error) {
	l, err := h.h.LinkByName(name)
	if err != nil {
		var nf netlink.LinkNotFoundError
		if errors.As(err, &nf) {
			return nil, fmt.Errorf("finding link %s: %w", name, ErrNotFound)
		}
		return nil, fmt.Errorf("finding link %s: %w", name, err)
	}
	return l, nil
}

// Link returns the link named name; it wraps ErrNotFound when there is none.
func (h *Handle) Link(ctx context.Context, name string) (Link, error) {
	if err := ctx.Err(); err != nil {
		return Link{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	l, err := h.byName(name)
	if err != nil {
		return Link{}, err
	}
	return convert(l), nil
}

// Links returns every link, sorted by name.
func (h *Handle) Links(ctx context.Context) ([]Link, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	ls, err := h.h.LinkList()
	h.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("listing links: %w", err)
	}
	out := make([]Link, 0, len(ls))
	for _, l := range ls {
		out = append(out, convert(l))
	}
	slices.SortFunc(out, func(a, b Link) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// SetMTU sets the MTU of the link named name (RTM_SETLINK IFLA_MTU).
func (h *Handle) SetMTU(ctx context.Context, name string, mtu int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if mtu <= 0 {
		return fmt.Errorf("setting mtu of %s: %d is not a positive MTU", name, mtu)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	l, err := h.byName(name)
	if err != nil {
		return fmt.Errorf("setting mtu of %s: %w", name, err)
	}
	if err := h.h.LinkSetMTU(l, mtu); err != nil {
		return fmt.Errorf("setting mtu of %s to %d: %w", name, mtu, err)
	}
	return nil
}

// IPoIBChildName is the name the kernel gives a child made through sysfs
// create_child, and fabricctl uses: "ib0" + pkey 0x0002 → "ib0.8002".
func IPoIBChildName(parent string, pkey uint16) string {
	return fmt.Sprintf("%s.%04x", parent, pkey|PKeyFullMember)
}

// AddIPoIB creates an IPoIB child of parent for pkey (datagram mode). The
// kernel rejects pkey 0 and 0x8000 and always sets the full-member bit.
func (h *Handle) AddIPoIB(ctx context.Context, parent, name string, pkey uint16) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if pkey&^PKeyFullMember == 0 {
		return fmt.Errorf("adding ipoib child %s of %s: pkey %#04x is not a partition", name, parent, pkey)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	p, err := h.byName(parent)
	if err != nil {
		return fmt.Errorf("adding ipoib child %s: %w", name, err)
	}
	child := &netlink.IPoIB{
		LinkAttrs: netlink.LinkAttrs{Name: name, ParentIndex: p.Attrs().Index},
		Pkey:      pkey | PKeyFullMember,
		Mode:      netlink.IPOIB_MODE_DATAGRAM,
	}
	if err := h.h.LinkAdd(child); err != nil {
		return fmt.Errorf("adding ipoib child %s of %s with pkey %#04x: %w", name, parent, pkey|PKeyFullMember, err)
	}
	return nil
}

// Delete removes the link named name.
func (h *Handle) Delete(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	l, err := h.byName(name)
	if err != nil {
		return fmt.Errorf("deleting link %s: %w", name, err)
	}
	if err := h.h.LinkDel(l); err != nil {
		return fmt.Errorf("deleting link %s: %w", name, err)
	}
	return nil
}
