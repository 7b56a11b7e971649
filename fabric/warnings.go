package fabric

import (
	"fmt"
	"regexp"
	"strings"
)

// Warnings: intents that validate and apply, and that a RoCE engineer would
// still stop at. Each has a stable code (docs/fabric-yaml.md, "Warnings");
// validate prints them and exits 0 when there is nothing else. Warnings are
// looked for only in profiles and hosts that validated: on a broken part
// they would be guesses.

// Warning codes.
const (
	// WarnNoCNPClass: lossless (or ECN-only) RoCE without roce.cnpClass.
	WarnNoCNPClass = "no-cnp-class"
	// WarnNoPFCWatchdog: a lossless class and no enabled pfc.watchdog.
	WarnNoPFCWatchdog = "no-pfc-watchdog"
	// WarnLosslessECNOff: a lossless class with `ecn: off`.
	WarnLosslessECNOff = "lossless-ecn-off"
	// WarnCNPClassNotStrict: the CNP class shares bandwidth instead of strict priority.
	WarnCNPClassNotStrict = "cnp-class-not-strict"
	// WarnDCQCNDisabled: the RoCE class marks ECN but hosts do not react.
	WarnDCQCNDisabled = "dcqcn-disabled"
	// WarnRoCEMTUBelow4096: the host MTU leaves RoCE below its 4096-byte MTU.
	WarnRoCEMTUBelow4096 = "roce-mtu-below-4096"
	// WarnRDMADeviceInterface: a host interface named like an RDMA device.
	WarnRDMADeviceInterface = "rdma-device-as-interface"
)

// Warnings returns the warnings of the load, sorted by position (nil when
// there are none). Commands print them on stderr before their results.
func (f *Fabric) Warnings() Warnings { return f.warnings }

// pwarn records a warning at path inside the current profile.
func (v *validator) pwarn(path, code, format string, args ...any) {
	if v.warns == nil || len(*v.warns) >= maxErrors {
		return
	}
	w := newError(v.at(v.doc, v.prefix+path), v.prefix+path, format, args...)
	*v.warns = append(*v.warns, &Warning{Pos: w.Pos, Path: w.Path, Code: code, Msg: w.Msg})
}

// fwarn records a warning at path inside the fabric document.
func (v *validator) fwarn(path, code, format string, args ...any) {
	if v.warns == nil || len(*v.warns) >= maxErrors {
		return
	}
	pos := v.at("fabric", path)
	if pos.File == "" {
		pos = v.f.Source
	}
	w := newError(pos, path, format, args...)
	*v.warns = append(*v.warns, &Warning{Pos: w.Pos, Path: w.Path, Code: code, Msg: w.Msg})
}

// profileWarnings looks at a profile that validated without error.
func (v *validator) profileWarnings(p *Profile) {
	e := p.Spec.Ethernet
	if e == nil {
		return
	}
	const base = "spec.ethernet."
	var lossless []string
	for i := range e.Classes {
		c := &e.Classes[i]
		if !c.Lossless {
			continue
		}
		lossless = append(lossless, fmt.Sprintf("%q", c.Name))
		if c.ECN != nil && c.ECN.Off {
			v.pwarn(fmt.Sprintf("%sclasses[%d].ecn", base, i), WarnLosslessECNOff,
				"lossless class %q has ECN off: without marks DCQCN never slows the senders, so congestion is met by PFC pauses alone, which spread to flows that cause none (head-of-line blocking); give it thresholds such as {minThreshold: 150KB, maxThreshold: 1500KB}", c.Name)
		}
	}
	if len(lossless) > 0 {
		switch w := watchdogOf(e); {
		case w == nil:
			v.pwarn(base+"pfc.watchdog", WarnNoPFCWatchdog,
				"lossless class %s has no PFC watchdog: a NIC or host that stops draining its queue pauses its switch port without end, and the pause spreads through the fabric (a PFC storm); set pfc.watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms, action: drop}",
				strings.Join(lossless, ", "))
		case !w.Enabled:
			v.pwarn(base+"pfc.watchdog.enabled", WarnNoPFCWatchdog,
				"the PFC watchdog is disabled while class %s is lossless: a NIC or host that stops draining its queue pauses its switch port without end, and the pause spreads through the fabric (a PFC storm); set enabled: true",
				strings.Join(lossless, ", "))
		}
	}
	v.cnpWarnings(e, len(lossless) > 0)
	r := e.RoCE
	if r == nil {
		return
	}
	if r.DCQCN != nil && r.DCQCN.Enabled != nil && !*r.DCQCN.Enabled {
		if c := classNamed(e, r.Class); c != nil && c.ECN != nil && !c.ECN.Off {
			v.pwarn(base+"roce.dcqcn.enabled", WarnDCQCNDisabled,
				"switches ECN-mark class %q, but DCQCN is disabled: the hosts ignore the marks and congestion falls to PFC (or to drops on a lossy class)", r.Class)
		}
	}
	if got := roceMTU(e.MTU); got > 0 && got < 4096 {
		v.pwarn(base+"mtu", WarnRoCEMTUBelow4096,
			"host MTU %d gives RoCE an active MTU of %d: the kernel takes %d bytes of RoCE headers off the netdev MTU, so RoCE's 4096 needs an MTU of at least %d (9000 for jumbo frames)",
			e.MTU, got, roceHeaderBytes, 4096+roceHeaderBytes)
	}
}

