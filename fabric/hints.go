package fabric

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Newcomers' words. People arrive from NVUE (`nv set qos pfc … switch-priority
// 3`), mlnx_qos (`--pfc 0,0,0,1,0,0,0,0 --trust dscp`), Arista EOS (`priority-flow-control
// on`, `qos trust dscp`), SONiC's CONFIG_DB (`pfc_enable`, `DSCP_TO_TC_MAP`)
// and write what those tools call things. An unknown field that names a
// concept fabricctl spells differently gets a hint saying where the concept
// lives; a misspelling gets "did you mean"; a known field given a
// newcomer's value (`mtu: jumbo`, `trust: l3`, `ecn: true`) gets the value to write.

// normKey folds a key for comparison: lower case, without '-', '_', '.' and
// spaces, so switch-mtu, switch_mtu and SwitchMTU all read switchmtu.
func normKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch r {
		case '-', '_', '.', ' ':
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Concept hints, per struct type, by normalized unknown key.
var (
	hintLossless     = "PFC is per class: write lossless: true on the class, and fabricctl turns PFC on for its priority"
	hintPriority     = "a class's 802.1p / switch priority is priority: 0..7"
	hintBandwidth    = "a bandwidth share is ets: {bandwidthPercent: N}"
	hintStrict       = "strict priority is ets: {strict: true}"
	hintECNClass     = "ECN marking is per class: ecn: {minThreshold: 150KB, maxThreshold: 1500KB}"
	hintCNP          = "CNPs take the DSCP and priority of a class of their own: name it in roce.cnpClass"
	hintDSCPClass    = "DSCP values are per class: classes[].dscp"
	hintETSClass     = "ETS is per class: classes[].ets: {bandwidthPercent: N} or {strict: true}"
	hintPause        = "802.3x link-level pause is globalPause: false, as it must be where PFC is on"
	hintHeadroom     = "PFC headroom follows from pfc.cableLength"
	hintMTU          = "the host MTU is spec.ethernet.mtu, 9000 for jumbo frames; switches take switchMtu"
	hintPFCFields    = "PFC is per class: lossless: true on a class turns it on for that class's priority; pfc: holds cableLength and watchdog"
	hintInterfaces   = "interfaces lists the host's RoCE netdevs such as ens1f0np0, not RDMA devices such as mlx5_0"
	hintAddress      = "address is where SSH reaches the target: an IP address or host name"
	hintLabels       = "free-form attributes go in labels: {role: gpu, rack: r1, leaf: leaf-01}"
	hintPlatform     = "the switch's network OS is platform: arista-eos, cisco-nxos, cumulus-nvue, junos or sonic"
	hintPorts        = "a switch's ports are ports: [swp1-32], ranges expanded"
	hintSSH          = "SSH settings go in ssh: {user, port, identityFile, knownHostsFile, passwordEnv}"
	hintUnderSpec    = "document fields sit under spec:"
	hintUnderEth     = "RoCE settings sit under spec.ethernet:"
	hintRoCEDSCP     = "RoCE takes its DSCP and priority from its class, named by roce.class; roce.tos sets the ToS"
	hintRoCEToS      = "RoCE's traffic class, as in ib_write_bw -T or cma_roce_tos, is roce.tos: 106 is DSCP 26 with ECT(0)"
	hintRoCEOn       = "RoCE is configured when roce: names its class in roce.class"
	hintDCQCN        = "DCQCN, the RoCE congestion control, is roce.dcqcn: {enabled: true}"
	hintRoCEMode     = "the RoCE version is mode: v2"
	hintName         = "the name goes in metadata: {name: …}"
	hintSelectorName = "select hosts by name with hosts: {names: [h1, h2]}"
)

var conceptHints = map[reflect.Type]map[string]string{
	reflect.TypeFor[Class](): {
		"pfc": hintLossless, "pfcenabled": hintLossless, "pfcenable": hintLossless, "priorityflowcontrol": hintLossless,
		"flowcontrol": hintLossless, "nodrop": hintLossless, "pause": hintLossless, "pfcpriority": hintLossless,
		"lossy": "classes are lossy unless lossless: true",
		"pcp":   hintPriority, "cos": hintPriority, "dot1p": hintPriority, "8021p": hintPriority, "switchpriority": hintPriority,
		"prio": hintPriority, "pcpvalue": hintPriority, "vlanpriority": hintPriority,
		"tc":        "the class's traffic class is trafficClass, which defaults to priority",
		"bandwidth": hintBandwidth, "bandwidthpercent": hintBandwidth, "bw": hintBandwidth, "weight": hintBandwidth,
		"percent": hintBandwidth, "share": hintBandwidth, "dwrr": hintBandwidth, "minbandwidth": hintBandwidth,
		"strict": hintStrict, "strictpriority": hintStrict, "sp": hintStrict,
		"red": hintECNClass, "wred": hintECNClass, "ecnthreshold": hintECNClass, "ecnthresholds": hintECNClass,
		"minthreshold": hintECNClass, "maxthreshold": hintECNClass, "marking": hintECNClass, "congestioncontrol": hintECNClass,
		"cnp":    hintCNP,
		"mtu":    hintMTU,
		"roce":   "the class that carries RoCE is named by spec.ethernet.roce.class",
		"buffer": hintHeadroom, "headroom": hintHeadroom,
	},
	reflect.TypeFor[Ethernet](): {
		"priorityflowcontrol": hintLossless, "pfcpriorities": hintLossless, "pfcpriority": hintLossless,
		"pfcenable": hintLossless, "lossless": hintLossless, "nodrop": hintLossless, "losslesspriorities": hintLossless,
		"ecn": "ECN is per class: classes[].ecn: {minThreshold: 150KB, maxThreshold: 1500KB}",
		"red": hintECNClass, "wred": hintECNClass,
		"dcqcn": hintDCQCN, "congestioncontrol": hintDCQCN, "cc": hintDCQCN,
		"cnp": hintCNP, "cnpclass": hintCNP, "cnpdscp": hintCNP, "cnppriority": hintCNP,
		"tos": hintRoCEToS, "trafficclass": hintRoCEToS,
		"dscp": hintDSCPClass, "dscpmap": hintDSCPClass, "dscptotc": hintDSCPClass, "dscptotcmap": hintDSCPClass,
		"dscp2prio": hintDSCPClass, "mapping": hintDSCPClass, "qos": hintDSCPClass,
		"ets": hintETSClass, "scheduler": hintETSClass, "bandwidth": hintETSClass, "tsa": hintETSClass,
		"pause": hintPause, "flowcontrol": hintPause, "linkpause": hintPause, "8023x": hintPause,
		"buffer": hintHeadroom, "headroom": hintHeadroom, "cablelength": "cableLength sits under pfc: {cableLength: 5m}",
		"rocemode": "the RoCE version is roce.mode: v2", "roceversion": "the RoCE version is roce.mode: v2",
		"priorities": "priorities are per class: classes[].priority",
		"jumbo":      hintMTU, "hostmtu": hintMTU, "netdevmtu": hintMTU,
		"class": "traffic classes are a list: classes: [{name: roce, priority: 3, …}]",
	},
	reflect.TypeFor[PFC](): {
		"enabled": hintPFCFields, "enable": hintPFCFields, "priorities": hintPFCFields, "priority": hintPFCFields,
		"mode": hintPFCFields, "classes": hintPFCFields, "prio": hintPFCFields,
		"storm": "the PFC storm watchdog is watchdog: {enabled: true, …}", "stormcontrol": "the PFC storm watchdog is watchdog: {enabled: true, …}",
		"pfcwd": "the PFC storm watchdog is watchdog: {enabled: true, …}", "deadlock": "the PFC storm watchdog is watchdog: {enabled: true, …}",
		"delay": "the headroom hint is cableLength: 5m, as mlnx_qos --cable_len", "cablelen": "the headroom hint is cableLength: 5m, as mlnx_qos --cable_len",
		"headroom": "the headroom hint is cableLength: 5m, as mlnx_qos --cable_len",
		"xoff":     "xoff and xon thresholds follow from cableLength, the headroom hint", "xon": "xoff and xon thresholds follow from cableLength, the headroom hint",
	},
	reflect.TypeFor[Watchdog](): {
		"interval": "the polling period is pollInterval", "polling": "the polling period is pollInterval",
		"recovery": "the time until a stormed queue is restored is restorationTime", "recoverytime": "the time until a stormed queue is restored is restorationTime",
		"mode": "what the watchdog does to a stormed queue is action: drop, forward or alert",
	},
	reflect.TypeFor[ETS](): {
		"bandwidth": hintBandwidth, "bw": hintBandwidth, "weight": hintBandwidth, "percent": hintBandwidth,
		"share": hintBandwidth, "dwrr": hintBandwidth,
		"mode": hintStrict + "; a share is bandwidthPercent: N", "scheduler": hintStrict + "; a share is bandwidthPercent: N",
		"type": hintStrict + "; a share is bandwidthPercent: N", "sp": hintStrict, "priority": hintStrict,
	},
	reflect.TypeFor[ECN](): {
		"min": "the lower marking threshold is minThreshold", "kmin": "the lower marking threshold is minThreshold",
		"minth": "the lower marking threshold is minThreshold",
		"max":   "the upper marking threshold is maxThreshold", "kmax": "the upper marking threshold is maxThreshold",
		"maxth":       "the upper marking threshold is maxThreshold",
		"probability": "the marking probability at maxThreshold is maxMarkProbability, in percent",
		"pmax":        "the marking probability at maxThreshold is maxMarkProbability, in percent",
		"enabled":     "ECN is on when thresholds are given; ecn: off turns it off",
		"enable":      "ECN is on when thresholds are given; ecn: off turns it off",
	},
	reflect.TypeFor[RoCE](): {
		"dscp": hintRoCEDSCP, "priority": hintRoCEDSCP, "pcp": hintRoCEDSCP, "prio": hintRoCEDSCP,
		"trafficclass": hintRoCEToS, "tclass": hintRoCEToS,
		"version": hintRoCEMode,
		"cnp":     "CNPs use the DSCP and priority of the class named by cnpClass",
		"cnpdscp": "CNPs use the DSCP and priority of the class named by cnpClass", "cnppriority": "CNPs use the DSCP and priority of the class named by cnpClass",
		"cnpprio": "CNPs use the DSCP and priority of the class named by cnpClass",
		"ecn":     "ECN thresholds are per class, classes[].ecn; the hosts' reaction is roce.dcqcn",
		"enabled": hintRoCEOn, "enable": hintRoCEOn,
		"congestioncontrol": hintDCQCN, "cc": hintDCQCN,
		"lossless": "the RoCE class is lossless when its class says lossless: true",
	},
	reflect.TypeFor[Host](): {
		"nic": hintInterfaces, "nics": hintInterfaces, "netdev": hintInterfaces, "netdevs": hintInterfaces,
		"ports": hintInterfaces, "devices": hintInterfaces, "hca": hintInterfaces, "hcas": hintInterfaces,
		"rdmadevices": hintInterfaces, "ibdev": hintInterfaces, "rdma": hintInterfaces, "ifaces": hintInterfaces,
		"ip": hintAddress, "ipaddress": hintAddress, "mgmt": hintAddress, "mgmtip": hintAddress, "host": hintAddress,
		"hostname": "name is fabricctl's name for the host; address is where SSH reaches it",
		"role":     hintLabels, "rack": hintLabels, "leaf": hintLabels,
		"guid": "port GUIDs of an InfiniBand host are portGuids: [\"0x…\"]", "guids": "port GUIDs of an InfiniBand host are portGuids: [\"0x…\"]",
		"user": hintSSH, "port": hintSSH, "password": hintSSH,
		"cabling": "where each interface is cabled is links: {ens1f0np0: \"leaf-01:swp1\"}", "uplinks": "where each interface is cabled is links: {ens1f0np0: \"leaf-01:swp1\"}",
	},
	reflect.TypeFor[Switch](): {
		"os": hintPlatform, "nos": hintPlatform, "vendor": hintPlatform, "type": hintPlatform, "kind": hintPlatform, "driver": hintPlatform,
		"interfaces": hintPorts, "interface": hintPorts, "ifaces": hintPorts,
		"ip": hintAddress, "ipaddress": hintAddress, "mgmt": hintAddress, "mgmtip": hintAddress, "host": hintAddress,
		"user": hintSSH, "port": hintSSH, "password": hintSSH,
	},
	reflect.TypeFor[FabricSpec](): {
		"nodes": "Linux hosts are listed in hosts:", "servers": "Linux hosts are listed in hosts:", "gpus": "Linux hosts are listed in hosts:",
		"leaves": "leaves and spines are listed in switches: with role: leaf or spine", "leafs": "leaves and spines are listed in switches: with role: leaf or spine",
		"spines": "leaves and spines are listed in switches: with role: leaf or spine",
		"sm":     "subnet managers are listed in subnetManagers:", "sms": "subnet managers are listed in subnetManagers:",
		"opensm": "subnet managers are listed in subnetManagers: with kind: opensm", "ufm": "subnet managers are listed in subnetManagers: with kind: ufm",
		"profile": "each target names its profile in hosts[].profile; profile files are include: [file.yaml]",
		"cabling": "the declared cabling is links:", "cables": "the declared cabling is links:", "topology": "the declared cabling is links:",
		"ethernet": "a fabric holds targets; RoCE settings live in a Profile's spec.ethernet, included with include: [file.yaml]",
	},
	reflect.TypeFor[Partition](): {
		"key": "the partition key is pkey: 0x0002", "partitionkey": "the partition key is pkey: 0x0002",
		"sl": "the service level is serviceLevel", "guids": "members are listed in members: [{guid: \"0x…\"}]",
		"hosts": "members are listed in members: [{hosts: {labels: {…}}}]", "membership": "the membership of members that do not say is defaultMembership",
	},
	reflect.TypeFor[ProfileSpec](): {
		"roce": hintUnderEth, "qos": hintUnderEth, "classes": hintUnderEth, "mtu": hintUnderEth, "pfc": hintUnderEth,
		"lossless": hintUnderEth, "trust": hintUnderEth,
		"ib": "InfiniBand settings sit under spec.infiniband:", "partitions": "InfiniBand settings sit under spec.infiniband:",
	},
	reflect.TypeFor[Profile](): {
		"name": hintName, "ethernet": hintUnderSpec, "infiniband": hintUnderSpec, "description": "the description goes in metadata: {description: …}",
	},
	reflect.TypeFor[Fabric](): {
		"name": hintName, "hosts": hintUnderSpec, "switches": hintUnderSpec, "include": hintUnderSpec,
		"subnetmanagers": hintUnderSpec, "profiles": hintUnderSpec,
	},
}

// conceptFields names, per struct type, the valid field an unknown key of
// conceptHints stands for, where it stands for one: `ip:` is the host's
// address, so a missing address is not reported again.
var conceptFields = map[reflect.Type]map[string]string{
	reflect.TypeFor[Class](): {
		"pcp": "priority", "cos": "priority", "dot1p": "priority", "8021p": "priority", "switchpriority": "priority",
		"prio": "priority", "pcpvalue": "priority", "vlanpriority": "priority", "tc": "trafficClass",
		"bandwidth": "ets", "bandwidthpercent": "ets", "bw": "ets", "weight": "ets", "percent": "ets", "share": "ets",
		"dwrr": "ets", "minbandwidth": "ets", "strict": "ets", "strictpriority": "ets", "sp": "ets",
	},
	reflect.TypeFor[Watchdog](): {"interval": "pollInterval", "polling": "pollInterval", "recovery": "restorationTime", "recoverytime": "restorationTime"},
	reflect.TypeFor[ETS](): {"bandwidth": "bandwidthPercent", "bw": "bandwidthPercent", "weight": "bandwidthPercent",
		"percent": "bandwidthPercent", "share": "bandwidthPercent", "dwrr": "bandwidthPercent"},
	reflect.TypeFor[ECN](): {"min": "minThreshold", "kmin": "minThreshold", "minth": "minThreshold",
		"max": "maxThreshold", "kmax": "maxThreshold", "maxth": "maxThreshold"},
	reflect.TypeFor[RoCE](): {"version": "mode"},
	reflect.TypeFor[Host](): {"ip": "address", "ipaddress": "address", "mgmt": "address", "mgmtip": "address", "host": "address",
		"nic": "interfaces", "nics": "interfaces", "netdev": "interfaces", "netdevs": "interfaces"},
	reflect.TypeFor[Switch](): {"os": "platform", "nos": "platform", "vendor": "platform", "type": "platform", "kind": "platform",
		"driver": "platform", "interfaces": "ports", "interface": "ports", "ifaces": "ports",
		"ip": "address", "ipaddress": "address", "mgmt": "address", "mgmtip": "address", "host": "address"},
	reflect.TypeFor[Partition](): {"key": "pkey", "partitionkey": "pkey", "sl": "serviceLevel", "guids": "members", "hosts": "members"},
}

// unknownFieldHint returns what to add to "unknown field" for key in a
// struct of type t with the valid names: " (concept hint)", " (did you
// mean "x"?)" or "", and the valid field the key most likely meant ("" when
// none).
func unknownFieldHint(t reflect.Type, key string, names []string) (hint, meant string) {
	if h, ok := conceptHints[t][normKey(key)]; ok {
		return " (" + h + ")", conceptFields[t][normKey(key)]
	}
	if s := closest(key, names); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s), s
	}
	return "", ""
}

