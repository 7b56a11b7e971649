package hostcfg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/debugfs"
	"github.com/fabricctl/fabricctl/hostcfg/ethtool"
	"github.com/fabricctl/fabricctl/hostcfg/link"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// Backend names: which kernel interface served a setting (SettingState.Backend,
// Change.Backend).
const (
	BackendNetlink     = "netlink"          // RTM_GETLINK / RTM_SETLINK
	BackendDCBNL       = "dcbnl"            // DCB netlink IEEE attributes
	BackendAppTrust    = "dcbnl-apptrust"   // DCB_ATTR_DCB_APP_TRUST_TABLE
	BackendMlx5AppDSCP = "dcbnl-app-mlx5"   // mlx5: DSCP trust implied by selector-5 APP entries
	BackendSysfsQoS    = "sysfs-qos"        // /sys/class/net/<if>/qos/trust (MLNX_OFED)
	BackendSysfsECN    = "sysfs-ecn"        // /sys/class/net/<if>/ecn/roce_{np,rp} (MLNX_OFED)
	BackendDebugfsCC   = "debugfs-cc"       // /sys/kernel/debug/mlx5/<bdf>/cc_params (upstream mlx5)
	BackendConfigfs    = "configfs-rdma_cm" // /sys/kernel/config/rdma_cm/<dev>/ports/<n>
	BackendEthtool     = "ethtool"          // SIOCETHTOOL pause parameters
	BackendSysfsPKeys  = "sysfs-pkeys"      // /sys/class/infiniband/<dev>/ports/<n>/pkeys
)

// knob is one setting of one interface bound to the backend that serves it.
// Values are canonical text (values.go). A nil set means read-only.
type knob struct {
	backend string
	get     func(ctx context.Context) (string, error)
	set     func(ctx context.Context, v string) error
}

// binding is the outcome of probing one setting: a knob, or why there is none.
type binding struct {
	knob        *knob
	backend     string // the backend that was asked, when there is no knob
	unsupported string
	err         error
}

func unsupported(backend, format string, a ...any) binding {
	return binding{backend: backend, unsupported: fmt.Sprintf(format, a...)}
}

// iface is what probing learnt about one netdev. It is used by one goroutine.
type iface struct {
	h      *Host
	name   string
	link   link.Link
	driver string
	busID  string
	// cache lets every DCB setting share one IEEE_GET while observing; apply
	// turns it off so that each pre-image is read fresh.
	cache bool

	ieeeDone bool
	ieee     dcbnl.IEEEState
	ieeeErr  error

	portDone bool
	port     sysfs.PortRef
	portErr  error
}

