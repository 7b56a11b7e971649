package fabric

// This file holds the resolved, per-target desired state: the contract between
// fabric/ (which computes it) and hostcfg/, switchcfg/ and checks/ (which apply,
// observe and test it). Every list is sorted so that JSON output is stable.

// APIVersion is the apiVersion of every document and of every JSON output.
const APIVersion = "fabricctl.io/v1alpha1"

// DCBX mode bits (include/uapi/linux/dcbnl.h).
const (
	DCBXHost    uint8 = 0x01
	DCBXLLD     uint8 = 0x02
	DCBXVerCEE  uint8 = 0x04
	DCBXVerIEEE uint8 = 0x08
	DCBXStatic  uint8 = 0x10
)

// Transmission selection algorithms of IEEE 802.1Qaz (ieee_ets.tc_tsa).
const (
	TSAStrict uint8 = 0
	TSACBS    uint8 = 1
	TSAETS    uint8 = 2
	TSAVendor uint8 = 255
)

// RoCE modes as configfs rdma_cm default_roce_mode spells them.
const (
	RoCEModeV1 = "IB/RoCE v1"
	RoCEModeV2 = "RoCE v2"
)

// AllRDMANetdevs is the interface name meaning "every netdev that has an RDMA
// device"; hostcfg expands it on the host.
const AllRDMANetdevs = "*"

// HostIntent is the complete desired state of one host.
type HostIntent struct {
	APIVersion string            `json:"apiVersion"`
	Host       string            `json:"host"`
	Address    string            `json:"address"`
	Profile    string            `json:"profile"`
	Labels     map[string]string `json:"labels,omitempty"`
	// Interfaces holds one entry per RoCE netdev; a single entry named
	// AllRDMANetdevs when the fabric lists none. Empty for InfiniBand-only profiles.
	Interfaces []InterfaceIntent `json:"interfaces,omitempty"`
	// Partitions the host is a member of (verified on ports/N/pkeys, IPoIB children).
	Partitions []HostPartition `json:"partitions,omitempty"`
}

// InterfaceIntent is the desired lossless configuration of one netdev.
type InterfaceIntent struct {
	Name string `json:"name"`
	// MTU of the netdev (netlink IFLA_MTU).
	MTU int `json:"mtu"`
	// DCBX mode written with DCB_CMD_SDCBX (HOST|VER_IEEE = 0x09).
	DCBX uint8 `json:"dcbx"`
	// Trust is "dscp" or "pcp" (DCB_ATTR_DCB_APP_TRUST_TABLE or /sys/class/net/IF/qos/trust).
	Trust string  `json:"trust"`
	PFC   HostPFC `json:"pfc"`
	ETS   HostETS `json:"ets"`
	// DSCPMap is the full DSCP→priority APP table (selector 5), sorted by DSCP;
	// 64 entries when trust is dscp ("rest" expanded), empty otherwise.
	DSCPMap []DSCPEntry `json:"dscpMap,omitempty"`
	ECN     HostECN     `json:"ecn"`
	CNP     HostCNP     `json:"cnp"`
	DCQCN   HostDCQCN   `json:"dcqcn"`
	RoCE    HostRoCE    `json:"roce"`
	// GlobalPause is the 802.3x pause setting (ethtool -A rx/tx); false where PFC is on.
	GlobalPause bool `json:"globalPause"`
}

// HostPFC is ieee_pfc as fabricctl manages it.
type HostPFC struct {
	// Enable is the pfc_en bitmap: bit p set = PFC on priority p.
	Enable uint8 `json:"enable"`
	// Priorities lists the set bits of Enable, ascending (for humans and JSON).
	Priorities []int `json:"priorities"`
	// Delay is ieee_pfc.delay; mlx5 reads it as the cable length in metres.
	Delay uint16 `json:"delay"`
}

// HostETS is ieee_ets for all eight traffic classes.
type HostETS struct {
	// PrioTC maps priority p to traffic class PrioTC[p] (ieee_ets.prio_tc).
	PrioTC [8]uint8 `json:"prioTc"`
	// TSA per traffic class (ieee_ets.tc_tsa): TSAStrict or TSAETS.
	TSA [8]uint8 `json:"tsa"`
	// Bandwidth per traffic class in percent (ieee_ets.tc_tx_bw); ETS classes sum to 100.
	Bandwidth [8]uint8 `json:"bandwidth"`
}

