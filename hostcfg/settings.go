package hostcfg

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
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

// Apply order: the rank of each setting. MTU first (a netdev property);
// DCBX before anything IEEE; global pause off before PFC goes on; the DSCP
// map before trust so that turning DSCP trust on classifies by the new map;
// ETS and the PFC delay before pfc_en; congestion control after the classes
// exist; the RoCE defaults last, once the class they point at is lossless.
var settingOrder = []string{
	SettingMTU, SettingDCBX, SettingGlobalPause, SettingDSCPMap, SettingTrust, SettingETS,
	SettingPFCDelay, SettingPFCEnable, SettingECNNP, SettingECNRP, SettingCNPDSCP, SettingCNPPriority,
	prefixDCQCNNP, prefixDCQCNRP, SettingRoCEMode, SettingRoCEToS, prefixIPoIB, prefixPKey,
}

func rank(setting string) int {
	for i, s := range settingOrder {
		if s == setting || (strings.HasSuffix(s, ".") && strings.HasPrefix(setting, s)) {
			return i
		}
	}
	return len(settingOrder)
}

// compareSettings orders settings for apply: by rank, then by name.
func compareSettings(a, b string) int {
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

// disruption returns why changing setting interrupts traffic, "" when it does not.
func disruption(setting string) string {
	switch setting {
	case SettingPFCEnable:
		return "changing pfc_en flaps the link on mlx5"
	case SettingMTU:
		return "changing the MTU resets the queues (the link may flap) and drops packets larger than the new MTU"
	case SettingTrust:
		return "changing trust reclassifies every packet"
	}
	return ""
}

// desiredValue is one setting of one interface as the intent wants it.
type desiredValue struct {
	setting string
	value   string
}

// desiredSettings turns an interface intent into canonical values, in apply
// order. What the intent leaves unset is not managed:
//   - MTU 0: the MTU is left alone;
//   - Trust "": no QoS at all (DCBX, pause, DSCP map, trust, ETS, PFC, ECN, CNP, DCQCN);
//   - DCBX 0: the DCBX mode is left alone;
//   - PFC.Delay 0: the PFC delay (mlx5's cable length, which ignores 0) is left alone;
//   - RoCE.Mode "": neither default_roce_mode nor default_roce_tos is written;
//   - DCQCN parameters not listed in NP/RP are left alone.
//
// ECN.Priorities drive roce_np/enable (CNP generation); roce_rp/enable (the
// DCQCN rate limiter) follows them when DCQCN.Enabled and is off otherwise.
func desiredSettings(in fabric.InterfaceIntent) []desiredValue {
	var out []desiredValue
	add := func(s, v string) { out = append(out, desiredValue{s, v}) }
	if in.MTU > 0 {
		add(SettingMTU, strconv.Itoa(in.MTU))
	}
	if in.Trust != "" {
		if in.DCBX != 0 {
			add(SettingDCBX, formatDCBX(in.DCBX))
		}
		add(SettingGlobalPause, formatPause(pauseFor(in.GlobalPause)))
		add(SettingDSCPMap, formatDSCPMap(in.DSCPMap))
		add(SettingTrust, in.Trust)
		add(SettingETS, formatETS(etsValue{PrioTC: in.ETS.PrioTC, TSA: in.ETS.TSA, Bandwidth: in.ETS.Bandwidth}))
		if in.PFC.Delay > 0 {
			add(SettingPFCDelay, strconv.Itoa(int(in.PFC.Delay)))
		}
		add(SettingPFCEnable, formatPrios(in.PFC.Enable|prioBits(in.PFC.Priorities)))
		ecn := prioBits(in.ECN.Priorities)
		add(SettingECNNP, formatPrios(ecn))
		rp := uint8(0)
		if in.DCQCN.Enabled {
			rp = ecn
		}
		add(SettingECNRP, formatPrios(rp))
		add(SettingCNPDSCP, strconv.Itoa(in.CNP.DSCP))
		add(SettingCNPPriority, strconv.Itoa(in.CNP.Priority))
		for _, k := range slices.Sorted(maps.Keys(in.DCQCN.NP)) {
			add(DCQCNSetting("np", k), strconv.Itoa(in.DCQCN.NP[k]))
		}
		for _, k := range slices.Sorted(maps.Keys(in.DCQCN.RP)) {
			add(DCQCNSetting("rp", k), strconv.Itoa(in.DCQCN.RP[k]))
		}
	}
	if in.RoCE.Mode != "" {
		add(SettingRoCEMode, in.RoCE.Mode)
		add(SettingRoCEToS, strconv.Itoa(in.RoCE.ToS))
	}
	slices.SortStableFunc(out, func(a, b desiredValue) int { return compareSettings(a.setting, b.setting) })
	return out
}

// allSettings is what `host show` observes on an interface with no intent.
var allSettings = []string{
	SettingMTU, SettingDCBX, SettingGlobalPause, SettingDSCPMap, SettingTrust, SettingETS,
	SettingPFCDelay, SettingPFCEnable, SettingECNNP, SettingECNRP, SettingCNPDSCP, SettingCNPPriority,
	SettingRoCEMode, SettingRoCEToS,
}