// probe finds the netdev and its driver. A missing netdev wraps ErrNoInterface.
func (h *Host) probe(ctx context.Context, name string, cache bool) (*iface, error) {
	i := &iface{h: h, name: name, cache: cache}
	if h.Links == nil {
		return nil, fmt.Errorf("no netlink backend: %w", ErrNotSupported)
	}
	l, err := h.Links.Link(ctx, name)
	if errors.Is(err, link.ErrNotFound) {
		return nil, ErrNoInterface
	}
	if err != nil {
		return nil, err
	}
	i.link = l
	if h.Ethtool != nil {
		if d, err := h.Ethtool.DriverInfo(ctx, name); err == nil {
			i.driver = d.Driver
			if strings.Count(d.BusInfo, ":") == 2 { // a PCI address, not "N/A" or "tap"
				i.busID = d.BusInfo
			}
		}
	}
	if nd, err := h.Sys.NetDevice(ctx, name); err == nil {
		i.driver = cmpOr(i.driver, nd.Driver)
		if nd.Bus == "pci" {
			i.busID = cmpOr(i.busID, nd.BusID)
		}
	}
	if l.ParentDevBus == "pci" {
		i.busID = cmpOr(i.busID, l.ParentDev)
	}
	h.log().Debug("probed interface", "interface", name, "driver", i.driver, "bus", i.busID, "kind", l.Kind)
	return i, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (i *iface) isMlx5() bool { return i.driver == "mlx5_core" }

// ieeeState returns the IEEE DCB state: the cached one while observing.
func (i *iface) ieeeState(ctx context.Context) (dcbnl.IEEEState, error) {
	if i.cache && i.ieeeDone {
		return i.ieee, i.ieeeErr
	}
	i.ieee, i.ieeeErr = i.h.DCB.GetIEEE(ctx, i.name)
	i.ieeeDone = true
	return i.ieee, i.ieeeErr
}

// dcbProbe says whether DCB netlink serves this netdev at all.
func (i *iface) dcbProbe(ctx context.Context) (dcbnl.IEEEState, binding, bool) {
	if i.h.DCB == nil {
		return dcbnl.IEEEState{}, unsupported(BackendDCBNL, "no DCB netlink client on this host"), false
	}
	wasCached := i.cache
	i.cache = true // one probe per interface, even while applying
	st, err := i.ieeeState(ctx)
	i.cache = wasCached
	switch {
	case err == nil:
		return st, binding{}, true
	case errors.Is(err, syscall.EOPNOTSUPP):
		return st, unsupported(BackendDCBNL, "%s has no DCB netlink ops (IEEE_GET answered EOPNOTSUPP)", i.describe()), false
	case errors.Is(err, syscall.ENODEV):
		return st, unsupported(BackendDCBNL, "the DCB netlink socket's network namespace has no %s (IEEE_GET answered ENODEV)", i.name), false
	}
	return st, binding{backend: BackendDCBNL, err: err}, false
}

func (i *iface) describe() string {
	if i.driver != "" {
		return fmt.Sprintf("%s (driver %s)", i.name, i.driver)
	}
	return i.name
}

// rdmaPort finds the RDMA port behind the netdev, once.
func (i *iface) rdmaPort(ctx context.Context) (sysfs.PortRef, error) {
	if !i.portDone {
		i.portDone = true
		if i.h.RDMA == nil {
			i.portErr = fmt.Errorf("finding the rdma device of %s: no mapper: %w", i.name, ErrNoRDMADevice)
		} else {
			i.port, i.portErr = i.h.RDMA.PortForNetdev(ctx, i.name)
		}
	}
	return i.port, i.portErr
}

// bind chooses the backend of one setting (settingSpecs).
func (i *iface) bind(ctx context.Context, setting string) binding {
	if j := specOf(setting); j < len(settingSpecs) && settingSpecs[j].bind != nil {
		return settingSpecs[j].bind(i, ctx, setting)
	}
	return binding{err: fmt.Errorf("%q: %w", setting, ErrUnknownSetting)}
}

func (i *iface) bindMTU() binding {
	return binding{knob: &knob{
		backend: BackendNetlink,
		get: func(ctx context.Context) (string, error) {
			l, err := i.h.Links.Link(ctx, i.name)
			return strconv.Itoa(l.MTU), err
		},
		set: func(ctx context.Context, v string) error {
			mtu, err := parseInt(v, 68, 1<<20)
			if err != nil {
				return err
			}
			return notSupportedIf(i.h.Links.SetMTU(ctx, i.name, mtu), syscall.EOPNOTSUPP)
		},
	}}
}

// notSupportedIf marks an error as ErrNotSupported when it carries one of errnos.
func notSupportedIf(err error, errnos ...syscall.Errno) error {
	for _, e := range errnos {
		if errors.Is(err, e) {
			return fmt.Errorf("%w: %w", ErrNotSupported, err)
		}
	}
	return err
}

func pauseFor(on bool) ethtool.Pause { return ethtool.Pause{RX: on, TX: on} }

func (i *iface) bindPause(ctx context.Context) binding {
	if i.h.Ethtool == nil {
		return unsupported(BackendEthtool, "no ethtool socket on this host")
	}
	if _, err := i.h.Ethtool.Pause(ctx, i.name); err != nil {
		if errors.Is(err, syscall.EOPNOTSUPP) {
			return unsupported(BackendEthtool, "%s has no pause parameters (ETHTOOL_GPAUSEPARAM answered EOPNOTSUPP)", i.describe())
		}
		return binding{backend: BackendEthtool, err: err}
	}
	return binding{knob: &knob{
		backend: BackendEthtool,
		get: func(ctx context.Context) (string, error) {
			p, err := i.h.Ethtool.Pause(ctx, i.name)
			return formatPause(p), err
		},
		set: func(ctx context.Context, v string) error {
			p, err := parsePause(v)
			if err != nil {
				return err
			}
			return notSupportedIf(i.h.Ethtool.SetPause(ctx, i.name, p), syscall.EOPNOTSUPP)
		},
	}}
}

func (i *iface) bindDCB(ctx context.Context, setting string) binding {
	st, b, ok := i.dcbProbe(ctx)
	if !ok {
		return b
	}
	dcb := i.h.DCB
	k := &knob{backend: BackendDCBNL}
	switch setting {
	case SettingDCBX:
		if !st.HasDCBX {
			return unsupported(BackendDCBNL, "%s does not report a DCBX mode (no getdcbx op)", i.describe())
		}
		k.get = i.ieeeField(func(s dcbnl.IEEEState) string { return formatDCBX(s.DCBX) })
		k.set = func(ctx context.Context, v string) error {
			m, err := parseDCBX(v)
			if err != nil {
				return err
			}
			// "firmware" parses to 0: drivers refuse to be set to a mode
			// without the host bit and take 0 as "hand DCBX back to the
			// firmware" instead. That is how a rollback restores it.
			ch, err := dcb.UpdateDCBX(ctx, i.name, m)
			if err != nil {
				return err
			}
			if got := formatDCBX(ch.After); got != v {
				return fmt.Errorf("wrote %s, read back %s: %w", v, got, ErrNotConverged)
			}
			return nil
		}
	case SettingPFCEnable, SettingPFCDelay:
		if st.PFC == nil {
			return unsupported(BackendDCBNL, "%s does not report ieee_pfc", i.describe())
		}
		if setting == SettingPFCEnable {
			k.get = i.ieeeField(func(s dcbnl.IEEEState) string { return formatPrios(pfcOf(s).PFCEn) })
			k.set = func(ctx context.Context, v string) error {
				bits, err := parsePrios(v)
				if err != nil {
					return err
				}
				ch, err := dcb.UpdatePFC(ctx, i.name, func(p *dcbnl.PFC) { p.PFCEn = bits })
				return converged(err, ch.Converged)
			}
		} else {
			k.get = i.ieeeField(func(s dcbnl.IEEEState) string { return strconv.Itoa(int(pfcOf(s).Delay)) })
			k.set = func(ctx context.Context, v string) error {
				d, err := parseInt(v, 0, 65535)
				if err != nil {
					return err
				}
				ch, err := dcb.UpdatePFC(ctx, i.name, func(p *dcbnl.PFC) { p.Delay = uint16(d) })
				return converged(err, ch.Converged)
			}
		}
	case SettingETS:
		if st.ETS == nil {
			return unsupported(BackendDCBNL, "%s does not report ieee_ets", i.describe())
		}
		k.get = i.ieeeField(func(s dcbnl.IEEEState) string { return formatETS(etsOf(s)) })
		k.set = func(ctx context.Context, v string) error {
			e, err := parseETS(v)
			if err != nil {
				return err
			}
			ch, err := dcb.UpdateETS(ctx, i.name, func(x *dcbnl.ETS) {
				x.PrioTC, x.TCTxBW = e.PrioTC, e.Bandwidth
				for tc, t := range e.TSA {
					x.TCTSA[tc] = dcbnl.TSA(t)
				}
			})
			return converged(err, ch.Converged)
		}
	case SettingDSCPMap:
		k.get = i.ieeeField(func(s dcbnl.IEEEState) string { return formatDSCPMap(dscpEntries(s.Apps)) })
		k.set = func(ctx context.Context, v string) error {
			es, err := parseDSCPMap(v)
			if err != nil {
				return err
			}
			apps := make([]dcbnl.App, len(es))
			for j, e := range es {
				apps[j] = dcbnl.App{Selector: dcbnl.SelDSCP, Priority: e.Priority, Protocol: uint16(e.DSCP)}
			}
			_, err = dcb.ReconcileApps(ctx, i.name, apps, dcbnl.SelDSCP)
			return err
		}
	}
	return binding{knob: k}
}

// converged turns an Update* result into an error when the read-back differs.
func converged(err error, ok bool) error {
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotConverged
	}
	return nil
}

