package localizesim

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// Config shapes the simulated fabric and its noise.
type Config struct {
	Hosts, Leaves, Spines int
	HostGbps              float64
	// UplinkFlows is how many full-rate host flows one uplink carries per
	// direction (4 makes 32 hosts over 8 uplinks non-blocking).
	UplinkFlows int
	// Noise is the standard deviation of the multiplicative bandwidth jitter.
	Noise float64
	// FalseSlow is the chance that a healthy test reads slow (a measurement error).
	FalseSlow float64
	// SpuriousLoss is the chance that loss counters move on a healthy test.
	SpuriousLoss float64
	// VoidRate is the chance that a test fails to run (agent, tool).
	VoidRate float64
	// SwitchCounters: switch port receive errors are read, not only hosts'.
	SwitchCounters bool
	// BackgroundPhy is the chance that a healthy cable end shows receive errors.
	BackgroundPhy float64
	// Silent is the share of cable and uplink faults that count no receive error.
	Silent float64

	// IB makes the fabric InfiniBand (IB): every test's path is known from
	// the forwarding tables (Routes: D-mod-K over the destination, as
	// OpenSM's ftree routing spreads a leaf's destinations over its
	// spines), faults are IB's (InjectIB), and every port of the fabric,
	// HCA and switch, is read with the IBTA counters.
	IB bool
	// PortState: with IB, a link trained at a lower width is seen at both
	// ends' port state (PortInfo LinkWidthActive), not only in bandwidth.
	PortState bool
	// BackgroundDiscards is the chance that a healthy switch port counts
	// PortXmitDiscards (congestion: head-of-queue lifetime expired); IB only.
	BackgroundDiscards float64
	// BackgroundDown is the chance that a healthy link counts a
	// LinkDownedCounter at both ends (a host rebooted); IB only.
	BackgroundDown float64
	// FlapLoss is the chance that a test crossing a flapping link fails; IB only.
	FlapLoss float64

	// Model is the fault model Inject draws from (Easy when empty); see
	// FaultModel. Ethernet only.
	Model FaultModel
	// PinnedPaths: every test's ECMP path is fixed by its flow label and
	// known (Routes), as where the fabric hashes a 5-tuple the same way
	// every time and a traceroute with it named the spine: data to host j
	// crosses spine j mod Spines, as IB's D-mod-K routes do. Ethernet only.
	PinnedPaths bool
}

// Default is the benchmark's fabric: 1,024 hosts at 400 Gb/s on 32 leaves,
// 8 spines, non-blocking, with switch counters read.
func Default() Config {
	return Config{Hosts: 1024, Leaves: 32, Spines: 8, HostGbps: 400, UplinkFlows: 4, Noise: 0.02,
		FalseSlow: 0.005, SpuriousLoss: 0.002, VoidRate: 0.002, SwitchCounters: true, BackgroundPhy: 0.003}
}

// IB is Default as an InfiniBand fabric: the same 1,024 hosts, 32 leaves
// and 8 spines with known routes, IB faults and every port's counters.
func IB() Config {
	c := Default()
	c.IB, c.PortState = true, true
	c.BackgroundDiscards, c.BackgroundDown, c.FlapLoss = 0.01, 0.001, 0.5
	return c
}

// Kind is the kind of an injected fault.
type Kind string

// The fault kinds.
const (
	NIC    Kind = "nic"
	Cable  Kind = "cable"
	Uplink Kind = "uplink"
	// Port is a leaf port dropping what it sends to its host (IB
	// PortXmitDiscards); IB only.
	Port Kind = "port"
)

// Effect is how a faulty cable or uplink fails.
type Effect string

// The effects.
const (
	// Corrupt: frames are corrupted one way or both, counted as receive
	// errors where they arrive (SymbolErrorCounter, PortRcvErrors).
	Corrupt Effect = ""
	// Degraded: the link trained at a lower width (4X to 1X or 2X): data
	// crossing it either way is slow, nothing is lost or counted; IB only.
	Degraded Effect = "degraded"
	// Flapping: the link goes down and up: tests crossing it fail at
	// Config.FlapLoss, and both ends count LinkDownedCounter; IB only.
	Flapping Effect = "flapping"
)

