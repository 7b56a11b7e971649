package counters

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/fabricctl/fabricctl/action/fleet"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// ErrNoTargets: the fabric (or --target) names no host or switch.
var ErrNoTargets = errors.New("no host or switch to read")

// RunFabric reads f's hosts through their agents over SSH and its switches
// through their drivers (those reach.Only names, when set). o.Lossless
// defaults to the fabric's lossless priorities.
func RunFabric(ctx context.Context, f *fabric.Fabric, reach fleet.Options, o Options) (*Report, error) {
	fl, closeAll := fleet.Hosts(f, reach)
	defer closeAll()
	hosts := make([]HostAgent, 0, len(fl))
	for _, h := range fl {
		hosts = append(hosts, HostAgent{Name: h.Intent.Host, Agent: h.Agent})
	}
	// The switches are reached with the fabric's own ssh settings (as
	// check reaches them): the hosts' identity file and agent are not theirs.
	sw := fleet.Options{Registry: reach.Registry, Only: reach.Only, InsecureIgnoreHostKey: reach.InsecureIgnoreHostKey, KnownHostsFile: reach.KnownHostsFile,
		SSHConfigFile: reach.SSHConfigFile, Log: reach.Log, Dial: reach.Dial}
	nsw := 0
	for _, s := range f.Resolve().Switches {
		if len(reach.Only) == 0 || slices.Contains(reach.Only, s.Name) {
			nsw++
		}
	}
	if len(hosts)+nsw == 0 {
		if len(reach.Only) > 0 {
			return nil, fmt.Errorf("reading counters of %s: %w named %v", f.Source.File, ErrNoTargets, reach.Only)
		}
		return nil, fmt.Errorf("reading counters of %s: %w", f.Source.File, ErrNoTargets)
	}
	if o.Lossless == nil {
		o.Lossless = LosslessPriorities(f)
	}
	var src SwitchSource
	if nsw > 0 {
		src = NewSwitchSource(f, sw)
	}
	return Run(ctx, f.Metadata.Name, hosts, src, o)
}

// NewSwitchSource returns a reader of every switch's port counters (those
// of o.Only, when set) through the drivers that implement
// switchcfg.CounterReader, over the same sessions as plan and apply (host
// keys checked), all switches at once. A switch that cannot be read, or
// whose driver reads no counters, comes back with Err.
func NewSwitchSource(f *fabric.Fabric, o fleet.Options) SwitchSource {
	return func(ctx context.Context) []SwitchReading {
		var out []SwitchReading
		fleet.EachSwitch(f, o, func(s fabric.SwitchIntent, d switchcfg.Driver, err error) func(*switchcfg.Target) func() {
			if err != nil {
				out = append(out, SwitchReading{Switch: s.Name, Err: err})
				return nil
			}
			cr, ok := d.(switchcfg.CounterReader)
			if !ok {
				out = append(out, SwitchReading{Switch: s.Name, Err: fmt.Errorf("the %s driver reads no port counters", s.Platform)})
				return nil
			}
			return func(t *switchcfg.Target) func() {
				cmds := cr.CounterCommands()
				r := SwitchReading{Switch: s.Name, From: cmds}
				rb, err := fleet.ReadBack(ctx, t, cmds)
				if err == nil {
					r.Counters, err = cr.ParseCounters(rb)
				}
				if err == nil && len(r.Counters) == 0 {
					err = errors.New("no port reported counters")
				}
				if err != nil {
					r.Counters, r.Err = nil, fmt.Errorf("reading port counters: %w", err)
				}
				r.At = time.Now()
				return func() { out = append(out, r) }
			}
		})
		slices.SortFunc(out, func(a, b SwitchReading) int {
			if a.Switch < b.Switch {
				return -1
			}
			if a.Switch > b.Switch {
				return 1
			}
			return 0
		})
		return out
	}
}