// ieeeField reads one field of the IEEE state (the cached one while observing).
func (i *iface) ieeeField(f func(dcbnl.IEEEState) string) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		st, err := i.ieeeState(ctx)
		if err != nil {
			return "", err
		}
		return f(st), nil
	}
}

func pfcOf(s dcbnl.IEEEState) dcbnl.PFC {
	if s.PFC == nil {
		return dcbnl.PFC{}
	}
	return *s.PFC
}

func etsOf(s dcbnl.IEEEState) etsValue {
	if s.ETS == nil {
		return etsValue{}
	}
	e := etsValue{PrioTC: s.ETS.PrioTC, Bandwidth: s.ETS.TCTxBW}
	for tc, t := range s.ETS.TCTSA {
		e.TSA[tc] = uint8(t)
	}
	return e
}

func dscpEntries(apps []dcbnl.App) []fabric.DSCPEntry {
	var out []fabric.DSCPEntry
	for _, a := range apps {
		if a.Selector == dcbnl.SelDSCP && a.Protocol < 64 {
			out = append(out, fabric.DSCPEntry{DSCP: uint8(a.Protocol), Priority: a.Priority})
		}
	}
	return out
}

// trustOf names the first trusted selector: what classifies a packet first.
func trustOf(sels []dcbnl.Selector) string {
	if len(sels) == 0 {
		return none
	}
	return sels[0].String()
}

