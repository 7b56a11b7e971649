package hostcfgtest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/fabricctl/fabricctl/hostcfg/ethtool"
	"github.com/fabricctl/fabricctl/hostcfg/link"
)

// failure is one queued injected error.
type failure struct {
	op, name string
	err      error
}

// takeFailure pops the first queued failure for op on name ("" = any name).
func takeFailure(q *[]failure, op, name string) error {
	for i, f := range *q {
		if f.op == op && (f.name == "" || f.name == name) {
			*q = slices.Delete(*q, i, i+1)
			return f.err
		}
	}
	return nil
}

// Links is a fake of hostcfg.Links: netdevs as netlink reports them, with
// the kernel's MTU bounds and IPoIB child rules. Safe for concurrent use.
type Links struct {
	mu     sync.Mutex
	links  map[string]link.Link
	maxMTU int
	fail   []failure
	writes int
}

// NewLinks returns a fake holding ls; MTUs above maxMTU are refused (EINVAL).
func NewLinks(maxMTU int, ls ...link.Link) *Links {
	l := &Links{links: map[string]link.Link{}, maxMTU: maxMTU}
	for _, x := range ls {
		l.links[x.Name] = x
	}
	return l
}

// FailNext makes the next call of op ("link", "links", "setmtu",
// "addipoib", "delete") on name ("" = any) fail with err. Calls queue up.
func (l *Links) FailNext(op, name string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fail = append(l.fail, failure{op, name, err})
}

// Writes counts the calls that changed something.
func (l *Links) Writes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writes
}

// Link implements hostcfg.Links.
func (l *Links) Link(ctx context.Context, name string) (link.Link, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := takeFailure(&l.fail, "link", name); err != nil {
		return link.Link{}, fmt.Errorf("finding link %s: %w", name, err)
	}
	x, ok := l.links[name]
	if !ok {
		return link.Link{}, fmt.Errorf("finding link %s: %w", name, link.ErrNotFound)
	}
	return x, nil
}

