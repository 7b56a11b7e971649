package localizesim

import (
	"fmt"
	"math"

	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/fabric"
)

// spineFor is the spine the routes send traffic for host j through:
// D-mod-K over the destination (hosts take LIDs in order, so a leaf's
// hosts spread evenly over the spines), as OpenSM's ftree routing does.
func (s *Sim) spineFor(j int) int { return j % s.cfg.Spines }

// Routes are the fabric's forwarding tables (Config.IB): every leaf sends
// its own hosts' traffic out of their ports and the rest up to the spine
// spineFor picks; every spine sends down to the destination's leaf. Nil
// when the fabric is not IB (ECMP: no path is known).
func (s *Sim) Routes() *localize.Routes {
	if !s.cfg.IB && !s.cfg.PinnedPaths {
		return nil
	}
	r := localize.NewRoutes()
	for j, h := range s.hosts {
		sp := s.spineFor(j)
		for l := range s.cfg.Leaves {
			if l == h.leaf {
				r.Forward(leafName(l), h.nic, h.port.Port)
			} else {
				r.Forward(leafName(l), h.nic, s.uplinks[l][sp].leafEnd.Port)
			}
		}
		for sp := range s.cfg.Spines {
			r.Forward(spineName(sp), h.nic, s.uplinks[h.leaf][sp].spineEnd.Port)
		}
	}
	return r
}

// ibBackground puts the counters of a healthy IB fabric on it: discards
// on some switch ports (congestion), a link down on some links.
func (s *Sim) ibBackground() {
	for _, e := range s.ends() {
		if _, host := s.byName[e.Device]; !host && s.rng.Float64() < s.cfg.BackgroundDiscards {
			s.disc[e] += 1 + uint64(s.rng.IntN(20))
		}
	}
	links := make([][2]fabric.Endpoint, 0, len(s.hosts)+s.cfg.Leaves*s.cfg.Spines)
	for _, h := range s.hosts {
		links = append(links, [2]fabric.Endpoint{h.nic, h.port})
	}
	for _, us := range s.uplinks {
		for _, u := range us {
			links = append(links, [2]fabric.Endpoint{u.leafEnd, u.spineEnd})
		}
	}
	for _, l := range links {
		if s.rng.Float64() < s.cfg.BackgroundDown {
			s.down[l[0]]++
			s.down[l[1]]++
		}
	}
}

// ibKinds are the IB fault categories InjectIB draws from, evenly.
var ibKinds = []struct {
	kind   Kind
	effect Effect
}{
	{NIC, Corrupt}, {Cable, Corrupt}, {Uplink, Corrupt}, {Cable, Degraded}, {Uplink, Degraded},
	{Cable, Flapping}, {Uplink, Flapping}, {Port, Corrupt},
}

// injectIB adds k faults on distinct components, each drawing evenly a
// slow HCA, a corrupting, degraded or flapping access cable or uplink, or
// a leaf port discarding what it sends to its host.
func (s *Sim) injectIB(k int) []Fault {
	for n := 0; n < k; {
		c := ibKinds[s.rng.IntN(len(ibKinds))]
		dir := []Direction{Up, Down, Both}[s.rng.IntN(3)]
		silent := s.rng.Float64() < s.cfg.Silent
		factor := 0.05 + 0.5*s.rng.Float64()
		switch {
		case c.kind == NIC:
			factor = 0.3 + 0.4*s.rng.Float64()
		case c.effect == Degraded:
			factor = []float64{0.25, 0.5}[s.rng.IntN(2)] // 1X or 2X of 4X
		}
		i := s.rng.IntN(len(s.hosts))
		if c.kind == Uplink {
			i = s.rng.IntN(s.cfg.Leaves * s.cfg.Spines)
		}
		busy := false
		switch c.kind {
		case NIC:
			busy = s.nicF[i] != nil
		case Cable:
			busy = s.cableF[i] != nil
		case Port:
			busy = s.portF[i] != nil
		case Uplink:
			busy = s.upF[[2]int{i / s.cfg.Spines, i % s.cfg.Spines}] != nil
		}
		if busy {
			continue
		}
		s.BreakLink(c.kind, c.effect, i, dir, factor, silent)
		n++
	}
	return s.Faults()
}

