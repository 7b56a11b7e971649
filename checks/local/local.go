package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
)

// ErrSuite: a suite this host cannot run on itself.
var ErrSuite = errors.New("suite not available for --local")

// Suites lists the suites Run can run, in order.
var Suites = []report.Suite{report.SuitePreflight}

// Options say what to check.
type Options struct {
	// Suites to run (default: preflight).
	Suites []report.Suite
	// Intent is the host's desired state; zero: every RDMA netdev of the
	// host, named after its hostname.
	Intent fabric.HostIntent
	// Peers are the other hosts, whose names and addresses must resolve here.
	Peers []preflight.Peer
	// ExpectedRate is the port rate every RoCE port must show, Gb/s (0 = any).
	ExpectedRate float64
	// Gatherer gathers the facts (its Open opens this host's backends).
	Gatherer *preflight.Gatherer
	// Name names the report (default "local").
	Name string
}

// DefaultIntent is what a host without a fabric checks: every netdev that
// has an RDMA device.
func DefaultIntent() fabric.HostIntent {
	name, _ := os.Hostname()
	return fabric.HostIntent{APIVersion: fabric.APIVersion, Host: name,
		Interfaces: []fabric.InterfaceIntent{{Name: fabric.AllRDMANetdevs}}}
}

// Run checks the host it runs on and returns the report.
func Run(ctx context.Context, o Options) (*report.Report, error) {
	suites := o.Suites
	if len(suites) == 0 {
		suites = []report.Suite{report.SuitePreflight}
	}
	for _, s := range suites {
		if !slices.Contains(Suites, s) {
			var valid []string
			for _, v := range Suites {
				valid = append(valid, string(v))
			}
			return nil, fmt.Errorf("running %s on this host: %w (available: %s)", s, ErrSuite, strings.Join(valid, ", "))
		}
	}
	if o.Gatherer == nil {
		return nil, errors.New("running local checks: no gatherer")
	}
	in := o.Intent
	noFabric := in.Host == "" && len(in.Interfaces) == 0
	if noFabric {
		in = DefaultIntent()
	}
	name := o.Name
	if name == "" {
		name = "local"
	}
	rep := report.New(name, time.Now(), suites...)
	facts := o.Gatherer.Gather(ctx, preflight.Args{Intent: in, Peers: o.Peers})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	results := preflight.Evaluate(facts, preflight.Options{ExpectedRate: o.ExpectedRate})
	if noFabric {
		// Without a fabric nothing says what the lossless settings should be.
		for i, r := range results {
			if r.ID == preflight.IDLossless || r.ID == preflight.IDMTU {
				results[i].Status, results[i].Class, results[i].Evidence = checks.StatusSkip, "", nil
				results[i].Summary = "no fabric given (-f FABRIC --host NAME): the desired settings are unknown"
			}
		}
	}
	rep.Add(results...)
	rep.Finished = time.Now()
	return rep, nil
}
