package ibcheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/fabricctl/fabricctl/checks/ibdiag"
	"github.com/fabricctl/fabricctl/checks/ibfabric"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/fabric"
)

// Localization is what the localiser needs of an InfiniBand fabric, read
// from one vantage node: the routes its forwarding tables give (for
// localize.NewRoutedModel) and every port's IBTA error counters (for
// localize.Deltas). Ports are named NODE:PORT with the IB port number,
// NODE as the fabric file declares it (topology.DeclaredIB).
type Localization struct {
	// Routes are the switches' linear forwarding tables towards every CA
	// port; nil when they could not be read (RoutesErr says why).
	Routes    *localize.Routes
	RoutesErr error
	// Readings are the error counters of every port read.
	Readings []localize.Reading
	// Read names the nodes whose counters were read, sorted; Unread
	// those that could not be, each with why ("leaf-02: running
	// perfquery …").
	Read   []string
	Unread []string
}

// ReadLocalization reads the subnet (ibnetdiscover -p), the forwarding
// tables (dump_fts; ibroute per switch where dump_fts fails) and the port
// counters (perfquery -l per switch, perfquery per CA port, Options.Parallel
// at once) through the runner the other diagnostics use, and names what it
// found as d declares it. The error is for a subnet that cannot be read at
// all; tables or counters that cannot be read are said in the result.
func ReadLocalization(ctx context.Context, d *ibfabric.Declared, o Options) (*Localization, error) {
	out, err := o.run(ctx, "ibnetdiscover", "-p")
	if err != nil {
		return nil, fmt.Errorf("reading the subnet for localisation: %w", err)
	}
	net, err := ibdiag.ParseIBNetDiscover(string(out))
	if err != nil {
		return nil, fmt.Errorf("reading the subnet for localisation: %w", err)
	}
	loc := &Localization{}
	loc.Routes, loc.RoutesErr = ReadRoutes(ctx, d, net.PortLines, o)
	loc.Readings, loc.Read, loc.Unread = ReadCounters(ctx, d, net.PortLines, o)
	return loc, ctx.Err()
}

// ReadRoutes reads the switches' forwarding tables, all at once with
// dump_fts or, where that fails, one ibroute per switch of ports (the
// lines of ibnetdiscover -p), and turns them into the localiser's routes
// (localize.IBRoutes) towards every CA port ports lists, named as d
// declares the nodes.
func ReadRoutes(ctx context.Context, d *ibfabric.Declared, ports []ibdiag.PortLine, o Options) (*localize.Routes, error) {
	var tables []ibdiag.LFT
	out, err := o.run(ctx, "dump_fts")
	if err == nil {
		var r *ibdiag.Routes
		if r, err = ibdiag.ParseIBRoute(string(out)); err == nil {
			tables = r.Tables
		}
	}
	if err != nil || len(tables) == 0 {
		var errs []error
		tables = nil
		for _, sw := range switches(ports) {
			out, err := o.run(ctx, "ibroute", strconv.Itoa(sw.LID))
			if err == nil {
				var r *ibdiag.Routes
				if r, err = ibdiag.ParseIBRoute(string(out)); err == nil {
					tables = append(tables, r.Tables...)
					continue
				}
			}
			errs = append(errs, fmt.Errorf("reading the forwarding table of %s: %w", name(d, sw), err))
		}
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
	}
	return IBRoutes(d, ports, tables)
}

