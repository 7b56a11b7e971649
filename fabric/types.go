package fabric

import (
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Document kinds.
const (
	KindProfile = "Profile"
	KindFabric  = "Fabric"
)

// Metadata names a document.
type Metadata struct {
	Name        string            `yaml:"name" json:"name"`
	Description string            `yaml:"description,omitempty" json:"description,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty" json:"labels,omitempty"`
}

// Profile says how lossless traffic is treated and which IB partitions exist.
type Profile struct {
	APIVersion string      `yaml:"apiVersion" json:"apiVersion"`
	Kind       string      `yaml:"kind" json:"kind"`
	Metadata   Metadata    `yaml:"metadata" json:"metadata"`
	Spec       ProfileSpec `yaml:"spec" json:"spec"`

	// Source is where the document was read from (not part of the YAML).
	Source Pos `yaml:"-" json:"-"`
}

// ProfileSpec holds the Ethernet (RoCE) and InfiniBand halves; either may be absent.
type ProfileSpec struct {
	Ethernet   *Ethernet   `yaml:"ethernet,omitempty" json:"ethernet,omitempty"`
	InfiniBand *InfiniBand `yaml:"infiniband,omitempty" json:"infiniband,omitempty"`
}

// Ethernet is the lossless-Ethernet (RoCE) part of a profile.
type Ethernet struct {
	// MTU is the host netdev MTU.
	MTU int `yaml:"mtu" json:"mtu"`
	// SwitchMTU is the switch port MTU: a number, or "max" for each switch
	// model's largest. Unset means 9216 where the model takes it, else the
	// model's largest (Arista EOS: 9214).
	SwitchMTU SwitchMTU `yaml:"switchMtu,omitempty" json:"switchMtu,omitempty"`
	// QueueBuffer is the egress queue buffer that platforms taking ECN
	// thresholds as fill-level percentages (Junos) count them against; it
	// overrides the switch model's own figure. fabricctl extension.
	QueueBuffer Bytes `yaml:"queueBuffer,omitempty" json:"queueBuffer,omitempty"`
	// Trust is dscp (default) or pcp.
	Trust string `yaml:"trust,omitempty" json:"trust,omitempty" enum:"dscp,pcp"`
	// GlobalPause is 802.3x pause; must be false where PFC is on. Default false.
	GlobalPause *bool   `yaml:"globalPause,omitempty" json:"globalPause,omitempty"`
	Classes     []Class `yaml:"classes" json:"classes"`
	PFC         *PFC    `yaml:"pfc,omitempty" json:"pfc,omitempty"`
	RoCE        *RoCE   `yaml:"roce,omitempty" json:"roce,omitempty"`
}

// Class is one traffic class.
type Class struct {
	Name string `yaml:"name" json:"name"`
	// Priority is the switch priority / 802.1p value, 0..7.
	Priority *int `yaml:"priority" json:"priority"`
	// TrafficClass defaults to Priority.
	TrafficClass *int `yaml:"trafficClass,omitempty" json:"trafficClass,omitempty"`
	// Queue is the switch egress queue; defaults to TrafficClass.
	Queue *int `yaml:"queue,omitempty" json:"queue,omitempty"`
	// DSCP lists the DSCP values of the class, or "rest" for every DSCP no other class lists.
	DSCP     DSCPSet `yaml:"dscp,omitempty" json:"dscp,omitempty"`
	Lossless bool    `yaml:"lossless,omitempty" json:"lossless,omitempty"`
	ETS      ETS     `yaml:"ets" json:"ets"`
	// ECN is nil when absent; `ecn: off` sets Off.
	ECN *ECN `yaml:"ecn,omitempty" json:"ecn,omitempty"`
}

// DSCPSet is a list of DSCP values or the word "rest".
type DSCPSet struct {
	Values []int `json:"values,omitempty"`
	Rest   bool  `json:"rest,omitempty"`
}

func (s *DSCPSet) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		if n.Value == "rest" {
			s.Rest = true
			return
		}
		d.errAt(n, path, "expected a list of DSCP values or \"rest\", got %q", n.Value)
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		d.errAt(n, path, "expected a list of DSCP values; write [%s]", n.Value)
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errAt(n, path, "expected a list of DSCP values or \"rest\", got %s", kindName(n))
		return
	}
	for i, c := range n.Content {
		ip := path + "[" + strconv.Itoa(i) + "]"
		c = d.resolve(c, ip, 0)
		if c == nil {
			return
		}
		if v, ok := d.intValue(c, ip); ok {
			s.Values = append(s.Values, int(v))
		}
	}
}

