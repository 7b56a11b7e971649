package hostcfg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// Observed is the live state of a host's managed settings.
type Observed struct {
	APIVersion string `json:"apiVersion"`
	Host       string `json:"host"`
	// Interfaces sorted by name.
	Interfaces []InterfaceState `json:"interfaces"`
	// Ports are the InfiniBand ports whose pkey tables were read, sorted.
	Ports []PortState `json:"ports,omitempty"`
}

// InterfaceState is one netdev as observed.
type InterfaceState struct {
	Name string `json:"name"`
	// Intent is the name of the InterfaceIntent this netdev was observed
	// for: its own name, fabric.AllRDMANetdevs when it came from expanding
	// "every RDMA netdev", "" for IPoIB parents observed for partitions.
	Intent string `json:"intent,omitempty"`
	// Driver is ethtool's driver name (or /sys/class/net/<if>/device/driver).
	Driver string `json:"driver,omitempty"`
	// BusID is the PCI address of the device (ethtool bus_info, /sys/class/net/<if>/device).
	BusID string `json:"busId,omitempty"`
	// Kind is the netlink link kind ("device", "veth", "ipoib").
	Kind string `json:"kind,omitempty"`
	// RDMA is the RDMA port serving the netdev; nil when there is none.
	RDMA *RDMAState `json:"rdma,omitempty"`
	// Settings sorted in apply order.
	Settings []SettingState `json:"settings"`
	// Error is set when the netdev itself could not be probed (e.g. it does not exist).
	Error string `json:"error,omitempty"`
}

// RDMAState is the RDMA port behind a netdev (/sys/class/infiniband/<dev>/ports/<n>).
type RDMAState struct {
	sysfs.Port
	// GIDs are the non-empty entries of ports/<n>/gids with their gid_attrs.
	GIDs []sysfs.GID `json:"gids,omitempty"`
	// RoCEv2IPv4GIDIndex is the index of the netdev's RoCE v2 IPv4 GID
	// (perftest -x), -1 when there is none.
	RoCEv2IPv4GIDIndex int `json:"roceV2Ipv4GidIndex"`
	// Error reports what could not be read.
	Error string `json:"error,omitempty"`
}

// PortState is an InfiniBand port's partition membership.
type PortState struct {
	// Name is "<device>/<port>", the Interface of its changes and issues.
	Name      string `json:"name"`
	LinkLayer string `json:"linkLayer"`
	State     string `json:"state"`
	// PKeys lists ports/<n>/pkeys' non-empty entries ("0xffff").
	PKeys    []string       `json:"pkeys"`
	Settings []SettingState `json:"settings,omitempty"`
	Error    string         `json:"error,omitempty"`
}

// SettingState is one setting's live value and where it came from. Exactly
// one of Value, Unsupported and Error is meaningful.
type SettingState struct {
	Setting string `json:"setting"`
	Value   string `json:"value,omitempty"`
	// Backend is the kernel interface that served (or would have served) it.
	Backend string `json:"backend,omitempty"`
	// Unsupported says why the device or driver cannot do it.
	Unsupported string `json:"unsupported,omitempty"`
	// Error is a failure to read it.
	Error string `json:"error,omitempty"`
}

// Setting returns the state of the named setting.
func (s InterfaceState) Setting(name string) (SettingState, bool) {
	i := slices.IndexFunc(s.Settings, func(x SettingState) bool { return x.Setting == name })
	if i < 0 {
		return SettingState{}, false
	}
	return s.Settings[i], true
}

// Interface returns the state of the named netdev.
func (o Observed) Interface(name string) (InterfaceState, bool) {
	i := slices.IndexFunc(o.Interfaces, func(x InterfaceState) bool { return x.Name == name })
	if i < 0 {
		return InterfaceState{}, false
	}
	return o.Interfaces[i], true
}

// observeParallel bounds how many netdevs are observed at once.
const observeParallel = 8

// request is one netdev to observe: which settings, for which intent.
type request struct {
	name     string
	intent   string
	settings []string
	show     bool // also list every DCQCN parameter the backend has
}