// DSCPEntry is one APP table entry with selector 5 (DSCP).
type DSCPEntry struct {
	DSCP     uint8 `json:"dscp"`
	Priority uint8 `json:"priority"`
}

// HostECN says on which priorities ECN marking (NP) and reaction (RP) are enabled.
type HostECN struct {
	// Priorities with ECN on: /sys/class/net/IF/ecn/roce_np/enable/<p> and roce_rp/enable/<p>.
	Priorities []int `json:"priorities"`
}

// HostCNP is the class CNPs are sent in.
type HostCNP struct {
	// DSCP of CNPs: /sys/class/net/IF/ecn/roce_np/cnp_dscp (debugfs cc_params/np_cnp_dscp).
	DSCP int `json:"dscp"`
	// Priority of CNPs: /sys/class/net/IF/ecn/roce_np/cnp_802p_prio (debugfs cc_params/np_cnp_prio).
	Priority int `json:"priority"`
}

// HostDCQCN is the congestion-control algorithm state and optional parameters.
type HostDCQCN struct {
	Enabled bool `json:"enabled"`
	// NP and RP hold optional parameters by kernel file name
	// (/sys/class/net/IF/ecn/roce_np/<name>, roce_rp/<name>).
	NP map[string]int `json:"np,omitempty"`
	RP map[string]int `json:"rp,omitempty"`
}

// HostRoCE is what rdma_cm uses by default.
type HostRoCE struct {
	// Mode: configfs rdma_cm/<ibdev>/ports/<n>/default_roce_mode ("RoCE v2").
	Mode string `json:"mode"`
	// ToS: configfs rdma_cm/<ibdev>/ports/<n>/default_roce_tos (decimal u8).
	ToS int `json:"tos"`
}

// HostPartition is an InfiniBand partition a host belongs to.
type HostPartition struct {
	Name       string `json:"name"`
	PKey       uint16 `json:"pkey"`
	Membership string `json:"membership"` // full | limited | both
	IPoIB      bool   `json:"ipoib"`
}

// SwitchIntent is the canonical, platform-neutral desired state of one switch.
// Drivers in switchcfg render it to native config and parse read-backs into it.
type SwitchIntent struct {
	APIVersion string            `json:"apiVersion" yaml:"apiVersion"`
	Name       string            `json:"name" yaml:"name"`
	Platform   string            `json:"platform" yaml:"platform"`
	Address    string            `json:"address" yaml:"address"`
	Profile    string            `json:"profile" yaml:"profile"`
	Labels     map[string]string `json:"labels,omitempty" yaml:"labels,omitempty"`
	// Model is the switch's hardware model as the fabric names it ("" = the
	// platform's default); the driver looks it up in its Info.Models.
	Model string `json:"model,omitempty" yaml:"model,omitempty"`
	// Ports is the expanded, sorted port list ("swp1-4" → swp1 swp2 swp3 swp4).
	Ports []string `json:"ports" yaml:"ports"`
	// MTU is the switch port MTU: the profile's switchMtu, resolved for the
	// switch's model ("max" and an unset value become numbers).
	MTU int `json:"mtu" yaml:"mtu"`
	// QueueBufferBytes is the profile's queueBuffer (0 = the model's own).
	QueueBufferBytes int64 `json:"queueBufferBytes,omitempty" yaml:"queueBufferBytes,omitempty"`
	// Trust is "dscp" or "pcp".
	Trust string `json:"trust" yaml:"trust"`
	// Classes sorted by priority; DSCP lists are explicit ("rest" expanded).
	Classes []SwitchClass `json:"classes" yaml:"classes"`
	PFC     SwitchPFC     `json:"pfc" yaml:"pfc"`
	// RoCEClass and CNPClass name the classes RoCE data and CNPs use ("" when absent).
	RoCEClass string `json:"roceClass,omitempty" yaml:"roceClass,omitempty"`
	CNPClass  string `json:"cnpClass,omitempty" yaml:"cnpClass,omitempty"`
	// PortGroups, in a reading of a switch (never in a rendered intent), are
	// the groups of ports whose settings differ from the ones above, which
	// are those the most ports share: nothing is dropped because ports
	// disagree. Ports lists every port; a group's ports are among them.
	PortGroups []SwitchPortGroup `json:"portGroups,omitempty" yaml:"portGroups,omitempty"`
	// Unparsed, in a reading, is the input that can affect QoS which the
	// reader did not understand: the reading is then not the whole truth,
	// and drift says so (exit 1) instead of judging it.
	Unparsed []Unparsed `json:"unparsed,omitempty" yaml:"unparsed,omitempty"`
}