// Direction says which way a faulty cable corrupts: Up is from its A end
// (the host, or the leaf of an uplink) to its B end.
type Direction int

// The directions.
const (
	Up Direction = 1 << iota
	Down
	Both = Up | Down
)

// Fault is one injected fault.
type Fault struct {
	Kind   Kind
	Effect Effect
	// Component is the localiser's ID of the faulty component.
	Component string
	Dir       Direction
	// Factor: a NIC's or degraded link's share of line rate, a lossy
	// cable's or port's goodput share.
	Factor float64
	Silent bool
	// Rate is a gray fault's drop rate (0.001–0.05), 0 for a hard fault.
	Rate float64
	// Share is the share of flows crossing the fault that it spoils (a
	// lossy lane, a bad ECMP member, a destination black-holed), 0 for all.
	Share float64
	// Active is the share of rounds an intermittent or flapping fault is
	// active in, 0 for all.
	Active float64
	// Incident names the incident kind of FaultModel Incidents ("" for the
	// plain kinds): IncidentPFC, IncidentPauseStorm …
	Incident string
	// Congested: the fault shows only on tests its uplink carries more
	// flows than it can (a port with PFC misconfigured drops instead of
	// pausing).
	Congested bool
	// Storm: a NIC sending pause frames slows the other tests of its leaf
	// as well.
	Storm bool
	// Via is the uplink whose tests show a spine's missing route
	// (IncidentRoute): the one from the spine down to the leaf it lost.
	Via string
}

type host struct {
	name string
	leaf int
	nic  fabric.Endpoint // the host end of its cable
	port fabric.Endpoint // the leaf end
}

type uplink struct {
	leafEnd, spineEnd fabric.Endpoint
	id                string
}

// Sim is one simulated fabric with its faults.
type Sim struct {
	cfg     Config
	topo    *topology.Topology
	hosts   []host
	byName  map[string]int
	uplinks [][]uplink // [leaf][spine]
	faults  []Fault
	nicF    map[int]*Fault
	cableF  map[int]*Fault
	upF     map[[2]int]*Fault
	portF   map[int]*Fault
	spineF  map[int]*Fault
	rng     *rand.Rand
	seed    uint64
	runs    uint64
	phy     map[fabric.Endpoint]uint64
	down    map[fabric.Endpoint]uint64 // IB LinkDownedCounter
	disc    map[fabric.Endpoint]uint64 // IB PortXmitDiscards
	stormEv map[fabric.Endpoint]uint64 // a NIC's tx_pause_storm_warning_events
}