// ibFlow is one IB test: its data goes up to spine, its acknowledgements
// back through ackSpine (the route to the client), both -1 within a leaf.
type ibFlow struct {
	c, v            int
	spine, ackSpine int
}

func (s *Sim) runRoundIB(round int, pairs schedule.Round) ([]localize.Observation, error) {
	flows := make([]ibFlow, len(pairs))
	load := map[[3]int]int{}
	for i, p := range pairs {
		c, okC := s.byName[p.Client]
		v, okV := s.byName[p.Server]
		if !okC || !okV {
			return nil, fmt.Errorf("simulating round %d: unknown host in %s→%s", round, p.Client, p.Server)
		}
		f := ibFlow{c: c, v: v, spine: -1, ackSpine: -1}
		if s.hosts[c].leaf != s.hosts[v].leaf {
			f.spine, f.ackSpine = s.spineFor(v), s.spineFor(c)
			load[[3]int{s.hosts[c].leaf, f.spine, 0}]++
			load[[3]int{s.hosts[v].leaf, f.spine, 1}]++
		}
		flows[i] = f
	}
	out := make([]localize.Observation, 0, len(pairs))
	for i, f := range flows {
		out = append(out, s.measureIB(round, pairs[i], f, load))
	}
	return out, nil
}

// crossing is a faulty cable or uplink a test crosses: the direction its
// data (or only its acknowledgements) cross it, and the end it arrives at.
type crossing struct {
	f   *Fault
	dir Direction
	ack bool
	rx  fabric.Endpoint
}