func (s DSCPSet) MarshalYAML() (any, error) {
	if s.Rest {
		return "rest", nil
	}
	return s.Values, nil
}

// ETS is a class's scheduling: a bandwidth share or strict priority.
type ETS struct {
	BandwidthPercent *int `yaml:"bandwidthPercent,omitempty" json:"bandwidthPercent,omitempty"`
	Strict           bool `yaml:"strict,omitempty" json:"strict,omitempty"`
}

// ECN holds marking thresholds; `ecn: off` in YAML sets Off.
type ECN struct {
	Off                bool  `yaml:"-" json:"off,omitempty"`
	MinThreshold       Bytes `yaml:"minThreshold" json:"minThreshold"`
	MaxThreshold       Bytes `yaml:"maxThreshold" json:"maxThreshold"`
	MaxMarkProbability *int  `yaml:"maxMarkProbability,omitempty" json:"maxMarkProbability,omitempty"`
}

func (e *ECN) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode && (n.Value == "off" || (n.Tag == "!!bool" && strings.EqualFold(n.Value, "false"))) {
		e.Off = true
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errAt(n, path, "expected ECN thresholds or \"off\", got %s", kindName(n))
		return
	}
	type plain ECN // no decodeNode method
	var p plain
	d.decodeStruct(n, reflect.ValueOf(&p).Elem(), path, 0)
	*e = ECN(p)
}

func (e ECN) MarshalYAML() (any, error) {
	if e.Off {
		return "off", nil
	}
	type plain ECN
	return plain(e), nil
}

// PFC holds fabric-wide PFC settings (which priorities follows from lossless classes).
type PFC struct {
	// CableLength is the headroom hint (mlx5 uses the PFC delay field as cable length).
	CableLength Meters    `yaml:"cableLength,omitempty" json:"cableLength,omitempty"`
	Watchdog    *Watchdog `yaml:"watchdog,omitempty" json:"watchdog,omitempty"`
}

// Watchdog is the PFC storm watchdog.
type Watchdog struct {
	Enabled         bool     `yaml:"enabled" json:"enabled"`
	PollInterval    Duration `yaml:"pollInterval,omitempty" json:"pollInterval,omitempty"`
	DetectionTime   Duration `yaml:"detectionTime,omitempty" json:"detectionTime,omitempty"`
	RestorationTime Duration `yaml:"restorationTime,omitempty" json:"restorationTime,omitempty"`
	Action          string   `yaml:"action,omitempty" json:"action,omitempty" enum:"drop,forward,alert"`
}

// RoCE says which classes RoCE data and CNPs use.
type RoCE struct {
	// Mode is v2 (default) or v1 (rdma_cm default_roce_mode).
	Mode string `yaml:"mode,omitempty" json:"mode,omitempty" enum:"v1,v2"`
	// Class carries RoCE data; it must be lossless unless AllowLossy.
	Class string `yaml:"class" json:"class"`
	// AllowLossy accepts a lossy RoCE class (ECN-only fabrics). fabricctl extension.
	AllowLossy bool `yaml:"allowLossy,omitempty" json:"allowLossy,omitempty"`
	// ToS overrides the default dscp<<2|ECT0; must agree with the class DSCP.
	ToS *int `yaml:"tos,omitempty" json:"tos,omitempty"`
	// CNPClass carries congestion notification packets.
	CNPClass string `yaml:"cnpClass,omitempty" json:"cnpClass,omitempty"`
	DCQCN    *DCQCN `yaml:"dcqcn,omitempty" json:"dcqcn,omitempty"`
}

