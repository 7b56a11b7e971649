package hostcfg

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/intset"
)

// Setting names: Change.Setting and SettingState.Setting. Parametrised
// settings are built with DCQCNSetting, IPoIBSetting and PKeySetting.
const (
	SettingMTU         = "mtu"          // netlink IFLA_MTU
	SettingDCBX        = "dcbx"         // DCB_CMD_SDCBX / IEEE_GET DCB_ATTR_DCBX
	SettingGlobalPause = "global-pause" // ethtool pause parameters
	SettingDSCPMap     = "dscp-map"     // APP table, selector 5
	SettingTrust       = "trust"        // apptrust, qos/trust or mlx5's implied trust
	SettingETS         = "ets"          // ieee_ets prio_tc, tc_tsa, tc_tx_bw
	SettingPFCDelay    = "pfc.delay"    // ieee_pfc.delay (mlx5: cable length in metres)
	SettingPFCEnable   = "pfc.enable"   // ieee_pfc.pfc_en
	SettingECNNP       = "ecn.np"       // ecn/roce_np/enable/<p>
	SettingECNRP       = "ecn.rp"       // ecn/roce_rp/enable/<p>
	SettingCNPDSCP     = "cnp.dscp"     // ecn/roce_np/cnp_dscp | cc_params/np_cnp_dscp
	SettingCNPPriority = "cnp.priority" // ecn/roce_np/cnp_802p_prio | cc_params/np_cnp_prio
	SettingRoCEMode    = "roce.mode"    // configfs rdma_cm default_roce_mode
	SettingRoCEToS     = "roce.tos"     // configfs rdma_cm default_roce_tos

	prefixDCQCNNP = "dcqcn.np."
	prefixDCQCNRP = "dcqcn.rp."
	prefixIPoIB   = "ipoib."
	prefixPKey    = "pkey."
)

// DCQCNSetting names a DCQCN parameter of point "np" or "rp" by its vendor
// sysfs file name: DCQCNSetting("rp", "rpg_ai_rate") = "dcqcn.rp.rpg_ai_rate".
func DCQCNSetting(point, name string) string { return "dcqcn." + point + "." + name }

// IPoIBSetting names the presence of an IPoIB child for pkey: "ipoib.0x8002".
func IPoIBSetting(pkey uint16) string { return prefixIPoIB + pkeyText(pkey|0x8000) }

// PKeySetting names a port's membership in a partition: "pkey.0x0002".
func PKeySetting(pkey uint16) string { return prefixPKey + pkeyText(pkey&^0x8000) }

func pkeyText(k uint16) string { return "0x" + leftPad(strconv.FormatUint(uint64(k), 16), 4) }

func leftPad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

// settingSpec is everything hostcfg knows about one setting, in one place:
// its name (a family of parametrised settings when it ends in "."), the
// backend it binds to on an interface, what an interface intent wants of
// it, why changing it interrupts traffic, and whether `host show` lists it.
// Apply order, the show list, binding and disruption all derive from
// settingSpecs; adding a setting is one row there.
type settingSpec struct {
	name string
	// show: `host show` observes it on an interface with no intent.
	show bool
	// disruption says why changing it interrupts traffic; "" when it does not.
	disruption string
	// disruptionOf, when set, says it from the values instead: why changing
	// the setting from old to new interrupts traffic, given the priorities
	// PFC pauses before or after (lossless), or "".
	disruptionOf func(old, new string, lossless uint8) string
	// flaps: a disruptive change takes the link down and up.
	flaps bool
	// bind chooses the backend serving the setting on i (DESIGN.md §4.1);
	// nil for settings that live outside a netdev (pkeys, partitions.go).
	bind func(i *iface, ctx context.Context, setting string) binding
	// desired returns what in wants of the setting: nothing when in leaves
	// it unmanaged. Nil for the partition settings (partitionSettings).
	desired func(in fabric.InterfaceIntent) []desiredValue
}