// New builds the fabric of cfg; seed fixes its randomness (faults, hashing, noise).
func New(cfg Config, seed uint64) *Sim {
	s := &Sim{cfg: cfg, byName: map[string]int{}, nicF: map[int]*Fault{}, cableF: map[int]*Fault{}, upF: map[[2]int]*Fault{},
		portF: map[int]*Fault{}, spineF: map[int]*Fault{}, rng: rand.New(rand.NewPCG(seed, 0x5eed)), seed: seed ^ 0x9e3779b97f4a7c15,
		phy: map[fabric.Endpoint]uint64{}, down: map[fabric.Endpoint]uint64{}, disc: map[fabric.Endpoint]uint64{},
		stormEv: map[fabric.Endpoint]uint64{}}
	// Ports: Ethernet's eth0 and swpN, or IB's port numbers.
	nicPort, swPort := "eth0", func(n int) string { return fmt.Sprintf("swp%d", n) }
	if cfg.IB {
		nicPort, swPort = "1", strconv.Itoa
	}
	per := (cfg.Hosts + cfg.Leaves - 1) / cfg.Leaves
	var nodes []topology.Node
	var links []topology.Link
	for l := range cfg.Leaves {
		nodes = append(nodes, topology.Node{Name: leafName(l), Role: topology.RoleLeaf})
	}
	for sp := range cfg.Spines {
		nodes = append(nodes, topology.Node{Name: spineName(sp), Role: topology.RoleSpine})
	}
	for i := range cfg.Hosts {
		l := i / per
		h := host{name: fmt.Sprintf("h%04d", i+1), leaf: l,
			nic: fabric.Endpoint{Device: fmt.Sprintf("h%04d", i+1), Port: nicPort}, port: fabric.Endpoint{Device: leafName(l), Port: swPort(i%per + 1)}}
		s.byName[h.name] = len(s.hosts)
		s.hosts = append(s.hosts, h)
		nodes = append(nodes, topology.Node{Name: h.name, Role: topology.RoleHost})
		links = append(links, topology.Link{A: h.nic, B: h.port})
	}
	s.uplinks = make([][]uplink, cfg.Leaves)
	for l := range cfg.Leaves {
		for sp := range cfg.Spines {
			u := uplink{leafEnd: fabric.Endpoint{Device: leafName(l), Port: swPort(per + sp + 1)},
				spineEnd: fabric.Endpoint{Device: spineName(sp), Port: swPort(l + 1)}}
			s.uplinks[l] = append(s.uplinks[l], u)
			links = append(links, topology.Link{A: u.leafEnd, B: u.spineEnd})
		}
	}
	s.topo = topology.New(nodes, links)
	for l := range cfg.Leaves {
		for sp := range cfg.Spines {
			u := &s.uplinks[l][sp]
			for _, tl := range s.topo.LinksAt(u.leafEnd) {
				u.id = "link:" + tl.A.String()
			}
		}
	}
	// Background receive errors on healthy ends.
	for _, e := range s.ends() {
		if s.rng.Float64() < cfg.BackgroundPhy {
			s.phy[e] += 1 + uint64(s.rng.IntN(50))
		}
	}
	if cfg.IB {
		s.ibBackground()
	}
	return s
}

func leafName(l int) string   { return fmt.Sprintf("leaf-%02d", l+1) }
func spineName(s int) string  { return fmt.Sprintf("spine-%d", s+1) }
func (s *Sim) Config() Config { return s.cfg }

// Topology is the fabric's cabling, as a fabric file would declare it.
func (s *Sim) Topology() *topology.Topology { return s.topo }

// Faults returns the injected faults.
func (s *Sim) Faults() []Fault { return slices.Clone(s.faults) }

// ends lists every cable end: host NICs, leaf and spine ports.
func (s *Sim) ends() []fabric.Endpoint {
	var out []fabric.Endpoint
	for _, h := range s.hosts {
		out = append(out, h.nic, h.port)
	}
	for _, us := range s.uplinks {
		for _, u := range us {
			out = append(out, u.leafEnd, u.spineEnd)
		}
	}
	return out
}

// Inject adds k faults on distinct components: each picks its kind (NIC,
// access cable, uplink) with equal chance, then a component of that kind.
func (s *Sim) Inject(k int) []Fault {
	if s.cfg.IB {
		return s.injectIB(k)
	}
	if s.cfg.Model != "" && s.cfg.Model != Easy {
		return s.injectModel(k)
	}
	for n := 0; n < k; {
		kind := []Kind{NIC, Cable, Uplink}[s.rng.IntN(3)]
		dir := []Direction{Up, Down, Both}[s.rng.IntN(3)]
		silent := s.rng.Float64() < s.cfg.Silent
		switch kind {
		case NIC:
			i := s.rng.IntN(len(s.hosts))
			if s.nicF[i] != nil {
				continue
			}
			f := &Fault{Kind: NIC, Component: "nic:" + s.hosts[i].nic.String(), Factor: 0.3 + 0.4*s.rng.Float64()}
			s.nicF[i] = f
			s.faults = append(s.faults, *f)
		case Cable:
			i := s.rng.IntN(len(s.hosts))
			if s.cableF[i] != nil {
				continue
			}
			f := &Fault{Kind: Cable, Component: "cable:" + s.hosts[i].nic.String(), Dir: dir, Factor: 0.05 + 0.5*s.rng.Float64(), Silent: silent}
			s.cableF[i] = f
			s.faults = append(s.faults, *f)
		case Uplink:
			l, sp := s.rng.IntN(s.cfg.Leaves), s.rng.IntN(s.cfg.Spines)
			if s.upF[[2]int{l, sp}] != nil {
				continue
			}
			f := &Fault{Kind: Uplink, Component: s.uplinks[l][sp].id, Dir: dir, Factor: 0.05 + 0.5*s.rng.Float64(), Silent: silent}
			s.upF[[2]int{l, sp}] = f
			s.faults = append(s.faults, *f)
		}
		n++
	}
	return s.Faults()
}

