package fleet

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// SwitchNeighbors returns a reader of every switch's own LLDP table (those
// Only names, when set), through the drivers that implement
// switchcfg.NeighborReader, over the same sessions as plan and apply (host
// keys checked). It is what `fabricctl check` hands the runner as its
// NeighborSource. A switch whose table cannot be read is an error of its
// own and is left out; switches whose driver reads no LLDP are skipped.
func SwitchNeighbors(f *fabric.Fabric, o Options) func(context.Context) ([]topology.Observation, []error) {
	return func(ctx context.Context) ([]topology.Observation, []error) {
		var (
			obs  []topology.Observation
			errs []error
		)
		eachSwitch(f, o, func(s fabric.SwitchIntent, d switchcfg.Driver, err error) func(*switchcfg.Target) func() {
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

// eachSwitch visits every switch of f (those Only names, when set) with
// its driver, or the error finding none. What visit returns, when not nil,
// runs on a goroutine of its own with a target over the plan/apply
// session (host keys checked), and what that returns, the recording of
// the result, runs under a lock shared by all. eachSwitch returns once
// every switch is done.
func eachSwitch(f *fabric.Fabric, o Options, visit func(s fabric.SwitchIntent, d switchcfg.Driver, err error) func(*switchcfg.Target) func()) {
	specs := byName(f.Spec.Switches, func(s fabric.Switch) string { return s.Name })
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for _, s := range f.Resolve().Switches {
		if len(o.Only) > 0 && !slices.Contains(o.Only, s.Name) {
			continue
		}
		d, err := o.Registry.Driver(s.Platform)
		mu.Lock()
		read := visit(s, d, err)
		mu.Unlock()
		if read == nil {
			continue
		}
		t := switchTarget(f, s, specs[s.Name], d, o).(*switchcfg.Target)
		wg.Add(1)
		go func() {
			defer wg.Done()
			record := read(t)
			mu.Lock()
			defer mu.Unlock()
			record()
		}()
	}
	wg.Wait()
}

func readNeighbors(ctx context.Context, t *switchcfg.Target, nr switchcfg.NeighborReader) ([]fabric.Neighbor, error) {
	rb, err := readBack(ctx, t, nr.NeighborCommands())
	if err != nil {
		return nil, err
	}
	return nr.ParseNeighbors(rb)
}

// readBack runs cmds over one session to t and returns their outputs.
func readBack(ctx context.Context, t *switchcfg.Target, cmds []string) (switchcfg.Readback, error) {
	sess, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	rb := switchcfg.Readback{}
	for _, c := range cmds {
		out, err := sess.Send(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("running %q: %w", c, err)
		}
		rb[c] = []byte(out)
	}
	return rb, nil
}