func (s *Sim) measureIB(round int, p schedule.Pair, f ibFlow, load map[[3]int]int) localize.Observation {
	ob := localize.Observation{Client: p.Client, Server: p.Server, Round: round}
	if s.rng.Float64() < s.cfg.VoidRate {
		ob.Outcome = localize.Void
		return ob
	}
	c, v := s.hosts[f.c], s.hosts[f.v]
	var xs []crossing
	add := func(fl *Fault, dir Direction, ack bool, rx fabric.Endpoint) {
		if fl != nil {
			xs = append(xs, crossing{fl, dir, ack, rx})
		}
	}
	// Access cables: the client's data goes up, the server's comes down;
	// acknowledgements the other way.
	add(s.cableF[f.c], Up, false, c.port)
	add(s.cableF[f.c], Down, true, c.nic)
	add(s.cableF[f.v], Down, false, v.nic)
	add(s.cableF[f.v], Up, true, v.port)
	if f.spine >= 0 {
		add(s.upF[[2]int{c.leaf, f.spine}], Up, false, s.uplinks[c.leaf][f.spine].spineEnd)
		add(s.upF[[2]int{v.leaf, f.spine}], Down, false, s.uplinks[v.leaf][f.spine].leafEnd)
		add(s.upF[[2]int{v.leaf, f.ackSpine}], Up, true, s.uplinks[v.leaf][f.ackSpine].spineEnd)
		add(s.upF[[2]int{c.leaf, f.ackSpine}], Down, true, s.uplinks[c.leaf][f.ackSpine].leafEnd)
	}
	rate, lossData, lossAck, flap := 1.0, 1.0, 1.0, false
	for _, i := range []int{f.c, f.v} {
		if fl := s.nicF[i]; fl != nil {
			rate = math.Min(rate, fl.Factor)
		}
	}
	for _, x := range xs {
		switch x.f.Effect {
		case Degraded:
			if !x.ack {
				rate = math.Min(rate, x.f.Factor)
			}
		case Flapping:
			flap = flap || s.rng.Float64() < s.cfg.FlapLoss
		default:
			if x.f.Dir&x.dir == 0 {
				continue
			}
			if x.ack {
				lossAck = math.Min(lossAck, 0.5+0.5*x.f.Factor)
			} else {
				lossData = math.Min(lossData, x.f.Factor)
			}
			if !x.f.Silent {
				s.phy[x.rx] += 1000 + uint64(s.rng.IntN(5000))
			}
		}
	}
	// A leaf port discarding what it sends to its host: the server's data,
	// the client's acknowledgements.
	if fl := s.portF[f.v]; fl != nil {
		lossData = math.Min(lossData, fl.Factor)
		s.disc[v.port] += 100 + uint64(s.rng.IntN(1000))
	}
	if fl := s.portF[f.c]; fl != nil {
		lossAck = math.Min(lossAck, 0.5+0.5*fl.Factor)
		s.disc[c.port] += 10 + uint64(s.rng.IntN(100))
	}
	if f.spine >= 0 {
		for _, k := range [][3]int{{c.leaf, f.spine, 0}, {v.leaf, f.spine, 1}} {
			if n := load[k]; n > s.cfg.UplinkFlows {
				rate = math.Min(rate, float64(s.cfg.UplinkFlows)/float64(n))
			}
		}
	}
	gbps := s.cfg.HostGbps * rate * lossData * lossAck * (1 + s.cfg.Noise*s.rng.NormFloat64())
	switch {
	case flap: // the QP ran out of retries while the link was down
		ob.Loss = true
		gbps *= 0.2 * s.rng.Float64()
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

// readCountersIB reads every port of the fabric, HCAs and switches, as
// perfquery would, through the localiser's IBTA mapping and Deltas (the
// counters started at zero), and with Config.PortState the ends of every
// degraded link.
func (s *Sim) readCountersIB() ([]fabric.Endpoint, []localize.Counter) {
	ends := s.ends()
	var before, after []localize.Reading
	for _, e := range ends {
		for _, c := range []struct {
			name string
			v    uint64
		}{
			{"SymbolErrorCounter", s.phy[e]}, {"PortRcvErrors", s.phy[e] / 4},
			{"LinkDownedCounter", s.down[e]}, {"PortXmitDiscards", s.disc[e]},
		} {
			kind, _ := localize.IBCounterKind(c.name)
			before = append(before, localize.Reading{At: e, Kind: kind, Name: c.name})
			after = append(after, localize.Reading{At: e, Kind: kind, Name: c.name, Value: c.v})
		}
	}
	read, moved := localize.Deltas(before, after)
	if s.cfg.PortState {
		low := map[fabric.Endpoint]string{}
		for _, f := range s.faults {
			if f.Effect == Degraded {
				for _, e := range s.endsOf(f) {
					low[e] = widthOf(f.Factor)
				}
			}
		}
		for _, e := range ends {
			if w, ok := low[e]; ok {
				moved = append(moved, localize.Counter{At: e, Kind: localize.Degraded, Name: "LinkWidthActive " + w + " (4X enabled)", Delta: 1})
			} else {
				moved = append(moved, localize.Counter{At: e, Kind: localize.Degraded, Name: "LinkWidthActive 4X"})
			}
		}
	}
	return read, moved
}

func widthOf(factor float64) string {
	if factor <= 0.25 {
		return "1X"
	}
	return "2X"
}

// endsOf are the ends of an injected cable or uplink fault, by its component.
func (s *Sim) endsOf(f Fault) []fabric.Endpoint {
	for _, h := range s.hosts {
		if f.Component == "cable:"+h.nic.String() {
			return []fabric.Endpoint{h.nic, h.port}
		}
	}
	for _, us := range s.uplinks {
		for _, u := range us {
			if f.Component == u.id {
				return []fabric.Endpoint{u.leafEnd, u.spineEnd}
			}
		}
	}
	return nil
}
