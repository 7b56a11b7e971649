package localizesim

import (
	"fmt"
	"hash/fnv"
	"math"
	"strconv"

	"github.com/fabricctl/fabricctl/checks/schedule"
)

// FaultModel is the kind of faults Inject draws (Config.Model).
type FaultModel string

// The fault models.
const (
	// Easy: hard faults on NICs, access cables and uplinks, permanent,
	// every test through them spoilt (the benchmark's first model).
	Easy FaultModel = "easy"
	// Gray: the same components with a drop rate of 0.1–5 % that spoils
	// only a share (20–80 %) of the flows through them, and NICs slow on
	// a share of their flows.
	Gray FaultModel = "gray"
	// Intermittent: Easy's faults active in a share (30–70 %) of rounds.
	Intermittent FaultModel = "intermittent"
	// Incidents: the incident kinds of production RoCE fabrics, weighted
	// as in IncidentWeights.
	Incidents FaultModel = "incidents"
	// Mixed draws Easy, Gray, Intermittent and Incidents faults, as
	// MixedWeights says.
	Mixed FaultModel = "mixed"
)

// Models lists the fault models in the benchmark's order.
var Models = []FaultModel{Easy, Gray, Intermittent, Incidents, Mixed}

// The incident kinds (Fault.Incident).
const (
	IncidentFlap       = "flap"        // a cable or uplink going down and up in some rounds
	IncidentPFC        = "pfc"         // an uplink port with PFC misconfigured: drops under congestion only
	IncidentPauseStorm = "pause-storm" // a NIC sending pause frames: slow, and its leaf's other tests too
	IncidentBlackHole  = "black-hole"  // an uplink dropping every flow to some destinations, silently
	IncidentRoute      = "route"       // a spine missing its route to one leaf
	IncidentPartial    = "partial"     // a spine dropping a share of the flows through it (a failed line card)
	IncidentMTU        = "mtu"         // a leaf port with a smaller MTU: every RDMA test through it fails
	IncidentCorrupt    = "corrupt"     // a cable or uplink corrupting frames (CRC), gray or hard
	IncidentNIC        = "nic"         // a NIC running slow (PCIe trained down, thermal throttling)
)

// IncidentWeights are the shares of the incident kinds Incidents draws,
// from published tables where there are any (docs/localisation.md cites
// them):
//
//   - NICs against the network: Meta's Llama 3 405B training run (The
//     Llama 3 Herd of Models, arXiv 2407.21783, Table 5) counted 35
//     interruptions from network switches and cables and 7 from NICs out
//     of 419: 5 to 1, so the NIC kinds (nic, pause-storm) share 1/6.
//   - Links against switches: Alibaba HPN (SIGCOMM 2024, §2.3,
//     https://dl.acm.org/doi/10.1145/3651890.3672265) sees 0.057 %
//     of NIC-ToR links and 0.051 % of ToR switches fail each month, per
//     component about alike; this fabric has 1,280 links and 40 switches,
//     so a failed link is about 36 times as likely as a failed switch
//     (partial: a spine's line card), and HPN counts 5K–60K link flaps a
//     day besides.
//   - Assumptions, for want of a published breakdown: how the link share
//     splits between corruption and flapping (7:4), the configuration
//     and routing kinds (pfc, black-hole, route, mtu: a quarter of the
//     network share together), and pause storms among NIC faults (2:3).
var IncidentWeights = []struct {
	Incident string
	Weight   float64
}{
	{IncidentCorrupt, 0.387},
	{IncidentFlap, 0.221},
	{IncidentNIC, 0.10},
	{IncidentPauseStorm, 0.067},
	{IncidentPFC, 0.055},
	{IncidentBlackHole, 0.055},
	{IncidentRoute, 0.045},
	{IncidentPartial, 0.017},
	{IncidentMTU, 0.053},
}

// MixedWeights are the shares of the models Mixed draws from.
var MixedWeights = []struct {
	Model  FaultModel
	Weight float64
}{{Easy, 0.3}, {Gray, 0.25}, {Intermittent, 0.15}, {Incidents, 0.3}}