// Observe reads every setting desired manages, on every netdev it names
// (fabric.AllRDMANetdevs expanded), and the pkeys and IPoIB children of its
// partitions. The returned error joins the located failures (*SettingError);
// Observed still holds everything that could be read, so one broken
// setting or netdev never hides the others.
func (h *Host) Observe(ctx context.Context, desired fabric.HostIntent) (Observed, error) {
	var reqs []request
	var errs []error
	explicit := map[string]bool{}
	for _, in := range desired.Interfaces {
		if in.Name != fabric.AllRDMANetdevs {
			explicit[in.Name] = true
		}
	}
	seen := map[string]bool{}
	for _, in := range desired.Interfaces {
		if seen[in.Name] {
			continue // the first intent for a name wins (fabric validation refuses repeats)
		}
		seen[in.Name] = true
		var settings []string
		for _, d := range desiredSettings(in) {
			settings = append(settings, d.setting)
		}
		if in.Name != fabric.AllRDMANetdevs {
			reqs = append(reqs, request{name: in.Name, intent: in.Name, settings: settings})
			continue
		}
		names, err := h.rdmaNetdevs(ctx)
		if err == nil && len(names) == 0 {
			err = fmt.Errorf("expanding %q: no netdev has an rdma device: %w", fabric.AllRDMANetdevs, ErrNoRDMADevice)
		}
		if err != nil {
			errs = append(errs, &SettingError{Interface: fabric.AllRDMANetdevs, Op: "probing", Err: err})
			reqs = append(reqs, request{name: fabric.AllRDMANetdevs, intent: fabric.AllRDMANetdevs})
			continue
		}
		for _, n := range names {
			if !explicit[n] {
				reqs = append(reqs, request{name: n, intent: fabric.AllRDMANetdevs, settings: settings})
			}
		}
	}
	obs, err := h.observe(ctx, desired.Host, reqs, desired.Partitions, false)
	return obs, errors.Join(append(errs, err)...)
}

// Show observes every setting fabricctl knows on the named netdevs (every
// RDMA netdev when names is empty), every DCQCN parameter the backend
// exposes, and the pkeys of every InfiniBand port.
func (h *Host) Show(ctx context.Context, names []string) (Observed, error) {
	var errs []error
	if len(names) == 0 {
		var err error
		if names, err = h.rdmaNetdevs(ctx); err != nil {
			errs = append(errs, &SettingError{Interface: fabric.AllRDMANetdevs, Op: "probing", Err: err})
		}
	}
	var reqs []request
	for _, n := range names {
		reqs = append(reqs, request{name: n, intent: n, settings: allSettings, show: true})
	}
	obs, err := h.observe(ctx, h.Name, reqs, nil, true)
	return obs, errors.Join(append(errs, err)...)
}

func (h *Host) rdmaNetdevs(ctx context.Context) ([]string, error) {
	if h.RDMA == nil {
		return nil, fmt.Errorf("listing rdma netdevs: no mapper: %w", ErrNoRDMADevice)
	}
	return h.RDMA.NetdevsWithRDMA(ctx)
}

func (h *Host) observe(ctx context.Context, host string, reqs []request, parts []fabric.HostPartition, allPorts bool) (Observed, error) {
	obs := Observed{APIVersion: fabric.APIVersion, Host: cmpOr(host, h.Name)}
	pkeys, ipoib := partitionSettings(parts)
	var errs []error
	if len(ipoib) > 0 {
		parents, err := h.ibParents(ctx)
		if err != nil {
			errs = append(errs, &SettingError{Interface: "ipoib", Op: "probing", Backend: BackendNetlink, Err: err})
		}
		for _, p := range parents {
			j := slices.IndexFunc(reqs, func(r request) bool { return r.name == p })
			if j < 0 {
				reqs = append(reqs, request{name: p})
				j = len(reqs) - 1
			}
			for _, d := range ipoib {
				reqs[j].settings = append(slices.Clip(reqs[j].settings), d.setting)
			}
		}
	}

	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(observeParallel)
	for _, r := range reqs {
		g.Go(func() error {
			st, err := h.observeIface(gctx, r)
			mu.Lock()
			defer mu.Unlock()
			obs.Interfaces = append(obs.Interfaces, st)
			errs = append(errs, err)
			return nil
		})
	}
	_ = g.Wait()
	if err := ctx.Err(); err != nil {
		return obs, err
	}
	slices.SortFunc(obs.Interfaces, func(a, b InterfaceState) int { return strings.Compare(a.Name, b.Name) })

	if len(pkeys) > 0 || allPorts {
		ports, err := h.observePorts(ctx, pkeys)
		obs.Ports = ports
		errs = append(errs, err)
	}
	return obs, errors.Join(errs...)
}

