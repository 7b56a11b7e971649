package fabric

import (
	"fmt"
	"sort"
	"strings"
)

// Resolved is the desired state of every target of a fabric.
type Resolved struct {
	Hosts          []HostIntent          `json:"hosts"`
	Switches       []SwitchIntent        `json:"switches"`
	SubnetManagers []SubnetManagerIntent `json:"subnetManagers"`
}

// Resolve computes the desired state of every target. f must come from Load
// (validated); Resolve is pure and deterministic.
func (f *Fabric) Resolve() Resolved {
	var r Resolved
	hosts := newHostIndex(f.Spec.Hosts)
	hostParts := f.hostPartitions(hosts)
	bases := map[string]InterfaceIntent{} // per profile
	for _, h := range f.Spec.Hosts {
		r.Hosts = append(r.Hosts, f.resolveHost(h, hostParts[h.Name], bases))
	}
	for _, s := range f.Spec.Switches {
		r.Switches = append(r.Switches, f.resolveSwitch(s))
	}
	for _, sm := range f.Spec.SubnetManagers {
		r.SubnetManagers = append(r.SubnetManagers, f.resolveSM(sm, hosts))
	}
	sort.Slice(r.Hosts, func(i, j int) bool { return r.Hosts[i].Host < r.Hosts[j].Host })
	sort.Slice(r.Switches, func(i, j int) bool { return r.Switches[i].Name < r.Switches[j].Name })
	sort.Slice(r.SubnetManagers, func(i, j int) bool { return r.SubnetManagers[i].Name < r.SubnetManagers[j].Name })
	return r
}

// Targets returns every target name, sorted.
func (r Resolved) Targets() []string {
	var out []string
	for _, h := range r.Hosts {
		out = append(out, h.Host)
	}
	for _, s := range r.Switches {
		out = append(out, s.Name)
	}
	for _, s := range r.SubnetManagers {
		out = append(out, s.Name)
	}
	sort.Strings(out)
	return out
}

// resolveHost computes one host's desired state; bases caches each profile's
// resolved interface.
func (f *Fabric) resolveHost(h Host, parts []HostPartition, bases map[string]InterfaceIntent) HostIntent {
	hi := HostIntent{APIVersion: APIVersion, Host: h.Name, Address: h.Address, Profile: h.Profile,
		Labels: h.Labels, Partitions: parts}
	p := f.Profiles[h.Profile]
	if p == nil || p.Spec.Ethernet == nil {
		return hi
	}
	names := h.Interfaces
	if len(names) == 0 {
		names = []string{AllRDMANetdevs}
	}
	base, ok := bases[h.Profile]
	if !ok {
		base = ResolveInterface(p.Spec.Ethernet)
		bases[h.Profile] = base
	}
	for _, n := range names {
		ii := base
		ii.Name = n
		ii.PFC.Priorities = append([]int(nil), base.PFC.Priorities...)
		ii.DSCPMap = append([]DSCPEntry(nil), base.DSCPMap...)
		ii.ECN.Priorities = append([]int(nil), base.ECN.Priorities...)
		hi.Interfaces = append(hi.Interfaces, ii)
	}
	sort.Slice(hi.Interfaces, func(i, j int) bool { return hi.Interfaces[i].Name < hi.Interfaces[j].Name })
	return hi
}

// restDSCP returns the DSCP values no class lists explicitly.
func restDSCP(e *Ethernet) []int {
	taken := map[int]bool{}
	for _, c := range e.Classes {
		for _, d := range c.DSCP.Values {
			taken[d] = true
		}
	}
	var out []int
	for d := 0; d < 64; d++ {
		if !taken[d] {
			out = append(out, d)
		}
	}
	return out
}

// classDSCP returns a class's DSCP values with "rest" expanded, ascending.
func classDSCP(e *Ethernet, c *Class) []int {
	out := append([]int(nil), c.DSCP.Values...)
	if c.DSCP.Rest {
		out = append(out, restDSCP(e)...)
	}
	sort.Ints(out)
	return out
}

