package dcbfake

import (
	"slices"
	"syscall"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
)

// Flavour selects the driver a fake device models.
type Flavour int

const (
	noDCB Flavour = iota // a netdev without dcbnl ops (AddDeviceWithoutDCB)

	// Generic is a driver with every IEEE op, app trust included (as the
	// Microchip switch drivers have), storing what it is given; the APP and
	// rewrite tables are the kernel's own lists.
	Generic

	// MLX5 models mlx5_core's en_dcbnl.c: no app trust op (trust follows the
	// DSCP APP entries), DSCP-only APP entries with one entry per DSCP
	// (adding replaces, deleting needs the current priority), a link flap
	// whenever pfc_en changes, PFC delay kept as the cable length, maxrate
	// rounded to the firmware's units, buffers rounded to 128-byte cells,
	// ETS reporting only tx bandwidth, TSA and prio_tc, and the initial
	// prio_tc of prio0→tc1, prio1→tc0.
	MLX5
)

func (f Flavour) String() string {
	switch f {
	case Generic:
		return "generic"
	case MLX5:
		return "mlx5"
	}
	return "no-dcb"
}

const (
	mlx5DefaultCableLen = 7         // MLX5E_DEFAULT_CABLE_LEN
	mlx5MaxCableLen     = 1000      // MLX5E_MAX_CABLE_LENGTH: larger delays are ignored
	mlx5Unit100Mbps     = 100_000   // MLX5E_100MB in kbit/s
	mlx5Unit1Gbps       = 1_000_000 // MLX5E_1GB in kbit/s
	mlx5BufferCell      = 128       // MLX5E_BUFFER_CELL_SIZE
	portBufferTotal     = 327680    // the fake port's total receive buffer
)

// device is one netdev's DCB state, as its driver and the kernel keep it.
type device struct {
	name    string
	ifindex int
	flavour Flavour

	ets            dcbnl.ETS
	pfcEn, mbc     uint8
	delay          uint16 // mlx5: the cable length
	pfcRequests    [8]uint64
	pfcIndications [8]uint64
	maxrate        dcbnl.Maxrate
	buffer         dcbnl.Buffer
	apps           []dcbnl.App // the kernel's dcb_app_list for this ifindex, newest first
	rewr           []dcbnl.App // dcb_rewr_list, newest first
	trust          []dcbnl.Selector
	dcbx           uint8
	linkFlaps      int

	// mlx5 only
	dscp2prio  [64]uint8
	dscpAppCnt int
}

func newDevice(name string, ifindex int, f Flavour) *device {
	d := &device{name: name, ifindex: ifindex, flavour: f}
	d.buffer.TotalSize = portBufferTotal
	switch f {
	case MLX5:
		// mlx5e_ets_init: every TC vendor-scheduled at 100%, prio0→tc1, prio1→tc0.
		for i := range 8 {
			d.ets.TCTxBW[i] = 100
			d.ets.TCTSA[i] = dcbnl.TSAVendor
			d.ets.PrioTC[i] = uint8(i)
		}
		d.ets.PrioTC[0], d.ets.PrioTC[1] = 1, 0
		d.delay = mlx5DefaultCableLen
		d.dcbx = dcbnl.DCBXVerCEE | dcbnl.DCBXVerIEEE // firmware-managed DCBX
		d.buffer.BufferSize[0] = 130944
	default:
		for i := range 8 {
			d.ets.PrioTC[i] = uint8(i)
		}
		d.dcbx = dcbnl.DCBXHostIEEE
		d.buffer.BufferSize[0] = 131072
	}
	return d
}

// VendorTrustDSCP starts an MLX5 device as the vendor tools leave it after
// "mlnx_qos --trust dscp": trust DSCP, with all 64 DSCP APP entries mapping
// DSCP d to priority d>>3 (mlx5e_dcbnl_dscp_app at driver load).
func VendorTrustDSCP() Option {
	return func(d *device) {
		for dscp := range 64 {
			app := dcbnl.App{Selector: dcbnl.SelDSCP, Protocol: uint16(dscp), Priority: uint8(dscp >> 3)}
			d.dscp2prio[dscp] = app.Priority
			d.apps = slices.Insert(d.apps, 0, app)
		}
		d.dscpAppCnt = 64
	}
}

func (d *device) hasAppTrust() bool { return d.flavour == Generic }