// trustSelectors is what fabricctl writes to the apptrust table: DSCP trust
// falls back to PCP for non-IP frames, like `dcb apptrust set … order dscp pcp`.
func trustSelectors(v string) ([]dcbnl.Selector, error) {
	switch v {
	case "dscp":
		return []dcbnl.Selector{dcbnl.SelDSCP, dcbnl.SelPCP}, nil
	case "pcp":
		return []dcbnl.Selector{dcbnl.SelPCP}, nil
	case none:
		return nil, nil
	}
	return nil, fmt.Errorf("parsing trust %q: not dscp, pcp or none: %w", v, ErrBadValue)
}

// bindTrust: the apptrust table when IEEE_GET carries it; the vendor
// qos/trust file when it exists; mlx5's implied trust otherwise (DSCP trust
// = selector-5 entries present). The vendor file goes before mlx5's
// implication because on MLNX_OFED it is the trust state itself, while the
// APP table may still be empty.
func (i *iface) bindTrust(ctx context.Context) binding {
	st, dcbWhy, dcbOK := i.dcbProbe(ctx)
	if dcbOK && st.HasTrust {
		return binding{knob: &knob{
			backend: BackendAppTrust,
			get:     i.ieeeField(func(s dcbnl.IEEEState) string { return trustOf(s.Trust) }),
			set: func(ctx context.Context, v string) error {
				sels, err := trustSelectors(v)
				if err != nil {
					return err
				}
				ch, err := i.h.DCB.UpdateTrust(ctx, i.name, sels)
				return converged(err, ch.Converged)
			},
		}}
	}
	if i.h.Sys.HasQoS(i.name) {
		return binding{knob: &knob{
			backend: BackendSysfsQoS,
			get:     func(ctx context.Context) (string, error) { return i.h.Sys.Trust(ctx, i.name) },
			set: func(ctx context.Context, v string) error {
				if v != "dscp" && v != "pcp" {
					return fmt.Errorf("parsing trust %q: not dscp or pcp: %w", v, ErrBadValue)
				}
				return i.h.Sys.SetTrust(ctx, i.name, v)
			},
		}}
	}
	if dcbOK && i.isMlx5() {
		get := i.ieeeField(func(s dcbnl.IEEEState) string {
			if len(dscpEntries(s.Apps)) > 0 {
				return "dscp"
			}
			return "pcp"
		})
		return binding{knob: &knob{
			backend: BackendMlx5AppDSCP,
			get:     get,
			set: func(ctx context.Context, v string) error {
				cur, err := get(ctx)
				if err != nil || cur == v {
					return err
				}
				return fmt.Errorf("mlx5 has no trust switch; trust follows the DSCP map, which must be %s for %s trust: %w",
					map[string]string{"dscp": "non-empty", "pcp": "empty"}[v], v, ErrNotConverged)
			},
		}}
	}
	if dcbWhy.err != nil {
		return dcbWhy
	}
	why := "no DCB netlink"
	if dcbOK {
		why = "no apptrust table in IEEE_GET"
	} else if dcbWhy.unsupported != "" {
		why = dcbWhy.unsupported
	}
	return unsupported(BackendAppTrust, "%s; no %s; not an mlx5 netdev (driver %s)", why,
		i.h.Sys.Path("class", "net", i.name, "qos", "trust"), cmpOr(i.driver, "unknown"))
}