// Break injects one given fault: a NIC, access cable or leaf port (IB)
// of host index i (0-based), or the uplink from leaf i/Spines to spine
// i%Spines. factor is the NIC's share of line rate or the cable's or
// port's goodput share.
func (s *Sim) Break(kind Kind, i int, dir Direction, factor float64, silent bool) Fault {
	return s.BreakLink(kind, Corrupt, i, dir, factor, silent)
}

// BreakLink is Break with the way a cable or uplink fails (IB: Degraded,
// Flapping).
func (s *Sim) BreakLink(kind Kind, effect Effect, i int, dir Direction, factor float64, silent bool) Fault {
	f := &Fault{Kind: kind, Effect: effect, Dir: dir, Factor: factor, Silent: silent}
	if effect != Corrupt {
		f.Dir, f.Silent = Both, false
	}
	switch kind {
	case NIC:
		f.Component, f.Dir, f.Silent = "nic:"+s.hosts[i].nic.String(), 0, false
		s.nicF[i] = f
	case Cable:
		f.Component = "cable:" + s.hosts[i].nic.String()
		s.cableF[i] = f
	case Uplink:
		l, sp := i/s.cfg.Spines, i%s.cfg.Spines
		f.Component = s.uplinks[l][sp].id
		s.upF[[2]int{l, sp}] = f
	case Port:
		f.Component, f.Effect, f.Dir = "port:"+s.hosts[i].port.String(), Corrupt, Down
		s.portF[i] = f
	}
	if f.Effect == Flapping {
		for _, e := range s.endsOf(*f) {
			s.down[e] += 1 + uint64(s.rng.IntN(4))
		}
	}
	s.faults = append(s.faults, *f)
	return *f
}

// BreakWith injects fault f (its Kind and the way it fails: Dir, Factor,
// Share, Active, Silent, Incident, Storm, Congested) on component i of
// its kind, as Break numbers them: a NIC or access cable of host i, the
// uplink from leaf i/Spines to spine i%Spines, or (Kind "spine") spine i.
// It sets Component, and for a flapping incident the link-down counts
// and for a pause storm the NIC's storm counter. Ethernet only.
func (s *Sim) BreakWith(i int, f Fault) Fault {
	switch f.Kind {
	case NIC:
		f.Component = "nic:" + s.hosts[i].nic.String()
		s.nicF[i] = &f
		if f.Storm {
			s.stormEv[s.hosts[i].nic]++
		}
	case Cable:
		if f.Component == "" {
			f.Component = "cable:" + s.hosts[i].nic.String()
		}
		s.cableF[i] = &f
		if f.Incident == IncidentFlap {
			s.down[s.hosts[i].nic]++
			s.down[s.hosts[i].port]++
		}
	case Uplink:
		l, sp := i/s.cfg.Spines, i%s.cfg.Spines
		if f.Component == "" {
			f.Component = s.uplinks[l][sp].id
		}
		s.upF[[2]int{l, sp}] = &f
		if f.Incident == IncidentFlap {
			s.down[s.uplinks[l][sp].leafEnd]++
			s.down[s.uplinks[l][sp].spineEnd]++
		}
	case Kind("spine"):
		f.Component = "switch:" + spineName(i)
		s.spineF[i] = &f
	}
	s.faults = append(s.faults, f)
	return f
}

// flow is one test's data path.
type flow struct {
	c, v  int // client, server host index
	spine int // -1 within a leaf
}