// view is what the driver's get ops report (what IEEE_GET carries).
func (d *device) view() dcbnl.IEEEState {
	st := dcbnl.IEEEState{
		IfName:  d.name,
		Apps:    slices.Clone(d.apps),
		Rewr:    slices.Clone(d.rewr),
		HasRewr: true, // the kernel always emits the rewrite table (Linux 6.3+)
		DCBX:    d.dcbx,
		HasDCBX: true,
	}
	ets := d.ets
	ets.ETSCap = 8
	if d.flavour == MLX5 {
		// mlx5e_dcbnl_ieee_getets reports only these.
		ets = dcbnl.ETS{ETSCap: 8, TCTxBW: d.ets.TCTxBW, TCTSA: d.ets.TCTSA, PrioTC: d.ets.PrioTC}
	}
	st.ETS = &ets
	st.PFC = &dcbnl.PFC{PFCCap: 8, PFCEn: d.pfcEn, MBC: d.mbc, Delay: d.delay,
		Requests: d.pfcRequests, Indications: d.pfcIndications}
	mr := d.maxrate
	st.Maxrate = &mr
	buf := d.buffer
	st.Buffer = &buf
	if d.hasAppTrust() {
		st.Trust, st.HasTrust = slices.Clone(d.trust), true
	}
	if st.Apps == nil {
		st.Apps = []dcbnl.App{}
	}
	return st
}

// validETS is the validation both flavours apply (mlx5e_dbcnl_validate_ets
// and the TSA switch of mlx5e_dcbnl_ieee_setets_core): prio_tc below 8,
// known TSAs (mlx5 has no CBS), no bandwidth above 100, and the ETS TCs'
// bandwidth summing to 100 when there are any.
func (d *device) validETS(e dcbnl.ETS) bool {
	sum, haveETS := 0, false
	for i := range 8 {
		if e.PrioTC[i] >= 8 || e.TCTxBW[i] > 100 {
			return false
		}
		switch e.TCTSA[i] {
		case dcbnl.TSAStrict, dcbnl.TSAVendor:
		case dcbnl.TSAETS:
			haveETS = true
			sum += int(e.TCTxBW[i])
		case dcbnl.TSACBS:
			if d.flavour == MLX5 {
				return false
			}
		default:
			return false
		}
	}
	return !haveETS || sum == 100
}

func (d *device) setETS(b []byte) syscall.Errno {
	var e dcbnl.ETS
	if err := e.UnmarshalBinary(b); err != nil {
		return syscall.ERANGE
	}
	if !d.validETS(e) {
		return syscall.EINVAL
	}
	if d.flavour == MLX5 {
		d.ets.TCTxBW, d.ets.TCTSA, d.ets.PrioTC = e.TCTxBW, e.TCTSA, e.PrioTC
		return 0
	}
	d.ets = e
	return 0
}

func (d *device) setPFC(b []byte) syscall.Errno {
	var p dcbnl.PFC
	if err := p.UnmarshalBinary(b); err != nil {
		return syscall.ERANGE
	}
	if d.flavour != MLX5 {
		d.pfcEn, d.mbc, d.delay = p.PFCEn, p.MBC, p.Delay
		return 0
	}
	// mlx5e_dcbnl_ieee_setpfc: a changed pfc_en is written and the port
	// link toggled; a delay in (0, 1000) becomes the cable length; mbc is
	// not supported.
	if p.PFCEn != d.pfcEn {
		d.pfcEn = p.PFCEn
		d.linkFlaps++
	}
	if p.Delay != 0 && p.Delay < mlx5MaxCableLen {
		d.delay = p.Delay
	}
	return 0
}

func (d *device) setMaxrate(b []byte) syscall.Errno {
	var m dcbnl.Maxrate
	if err := m.UnmarshalBinary(b); err != nil {
		return syscall.ERANGE
	}
	if d.flavour == MLX5 {
		// mlx5e_dcbnl_ieee_setmaxrate: 100 Mbit/s units up to 255 of them
		// (at least 1), then 1 Gbit/s units up to 255, beyond that EINVAL.
		for i, r := range m.TCMaxrate {
			switch {
			case r == 0:
			case r <= 255*mlx5Unit100Mbps:
				m.TCMaxrate[i] = max(r/mlx5Unit100Mbps, 1) * mlx5Unit100Mbps
			case r <= 255*mlx5Unit1Gbps:
				m.TCMaxrate[i] = r / mlx5Unit1Gbps * mlx5Unit1Gbps
			default:
				return syscall.EINVAL
			}
		}
	}
	d.maxrate = m
	return 0
}