// Unparsed is one piece of input a reader did not understand.
type Unparsed struct {
	// Line is 1-based in the read-back ("" command's output); 0 when the
	// input has no lines (a JSON field).
	Line   int    `json:"line,omitempty" yaml:"line,omitempty"`
	Text   string `json:"text" yaml:"text"`
	Reason string `json:"reason" yaml:"reason"`
}

// SwitchPortGroup is a set of ports of a switch reading that share settings
// other than the switch's majority.
type SwitchPortGroup struct {
	Ports   []string      `json:"ports" yaml:"ports"`
	MTU     int           `json:"mtu" yaml:"mtu"`
	Trust   string        `json:"trust" yaml:"trust"`
	Classes []SwitchClass `json:"classes" yaml:"classes"`
	PFC     SwitchPFC     `json:"pfc" yaml:"pfc"`
}

// Group returns the intent a port group stands for: si with the group's
// ports and settings, without groups.
func (si SwitchIntent) Group(g SwitchPortGroup) SwitchIntent {
	out := si
	out.Ports, out.MTU, out.Trust, out.Classes, out.PFC, out.PortGroups = g.Ports, g.MTU, g.Trust, g.Classes, g.PFC, nil
	return out
}

// MajorityPorts returns the ports of si outside every port group: those
// the switch-wide settings describe.
func (si SwitchIntent) MajorityPorts() []string {
	in := map[string]bool{}
	for _, g := range si.PortGroups {
		for _, p := range g.Ports {
			in[p] = true
		}
	}
	var out []string
	for _, p := range si.Ports {
		if !in[p] {
			out = append(out, p)
		}
	}
	return out
}

// SwitchClass is one traffic class of a switch.
type SwitchClass struct {
	Name string `json:"name" yaml:"name"`
	// Priority is the switch priority / 802.1p value, 0..7.
	Priority int `json:"priority" yaml:"priority"`
	// TrafficClass defaults to Priority.
	TrafficClass int `json:"trafficClass" yaml:"trafficClass"`
	// Queue is the egress queue, defaults to TrafficClass.
	Queue int `json:"queue" yaml:"queue"`
	// DSCP values classified into this class, ascending.
	DSCP     []int `json:"dscp" yaml:"dscp,flow"`
	Lossless bool  `json:"lossless" yaml:"lossless"`
	// Strict priority scheduling; when false BandwidthPercent is the DWRR/ETS share.
	Strict           bool `json:"strict" yaml:"strict"`
	BandwidthPercent int  `json:"bandwidthPercent" yaml:"bandwidthPercent"`
	// ECN is nil when the class does not mark.
	ECN *SwitchECN `json:"ecn,omitempty" yaml:"ecn,omitempty"`
}

// SwitchECN holds WRED/ECN thresholds in bytes.
type SwitchECN struct {
	MinBytes           int64 `json:"minBytes" yaml:"minBytes"`
	MaxBytes           int64 `json:"maxBytes" yaml:"maxBytes"`
	MaxMarkProbability int   `json:"maxMarkProbability" yaml:"maxMarkProbability"`
}

// SwitchPFC is the PFC configuration of a switch.
type SwitchPFC struct {
	// Priorities with PFC (no-drop), ascending.
	Priorities []int `json:"priorities" yaml:"priorities,flow"`
	// CableLengthMeters is the headroom hint.
	CableLengthMeters int `json:"cableLengthMeters,omitempty" yaml:"cableLengthMeters,omitempty"`
	// Watchdog is nil when the profile does not configure one.
	Watchdog *SwitchPFCWatchdog `json:"watchdog,omitempty" yaml:"watchdog,omitempty"`
}