// Links implements hostcfg.Links.
func (l *Links) Links(ctx context.Context) ([]link.Link, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := takeFailure(&l.fail, "links", ""); err != nil {
		return nil, fmt.Errorf("listing links: %w", err)
	}
	out := slices.Collect(maps.Values(l.links))
	slices.SortFunc(out, func(a, b link.Link) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// SetMTU implements hostcfg.Links with dev_validate_mtu's bounds (68..maxMTU).
func (l *Links) SetMTU(ctx context.Context, name string, mtu int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := takeFailure(&l.fail, "setmtu", name); err != nil {
		return fmt.Errorf("setting mtu of %s to %d: %w", name, mtu, err)
	}
	x, ok := l.links[name]
	if !ok {
		return fmt.Errorf("setting mtu of %s: %w", name, link.ErrNotFound)
	}
	if mtu < 68 || (l.maxMTU > 0 && mtu > l.maxMTU) {
		return fmt.Errorf("setting mtu of %s to %d: %w", name, mtu, syscall.EINVAL)
	}
	if x.MTU != mtu {
		l.writes++
	}
	x.MTU = mtu
	l.links[name] = x
	return nil
}

// AddIPoIB implements hostcfg.Links like the ipoib driver's newlink.
func (l *Links) AddIPoIB(ctx context.Context, parent, name string, pkey uint16) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := takeFailure(&l.fail, "addipoib", name); err != nil {
		return fmt.Errorf("adding ipoib child %s: %w", name, err)
	}
	p, ok := l.links[parent]
	switch {
	case !ok:
		return fmt.Errorf("adding ipoib child %s: %w", name, link.ErrNotFound)
	case p.EncapType != "infiniband":
		return fmt.Errorf("adding ipoib child %s of %s: %w", name, parent, syscall.EINVAL)
	case pkey&^link.PKeyFullMember == 0:
		return fmt.Errorf("adding ipoib child %s: pkey %#x: %w", name, pkey, syscall.EINVAL)
	}
	if _, ok := l.links[name]; ok {
		return fmt.Errorf("adding ipoib child %s: %w", name, syscall.EEXIST)
	}
	idx := 100
	for _, x := range l.links {
		idx = max(idx, x.Index+1)
	}
	l.links[name] = link.Link{Name: name, Index: idx, ParentIndex: p.Index, MTU: p.MTU, Kind: "ipoib",
		EncapType: "infiniband", OperState: "down", PKey: pkey | link.PKeyFullMember}
	l.writes++
	return nil
}

// Delete implements hostcfg.Links.
func (l *Links) Delete(ctx context.Context, name string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := takeFailure(&l.fail, "delete", name); err != nil {
		return fmt.Errorf("deleting link %s: %w", name, err)
	}
	if _, ok := l.links[name]; !ok {
		return fmt.Errorf("deleting link %s: %w", name, link.ErrNotFound)
	}
	delete(l.links, name)
	l.writes++
	return nil
}

// Ethtool is a fake of hostcfg.Ethtool. A device without pause parameters
// answers EOPNOTSUPP, an unknown one ENODEV. Safe for concurrent use.
type Ethtool struct {
	mu     sync.Mutex
	devs   map[string]EthtoolDevice
	fail   []failure
	writes int
}

// EthtoolDevice is one netdev's ethtool view; Pause nil = no pause ops.
type EthtoolDevice struct {
	ethtool.DriverInfo
	Pause *ethtool.Pause `json:"pause,omitempty"`
}

// NewEthtool returns a fake holding devs.
func NewEthtool(devs map[string]EthtoolDevice) *Ethtool {
	return &Ethtool{devs: maps.Clone(devs)}
}

// FailNext makes the next call of op ("pause", "setpause", "drvinfo") on
// name ("" = any) fail with err.
func (e *Ethtool) FailNext(op, name string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fail = append(e.fail, failure{op, name, err})
}

// Writes counts the SetPause calls that changed something.
func (e *Ethtool) Writes() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.writes
}

func (e *Ethtool) dev(op, name string) (EthtoolDevice, error) {
	if err := takeFailure(&e.fail, op, name); err != nil {
		return EthtoolDevice{}, err
	}
	d, ok := e.devs[name]
	if !ok {
		return d, syscall.ENODEV
	}
	return d, nil
}

// Pause implements hostcfg.Ethtool.
func (e *Ethtool) Pause(ctx context.Context, ifname string) (ethtool.Pause, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, err := e.dev("pause", ifname)
	if err == nil && d.Pause == nil {
		err = syscall.EOPNOTSUPP
	}
	if err != nil {
		return ethtool.Pause{}, fmt.Errorf("reading pause parameters of %s: %w", ifname, err)
	}
	return *d.Pause, nil
}

// SetPause implements hostcfg.Ethtool; like mlx5 it refuses pause autonegotiation.
func (e *Ethtool) SetPause(ctx context.Context, ifname string, p ethtool.Pause) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, err := e.dev("setpause", ifname)
	if err == nil && d.Pause == nil {
		err = syscall.EOPNOTSUPP
	}
	if err == nil && p.Autoneg {
		err = syscall.EINVAL
	}
	if err != nil {
		return fmt.Errorf("setting pause parameters of %s: %w", ifname, err)
	}
	if *d.Pause != p {
		e.writes++
	}
	d.Pause = &p
	e.devs[ifname] = d
	return nil
}

// DriverInfo implements hostcfg.Ethtool.
func (e *Ethtool) DriverInfo(ctx context.Context, ifname string) (ethtool.DriverInfo, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, err := e.dev("drvinfo", ifname)
	if err != nil {
		return ethtool.DriverInfo{}, fmt.Errorf("reading driver info of %s: %w", ifname, err)
	}
	return d.DriverInfo, nil
}
