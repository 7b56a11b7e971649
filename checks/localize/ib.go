package localize

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks/ibdiag"
	"github.com/fabricctl/fabricctl/fabric"
)

// IBNamer names an InfiniBand node as the topology does, from the
// NodeDescription the diagnostics print ("gpu-01 mlx5_0", "leaf-01").
type IBNamer func(desc string) string

// DescName is the default IBNamer: the NodeDescription's first word, the
// host name of an HCA's default description ("gpu-01 mlx5_0" is gpu-01)
// and a switch's whole name.
func DescName(desc string) string {
	if f := strings.Fields(desc); len(f) > 0 {
		return f[0]
	}
	return desc
}

// IBRoutes builds Routes from InfiniBand diagnostics: the linear
// forwarding tables of the switches (ibroute per switch, or dump_fts for
// all), whose destinations are found in net (ibnetdiscover: which CA port
// has each port GUID), and the paths ibtracert traced, which need no
// table. Ports are named NODE:PORT with the IB port number, NODE by name
// (DescName when nil), as topology.DeclaredIB names them. Entries towards
// switches (their port 0) and CA ports net does not list are left out;
// an incomplete trace is an error, and so is input that gives no route.
func IBRoutes(net *ibdiag.Topology, tables []ibdiag.LFT, traces []*ibdiag.Trace, name IBNamer) (*Routes, error) {
	if name == nil {
		name = DescName
	}
	r := NewRoutes()
	caPort := map[uint64]fabric.Endpoint{} // port GUID → the CA's port
	if net != nil {
		for _, n := range net.Nodes {
			if n.Type != ibdiag.CA {
				continue
			}
			for _, p := range n.Ports {
				if p.GUID != 0 {
					caPort[p.GUID] = fabric.Endpoint{Device: name(n.Desc), Port: strconv.Itoa(p.Num)}
				}
			}
		}
	}
	if len(tables) > 0 && len(caPort) == 0 {
		return nil, fmt.Errorf("building IB routes: %w: forwarding tables need the subnet's CA ports (ibnetdiscover)", ErrNoRoute)
	}
	for _, t := range tables {
		sw := name(t.Desc)
		for _, e := range t.Entries {
			if e.DestType != ibdiag.CA || e.OutPort == 0 {
				continue
			}
			if dst, ok := caPort[e.DestGUID]; ok {
				r.Forward(sw, dst, strconv.Itoa(e.OutPort))
			}
		}
	}
	var errs []error
	for i, tr := range traces {
		if !tr.Complete() || tr.To.Type != ibdiag.CA || len(tr.Hops) == 0 {
			errs = append(errs, fmt.Errorf("reading trace %d: %w: it does not reach a CA", i+1, ErrNoRoute))
			continue
		}
		src := fabric.Endpoint{Device: name(tr.From.Desc), Port: strconv.Itoa(tr.From.Port)}
		dst := fabric.Endpoint{Device: name(tr.To.Desc), Port: strconv.Itoa(tr.To.Port)}
		var egress []fabric.Endpoint
		prev := tr.From.Desc
		for _, h := range tr.Hops {
			egress = append(egress, fabric.Endpoint{Device: name(prev), Port: strconv.Itoa(h.OutPort)})
			prev = h.Desc
		}
		r.Traced(src, dst, egress)
	}
	if err := errors.Join(errs...); err != nil {
		return r, fmt.Errorf("building IB routes: %w", err)
	}
	if n, m := r.Len(); n+m == 0 {
		return r, fmt.Errorf("building IB routes: %w: no table entry towards a known CA port, no trace", ErrNoRoute)
	}
	return r, nil
}

// The counter kinds only InfiniBand reads from every port of the fabric.
const (
	// LinkDown: the link went down and came back (IB LinkDownedCounter),
	// counted at both of its ends: a flapping cable or port.
	LinkDown CounterKind = "link-down"
	// Degraded: the link trained below its width or speed (IB PortInfo
	// LinkWidthActive, LinkSpeedActive against the cabling's): it carries
	// data slowly and counts no error. It is a state, not a running total:
	// give SetCounters one for every port whose state was read, Delta 1
	// where the link trained low and 0 where it runs at its width (read
	// and fine), rather than passing it through Deltas.
	Degraded CounterKind = "degraded"
)

// ibKinds maps the IBTA PortCounters (perfquery's names) to the
// localiser's kinds. Left out: PortRcvRemotePhysicalErrors (packets
// marked bad upstream: another link's fault), the constraint errors (P_Key
// filtering), PortRcvSwitchRelayErrors (routing), VL15Dropped and
// QP1Dropped (management), PortXmitWait (congestion, not a fault).
var ibKinds = map[string]CounterKind{
	"SymbolErrorCounter":           PhyErrors,
	"LinkErrorRecoveryCounter":     PhyErrors,
	"PortRcvErrors":                PhyErrors,
	"LocalLinkIntegrityErrors":     PhyErrors,
	"ExcessiveBufferOverrunErrors": PhyErrors, // the receiver's buffer overran: flow control on this link failed
	"LinkDownedCounter":            LinkDown,
	"PortXmitDiscards":             Discards,
}

// IBCounterKind returns the kind of the IBTA counter name (perfquery's
// SymbolErrorCounter, PortXmitDiscards …); ok is false for a counter the
// localiser does not weigh.
func IBCounterKind(name string) (kind CounterKind, ok bool) {
	kind, ok = ibKinds[name]
	return kind, ok
}

// IBReadings turns one perfquery block about the port at into readings
// for Deltas: the counters IBCounterKind knows, under their IBTA names. A
// saturated counter is left out: it stopped counting, so no difference of
// it says anything (perfquery -x reads 64-bit counters that do not stop).
func IBReadings(at fabric.Endpoint, b ibdiag.CounterBlock) []Reading {
	var out []Reading
	for _, name := range ibdiag.ErrorCounters {
		c, ok := b.Counters[name]
		kind, known := ibKinds[name]
		if !ok || !known || c.Saturated {
			continue
		}
		out = append(out, Reading{At: at, Kind: kind, Name: name, Value: c.Value})
	}
	return out
}