// IBRoutes is localize.IBRoutes with the nodes named as d declares them:
// the CA ports come from the lines of ibnetdiscover -p, the switches of
// the tables are identified by their GUID.
func IBRoutes(d *ibfabric.Declared, ports []ibdiag.PortLine, tables []ibdiag.LFT) (*localize.Routes, error) {
	net := &ibdiag.Topology{}
	for _, p := range ports {
		if p.Local.Type != ibdiag.CA || p.Local.GUID == 0 {
			continue
		}
		net.Nodes = append(net.Nodes, ibdiag.Node{Type: ibdiag.CA, Desc: name(d, p.Local),
			Ports: []ibdiag.NodePort{{Num: p.Local.Port, GUID: p.Local.GUID}}})
	}
	named := make([]ibdiag.LFT, len(tables))
	for i, t := range tables {
		named[i] = t
		named[i].Desc, _ = d.Identify(ibdiag.Switch, t.GUID, t.Desc)
	}
	return localize.IBRoutes(net, named, nil, func(s string) string { return s })
}

// ReadCounters reads the error counters of every port of ports (the lines
// of ibnetdiscover -p): perfquery -l LID 255 for each switch (every port
// in one query) and perfquery LID PORT for each CA port with a LID, at most
// Options.Parallel at once (6 when zero). Readings are named as d declares
// the nodes (port 0 of a switch, its management port, is left out); read
// and unread name the nodes, sorted.
func ReadCounters(ctx context.Context, d *ibfabric.Declared, ports []ibdiag.PortLine, o Options) (readings []localize.Reading, read, unread []string) {
	type query struct {
		node string
		argv []string
		port int // 0: every port of a switch
	}
	var qs []query
	for _, sw := range switches(ports) {
		qs = append(qs, query{node: name(d, sw), argv: []string{"perfquery", "-l", strconv.Itoa(sw.LID), "255"}})
	}
	for _, p := range ports {
		if p.Local.Type == ibdiag.CA && p.Local.LID > 0 {
			qs = append(qs, query{node: name(d, p.Local), port: p.Local.Port,
				argv: []string{"perfquery", strconv.Itoa(p.Local.LID), strconv.Itoa(p.Local.Port)}})
		}
	}
	par := o.Parallel
	if par <= 0 {
		par = 6
	}
	got := make([][]localize.Reading, len(qs))
	errs := make([]error, len(qs))
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, q := range qs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out, err := o.run(ctx, q.argv...)
			var pq *ibdiag.PerfQuery
			if err == nil {
				pq, err = ibdiag.ParsePerfQuery(string(out))
			}
			if err != nil {
				errs[i] = err
				return
			}
			for _, b := range pq.Blocks {
				port := q.port
				if b.Port != nil && *b.Port != 255 {
					port = *b.Port
				}
				if port <= 0 || b.Attribute != "Port counters" {
					continue
				}
				got[i] = append(got[i], localize.IBReadings(fabric.Endpoint{Device: q.node, Port: strconv.Itoa(port)}, b)...)
			}
			if len(got[i]) == 0 {
				errs[i] = fmt.Errorf("running %s: no port's counters in its output", q.argv[0])
			}
		}()
	}
	wg.Wait()
	failed := map[string]string{}
	ok := map[string]bool{}
	for i, q := range qs {
		if errs[i] != nil {
			failed[q.node] = q.node + ": " + errs[i].Error()
			continue
		}
		ok[q.node] = true
		readings = append(readings, got[i]...)
	}
	for n := range ok {
		read = append(read, n)
	}
	for _, why := range failed {
		unread = append(unread, why)
	}
	slices.Sort(read)
	slices.Sort(unread)
	return readings, read, unread
}

// switches returns one end per switch of ports (its LID and GUID), in
// the order ibnetdiscover printed them.
func switches(ports []ibdiag.PortLine) []ibdiag.PortEnd {
	var out []ibdiag.PortEnd
	seen := map[uint64]bool{}
	for _, p := range ports {
		if p.Local.Type == ibdiag.Switch && p.Local.LID > 0 && !seen[p.Local.GUID] {
			seen[p.Local.GUID] = true
			out = append(out, p.Local)
		}
	}
	return out
}

// name is the declared name of the node of e.
func name(d *ibfabric.Declared, e ibdiag.PortEnd) string {
	n, _ := d.Identify(e.Type, e.GUID, e.Desc)
	return n
}