func (h *Host) observeIface(ctx context.Context, r request) (InterfaceState, error) {
	st := InterfaceState{Name: r.name, Intent: r.intent}
	if r.name == fabric.AllRDMANetdevs {
		st.Error = fmt.Sprintf("no netdev has an rdma device: %v", ErrNoRDMADevice)
		return st, nil // reported once by Observe
	}
	i, err := h.probe(ctx, r.name, true)
	if err != nil {
		serr := &SettingError{Interface: r.name, Op: "probing", Err: err}
		st.Error = serr.Error()
		return st, serr
	}
	st.Driver, st.BusID, st.Kind = i.driver, i.busID, i.link.Kind
	if port, err := i.rdmaPort(ctx); err == nil {
		st.RDMA = rdmaState(ctx, h.Sys, port, r.name)
	}
	settings := slices.Clone(r.settings)
	if r.show {
		if st.RDMA == nil {
			settings = slices.DeleteFunc(settings, func(s string) bool { return s == SettingRoCEMode || s == SettingRoCEToS })
		}
		if c, _ := i.congestion(); c != nil {
			for _, point := range []string{"np", "rp"} {
				names, _ := c.params(ctx, point)
				for _, n := range names {
					if n != "cnp_dscp" && n != "cnp_802p_prio" { // shown as cnp.*
						settings = append(settings, DCQCNSetting(point, n))
					}
				}
			}
		}
	}
	slices.SortStableFunc(settings, compareSettings)
	settings = slices.Compact(settings)

	var errs []error
	for _, s := range settings {
		ss := SettingState{Setting: s}
		b := i.bind(ctx, s)
		switch {
		case b.err != nil:
			ss.Backend, ss.Error = b.backend, b.err.Error()
			errs = append(errs, &SettingError{Interface: r.name, Setting: s, Backend: b.backend, Op: "probing", Err: b.err})
		case b.knob == nil:
			ss.Backend, ss.Unsupported = b.backend, b.unsupported
		default:
			ss.Backend = b.knob.backend
			v, err := b.knob.get(ctx)
			switch {
			case errors.Is(err, ErrNotSupported):
				ss.Unsupported = err.Error()
			case err != nil:
				ss.Error = err.Error()
				errs = append(errs, &SettingError{Interface: r.name, Setting: s, Backend: b.knob.backend, Op: "reading", Err: err})
			default:
				ss.Value = v
			}
		}
		st.Settings = append(st.Settings, ss)
	}
	return st, errors.Join(errs...)
}

// ObserveRDMA observes, from sysfs alone, the RDMA port behind each netdev
// desired names (fabric.AllRDMANetdevs expanded): device, port state and
// rate, GIDs and the RoCE v2 IPv4 GID index. It is what a host still tells
// when its netlink backends cannot be opened: no settings are read, and a
// netdev without an RDMA port has no RDMA state (an Error when the netdev
// itself is missing).
func ObserveRDMA(ctx context.Context, sys sysfs.FS, desired fabric.HostIntent) Observed {
	obs := Observed{APIVersion: fabric.APIVersion, Host: desired.Host}
	var names []string
	for _, i := range desired.Interfaces {
		if i.Name != fabric.AllRDMANetdevs {
			names = append(names, i.Name)
			continue
		}
		all, err := sys.NetdevsWithRDMA(ctx)
		switch {
		case err != nil:
			obs.Interfaces = append(obs.Interfaces, InterfaceState{Name: i.Name, Error: err.Error()})
		case len(all) == 0:
			obs.Interfaces = append(obs.Interfaces, InterfaceState{Name: i.Name, Error: "no netdev has an rdma device"})
		}
		names = append(names, all...)
	}
	for _, n := range names {
		st := InterfaceState{Name: n, Intent: n}
		if ref, err := sys.PortForNetdev(ctx, n); err == nil {
			st.RDMA = rdmaState(ctx, sys, ref, n)
		} else if _, nerr := sys.NetDevice(ctx, n); nerr != nil {
			st.Error = nerr.Error()
		}
		obs.Interfaces = append(obs.Interfaces, st)
	}
	return obs
}

func rdmaState(ctx context.Context, sys sysfs.FS, ref sysfs.PortRef, netdev string) *RDMAState {
	p, err := sys.Port(ctx, ref.Device, ref.Port)
	st := &RDMAState{Port: p, RoCEv2IPv4GIDIndex: -1}
	st.Device, st.Port.Port = ref.Device, ref.Port
	gids, gerr := sys.GIDs(ctx, ref.Device, ref.Port)
	st.GIDs = gids
	if g, ok := sysfs.RoCEv2IPv4(gids, netdev); ok {
		st.RoCEv2IPv4GIDIndex = g.Index
	}
	if err := errors.Join(err, gerr); err != nil {
		st.Error = err.Error()
	}
	return st
}

func (h *Host) observePorts(ctx context.Context, pkeys []desiredValue) ([]PortState, error) {
	ports, err := h.ibPorts(ctx)
	if err != nil {
		return nil, &SettingError{Interface: "infiniband", Op: "probing", Backend: BackendSysfsPKeys, Err: err}
	}
	var out []PortState
	var errs []error
	for _, p := range ports {
		ref := sysfs.PortRef{Device: p.Device, Port: p.Port}
		ps := PortState{Name: ref.String(), LinkLayer: p.LinkLayer, State: p.State}
		keys, err := h.Sys.PKeys(ctx, p.Device, p.Port)
		if err != nil {
			ps.Error = err.Error()
			errs = append(errs, &SettingError{Interface: ps.Name, Setting: "pkeys", Backend: BackendSysfsPKeys, Op: "reading", Err: err})
			out = append(out, ps)
			continue
		}
		for _, k := range keys {
			ps.PKeys = append(ps.PKeys, pkeyText(k))
		}
		for _, d := range pkeys {
			pk, _ := parsePKeySetting(d.setting, prefixPKey)
			ps.Settings = append(ps.Settings, SettingState{
				Setting: d.setting, Backend: BackendSysfsPKeys, Value: membership(keys, pk),
			})
		}
		out = append(out, ps)
	}
	return out, errors.Join(errs...)
}