// injectModel adds k faults of Config.Model on distinct components.
func (s *Sim) injectModel(k int) []Fault {
	for n := 0; n < k; {
		model := s.cfg.Model
		if model == Mixed {
			model = pickWeighted(s.rng.Float64(), MixedWeights, func(w struct {
				Model  FaultModel
				Weight float64
			}) float64 {
				return w.Weight
			}).Model
		}
		if s.injectOne(model) {
			n++
		}
	}
	return s.Faults()
}

func pickWeighted[T any](x float64, ws []T, w func(T) float64) T {
	total := 0.0
	for _, e := range ws {
		total += w(e)
	}
	x *= total
	for _, e := range ws {
		if x < w(e) {
			return e
		}
		x -= w(e)
	}
	return ws[len(ws)-1]
}

// injectOne draws one fault of model; false when its component is
// already faulty.
func (s *Sim) injectOne(model FaultModel) bool {
	r := s.rng
	dir := []Direction{Up, Down, Both}[r.IntN(3)]
	hostI, leaf, spine := r.IntN(len(s.hosts)), r.IntN(s.cfg.Leaves), r.IntN(s.cfg.Spines)
	nic := func(f Fault) bool {
		if s.nicF[hostI] != nil {
			return false
		}
		f.Kind, f.Component = NIC, "nic:"+s.hosts[hostI].nic.String()
		s.nicF[hostI] = &f
		s.faults = append(s.faults, f)
		return true
	}
	cable := func(f Fault) bool {
		if s.cableF[hostI] != nil {
			return false
		}
		f.Kind = Cable
		if f.Component == "" {
			f.Component = "cable:" + s.hosts[hostI].nic.String()
		}
		s.cableF[hostI] = &f
		s.faults = append(s.faults, f)
		return true
	}
	up := func(f Fault) bool {
		if s.upF[[2]int{leaf, spine}] != nil {
			return false
		}
		f.Kind = Uplink
		if f.Component == "" {
			f.Component = s.uplinks[leaf][spine].id
		}
		s.upF[[2]int{leaf, spine}] = &f
		s.faults = append(s.faults, f)
		return true
	}
	gray := func() Fault {
		rate := math.Exp(math.Log(0.001) + r.Float64()*math.Log(50)) // 0.1–5 %, log-uniform
		return Fault{Dir: dir, Rate: rate, Factor: 1 / (1 + 40*rate), Share: 0.2 + 0.6*r.Float64(), Silent: r.Float64() < 0.3}
	}
	switch model {
	case Gray:
		f := gray()
		switch r.IntN(3) {
		case 0:
			return nic(Fault{Factor: 0.3 + 0.4*r.Float64(), Share: f.Share})
		case 1:
			return cable(f)
		}
		return up(f)
	case Intermittent:
		active := 0.3 + 0.4*r.Float64()
		f := Fault{Dir: dir, Factor: 0.05 + 0.5*r.Float64(), Active: active}
		switch r.IntN(3) {
		case 0:
			return nic(Fault{Factor: 0.3 + 0.4*r.Float64(), Active: active})
		case 1:
			return cable(f)
		}
		return up(f)
	case Incidents:
		inc := pickWeighted(r.Float64(), IncidentWeights, func(w struct {
			Incident string
			Weight   float64
		}) float64 {
			return w.Weight
		}).Incident
		switch inc {
		case IncidentCorrupt:
			f := Fault{Dir: dir, Factor: 0.05 + 0.5*r.Float64()}
			if r.IntN(2) == 0 {
				f = gray()
			}
			f.Incident = inc
			if r.IntN(3) == 0 {
				return up(f)
			}
			return cable(f)
		case IncidentFlap:
			f := Fault{Dir: Both, Factor: 0, Active: 0.2 + 0.3*r.Float64(), Share: 0.5, Incident: inc, Silent: true}
			var ok bool
			if r.IntN(3) == 0 {
				ok = up(f)
				if ok {
					u := s.uplinks[leaf][spine]
					s.down[u.leafEnd] += 1 + uint64(r.IntN(4))
					s.down[u.spineEnd] += 1 + uint64(r.IntN(4))
				}
			} else {
				ok = cable(f)
				if ok {
					h := s.hosts[hostI]
					s.down[h.nic] += 1 + uint64(r.IntN(4))
					s.down[h.port] += 1 + uint64(r.IntN(4))
				}
			}
			return ok
		case IncidentNIC:
			return nic(Fault{Factor: 0.3 + 0.4*r.Float64(), Incident: inc})
		case IncidentPauseStorm:
			// Its stall watchdog trips in most storms (the NIC stops
			// sending pauses for a while and counts it).
			counted := r.Float64() < 0.9
			if !nic(Fault{Factor: 0.1 + 0.2*r.Float64(), Incident: inc, Storm: true}) {
				return false
			}
			if counted {
				s.stormEv[s.hosts[hostI].nic] += 1 + uint64(r.IntN(20))
			}
			return true
		case IncidentPFC:
			return up(Fault{Dir: Down, Factor: 0.3, Silent: true, Congested: true, Incident: inc})
		case IncidentBlackHole:
			return up(Fault{Dir: Up, Factor: 0, Silent: true, Share: 0.3 + 0.5*r.Float64(), Incident: inc})
		case IncidentRoute:
			return up(Fault{Dir: Down, Factor: 0, Silent: true, Incident: inc, Component: "switch:" + spineName(spine),
				Via: s.uplinks[leaf][spine].id})
		case IncidentPartial:
			if s.spineF[spine] != nil {
				return false
			}
			f := Fault{Kind: Kind("spine"), Component: "switch:" + spineName(spine), Factor: 0.2, Silent: true,
				Share: 0.3 + 0.3*r.Float64(), Incident: inc}
			s.spineF[spine] = &f
			s.faults = append(s.faults, f)
			return true
		case IncidentMTU:
			return cable(Fault{Dir: Both, Factor: 0, Silent: true, Incident: inc, Component: "port:" + s.hosts[hostI].port.String()})
		}
	}
	f := Fault{Dir: dir, Factor: 0.05 + 0.5*r.Float64()} // Easy
	switch r.IntN(3) {
	case 0:
		return nic(Fault{Factor: 0.3 + 0.4*r.Float64()})
	case 1:
		return cable(f)
	}
	return up(f)
}