// cnpWarnings looks at where congestion notification packets go.
func (v *validator) cnpWarnings(e *Ethernet, lossless bool) {
	const base = "spec.ethernet."
	r := e.RoCE
	if r != nil && r.CNPClass != "" {
		if c := classNamed(e, r.CNPClass); c != nil && !c.ETS.Strict {
			v.pwarn(base+"roce.cnpClass", WarnCNPClassNotStrict,
				"CNP class %q shares bandwidth (ets: bandwidthPercent) instead of strict priority: under congestion, exactly when they matter, CNPs wait their turn behind queued data and DCQCN reacts late; give the class ets: {strict: true}", r.CNPClass)
		}
		return
	}
	if !lossless && (r == nil || !r.AllowLossy) {
		return
	}
	// Without a cnpClass, hosts keep the NIC's default: DSCP 48 and
	// priority 6 (resolve.go). Say which class the switches put that in.
	field := "DSCP 48"
	if e.Trust == "pcp" {
		field = "priority 6"
	}
	path := base + "roce.cnpClass"
	if r == nil {
		path = base + "roce"
	}
	const head = "no CNP class: congestion notification packets keep the NIC's default (DSCP 48, priority 6)"
	c := cnpDefaultClass(e)
	switch {
	case c != nil && !(c.DSCP.Rest && e.Trust != "pcp"):
		// A class of its own takes them already: say so.
		also := ""
		if !c.ETS.Strict {
			also = ", and give it ets: {strict: true} so that CNPs overtake queued data"
		}
		v.pwarn(path, WarnNoCNPClass, "%s, which class %q takes; set roce.cnpClass: %s to say so%s", unclipped(head), c.Name, c.Name, unclipped(also))
		return
	case c != nil:
		kind := "lossy"
		if c.Lossless {
			kind = "lossless"
		}
		v.pwarn(path, WarnNoCNPClass,
			"%s, and %s falls in class %q (dscp: rest, %s) behind bulk traffic, which delays DCQCN's reaction; add a class such as {name: cnp, priority: 6, dscp: [48], ets: {strict: true}} and set roce.cnpClass",
			unclipped(head), field, c.Name, kind)
	default:
		v.pwarn(path, WarnNoCNPClass,
			"%s, and %s is in no class of this profile: the switches queue CNPs wherever their defaults put them; add a class such as {name: cnp, priority: 6, dscp: [48], ets: {strict: true}} and set roce.cnpClass",
			unclipped(head), field)
	}
}

// cnpDefaultClass is the class the switches put CNPs in when hosts send
// them with the NIC's default DSCP 48 / priority 6, or nil.
func cnpDefaultClass(e *Ethernet) *Class {
	var rest *Class
	for i := range e.Classes {
		c := &e.Classes[i]
		if e.Trust == "pcp" {
			if c.Priority != nil && *c.Priority == 6 {
				return c
			}
			continue
		}
		if containsInt(c.DSCP.Values, 48) {
			return c
		}
		if c.DSCP.Rest {
			rest = c
		}
	}
	return rest
}

func watchdogOf(e *Ethernet) *Watchdog {
	if e.PFC == nil {
		return nil
	}
	return e.PFC.Watchdog
}

