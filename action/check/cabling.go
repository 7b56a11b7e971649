package check

import (
	"context"
	"slices"
	"sync"

	"github.com/fabricctl/fabricctl/checks/lldpagent"
	"github.com/fabricctl/fabricctl/checks/topology"
)

// NeighborSource reads the LLDP neighbours of devices the agents do not
// reach: the switches, through their drivers' read-back
// (switchcfg.NeighborReader).
type NeighborSource func(ctx context.Context) ([]topology.Observation, []error)

// discoverCabling asks every host's agent for its LLDP neighbours (the
// lldp op), adds what extra reports (the switches), and compares the
// cabling found with the declared one. A device whose neighbours cannot
// be read (no lldpd) is left out of the comparison, so its cables are not
// called missing, even where a switch sees no neighbour on the port facing
// it; the note says why.
func discoverCabling(ctx context.Context, hosts []Host, declared *topology.Topology, extra NeighborSource, note func(string, ...any)) []topology.Finding {
	obs := make([]topology.Observation, len(hosts))
	ok := make([]bool, len(hosts))
	unread := map[string]bool{}
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, err := lldpagent.Observe(ctx, h.Intent.Host, h.Agent)
			if err != nil {
				note("lldp: %v (left out of the cabling comparison)", err)
				return
			}
			obs[i], ok[i] = o, true
		}()
	}
	wg.Wait()
	var got []topology.Observation
	for i := range obs {
		if ok[i] {
			got = append(got, obs[i])
		} else {
			unread[hosts[i].Intent.Host] = true
		}
	}
	if extra != nil {
		more, errs := extra(ctx)
		for _, err := range errs {
			note("lldp: %v (left out of the cabling comparison)", err)
		}
		got = append(got, more...)
	}
	if len(got) == 0 {
		return nil
	}
	fs := topology.Compare(declared, topology.Discover(got, declared), topology.Observed(got))
	// A switch port facing a host without lldpd sees no neighbour: that is
	// not a missing cable.
	return slices.DeleteFunc(fs, func(f topology.Finding) bool { return f.Kind == topology.Missing && unread[f.At.Device] })
}

// cabled reports whether the declared topology cables any host.
func cabled(t *topology.Topology, hosts []Host) bool {
	if t == nil {
		return false
	}
	for _, h := range hosts {
		if len(t.LinksOf(h.Intent.Host)) > 0 {
			return true
		}
	}
	return false
}