// ResolveInterface computes a netdev's desired lossless state from a validated
// Ethernet profile section. Name is left empty.
func ResolveInterface(e *Ethernet) InterfaceIntent {
	ii := InterfaceIntent{MTU: e.MTU, DCBX: DCBXHost | DCBXVerIEEE, Trust: e.Trust}
	if ii.Trust == "" {
		ii.Trust = "dscp"
	}
	if e.PFC != nil {
		ii.PFC.Delay = uint16(e.PFC.CableLength)
	}
	ii.PFC.Priorities = []int{}
	ii.ECN.Priorities = []int{}
	restTC := -1
	used := map[int]bool{}
	for i := range e.Classes {
		c := &e.Classes[i]
		prio, tc := *c.Priority, classTC(c)
		used[tc] = true
		if c.Lossless {
			ii.PFC.Enable |= 1 << prio
			ii.PFC.Priorities = append(ii.PFC.Priorities, prio)
		}
		if c.ECN != nil && !c.ECN.Off {
			ii.ECN.Priorities = append(ii.ECN.Priorities, prio)
		}
		if c.DSCP.Rest {
			restTC = tc
		}
	}
	// Priorities no class claims go to the class taking the rest of DSCP, else TC 0.
	if restTC < 0 {
		restTC = 0
	}
	for p := 0; p < 8; p++ {
		ii.ETS.PrioTC[p] = uint8(restTC)
		ii.ETS.TSA[p] = TSAETS
	}
	for i := range e.Classes {
		c := &e.Classes[i]
		tc := classTC(c)
		ii.ETS.PrioTC[*c.Priority] = uint8(tc)
		if c.ETS.Strict {
			ii.ETS.TSA[tc] = TSAStrict
		} else if c.ETS.BandwidthPercent != nil {
			ii.ETS.Bandwidth[tc] = uint8(*c.ETS.BandwidthPercent)
		}
	}
	sort.Ints(ii.PFC.Priorities)
	sort.Ints(ii.ECN.Priorities)
	if ii.Trust == "dscp" {
		prioOf := map[int]int{}
		restPrio := 0
		for i := range e.Classes {
			c := &e.Classes[i]
			for _, d := range c.DSCP.Values {
				prioOf[d] = *c.Priority
			}
			if c.DSCP.Rest {
				restPrio = *c.Priority
			}
		}
		for d := 0; d < 64; d++ {
			p, ok := prioOf[d]
			if !ok {
				p = restPrio
			}
			ii.DSCPMap = append(ii.DSCPMap, DSCPEntry{DSCP: uint8(d), Priority: uint8(p)})
		}
	}
	// CNP defaults are mlx5's (DSCP 48, priority 6) unless a cnpClass says otherwise.
	ii.CNP = HostCNP{DSCP: 48, Priority: 6}
	ii.RoCE = HostRoCE{Mode: RoCEModeV2}
	ii.DCQCN.Enabled = false
	if r := e.RoCE; r != nil {
		if r.Mode == "v1" {
			ii.RoCE.Mode = RoCEModeV1
		}
		for i := range e.Classes {
			c := &e.Classes[i]
			if c.Name == r.Class {
				ii.RoCE.ToS = defaultToS(c)
			}
			if c.Name == r.CNPClass && len(c.DSCP.Values) > 0 {
				ii.CNP = HostCNP{DSCP: c.DSCP.Values[0], Priority: *c.Priority}
			}
		}
		if r.ToS != nil {
			ii.RoCE.ToS = *r.ToS
		}
		ii.DCQCN.Enabled = true
		if r.DCQCN != nil {
			if r.DCQCN.Enabled != nil {
				ii.DCQCN.Enabled = *r.DCQCN.Enabled
			}
			ii.DCQCN.NP = r.DCQCN.NP
			ii.DCQCN.RP = r.DCQCN.RP
		}
	}
	if e.GlobalPause != nil {
		ii.GlobalPause = *e.GlobalPause
	}
	return ii
}

func (f *Fabric) resolveSwitch(s Switch) SwitchIntent {
	si := SwitchIntent{APIVersion: APIVersion, Name: s.Name, Platform: s.Platform, Address: s.Address,
		Profile: s.Profile, Labels: s.Labels, Model: s.Model}
	for _, pr := range s.Ports {
		ports, _ := ExpandPorts(pr)
		si.Ports = append(si.Ports, ports...)
	}
	SortPorts(si.Ports)
	if p := f.Profiles[s.Profile]; p != nil && p.Spec.Ethernet != nil {
		ResolveSwitchQoS(p.Spec.Ethernet, &si)
		si.MTU = ResolveSwitchMTU(p.Spec.Ethernet.SwitchMTU, f.modelLimits(s))
	}
	return si
}