func classNamed(e *Ethernet, name string) *Class {
	for i := range e.Classes {
		if e.Classes[i].Name == name {
			return &e.Classes[i]
		}
	}
	return nil
}

// roceHeaderBytes is what the kernel's iboe_get_mtu takes off a netdev MTU
// for RoCE headers (GRH 40, UDP 8, BTH 12, XRC 4, AtomicETH 28, ICRC 4).
const roceHeaderBytes = 96

// roceMTU is the active RoCE MTU of a netdev MTU (iboe_get_mtu), 0 below 256.
func roceMTU(netdev int) int {
	for _, m := range []int{4096, 2048, 1024, 512, 256} {
		if netdev-roceHeaderBytes >= m {
			return m
		}
	}
	return 0
}

// rdmaDeviceRE matches the names RDMA drivers give their devices (the
// kernel's ib_register_device name formats, rxe/siw links as usually
// named, and rdma-core's persistent names such as rocep59s0f0), none of
// which is a netdev naming scheme.
var rdmaDeviceRE = regexp.MustCompile(`^(` +
	`mlx[45]_(bond_)?[0-9]+|mthca[0-9]+|` + // NVIDIA/Mellanox
	`rxe[_0-9].*|siw[_0-9].*|` + // soft-RoCE, soft-iWARP (rdma link add NAME)
	`irdma[0-9]+|i40iw[0-9]+|` + // Intel
	`bnxt_re[0-9]+|` + // Broadcom
	`efa_[0-9]+|erdma_[0-9]+|mana_[0-9]+|ionic_[0-9]+|` + // AWS, Alibaba, Microsoft, AMD Pensando
	`qedr[0-9]+|hns_[0-9]+|cxgb4_[0-9]+|ocrdma[0-9]+|vmw_pvrdma[0-9]+|usnic_[0-9]+|hfi1_[0-9]+|qib[0-9]+|` +
	`(roce|iw)[opsx][0-9a-f].*` + // rdma-core persistent naming (NAME_FALLBACK)
	`)$`)

// rdmaDriver names the driver family a device name points at.
func rdmaDriver(name string) string {
	for _, p := range []struct{ prefix, driver string }{
		{"mlx5_", "mlx5"}, {"mlx4_", "mlx4"}, {"mthca", "mthca"}, {"rxe", "rdma_rxe"}, {"siw", "siw"},
		{"irdma", "irdma"}, {"i40iw", "i40iw"}, {"bnxt_re", "bnxt_re"}, {"efa_", "efa"}, {"erdma_", "erdma"},
		{"mana_", "mana_ib"}, {"ionic_", "ionic"}, {"qedr", "qedr"}, {"hns_", "hns_roce"}, {"cxgb4_", "iw_cxgb4"},
		{"ocrdma", "ocrdma"}, {"vmw_pvrdma", "vmw_pvrdma"}, {"usnic_", "usnic"}, {"hfi1_", "hfi1"}, {"qib", "qib"},
		{"roce", "rdma-core persistent naming"}, {"iw", "rdma-core persistent naming"},
	} {
		if strings.HasPrefix(name, p.prefix) {
			return p.driver
		}
	}
	return "RDMA"
}

// hostWarnings looks at the hosts that validated.
func (v *validator) hostWarnings() {
	if v.rdmaNames == nil {
		v.rdmaNames = matchMemo{} // interface names repeat across thousands of hosts
	}
	for i, h := range v.f.Spec.Hosts {
		if v.warns != nil && len(*v.warns) >= maxErrors {
			return
		}
		hp := fmt.Sprintf("spec.hosts[%d]", i)
		if v.partial("fabric", hp+".interfaces") {
			continue
		}
		for j, ifn := range h.Interfaces {
			if !v.ifnames.match(ifnameRE, ifn) || !v.rdmaNames.match(rdmaDeviceRE, ifn) {
				continue
			}
			v.fwarn(fmt.Sprintf("%s.interfaces[%d]", hp, j), WarnRDMADeviceInterface,
				"%q is named like an RDMA device (%s), not a network interface: interfaces lists netdevs such as ens1f0np0 (`rdma link show` or ibdev2netdev maps %s to its netdev); fabricctl cannot look at the host when validating, so this is judged by the name alone",
				ifn, rdmaDriver(ifn), ifn)
		}
	}
}