// SwitchPFCWatchdog is the PFC storm watchdog; times in milliseconds.
type SwitchPFCWatchdog struct {
	Enabled           bool   `json:"enabled" yaml:"enabled"`
	PollIntervalMs    int    `json:"pollIntervalMs" yaml:"pollIntervalMs"`
	DetectionTimeMs   int    `json:"detectionTimeMs" yaml:"detectionTimeMs"`
	RestorationTimeMs int    `json:"restorationTimeMs" yaml:"restorationTimeMs"`
	Action            string `json:"action" yaml:"action"` // drop | forward | alert
}

// SubnetManagerIntent is the desired partition table of one subnet manager.
type SubnetManagerIntent struct {
	APIVersion string `json:"apiVersion"`
	Name       string `json:"name"`
	Kind       string `json:"kind"` // opensm | ufm
	Address    string `json:"address"`
	Profile    string `json:"profile"`
	// PartitionsFile is the fabric file's partitionsFile; empty means the
	// kind's own default (switchcfg/opensm: /etc/opensm/partitions.conf).
	PartitionsFile string `json:"partitionsFile,omitempty"`
	// LogFile, PIDFile and Verify are the fabric file's (empty: the kind's
	// defaults; Verify "" is "pkeys").
	LogFile    string            `json:"logFile,omitempty"`
	PIDFile    string            `json:"pidFile,omitempty"`
	Verify     string            `json:"verify,omitempty"`
	Partitions []PartitionIntent `json:"partitions"`
}

// PartitionIntent is one InfiniBand partition.
type PartitionIntent struct {
	Name string `json:"name"`
	// PKey holds the low 15 bits; the full-member bit 0x8000 is never set here.
	PKey  uint16 `json:"pkey"`
	IPoIB bool   `json:"ipoib"`
	// MTU in bytes (0 = unset) and its IBTA code (256→1 … 4096→5).
	MTU     int `json:"mtu,omitempty"`
	MTUCode int `json:"mtuCode,omitempty"`
	// Rate in Gb/s (0 = unset; 2.5 for code 2) and its IBTA rate code
	// (e.g. 200 → 17).
	Rate     float64 `json:"rate,omitempty"`
	RateCode int     `json:"rateCode,omitempty"`
	// ServiceLevel is -1 when unset.
	ServiceLevel      int               `json:"serviceLevel"`
	DefaultMembership string            `json:"defaultMembership,omitempty"` // full | limited | both
	Members           []PartitionMember `json:"members"`
}

// PartitionMember is one member line. Exactly one of GUID, Host or Special is set;
// a Host member without known GUIDs is resolved to port GUIDs at apply time.
type PartitionMember struct {
	GUID       string `json:"guid,omitempty"`    // "0x0002c903000e0b72"
	Host       string `json:"host,omitempty"`    // fabric host whose port GUIDs are members
	Special    string `json:"special,omitempty"` // ALL | ALL_CAS | ALL_SWITCHES | ALL_ROUTERS | SELF
	Membership string `json:"membership"`        // full | limited | both
}

// MTUCode returns the IBTA MTU code for bytes (256→1 … 4096→5), or 0.
func MTUCode(bytes int) int {
	switch bytes {
	case 256:
		return 1
	case 512:
		return 2
	case 1024:
		return 3
	case 2048:
		return 4
	case 4096:
		return 5
	}
	return 0
}

// rateCodes maps Gb/s to the IBTA rate code (ibv_rate / OpenSM rate=).
var rateCodes = map[float64]int{
	2.5: 2, 10: 3, 30: 4, 5: 5, 20: 6, 40: 7, 60: 8, 80: 9, 120: 10, 14: 11, 56: 12,
	112: 13, 168: 14, 25: 15, 100: 16, 200: 17, 300: 18, 28: 19, 50: 20, 400: 21,
	600: 22, 800: 23, 1200: 24,
}

// RateCode returns the IBTA rate code for a rate in Gb/s, or 0 when none exists.
func RateCode(gbps float64) int { return rateCodes[gbps] }

// RateFromCode is the inverse of RateCode (0 when unknown).
func RateFromCode(code int) float64 {
	for r, c := range rateCodes {
		if c == code {
			return r
		}
	}
	return 0
}