// strikes says whether fault fl spoils the test p (flow f) in round: an
// intermittent or flapping fault only in its active rounds, a gray one
// only on its share of the flows (each run a new flow), a misconfigured
// PFC port only where its uplink is congested.
func (s *Sim) strikes(fl *Fault, round int, p schedule.Pair, f flow, load map[[3]int]int) bool {
	if fl.Active > 0 && unit(s.seed, fl.Component, "round", strconv.Itoa(round)) >= fl.Active {
		return false
	}
	if fl.Share > 0 {
		// Each run is a new flow (a new queue pair), within a leaf too.
		key := strconv.Itoa(round) + "|" + strconv.FormatUint(s.runs, 10) + p.Client + p.Server
		if fl.Incident == IncidentBlackHole { // some destinations, every time
			key = strconv.Itoa(s.hosts[f.v].leaf)
		}
		if unit(s.seed, fl.Component, "flow", key) >= fl.Share {
			return false
		}
	}
	if fl.Congested && f.spine >= 0 {
		c, v := s.hosts[f.c], s.hosts[f.v]
		if load[[3]int{c.leaf, f.spine, 0}] <= s.cfg.UplinkFlows && load[[3]int{v.leaf, f.spine, 1}] <= s.cfg.UplinkFlows {
			return false
		}
	}
	return true
}

// storm is the share of line rate left to test p when a NIC of the
// client's or server's leaf floods it with pause frames (a quarter of
// such tests are held up).
func (s *Sim) storm(round int, p schedule.Pair, f flow) float64 {
	out := 1.0
	for i, fl := range s.nicF {
		if !fl.Storm || i == f.c || i == f.v {
			continue
		}
		l := s.hosts[i].leaf
		if (s.hosts[f.c].leaf == l || s.hosts[f.v].leaf == l) && unit(s.seed, fl.Component, "storm", fmt.Sprint(round, p.Client, p.Server)) < 0.25 {
			out = math.Min(out, 0.5)
		}
	}
	return out
}

// unit hashes its parts to [0, 1).
func unit(seed uint64, parts ...string) float64 {
	h := fnv.New64a()
	fmt.Fprint(h, seed)
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return float64(mix(h.Sum64())>>11) / (1 << 53)
}
