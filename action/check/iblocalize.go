package check

import (
	"cmp"
	"context"
	"slices"

	"github.com/fabricctl/fabricctl/action/ibcheck"
	"github.com/fabricctl/fabricctl/checks/ibfabric"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// IBReading is one read of an InfiniBand fabric for the localiser: the
// routes its forwarding tables give, and every port's IBTA error counters.
// Ports are named NODE:PORT as topology.DeclaredIB names them.
type IBReading struct {
	// Routes are the forwarding tables' routes (nil: not read; the
	// localiser then models equal-cost paths, as for Ethernet).
	Routes *localize.Routes
	// Counters are the ports' error counters; Read and Unread name the
	// nodes whose counters were read and those that could not be, each
	// with why, as a switch counter source does.
	Counters SwitchReading
}

// IBSource reads an InfiniBand fabric once, from one vantage node
// (NewIBSource: the infiniband-diags through action/ibcheck's runner).
// Tables or counters that cannot be read are said in the reading; the
// error says why the subnet could not be read at all.
type IBSource func(ctx context.Context) (IBReading, error)

// NewIBSource reads f's InfiniBand fabric with the diagnostics as o runs
// them (ibcheck.ReadLocalization: ibnetdiscover -p, dump_fts or ibroute,
// perfquery), naming its nodes as f's spec.infiniband declares them. Nil
// when f declares no InfiniBand cabling.
func NewIBSource(f *fabric.Fabric, o ibcheck.Options) IBSource {
	d, err := ibfabric.Declare(f)
	if err != nil {
		return nil
	}
	return func(ctx context.Context) (IBReading, error) {
		l, err := ibcheck.ReadLocalization(ctx, d, o)
		if err != nil {
			return IBReading{}, err
		}
		return IBReading{Routes: l.Routes, Counters: SwitchReading{Readings: l.Readings, Read: l.Read, Unread: l.Unread}}, nil
	}
}

// WithIBLocalize is o set to localise the pairwise failures over f's
// declared InfiniBand fabric with src: the topology becomes
// spec.infiniband's cabling (topology.DeclaredIB) where o's cables no host
// to a switch, and o.IBLocalize is src. A fabric without InfiniBand
// cabling, or a nil src, leaves o as it is.
func WithIBLocalize(f *fabric.Fabric, o Options, src IBSource) Options {
	ib := topology.DeclaredIB(f)
	if ib == nil || src == nil {
		return o
	}
	if o.Topology == nil || !slices.ContainsFunc(o.Topology.Links, func(l topology.Link) bool { return l.Kind == topology.Access }) {
		o.Topology = ib
	}
	o.IBLocalize = src
	return o
}

// startCounters takes the counters' reading before the pairwise sweep:
// StartIBCounters with o.IBLocalize, else StartSwitchCounters of
// o.SwitchCounters and no routes.
func (o Options) startCounters(ctx context.Context) (*SwitchCounters, *localize.Routes) {
	if o.IBLocalize == nil {
		return StartSwitchCounters(ctx, o.SwitchCounters), nil
	}
	return StartIBCounters(ctx, o.IBLocalize, o.SwitchCounters)
}

// StartIBCounters takes the reading before the tests of an InfiniBand
// fabric's port counters (ib) and of the switches' of sw (nil: none), as
// one SwitchCounters whose Evidence reads both again; ib's first read also
// gives the routes (nil when it failed). An ib that cannot be read is
// unread ("infiniband: …"), never a failure.
func StartIBCounters(ctx context.Context, ib IBSource, sw SwitchCounterSource) (*SwitchCounters, *localize.Routes) {
	var routes *localize.Routes
	first := true
	src := func(ctx context.Context) SwitchReading {
		var now SwitchReading
		if sw != nil {
			now = sw(ctx)
		}
		r, err := ib(ctx)
		if err != nil {
			now.Unread = append(now.Unread, "infiniband: "+err.Error())
			return now
		}
		if first {
			routes, first = r.Routes, false
		}
		now.Readings = append(now.Readings, r.Counters.Readings...)
		now.Read = append(now.Read, r.Counters.Read...)
		now.Unread = append(now.Unread, r.Counters.Unread...)
		return now
	}
	return StartSwitchCounters(ctx, src), routes
}

// endpoint names the test endpoint of a host's RDMA device in o's
// topology: with o.IBLocalize, the InfiniBand node HOST/DEVICE where the
// cabling names one (a host with several HCAs), else the host; nil (the
// host) without it.
func (o Options) endpoint() func(host, device string) string {
	if o.IBLocalize == nil {
		return nil
	}
	return IBEndpoint(o.Topology)
}

// IBEndpoint names the test endpoint of a host's RDMA device in an
// InfiniBand topology (topology.DeclaredIB): the node HOST/DEVICE where
// the cabling names one (a host with several HCAs), else the host.
func IBEndpoint(t *topology.Topology) func(host, device string) string {
	return func(host, device string) string {
		if device != "" && len(t.LinksOf(host+"/"+device)) > 0 {
			return host + "/" + device
		}
		return host
	}
}

// fabricIBLocalize is o set, for RunFabric, to localise pairwise failures
// on f's InfiniBand fabric (WithIBLocalize) with the forwarding tables and
// port counters read through the vantage host's agent (the host of
// o.IBSuite, else the one named by --vantage, spec.infiniband.vantage or
// the first cabled host, among hosts). Without pairwise tests, IB cabling
// or a reachable vantage it is o: the localiser then reasons as on
// Ethernet, and says so in the progress.
func fabricIBLocalize(f *fabric.Fabric, hosts []Host, o Options) Options {
	if !slices.Contains(o.suites(), report.SuitePairwise) || o.IBLocalize != nil || topology.DeclaredIB(f) == nil {
		return o
	}
	io := o.IBSuite.Options
	if io.Runner == nil {
		h := o.IBSuite.Host
		name := cmp.Or(o.IBSuite.Vantage, f.IBVantage())
		if h == nil {
			if i := slices.IndexFunc(hosts, func(h Host) bool { return h.Intent.Host == name }); i >= 0 {
				h = &hosts[i]
			}
		}
		if h == nil || h.Agent == nil {
			o.progress("localise: no vantage host among the hosts checked (%q): InfiniBand routes and port counters not read", name)
			return o
		}
		io.Runner = ibcheck.AgentRunner{Agent: h.Agent, Host: h.Intent.Host}
		io.Vantage = h.Intent.Host
	}
	return WithIBLocalize(f, o, NewIBSource(f, io))
}