// settingSpecs, in apply order. MTU first (a netdev property); DCBX before
// anything IEEE; global pause off before PFC goes on; the DSCP map before
// trust so that turning DSCP trust on classifies by the new map; ETS and
// the PFC delay before pfc_en; congestion control after the classes exist;
// the RoCE defaults last, once the class they point at is lossless;
// partitions after everything per-netdev.
//
// What the intent leaves unset is not managed:
//   - MTU 0: the MTU is left alone;
//   - Trust "": no QoS at all (DCBX, pause, DSCP map, trust, ETS, PFC, ECN, CNP, DCQCN);
//   - DCBX 0: the DCBX mode is left alone;
//   - PFC.Delay 0: the PFC delay (mlx5's cable length, which ignores 0) is left alone;
//   - RoCE.Mode "": neither default_roce_mode nor default_roce_tos is written;
//   - DCQCN parameters not listed in NP/RP are left alone.
//
// ECN.Priorities drive roce_np/enable (CNP generation); roce_rp/enable (the
// DCQCN rate limiter) follows them when DCQCN.Enabled and is off otherwise.
var settingSpecs = []settingSpec{
	{name: SettingMTU, show: true,
		disruption: "changing the MTU resets the queues (the link may flap) and drops packets larger than the new MTU",
		flaps:      true,
		bind:       func(i *iface, _ context.Context, _ string) binding { return i.bindMTU() },
		desired: func(in fabric.InterfaceIntent) []desiredValue {
			return wantIf(in.MTU > 0, SettingMTU, func() string { return strconv.Itoa(in.MTU) })
		}},
	{name: SettingDCBX, show: true, bind: bindDCB,
		desired: qos(func(in fabric.InterfaceIntent) []desiredValue {
			return wantIf(in.DCBX != 0, SettingDCBX, func() string { return formatDCBX(in.DCBX) })
		})},
	{name: SettingGlobalPause, show: true,
		bind:    func(i *iface, ctx context.Context, _ string) binding { return i.bindPause(ctx) },
		desired: qosValue(SettingGlobalPause, func(in fabric.InterfaceIntent) string { return formatPause(pauseFor(in.GlobalPause)) })},
	{name: SettingDSCPMap, show: true, bind: bindDCB, disruptionOf: dscpMapDisruption,
		desired: qosValue(SettingDSCPMap, func(in fabric.InterfaceIntent) string { return formatDSCPMap(in.DSCPMap) })},
	{name: SettingTrust, show: true, disruption: "changing trust reclassifies every packet",
		bind:    func(i *iface, ctx context.Context, _ string) binding { return i.bindTrust(ctx) },
		desired: qosValue(SettingTrust, func(in fabric.InterfaceIntent) string { return in.Trust })},
	{name: SettingETS, show: true, bind: bindDCB,
		desired: qosValue(SettingETS, func(in fabric.InterfaceIntent) string {
			return formatETS(etsValue{PrioTC: in.ETS.PrioTC, TSA: in.ETS.TSA, Bandwidth: in.ETS.Bandwidth})
		})},
	{name: SettingPFCDelay, show: true, bind: bindDCB,
		desired: qos(func(in fabric.InterfaceIntent) []desiredValue {
			return wantIf(in.PFC.Delay > 0, SettingPFCDelay, func() string { return strconv.Itoa(int(in.PFC.Delay)) })
		})},
	{name: SettingPFCEnable, show: true, disruption: "changing pfc_en flaps the link on mlx5", flaps: true, bind: bindDCB,
		desired: qosValue(SettingPFCEnable, func(in fabric.InterfaceIntent) string {
			return formatPrios(in.PFC.Enable | prioBits(in.PFC.Priorities))
		})},
	{name: SettingECNNP, show: true, bind: bindCC,
		desired: qosValue(SettingECNNP, func(in fabric.InterfaceIntent) string { return formatPrios(prioBits(in.ECN.Priorities)) })},
	{name: SettingECNRP, show: true, bind: bindCC,
		desired: qosValue(SettingECNRP, func(in fabric.InterfaceIntent) string {
			if !in.DCQCN.Enabled {
				return formatPrios(0)
			}
			return formatPrios(prioBits(in.ECN.Priorities))
		})},
	{name: SettingCNPDSCP, show: true, bind: bindCC,
		desired: qosValue(SettingCNPDSCP, func(in fabric.InterfaceIntent) string { return strconv.Itoa(in.CNP.DSCP) })},
	{name: SettingCNPPriority, show: true, bind: bindCC,
		desired: qosValue(SettingCNPPriority, func(in fabric.InterfaceIntent) string { return strconv.Itoa(in.CNP.Priority) })},
	{name: prefixDCQCNNP, bind: bindCC,
		desired: qos(func(in fabric.InterfaceIntent) []desiredValue { return dcqcnValues("np", in.DCQCN.NP) })},
	{name: prefixDCQCNRP, bind: bindCC,
		desired: qos(func(in fabric.InterfaceIntent) []desiredValue { return dcqcnValues("rp", in.DCQCN.RP) })},
	{name: SettingRoCEMode, show: true, bind: bindRoCE,
		desired: func(in fabric.InterfaceIntent) []desiredValue {
			return wantIf(in.RoCE.Mode != "", SettingRoCEMode, func() string { return in.RoCE.Mode })
		}},
	{name: SettingRoCEToS, show: true, bind: bindRoCE,
		desired: func(in fabric.InterfaceIntent) []desiredValue {
			return wantIf(in.RoCE.Mode != "", SettingRoCEToS, func() string { return strconv.Itoa(in.RoCE.ToS) })
		}},
	{name: prefixIPoIB, bind: func(i *iface, _ context.Context, setting string) binding { return i.bindIPoIB(setting) }},
	{name: prefixPKey},
}