func (d *device) setBuffer(b []byte) syscall.Errno {
	var bu dcbnl.Buffer
	if err := bu.UnmarshalBinary(b); err != nil {
		return syscall.ERANGE
	}
	// dcbnl_ieee_set itself rejects a buffer index beyond DCBX_MAX_BUFFERS.
	for _, p := range bu.Prio2Buffer {
		if p >= dcbnl.MaxBuffers {
			return syscall.EINVAL
		}
	}
	var total uint64
	for i, s := range bu.BufferSize {
		if d.flavour == MLX5 {
			s = s / mlx5BufferCell * mlx5BufferCell
			bu.BufferSize[i] = s
		}
		total += uint64(s)
	}
	if total > portBufferTotal {
		return syscall.EINVAL
	}
	d.buffer.Prio2Buffer, d.buffer.BufferSize = bu.Prio2Buffer, bu.BufferSize
	return 0
}

// kernelSetApp is dcb_ieee_setapp / dcb_setrewr: an exact duplicate is
// EEXIST, anything else is added at the head of the list.
func kernelSetApp(list *[]dcbnl.App, a dcbnl.App) syscall.Errno {
	if slices.Contains(*list, a) {
		return syscall.EEXIST
	}
	*list = slices.Insert(*list, 0, a)
	return 0
}

// kernelDelApp is dcb_ieee_delapp / dcb_delrewr: only an exact match goes.
func kernelDelApp(list *[]dcbnl.App, a dcbnl.App) syscall.Errno {
	i := slices.Index(*list, a)
	if i < 0 {
		return syscall.ENOENT
	}
	*list = slices.Delete(*list, i, i+1)
	return 0
}

func (d *device) setRewr(a dcbnl.App) syscall.Errno { return kernelSetApp(&d.rewr, a) }
func (d *device) delRewr(a dcbnl.App) syscall.Errno { return kernelDelApp(&d.rewr, a) }

func (d *device) setApp(a dcbnl.App) syscall.Errno {
	if d.flavour != MLX5 {
		return kernelSetApp(&d.apps, a)
	}
	// mlx5e_dcbnl_ieee_setapp.
	if a.Selector != dcbnl.SelDSCP || a.Protocol >= 64 {
		return syscall.EINVAL
	}
	old := dcbnl.App{Selector: dcbnl.SelDSCP, Protocol: a.Protocol, Priority: d.dscp2prio[a.Protocol]}
	d.dscp2prio[a.Protocol] = a.Priority // trust switches to DSCP with the first entry
	isNew := kernelDelApp(&d.apps, old) != 0
	if errno := kernelSetApp(&d.apps, a); errno != 0 {
		return errno
	}
	if isNew {
		d.dscpAppCnt++
	}
	return 0
}

func (d *device) delApp(a dcbnl.App) syscall.Errno {
	if d.flavour != MLX5 {
		return kernelDelApp(&d.apps, a)
	}
	// mlx5e_dcbnl_ieee_delapp.
	if a.Selector != dcbnl.SelDSCP || a.Protocol >= 64 {
		return syscall.EINVAL
	}
	if d.dscpAppCnt == 0 || a.Priority != d.dscp2prio[a.Protocol] {
		return syscall.ENOENT
	}
	if errno := kernelDelApp(&d.apps, a); errno != 0 {
		return errno
	}
	d.dscp2prio[a.Protocol] = 0
	d.dscpAppCnt-- // at 0 trust falls back to PCP
	return 0
}

// setDCBX returns the driver's status: 0 accepted, 1 refused.
func (d *device) setDCBX(mode uint8) uint8 {
	if mode&dcbnl.DCBXLLDManaged != 0 {
		return 1
	}
	if d.flavour == MLX5 {
		// mlx5e_dcbnl_setdcbx: 0 hands DCBX back to the firmware.
		if mode == 0 {
			d.dcbx &^= dcbnl.DCBXHost
			return 0
		}
		if mode&dcbnl.DCBXHost == 0 {
			return 1
		}
		d.dcbx = mode
		return 0
	}
	// A host-only IEEE or CEE agent, exactly one version.
	ver := mode & (dcbnl.DCBXVerCEE | dcbnl.DCBXVerIEEE)
	if mode&dcbnl.DCBXHost == 0 || (ver != dcbnl.DCBXVerCEE && ver != dcbnl.DCBXVerIEEE) {
		return 1
	}
	d.dcbx = mode
	return 0
}
