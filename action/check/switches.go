package check

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fabricctl/fabricctl/action/fleet"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// NewNeighborSource returns a reader of every switch's own LLDP table (those
// Only names, when set), through the drivers that implement
// switchcfg.NeighborReader, over the same sessions as plan and apply (host
// keys checked). It is the NeighborSource `fabricctl check` hands
// Run. A switch whose table cannot be read is an error of its
// own and is left out; switches whose driver reads no LLDP are skipped.
func NewNeighborSource(f *fabric.Fabric, o fleet.Options) NeighborSource {
	return func(ctx context.Context) ([]topology.Observation, []error) {
		var (
			obs  []topology.Observation
			errs []error
		)
		fleet.EachSwitch(f, o, func(s fabric.SwitchIntent, d switchcfg.Driver, err error) func(*switchcfg.Target) func() {
			if err != nil {
				errs = append(errs, fmt.Errorf("switch %s: %w", s.Name, err))
				return nil
			}
			nr, ok := d.(switchcfg.NeighborReader)
			if !ok {
				return nil
			}
			return func(t *switchcfg.Target) func() {
				ns, err := readNeighbors(ctx, t, nr)
				return func() {
					if err != nil {
						errs = append(errs, fmt.Errorf("reading LLDP neighbours of %s: %w", s.Name, err))
						return
					}
					obs = append(obs, topology.Observation{Device: s.Name, Neighbors: ns})
				}
			}
		})
		return obs, errs
	}
}

func readNeighbors(ctx context.Context, t *switchcfg.Target, nr switchcfg.NeighborReader) ([]fabric.Neighbor, error) {
	rb, err := fleet.ReadBack(ctx, t, nr.NeighborCommands())
	if err != nil {
		return nil, err
	}
	return nr.ParseNeighbors(rb)
}

// NewSwitchCounterSource returns a reader of every switch's port error counters
// (those of Only, when set), through the drivers that implement
// switchcfg.CounterReader, over the same sessions as plan and apply (host
// keys checked), all switches at once. It is what `fabricctl check` hands
// the runner as its SwitchCounterSource. A switch that cannot be read, or
// whose driver reads no counters, is Unread with why; the others are
// still read; so is one that reports no port (a simulator without
// counters).
func NewSwitchCounterSource(f *fabric.Fabric, o fleet.Options) SwitchCounterSource {
	return func(ctx context.Context) SwitchReading {
		var out SwitchReading
		fleet.EachSwitch(f, o, func(s fabric.SwitchIntent, d switchcfg.Driver, err error) func(*switchcfg.Target) func() {
			if err != nil {
				out.Unread = append(out.Unread, fmt.Sprintf("%s: %v", s.Name, err))
				return nil
			}
			cr, ok := d.(switchcfg.CounterReader)
			if !ok {
				out.Unread = append(out.Unread, fmt.Sprintf("%s: the %s driver reads no port counters", s.Name, s.Platform))
				return nil
			}
			return func(t *switchcfg.Target) func() {
				rs, err := readCounters(ctx, t, cr)
				if err == nil && len(rs) == 0 {
					err = errors.New("no port reported counters")
				}
				return func() {
					if err != nil {
						out.Unread = append(out.Unread, fmt.Sprintf("%s: reading port counters: %v", s.Name, err))
						return
					}
					out.Read = append(out.Read, s.Name)
					for _, c := range rs {
						if k, ok := counterKinds[c.Kind]; ok {
							out.Readings = append(out.Readings, localize.Reading{At: fabric.Endpoint{Device: s.Name, Port: c.Port}, Kind: k, Name: c.Name, Value: c.Value})
						}
					}
				}
			}
		})
		slices.Sort(out.Read)
		slices.Sort(out.Unread)
		return out
	}
}

// counterKinds maps the drivers' counter kinds to the localiser's.
var counterKinds = map[switchcfg.ErrorKind]localize.CounterKind{switchcfg.PhyErrors: localize.PhyErrors, switchcfg.Discards: localize.Discards}

func readCounters(ctx context.Context, t *switchcfg.Target, cr switchcfg.CounterReader) ([]switchcfg.PortCounter, error) {
	rb, err := fleet.ReadBack(ctx, t, cr.CounterCommands())
	if err != nil {
		return nil, err
	}
	return cr.ParseCounters(rb)
}