// modelLimits returns the MTU limits of s's model, or nil when the fabric
// was loaded without platform facts (or the model is unknown: validation
// reports that).
func (f *Fabric) modelLimits(s Switch) *ModelLimits {
	m, ok := f.platforms.(SwitchModels)
	if !ok {
		return nil
	}
	l, err := m.SwitchModel(s.Platform, s.Model)
	if err != nil {
		return nil
	}
	return &l
}

// ResolveSwitchMTU is the MTU a switch gets from a profile's switchMtu:
// an explicit value as it is; "max" the model's largest; unset
// DefaultSwitchMTU, or the model's largest where that is smaller (Arista
// EOS stops at 9214). Without model limits (nil) "max" and unset are
// DefaultSwitchMTU.
func ResolveSwitchMTU(v SwitchMTU, l *ModelLimits) int {
	switch {
	case v > 0:
		return int(v)
	case l == nil || l.MaxMTU <= 0:
		return DefaultSwitchMTU
	case v == SwitchMTUMax:
		return l.MaxMTU
	}
	return min(DefaultSwitchMTU, l.MaxMTU)
}

// ResolveSwitchQoS fills the QoS part of a switch intent from a validated
// Ethernet profile section.
//
// The MTU is ResolveSwitchMTU's without model limits (DefaultSwitchMTU for
// "max" and unset); the caller that knows the switch's model sets it again.
func ResolveSwitchQoS(e *Ethernet, si *SwitchIntent) {
	si.MTU = ResolveSwitchMTU(e.SwitchMTU, nil)
	si.QueueBufferBytes = int64(e.QueueBuffer)
	si.Trust = e.Trust
	if si.Trust == "" {
		si.Trust = "dscp"
	}
	si.PFC.Priorities = []int{}
	for i := range e.Classes {
		c := &e.Classes[i]
		tc := classTC(c)
		q := tc
		if c.Queue != nil {
			q = *c.Queue
		}
		sc := SwitchClass{Name: c.Name, Priority: *c.Priority, TrafficClass: tc, Queue: q,
			DSCP: classDSCP(e, c), Lossless: c.Lossless, Strict: c.ETS.Strict}
		if sc.DSCP == nil {
			sc.DSCP = []int{}
		}
		if c.ETS.BandwidthPercent != nil {
			sc.BandwidthPercent = *c.ETS.BandwidthPercent
		}
		if c.ECN != nil && !c.ECN.Off {
			prob := 100
			if c.ECN.MaxMarkProbability != nil {
				prob = *c.ECN.MaxMarkProbability
			}
			sc.ECN = &SwitchECN{MinBytes: int64(c.ECN.MinThreshold), MaxBytes: int64(c.ECN.MaxThreshold), MaxMarkProbability: prob}
		}
		if c.Lossless {
			si.PFC.Priorities = append(si.PFC.Priorities, *c.Priority)
		}
		si.Classes = append(si.Classes, sc)
	}
	sort.Slice(si.Classes, func(i, j int) bool { return si.Classes[i].Priority < si.Classes[j].Priority })
	sort.Ints(si.PFC.Priorities)
	if e.PFC != nil {
		si.PFC.CableLengthMeters = int(e.PFC.CableLength)
		if w := e.PFC.Watchdog; w != nil {
			action := w.Action
			if action == "" {
				action = "drop"
			}
			si.PFC.Watchdog = &SwitchPFCWatchdog{Enabled: w.Enabled, Action: action,
				PollIntervalMs:    durMs(w.PollInterval),
				DetectionTimeMs:   durMs(w.DetectionTime),
				RestorationTimeMs: durMs(w.RestorationTime)}
		}
	}
	if e.RoCE != nil {
		si.RoCEClass, si.CNPClass = e.RoCE.Class, e.RoCE.CNPClass
	}
}

func durMs(d Duration) int { return int((int64(d) + 999_999) / 1_000_000) }