// cc is a congestion-control backend: the vendor ecn tree or mlx5 debugfs.
// Points are "np" and "rp"; parameter names are the vendor sysfs names.
type cc interface {
	backend() string
	ecn(ctx context.Context, point string) (uint8, error)
	setECN(ctx context.Context, point string, bits uint8) error
	has(point, name string) (bool, string)
	param(ctx context.Context, point, name string) (int, error)
	setParam(ctx context.Context, point, name string, v int) error
	params(ctx context.Context, point string) ([]string, error)
}

type sysfsCC struct {
	fs     sysfs.FS
	ifname string
}

func (s sysfsCC) backend() string { return BackendSysfsECN }
func (s sysfsCC) dir(point string) string {
	return "roce_" + point
}
func (s sysfsCC) ecn(ctx context.Context, point string) (uint8, error) {
	return s.fs.ECNEnabled(ctx, s.ifname, s.dir(point))
}
func (s sysfsCC) setECN(ctx context.Context, point string, bits uint8) error {
	return s.fs.SetECNEnabled(ctx, s.ifname, s.dir(point), bits)
}
func (s sysfsCC) has(point, name string) (bool, string) {
	names, _ := s.fs.ECNParams(context.Background(), s.ifname, s.dir(point))
	if slices.Contains(names, name) {
		return true, ""
	}
	return false, fmt.Sprintf("no %s", s.fs.Path("class", "net", s.ifname, "ecn", s.dir(point), name))
}
func (s sysfsCC) param(ctx context.Context, point, name string) (int, error) {
	return s.fs.ECNParam(ctx, s.ifname, s.dir(point), name)
}
func (s sysfsCC) setParam(ctx context.Context, point, name string, v int) error {
	return s.fs.SetECNParam(ctx, s.ifname, s.dir(point), name, v)
}
func (s sysfsCC) params(ctx context.Context, point string) ([]string, error) {
	return s.fs.ECNParams(ctx, s.ifname, s.dir(point))
}

type debugfsCC struct{ cc debugfs.CCParams }

