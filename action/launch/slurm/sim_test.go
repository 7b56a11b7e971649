package slurm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabricctl/fabricctl/action/launch/task"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
	"github.com/fabricctl/fabricctl/testkit/slurmsim"
)

// rxeIntent is the desired state of the rxe fixture host.
func rxeIntent(t testing.TB) fabric.HostIntent {
	t.Helper()
	b, err := os.ReadFile("../../../hostcfg/testdata/desired/rxe.json")
	if err != nil {
		t.Fatal(err)
	}
	var d fabric.HostIntent
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// rxeFacts gathers the real preflight facts of the rxe fixture host once, as JSON: the simulated
// nodes report copies of them under their own names.
func rxeFacts(t testing.TB) []byte {
	t.Helper()
	fx := hostcfgtest.Load(t, "../../../hostcfg/testdata/hosts/rxe")
	g := &preflight.Gatherer{
		Open:     func(context.Context) (*hostcfg.Host, error) { return fx.Host, nil },
		Sys:      fx.Host.Sys,
		ProcRoot: t.TempDir(),
		LibDirs:  []string{t.TempDir()},
		LookPath: func(string) (string, error) {
			return filepath.Abs("../../../checks/preflight/testdata/fakes/ib_write_bw")
		},
		Resolve: func(context.Context, string) ([]string, error) { return []string{"10.0.0.1"}, nil },
	}
	f := g.Gather(t.Context(), preflight.Args{Intent: rxeIntent(t)})
	if f.Observed == nil {
		t.Fatalf("fixture gather: %s", f.ObserveError)
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// clientText is a real perftest client report (ib_write_bw, RoCE, 2 QPs, Gb/s).
func clientText(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("../../../checks/perftest/testdata/text/write_bw_client_roce_2qp_gbits.txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// simTask is what every simulated node does: report the fixture's facts (without drift) as its own, or, for a
// broken node, facts whose netdev has lost its RDMA device (as after `rdma link delete`); run
// its side of each job with perftest's real output.
func simTask(facts []byte, text string, broken map[string]bool) func(string, task.Spec) task.Result {
	return func(node string, s task.Spec) task.Result {
		r := task.Result{Node: node, Kind: s.Kind}
		switch s.Kind {
		case task.KindPreflight:
			for _, h := range s.Hosts {
				if h.Node != node {
					continue
				}
				var f preflight.Facts
				if err := json.Unmarshal(facts, &f); err != nil {
					r.Error = err.Error()
					return r
				}
				f.Host = h.Intent.Host
				if f.Plan != nil {
					f.Plan.Changes = nil // the fixture host lacks the fixture intent's MTU and ToS: no drift here
				}
				if broken[node] {
					for i := range f.Observed.Interfaces {
						f.Observed.Interfaces[i].RDMA = nil
					}
				}
				r.Facts = &f
			}
		case task.KindRound:
			for i, j := range s.Jobs {
				for _, side := range []struct {
					node string
					role rdma.Role
				}{{j.Server.Node, rdma.Server}, {j.Client.Node, rdma.Client}} {
					if side.node != node {
						continue
					}
					o := rdma.Outcome{ID: fmt.Sprintf("sim-%d-%s", i, side.role), Role: side.role, ExitCode: 0, Stdout: text}
					r.Sides = append(r.Sides, task.SideResult{Job: i, Role: side.role, Outcome: o})
				}
			}
		}
		return r
	}
}

// newSim makes a simulated cluster of nodes with the task above.
func newSim(t testing.TB, hostlist string, broken ...string) *slurmsim.Cluster {
	c := slurmsim.New(hostlist)
	b := map[string]bool{}
	for _, n := range broken {
		b[n] = true
	}
	c.Task = simTask(rxeFacts(t), clientText(t), b)
	return c
}