// Value hints: a known field given a value another tool would take.
type valueHint func(n *yaml.Node) string

var valueHints = map[reflect.Type]map[string]valueHint{
	reflect.TypeFor[Ethernet](): {
		"mtu": func(n *yaml.Node) string {
			if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
				return fmt.Sprintf("expected an integer, got the string %q (jumbo frames are mtu: 9000 on the host netdev; switches take switchMtu, 9216 by default)", clip(n.Value))
			}
			return ""
		},
		"trust": func(n *yaml.Node) string {
			if n.Kind != yaml.ScalarNode {
				return ""
			}
			switch strings.ToLower(n.Value) {
			case "l3", "ip", "dscp-only", "ipdscp":
				return fmt.Sprintf("%q is not one of dscp, pcp (NVUE's trust l3 is trust: dscp here, as mlnx_qos --trust dscp and EOS qos trust dscp)", clip(n.Value))
			case "l2", "dot1p", "802.1p", "8021p", "cos", "pcp-only", "vlan":
				return fmt.Sprintf("%q is not one of dscp, pcp (NVUE's trust l2 is trust: pcp here, as mlnx_qos --trust pcp and EOS qos trust cos)", clip(n.Value))
			case "both":
				return fmt.Sprintf("%q is not one of dscp, pcp (fabricctl trusts one field: dscp, the RoCE v2 choice, or pcp)", clip(n.Value))
			}
			return ""
		},
	},
	reflect.TypeFor[Class](): {
		"ecn": func(n *yaml.Node) string {
			if n.Kind != yaml.ScalarNode {
				return ""
			}
			switch v := strings.ToLower(n.Value); {
			case n.Tag == "!!bool" && v == "true", v == "on", v == "yes", v == "enabled", v == "enable":
				got := fmt.Sprintf("the string %q", clip(n.Value))
				if n.Tag == "!!bool" {
					got = "a boolean"
				}
				return fmt.Sprintf("expected ECN thresholds or \"off\", got %s (ECN on a class is its marking thresholds: ecn: {minThreshold: 150KB, maxThreshold: 1500KB})", got)
			}
			return ""
		},
		"dscp": func(n *yaml.Node) string {
			if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
				return ""
			}
			v := strings.ToLower(strings.TrimSpace(n.Value))
			switch v {
			case "all", "any", "default", "others", "other", "remaining", "*", "else":
				return fmt.Sprintf("expected a list of DSCP values or \"rest\", got %q (dscp: rest takes every DSCP no other class lists)", clip(n.Value))
			}
			if lo, hi, ok := dscpRange(v); ok {
				vals := make([]string, 0, hi-lo+1)
				for d := lo; d <= hi; d++ {
					vals = append(vals, fmt.Sprint(d))
				}
				return fmt.Sprintf("expected a list of DSCP values or \"rest\", got %q (write the range as a list: [%s])", clip(n.Value), strings.Join(vals, ", "))
			}
			if strings.Contains(v, ",") {
				return fmt.Sprintf("expected a list of DSCP values or \"rest\", got %q (write a YAML list: [%s])", clip(n.Value), clip(strings.Join(strings.Fields(strings.ReplaceAll(v, ",", " ")), ", ")))
			}
			return ""
		},
	},
	reflect.TypeFor[RoCE](): {
		"mode": func(n *yaml.Node) string {
			if n.Kind != yaml.ScalarNode {
				return ""
			}
			switch strings.ToLower(n.Value) {
			case "lossless", "lossy":
				return fmt.Sprintf("%q is not one of v1, v2 (roce.mode is the RoCE version; NVUE's roce mode lossless is lossless: true on the RoCE class)", clip(n.Value))
			case "2", "2.0", "rocev2", "roce-v2", "roce_v2", "v2.0":
				return fmt.Sprintf("%q is not one of v1, v2 (write mode: v2)", clip(n.Value))
			case "1", "1.0", "rocev1", "roce-v1", "roce_v1", "v1.0":
				return fmt.Sprintf("%q is not one of v1, v2 (write mode: v1)", clip(n.Value))
			}
			return ""
		},
	},
}