func (d debugfsCC) backend() string { return BackendDebugfsCC }
func (d debugfsCC) ecn(context.Context, string) (uint8, error) {
	return 0, fmt.Errorf("%w: upstream mlx5 has no per-priority ECN switch in %s; firmware decides (mlxconfig ROCE_CC_PRIO_MASK_P1)", ErrNotSupported, d.cc.Dir())
}
func (d debugfsCC) setECN(ctx context.Context, point string, _ uint8) error {
	_, err := d.ecn(ctx, point)
	return err
}
func (d debugfsCC) has(point, name string) (bool, string) {
	f, err := debugfs.FileName(point, name)
	if err != nil {
		return false, fmt.Sprintf("upstream mlx5 cc_params has nothing like roce_%s/%s", point, name)
	}
	names, _ := d.cc.Names(context.Background())
	if !slices.Contains(names, f) {
		return false, fmt.Sprintf("no %s/%s", d.cc.Dir(), f)
	}
	return true, ""
}
func (d debugfsCC) param(ctx context.Context, point, name string) (int, error) {
	f, err := debugfs.FileName(point, name)
	if err != nil {
		return 0, err
	}
	return d.cc.Get(ctx, f)
}
func (d debugfsCC) setParam(ctx context.Context, point, name string, v int) error {
	f, err := debugfs.FileName(point, name)
	if err != nil {
		return err
	}
	return d.cc.Set(ctx, f, v)
}
func (d debugfsCC) params(ctx context.Context, point string) ([]string, error) {
	files, err := d.cc.Names(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		if p, n, ok := debugfs.VendorName(f); ok && p == point {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// congestion chooses the congestion-control backend of the netdev.
func (i *iface) congestion() (cc, string) {
	if i.h.Sys.HasECN(i.name) {
		return sysfsCC{fs: i.h.Sys, ifname: i.name}, ""
	}
	if i.busID != "" {
		if c, err := i.h.Debug.CCParams(i.busID); err == nil {
			return debugfsCC{cc: c}, ""
		}
	}
	bdf := i.busID
	if bdf == "" {
		bdf = "<no PCI device>"
	}
	return nil, fmt.Sprintf("no %s and no %s", i.h.Sys.Path("class", "net", i.name, "ecn"), i.h.Debug.Path("mlx5", bdf, "cc_params"))
}

func (i *iface) bindCC(_ context.Context, setting string) binding {
	c, why := i.congestion()
	if c == nil {
		return unsupported(BackendSysfsECN, "%s", why)
	}
	if setting == SettingECNNP || setting == SettingECNRP {
		point := strings.TrimPrefix(setting, "ecn.")
		if _, err := c.ecn(context.Background(), point); errors.Is(err, ErrNotSupported) {
			return unsupported(c.backend(), "%s", strings.TrimPrefix(err.Error(), ErrNotSupported.Error()+": "))
		}
		return binding{knob: &knob{
			backend: c.backend(),
			get: func(ctx context.Context) (string, error) {
				b, err := c.ecn(ctx, point)
				return formatPrios(b), err
			},
			set: func(ctx context.Context, v string) error {
				bits, err := parsePrios(v)
				if err != nil {
					return err
				}
				return c.setECN(ctx, point, bits)
			},
		}}
	}
	point, name, lo, hi := "", "", 0, 1<<32-1
	switch {
	case setting == SettingCNPDSCP:
		point, name, hi = "np", "cnp_dscp", 63
	case setting == SettingCNPPriority:
		point, name, hi = "np", "cnp_802p_prio", 7
	default:
		rest := strings.TrimPrefix(setting, "dcqcn.")
		point, name, _ = strings.Cut(rest, ".")
	}
	if ok, why := c.has(point, name); !ok {
		return unsupported(c.backend(), "%s", why)
	}
	return binding{knob: &knob{
		backend: c.backend(),
		get: func(ctx context.Context) (string, error) {
			v, err := c.param(ctx, point, name)
			return strconv.Itoa(v), err
		},
		set: func(ctx context.Context, v string) error {
			n, err := parseInt(v, lo, hi)
			if err != nil {
				return err
			}
			return c.setParam(ctx, point, name, n)
		},
	}}
}

func (i *iface) bindRoCE(ctx context.Context, setting string) binding {
	port, err := i.rdmaPort(ctx)
	if err != nil {
		return binding{backend: BackendConfigfs, err: err}
	}
	cfg := i.h.Config
	if err := cfg.Ready(ctx); err != nil {
		return binding{backend: BackendConfigfs, err: err}
	}
	k := &knob{backend: BackendConfigfs}
	if setting == SettingRoCEMode {
		k.get = func(ctx context.Context) (string, error) { return cfg.Mode(ctx, port.Device, port.Port) }
		k.set = func(ctx context.Context, v string) error {
			// rxe takes only "RoCE v2": the kernel's EINVAL means the device cannot.
			return notSupportedIf(cfg.SetMode(ctx, port.Device, port.Port, v), syscall.EINVAL)
		}
	} else {
		k.get = func(ctx context.Context) (string, error) {
			t, err := cfg.ToS(ctx, port.Device, port.Port)
			return strconv.Itoa(t), err
		}
		k.set = func(ctx context.Context, v string) error {
			t, err := parseInt(v, 0, 255)
			if err != nil {
				return err
			}
			return cfg.SetToS(ctx, port.Device, port.Port, t)
		}
	}
	return binding{knob: k}
}