// DCQCN is the congestion-control algorithm; NP and RP hold optional parameters
// by kernel file name under /sys/class/net/IF/ecn/roce_np and roce_rp.
type DCQCN struct {
	Enabled *bool          `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	NP      map[string]int `yaml:"np,omitempty" json:"np,omitempty"`
	RP      map[string]int `yaml:"rp,omitempty" json:"rp,omitempty"`
}

// InfiniBand is the InfiniBand part of a profile.
type InfiniBand struct {
	Partitions []Partition `yaml:"partitions" json:"partitions"`
}

// Partition is one IB partition.
type Partition struct {
	Name string `yaml:"name" json:"name"`
	// PKey is 0x0001..0x7ffe; the full-member bit is never written here.
	PKey  PKey `yaml:"pkey" json:"pkey"`
	IPoIB bool `yaml:"ipoib,omitempty" json:"ipoib,omitempty"`
	// MTU in bytes (256..4096).
	MTU int `yaml:"mtu,omitempty" json:"mtu,omitempty"`
	// Rate in Gb/s.
	Rate              float64  `yaml:"rate,omitempty" json:"rate,omitempty"`
	ServiceLevel      *int     `yaml:"serviceLevel,omitempty" json:"serviceLevel,omitempty"`
	DefaultMembership string   `yaml:"defaultMembership,omitempty" json:"defaultMembership,omitempty" enum:"full,limited,both"`
	Members           []Member `yaml:"members" json:"members"`
}

// Member selects partition members: hosts by selector, one port GUID, or a
// special OpenSM keyword (ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF).
type Member struct {
	Hosts      *Selector `yaml:"hosts,omitempty" json:"hosts,omitempty"`
	GUID       string    `yaml:"guid,omitempty" json:"guid,omitempty"`
	Special    string    `yaml:"special,omitempty" json:"special,omitempty" enum:"ALL,ALL_CAS,ALL_SWITCHES,ALL_ROUTERS,SELF"`
	Membership string    `yaml:"membership,omitempty" json:"membership,omitempty" enum:"full,limited,both"`
}

// Selector matches fabric hosts by labels (all must match) and/or names.
type Selector struct {
	Labels map[string]string `yaml:"labels,omitempty" json:"labels,omitempty"`
	Names  []string          `yaml:"names,omitempty" json:"names,omitempty"`
}

// Fabric is a loaded, validated fabric document with its profiles.
type Fabric struct {
	APIVersion string     `yaml:"apiVersion" json:"apiVersion"`
	Kind       string     `yaml:"kind" json:"kind"`
	Metadata   Metadata   `yaml:"metadata" json:"metadata"`
	Spec       FabricSpec `yaml:"spec" json:"spec"`

	// Profiles holds every profile, included and inline, by name.
	Profiles map[string]*Profile `yaml:"-" json:"-"`
	// Source is the file the fabric was loaded from.
	Source Pos `yaml:"-" json:"-"`

	// platforms are the facts Load was given (Options.Platforms); Resolve
	// takes each switch model's MTU limits from them.
	platforms Platforms
	// warnings are the load's warnings (Warnings).
	warnings Warnings
}

// FabricSpec lists targets and checks.
type FabricSpec struct {
	// Include lists profile files, relative to the including file.
	Include        []string        `yaml:"include,omitempty" json:"include,omitempty"`
	Profiles       []Profile       `yaml:"profiles,omitempty" json:"profiles,omitempty"`
	Defaults       Defaults        `yaml:"defaults,omitempty" json:"defaults,omitempty"`
	Hosts          []Host          `yaml:"hosts,omitempty" json:"hosts,omitempty"`
	Switches       []Switch        `yaml:"switches,omitempty" json:"switches,omitempty"`
	SubnetManagers []SubnetManager `yaml:"subnetManagers,omitempty" json:"subnetManagers,omitempty"`
	Checks         *Checks         `yaml:"checks,omitempty" json:"checks,omitempty"`
	// Links is the declared cabling between switches, and between hosts and
	// switches where the hosts do not say it themselves (see cabling.go).
	Links []Link `yaml:"links,omitempty" json:"links,omitempty"`
	// InfiniBand is the declared InfiniBand cabling (ibcabling.go).
	InfiniBand *InfiniBandFabric `yaml:"infiniband,omitempty" json:"infiniband,omitempty"`
}

// Defaults apply to every target that does not override them.
type Defaults struct {
	SSH *SSH `yaml:"ssh,omitempty" json:"ssh,omitempty"`
}

// SSH says how to reach a target. Secrets never sit in YAML: PasswordEnv names an
// environment variable.
type SSH struct {
	User           string `yaml:"user,omitempty" json:"user,omitempty"`
	Port           int    `yaml:"port,omitempty" json:"port,omitempty"`
	IdentityFile   string `yaml:"identityFile,omitempty" json:"identityFile,omitempty"`
	KnownHostsFile string `yaml:"knownHostsFile,omitempty" json:"knownHostsFile,omitempty"`
	PasswordEnv    string `yaml:"passwordEnv,omitempty" json:"passwordEnv,omitempty"`
}

// Host is a Linux host with RDMA NICs.
type Host struct {
	Name    string `yaml:"name" json:"name"`
	Address string `yaml:"address" json:"address"`
	Profile string `yaml:"profile" json:"profile"`
	// Interfaces lists RoCE netdevs; empty = every netdev with an RDMA device.
	Interfaces []string          `yaml:"interfaces,omitempty" json:"interfaces,omitempty"`
	Labels     map[string]string `yaml:"labels,omitempty" json:"labels,omitempty"`
	SSH        *SSH              `yaml:"ssh,omitempty" json:"ssh,omitempty"`
	// PortGUIDs are the host's IB port GUIDs when known; discovered otherwise. fabricctl extension.
	PortGUIDs []string `yaml:"portGuids,omitempty" json:"portGuids,omitempty"`
	// Links says where each interface is cabled: interface → "SWITCH:PORT". fabricctl extension.
	Links map[string]string `yaml:"links,omitempty" json:"links,omitempty"`
}

// Switch is an Ethernet switch.
type Switch struct {
	Name     string   `yaml:"name" json:"name"`
	Platform string   `yaml:"platform" json:"platform"`
	Address  string   `yaml:"address" json:"address"`
	Profile  string   `yaml:"profile" json:"profile"`
	Ports    []string `yaml:"ports" json:"ports"`
	// Model is the hardware model or family where the platform's
	// configuration differs by hardware (arista-eos: strata or sand, or a
	// model such as 7050CX3-32S; junos: qfx5120 …; sonic: the ASIC vendor).
	// Empty: the platform's default model. fabricctl extension.
	Model  string            `yaml:"model,omitempty" json:"model,omitempty"`
	Labels map[string]string `yaml:"labels,omitempty" json:"labels,omitempty"`
	SSH    *SSH              `yaml:"ssh,omitempty" json:"ssh,omitempty"`
	// Role is the switch's tier: leaf (hosts are cabled to it) or spine
	// (joins leaves). Optional: inferred from the cabling. fabricctl extension.
	Role string `yaml:"role,omitempty" json:"role,omitempty" enum:"leaf,spine"`
	// Rail is the rail of a rail-optimised fabric this leaf serves (NIC i of
	// every host on a leaf of rail i). Optional. fabricctl extension.
	Rail *int `yaml:"rail,omitempty" json:"rail,omitempty"`
}

// SubnetManager is an InfiniBand subnet manager.
type SubnetManager struct {
	Name    string `yaml:"name" json:"name"`
	Kind    string `yaml:"kind" json:"kind" enum:"opensm,ufm"`
	Address string `yaml:"address" json:"address"`
	Profile string `yaml:"profile" json:"profile"`
	// PartitionsFile is the OpenSM partitions.conf path (default /etc/opensm/partitions.conf).
	PartitionsFile string `yaml:"partitionsFile,omitempty" json:"partitionsFile,omitempty"`
	// LogFile is OpenSM's log, read after a reload for its partition errors
	// (default /var/log/opensm.log). fabricctl extension.
	LogFile string `yaml:"logFile,omitempty" json:"logFile,omitempty"`
	// PIDFile names OpenSM's process (default /var/run/opensm.pid, else
	// pidof opensm). fabricctl extension.
	PIDFile string `yaml:"pidFile,omitempty" json:"pidFile,omitempty"`
	// Verify says what proves a push and what drift compares: pkeys (the
	// default) reads every CA port's P_Key table and OpenSM's log with the
	// infiniband-diags on the subnet manager's host; file trusts the file
	// alone. fabricctl extension.
	Verify string `yaml:"verify,omitempty" json:"verify,omitempty" enum:"pkeys,file"`
	SSH    *SSH   `yaml:"ssh,omitempty" json:"ssh,omitempty"`
}

// Link is one declared cable, or a bundle of parallel cables written with
// port ranges, between two devices of the fabric (spec.links[]). It is
// written the way containerlab writes links and a cabling plan lists them:
//
//	links:
//	  - endpoints: [leaf-01:swp31, spine-01:swp1]
//	  - endpoints: [leaf-01:swp49-52, spine-02:swp1-4]   # four cables, in order
//	  - endpoints: [gpu-01:ens1f0np0, leaf-01:swp1]
//
// Hosts may instead say where each of their interfaces is cabled
// (spec.hosts[].links: {ens1f0np0: leaf-01:swp1}); both forms may be mixed,
// but every port is cabled once.
type Link struct {
	// Endpoints are the two ends, each "DEVICE:PORT": a switch port
	// (leaf-01:swp1) or a host interface (gpu-01:ens1f0np0). A port range on
	// both ends declares one cable per port, paired in order.
	Endpoints []string `yaml:"endpoints" json:"endpoints"`
	// Description is free text (patch panel, cable ID).
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
}