// RunRound runs the tests of one round at once (localize.Tester).
func (s *Sim) RunRound(ctx context.Context, round int, pairs schedule.Round) ([]localize.Observation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.cfg.IB {
		return s.runRoundIB(round, pairs)
	}
	flows := make([]flow, len(pairs))
	load := map[[3]int]int{} // leaf, spine, direction (0 up, 1 down) → flows
	for i, p := range pairs {
		c, okC := s.byName[p.Client]
		v, okV := s.byName[p.Server]
		if !okC || !okV {
			return nil, fmt.Errorf("simulating round %d: unknown host in %s→%s", round, p.Client, p.Server)
		}
		f := flow{c: c, v: v, spine: -1}
		if s.hosts[c].leaf != s.hosts[v].leaf {
			s.runs++
			h := fnv.New64a()
			fmt.Fprintf(h, "%d|%s>%s#%d", s.seed, p.Client, p.Server, s.runs)
			f.spine = int(mix(h.Sum64()) % uint64(s.cfg.Spines))
			if s.cfg.PinnedPaths {
				f.spine = s.spineFor(v)
			}
			load[[3]int{s.hosts[c].leaf, f.spine, 0}]++
			load[[3]int{s.hosts[v].leaf, f.spine, 1}]++
		}
		flows[i] = f
	}
	out := make([]localize.Observation, 0, len(pairs))
	for i, f := range flows {
		out = append(out, s.measure(round, pairs[i], f, load))
	}
	return out, nil
}

func (s *Sim) measure(round int, p schedule.Pair, f flow, load map[[3]int]int) localize.Observation {
	ob := localize.Observation{Client: p.Client, Server: p.Server, Round: round}
	if s.rng.Float64() < s.cfg.VoidRate {
		ob.Outcome = localize.Void
		return ob
	}
	c, v := s.hosts[f.c], s.hosts[f.v]
	rate := 1.0
	lossData, lossAck := 1.0, 1.0
	corrupt := func(fl *Fault, dataDir, faultDir Direction, rx fabric.Endpoint) {
		if fl == nil || !s.strikes(fl, round, p, f, load) {
			return
		}
		if fl.Dir&faultDir != 0 {
			if dataDir == faultDir {
				lossData = math.Min(lossData, fl.Factor)
			} else {
				lossAck = math.Min(lossAck, 0.5+0.5*fl.Factor)
			}
			if !fl.Silent {
				s.phy[rx] += 1000 + uint64(s.rng.IntN(5000))
			}
		}
	}
	// NICs.
	for _, i := range []int{f.c, f.v} {
		if fl := s.nicF[i]; fl != nil && s.strikes(fl, round, p, f, load) {
			rate = math.Min(rate, fl.Factor)
		}
	}
	rate = math.Min(rate, s.storm(round, p, f))
	// Client's cable: data goes up (host → leaf), acks come down.
	corrupt(s.cableF[f.c], Up, Up, c.port)
	corrupt(s.cableF[f.c], Up, Down, c.nic)
	// Server's cable: data comes down, acks go up.
	corrupt(s.cableF[f.v], Down, Down, v.nic)
	corrupt(s.cableF[f.v], Down, Up, v.port)
	if f.spine >= 0 {
		up := s.uplinks[c.leaf][f.spine]
		down := s.uplinks[v.leaf][f.spine]
		corrupt(s.upF[[2]int{c.leaf, f.spine}], Up, Up, up.spineEnd)
		corrupt(s.upF[[2]int{v.leaf, f.spine}], Down, Down, down.leafEnd)
		if fl := s.spineF[f.spine]; fl != nil && s.strikes(fl, round, p, f, load) {
			lossData = math.Min(lossData, fl.Factor)
		}
		if s.cfg.PinnedPaths { // the acknowledgements' known way back
			back := s.spineFor(f.c)
			corrupt(s.upF[[2]int{v.leaf, back}], Down, Up, s.uplinks[v.leaf][back].spineEnd)
			corrupt(s.upF[[2]int{c.leaf, back}], Up, Down, s.uplinks[c.leaf][back].leafEnd)
		}
		for _, k := range [][3]int{{c.leaf, f.spine, 0}, {v.leaf, f.spine, 1}} {
			if n := load[k]; n > s.cfg.UplinkFlows {
				rate = math.Min(rate, float64(s.cfg.UplinkFlows)/float64(n))
			}
		}
	}
	gbps := s.cfg.HostGbps * rate * lossData * lossAck * (1 + s.cfg.Noise*s.rng.NormFloat64())
	switch {
	case lossData < 1:
		ob.Loss = s.rng.Float64() < 0.97
	case lossAck < 1:
		ob.Loss = s.rng.Float64() < 0.8
	default:
		ob.Loss = s.rng.Float64() < s.cfg.SpuriousLoss
		if s.rng.Float64() < s.cfg.FalseSlow {
			gbps *= 0.4 + 0.45*s.rng.Float64()
		}
	}
	ob.Gbps = math.Max(0, math.Round(gbps*100)/100)
	return ob
}