// dscpRange reads "26-30" (a range users write for a DSCP list) within 0..63.
func dscpRange(s string) (lo, hi int, ok bool) {
	a, b, found := strings.Cut(s, "-")
	if !found {
		return 0, 0, false
	}
	if _, err := fmt.Sscanf(strings.TrimSpace(a)+" "+strings.TrimSpace(b), "%d %d", &lo, &hi); err != nil {
		return 0, 0, false
	}
	return lo, hi, lo >= 0 && hi <= 63 && lo <= hi && hi-lo < 64
}

// yamlBoolWords are YAML 1.1 booleans that YAML 1.2 (and so yaml.v3 for
// untyped values) reads as strings.
var yamlBoolWords = map[string]string{
	"yes": "true", "y": "true", "on": "true", "enabled": "true", "enable": "true",
	"no": "false", "n": "false", "off": "false", "disabled": "false", "disable": "false",
}

// suggest returns ` (did you mean "x"?)` for the closest candidate, or "".
func suggest(got string, candidates []string) string {
	if s := closest(got, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// closest returns the candidate got most likely misspells, or "": the same
// word in another case or separator style (switch-mtu, cnp_class), one
// that starts the other, or the nearest by edit distance (transpositions
// count as one edit) within half the word's length.
func closest(got string, candidates []string) string {
	if len(got) > maxQuoted {
		return "" // nothing long is a typo of a field name
	}
	ng := normKey(got)
	for _, c := range candidates {
		if ng != "" && ng == normKey(c) {
			return c
		}
	}
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if len(got) >= 3 && (strings.HasPrefix(strings.ToLower(c), strings.ToLower(got)) || strings.HasPrefix(strings.ToLower(got), strings.ToLower(c))) {
			return c
		}
		d := editDistance(strings.ToLower(got), strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	limit := len(got) / 2
	if limit < 2 {
		limit = 2
	}
	if best == "" || bestD > limit {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of neighbours each cost one.
func editDistance(a, b string) int {
	pp := make([]int, len(b)+1) // row i-2
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(b)]
}