// hostPartitions computes, per host name, the partitions it belongs to across
// every subnet manager's profile.
func (f *Fabric) hostPartitions(hosts *hostIndex) map[string][]HostPartition {
	out := map[string][]HostPartition{}
	seen := map[string]map[uint16]bool{}
	for _, sm := range f.Spec.SubnetManagers {
		p := f.Profiles[sm.Profile]
		if p == nil || p.Spec.InfiniBand == nil {
			continue
		}
		for _, part := range p.Spec.InfiniBand.Partitions {
			for _, m := range part.Members {
				if m.Hosts == nil {
					continue
				}
				for _, h := range hosts.selectHosts(m.Hosts) {
					if seen[h.Name] == nil {
						seen[h.Name] = map[uint16]bool{}
					}
					if seen[h.Name][uint16(part.PKey)] {
						continue
					}
					seen[h.Name][uint16(part.PKey)] = true
					out[h.Name] = append(out[h.Name], HostPartition{Name: part.Name, PKey: uint16(part.PKey),
						Membership: membership(m, part), IPoIB: part.IPoIB})
				}
			}
		}
	}
	for _, ps := range out {
		sort.Slice(ps, func(i, j int) bool { return ps[i].PKey < ps[j].PKey })
	}
	return out
}

func membership(m Member, p Partition) string {
	switch {
	case m.Membership != "":
		return m.Membership
	case p.DefaultMembership != "":
		return p.DefaultMembership
	}
	return "full"
}

func (f *Fabric) resolveSM(sm SubnetManager, hosts *hostIndex) SubnetManagerIntent {
	si := SubnetManagerIntent{APIVersion: APIVersion, Name: sm.Name, Kind: sm.Kind, Address: sm.Address,
		Profile: sm.Profile, PartitionsFile: sm.PartitionsFile, LogFile: sm.LogFile, PIDFile: sm.PIDFile, Verify: sm.Verify,
		Partitions: []PartitionIntent{}}
	p := f.Profiles[sm.Profile]
	if p == nil || p.Spec.InfiniBand == nil {
		return si
	}
	si.Partitions = resolvePartitions(p.Spec.InfiniBand, hosts)
	return si
}

// ResolvePartitions turns profile partitions into partition intents; host
// selectors become one member per port GUID (or per host when GUIDs are unknown).
func ResolvePartitions(ib *InfiniBand, hosts []Host) []PartitionIntent {
	return resolvePartitions(ib, newHostIndex(hosts))
}

func resolvePartitions(ib *InfiniBand, hosts *hostIndex) []PartitionIntent {
	var out []PartitionIntent
	for _, part := range ib.Partitions {
		pi := PartitionIntent{Name: part.Name, PKey: uint16(part.PKey), IPoIB: part.IPoIB, MTU: part.MTU,
			MTUCode: MTUCode(part.MTU), Rate: part.Rate, RateCode: RateCode(part.Rate),
			ServiceLevel: -1, DefaultMembership: part.DefaultMembership, Members: []PartitionMember{}}
		if part.ServiceLevel != nil {
			pi.ServiceLevel = *part.ServiceLevel
		}
		for _, m := range part.Members {
			ms := membership(m, part)
			switch {
			case m.GUID != "":
				pi.Members = append(pi.Members, PartitionMember{GUID: strings.ToLower(m.GUID), Membership: ms})
			case m.Special != "":
				pi.Members = append(pi.Members, PartitionMember{Special: m.Special, Membership: ms})
			case m.Hosts != nil:
				for _, h := range hosts.selectHosts(m.Hosts) {
					if len(h.PortGUIDs) == 0 {
						pi.Members = append(pi.Members, PartitionMember{Host: h.Name, Membership: ms})
					}
					for _, g := range h.PortGUIDs {
						pi.Members = append(pi.Members, PartitionMember{GUID: strings.ToLower(g), Membership: ms})
					}
				}
			}
		}
		out = append(out, pi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PKey < out[j].PKey })
	return out
}

// Host returns the desired state of the host named name; when there is none the error lists
// every host's name.
func (r Resolved) Host(name string) (HostIntent, error) {
	var names []string
	for _, h := range r.Hosts {
		if h.Host == name {
			return h, nil
		}
		names = append(names, h.Host)
	}
	sort.Strings(names)
	return HostIntent{}, fmt.Errorf("no host %q (hosts: %s)", name, strings.Join(names, ", "))
}