// The binders shared by several settings.
var (
	bindDCB  = (*iface).bindDCB
	bindCC   = (*iface).bindCC
	bindRoCE = (*iface).bindRoCE
)

// wantIf is value() as setting when ok, nothing otherwise.
func wantIf(ok bool, setting string, value func() string) []desiredValue {
	if !ok {
		return nil
	}
	return []desiredValue{{setting, value()}}
}

// qos manages a setting only when the intent manages QoS (Trust set).
func qos(f func(fabric.InterfaceIntent) []desiredValue) func(fabric.InterfaceIntent) []desiredValue {
	return func(in fabric.InterfaceIntent) []desiredValue {
		if in.Trust == "" {
			return nil
		}
		return f(in)
	}
}

// qosValue is a QoS setting with one value.
func qosValue(setting string, value func(fabric.InterfaceIntent) string) func(fabric.InterfaceIntent) []desiredValue {
	return qos(func(in fabric.InterfaceIntent) []desiredValue { return []desiredValue{{setting, value(in)}} })
}

// dcqcnValues are the DCQCN parameters of point the intent lists, by name.
func dcqcnValues(point string, params map[string]int) []desiredValue {
	var out []desiredValue
	for _, k := range slices.Sorted(maps.Keys(params)) {
		out = append(out, desiredValue{DCQCNSetting(point, k), strconv.Itoa(params[k])})
	}
	return out
}

// specOf returns the index of setting's row in settingSpecs (its apply
// rank), or len(settingSpecs) for a setting hostcfg does not manage.
func specOf(setting string) int {
	for i, s := range settingSpecs {
		if s.name == setting || (strings.HasSuffix(s.name, ".") && strings.HasPrefix(setting, s.name)) {
			return i
		}
	}
	return len(settingSpecs)
}

// compareSettings orders settings for apply: by rank, then by name.
func compareSettings(a, b string) int {
	if ra, rb := specOf(a), specOf(b); ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

// disruption returns why changing setting interrupts traffic, "" when it
// does not (or when it depends on the values: disruptionOf).
func disruption(setting string) string {
	if i := specOf(setting); i < len(settingSpecs) {
		return settingSpecs[i].disruption
	}
	return ""
}

// disruptionOf returns why changing setting from old to new interrupts
// traffic, "" when it does not, and whether the link flaps; lossless are
// the priorities PFC pauses before or after the change.
//
// What interrupts traffic on a host (mlx5, the NIC fabricctl targets): the
// MTU (the channels are reopened; the link may flap), pfc_en (mlx5 toggles
// the port's link), trust (every packet is classified anew) and a DSCP map
// that moves a DSCP to or from a lossless priority. Not: ETS (scheduler
// weights), the PFC delay (mlx5 keeps it as the cable length and
// recomputes headroom only for buffers set by hand), ECN, CNP, DCQCN, the
// rdma_cm defaults (new connections only), DCBX mode and global pause.
func disruptionOf(setting, old, new string, lossless uint8) (why string, flaps bool) {
	i := specOf(setting)
	if i == len(settingSpecs) {
		return "", false
	}
	s := settingSpecs[i]
	if s.disruptionOf != nil {
		why = s.disruptionOf(old, new, lossless)
	} else {
		why = s.disruption
	}
	return why, why != "" && s.flaps
}

// dscpMapDisruption: a DSCP map change interrupts the traffic of every
// DSCP whose priority changes from or to a lossless one.
func dscpMapDisruption(old, new string, lossless uint8) string {
	prio := func(s string) map[uint8]uint8 {
		m := map[uint8]uint8{}
		es, _ := parseDSCPMap(s) // an unreadable map maps nothing
		for _, e := range es {
			m[e.DSCP] = e.Priority
		}
		return m
	}
	before, after := prio(old), prio(new)
	var moved []int
	for d := range uint8(64) {
		b, inB := before[d]
		a, inA := after[d]
		if b == a && inB == inA {
			continue
		}
		if (inB && lossless&(1<<b) != 0) || (inA && lossless&(1<<a) != 0) {
			moved = append(moved, int(d))
		}
	}
	if len(moved) == 0 {
		return ""
	}
	return "moving DSCP " + intset.Format(moved) + " to or from a lossless priority reclassifies lossless traffic"
}

// desiredValue is one setting of one interface as the intent wants it.
type desiredValue struct {
	setting string
	value   string
}

// desiredSettings turns an interface intent into canonical values, in apply
// order (settingSpecs says what is managed when).
func desiredSettings(in fabric.InterfaceIntent) []desiredValue {
	var out []desiredValue
	for _, s := range settingSpecs {
		if s.desired != nil {
			out = append(out, s.desired(in)...)
		}
	}
	return out
}

// allSettings is what `host show` observes on an interface with no intent.
var allSettings = func() []string {
	var out []string
	for _, s := range settingSpecs {
		if s.show {
			out = append(out, s.name)
		}
	}
	return out
}()