// ReadCounters returns the counters that moved (localize.CounterReader):
// receive errors and link-down events at every host NIC, and at every
// switch port when Config.SwitchCounters; and what a host reads of its own
// NIC with ethtool: its pause-storm watchdog (tx_pause_storm_warning_events)
// and its link speed (every link runs at its speed: the Ethernet faults
// simulated do not train links down).
func (s *Sim) ReadCounters(ctx context.Context) ([]fabric.Endpoint, []localize.Counter, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if s.cfg.IB {
		read, moved := s.readCountersIB()
		return read, moved, nil
	}
	var read []fabric.Endpoint
	for _, h := range s.hosts {
		read = append(read, h.nic)
		if s.cfg.SwitchCounters {
			read = append(read, h.port)
		}
	}
	if s.cfg.SwitchCounters {
		for _, us := range s.uplinks {
			for _, u := range us {
				read = append(read, u.leafEnd, u.spineEnd)
			}
		}
	}
	var moved []localize.Counter
	for _, e := range read {
		if n := s.down[e]; n > 0 {
			moved = append(moved, localize.Counter{At: e, Kind: localize.LinkDown, Name: "link_down_events_phy", Delta: n})
		}
		if n := s.phy[e]; n > 0 {
			name := "in_fcs_errors"
			if _, isHost := s.byName[e.Device]; isHost {
				name = "rx_crc_errors_phy"
			}
			moved = append(moved, localize.Counter{At: e, Kind: localize.PhyErrors, Name: name, Delta: n})
		}
	}
	for _, h := range s.hosts {
		if n := s.stormEv[h.nic]; n > 0 {
			moved = append(moved, localize.Counter{At: h.nic, Kind: localize.PauseStorm, Name: "tx_pause_storm_warning_events", Delta: n})
		}
		moved = append(moved, localize.Counter{At: h.nic, Kind: localize.Degraded, Name: fmt.Sprintf("speed %.0fGb/s", s.cfg.HostGbps)})
	}
	return read, moved, nil
}

// mix is splitmix64's finaliser: FNV's low bits alone hash poorly.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// TwoLeaves is the topology of the two-leaf lab: hosts lab-h1… split over
// leaf-01 and leaf-02 (n each, cabled eth0 ↔ portI), the leaves joined by
// one inter-leaf link (leaf-01:isl ↔ leaf-02:isl) and no spine.
func TwoLeaves(n int) *topology.Topology {
	nodes := []topology.Node{{Name: "leaf-01", Role: topology.RoleLeaf}, {Name: "leaf-02", Role: topology.RoleLeaf}}
	var links []topology.Link
	for i := 1; i <= 2*n; i++ {
		h, leaf := fmt.Sprintf("lab-h%d", i), "leaf-01"
		if i > n {
			leaf = "leaf-02"
		}
		nodes = append(nodes, topology.Node{Name: h, Role: topology.RoleHost})
		links = append(links, topology.Link{A: fabric.Endpoint{Device: h, Port: "eth0"}, B: fabric.Endpoint{Device: leaf, Port: fmt.Sprintf("port%d", i)}})
	}
	links = append(links, topology.Link{A: fabric.Endpoint{Device: "leaf-01", Port: "isl"}, B: fabric.Endpoint{Device: "leaf-02", Port: "isl"}})
	return topology.New(nodes, links)
}
