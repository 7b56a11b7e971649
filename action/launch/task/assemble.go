package task

import (
	"errors"
	"fmt"

	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/fabric"
)

// ErrNoResult: a node of the step reported nothing (the launcher could not start its task, or
// the task died before it wrote its result).
var ErrNoResult = errors.New("no result from the node")

// PreflightSpec is the spec of a preflight step over hosts (their desired state; peers are the
// other hosts, all) and the peers, every host of the fabric (a task leaves itself out); node maps
// a host to its launcher node name. The peer list is shared, not repeated per host: a preflight
// of n hosts costs O(n), not O(n²).
func PreflightSpec(hosts []fabric.HostIntent, peers []fabric.HostIntent, node func(host string) string) Spec {
	s := Spec{Version: Version, Kind: KindPreflight}
	for _, h := range hosts {
		s.Hosts = append(s.Hosts, Host{Node: node(h.Host), Intent: h})
	}
	for _, p := range peers {
		s.Peers = append(s.Peers, preflight.Peer{Name: p.Host, Address: p.Address})
	}
	return s
}

// Facts returns the facts of hosts from a preflight step's results, in hosts' order, with an
// error for every host whose node reported none (stepErr says how the step ended).
func Facts(hosts []fabric.HostIntent, node func(host string) string, c Collected, stepErr error) ([]preflight.Facts, []error) {
	facts := make([]preflight.Facts, len(hosts))
	errs := make([]error, len(hosts))
	for i, h := range hosts {
		n := node(h.Host)
		r, ok := c.Results[n]
		switch {
		case !ok:
			errs[i] = noResult(n, stepErr)
		case r.Error != "":
			errs[i] = fmt.Errorf("node %s: %s", n, r.Error)
		case r.Facts == nil:
			errs[i] = fmt.Errorf("node %s: %w: no facts in its result", n, ErrNoResult)
		default:
			facts[i] = *r.Facts
		}
		facts[i].Host = h.Host
	}
	return facts, errs
}

func noResult(node string, stepErr error) error {
	if stepErr != nil {
		return fmt.Errorf("node %s: %w (%w)", node, ErrNoResult, stepErr)
	}
	return fmt.Errorf("node %s: %w", node, ErrNoResult)
}

// RoundSpec is the spec of one round: every job with its sides' nodes. The jobs share one test.
func RoundSpec(jobs []rdma.Job, node func(host string) string) Spec {
	s := Spec{Version: Version, Kind: KindRound}
	for i, j := range jobs {
		if i == 0 {
			s.Test = j.Test
		}
		s.Jobs = append(s.Jobs, Job{Server: SideOf(j.Server, node(j.Server.Host)), Client: SideOf(j.Client, node(j.Client.Host)), TCPPort: j.TCPPort})
	}
	return s
}

// Runs turns a round's results into one PairRun per job, in order. A side whose node reported
// nothing makes the run an error naming the node (stepErr says how the step ended); a client
// that never started (its server failed first) leaves ClientOut nil, as RunPair does.
func Runs(jobs []rdma.Job, s Spec, c Collected, stepErr error) []rdma.PairRun {
	out := make([]rdma.PairRun, len(jobs))
	for i, j := range jobs {
		r := rdma.PairRun{Server: j.Server, Client: j.Client, Test: j.Test, TCPPort: j.TCPPort, Attempts: 1}
		var errs []error
		for _, side := range []struct {
			node string
			role rdma.Role
			dst  **rdma.Outcome
		}{{s.Jobs[i].Server.Node, rdma.Server, &r.ServerOut}, {s.Jobs[i].Client.Node, rdma.Client, &r.ClientOut}} {
			res, ok := c.Results[side.node]
			if !ok {
				errs = append(errs, noResult(side.node, stepErr))
				continue
			}
			found := false
			for _, sr := range res.Sides {
				if sr.Job == i && sr.Role == side.role {
					found = true
					if sr.Outcome.ID != "" {
						o := sr.Outcome
						*side.dst = &o
						r.Wall = max(r.Wall, o.Wall)
					}
				}
			}
			if !found {
				msg := res.Error
				if msg == "" {
					msg = fmt.Sprintf("its result has no %s side of job %d", side.role, i)
				}
				errs = append(errs, fmt.Errorf("node %s: %s", side.node, msg))
			}
		}
		if r.ServerOut == nil && r.ClientOut == nil && len(errs) == 0 {
			errs = append(errs, fmt.Errorf("%s: %w: neither side ran", r.Target(), ErrNoResult))
		}
		r.Err = errors.Join(errs...)
		out[i] = r
	}
	return out
}

// NCCLProbeSpec is the spec of an NCCL probe step on hosts' nodes.
func NCCLProbeSpec(hosts []string, node func(host string) string, args collective.ProbeArgs) Spec {
	st := &NCCLStep{Probe: args}
	for _, h := range hosts {
		st.Nodes = append(st.Nodes, NCCLNode{Node: node(h), Host: h})
	}
	return Spec{Version: Version, Kind: KindNCCLProbe, NCCL: st}
}

// NCCLProbes returns the probes of hosts from an NCCL probe step's results, in hosts' order, with
// an error naming the node for every host whose node reported none (stepErr says how the step
// ended).
func NCCLProbes(hosts []string, node func(host string) string, c Collected, stepErr error) ([]collective.Probe, []error) {
	return pick(hosts, node, c, stepErr, "no NCCL probe", func(r Result) *collective.Probe { return r.NCCLProbe },
		func(h string, err error) error { return fmt.Errorf("probing %s for the NCCL check: %w", h, err) })
}

// pick takes each host's part out of its node's result (in hosts' order), or an error naming the
// node, wrapped with the host.
func pick[T any](hosts []string, node func(host string) string, c Collected, stepErr error, what string,
	part func(Result) *T, wrap func(host string, err error) error) ([]T, []error) {
	out, errs := make([]T, len(hosts)), make([]error, len(hosts))
	for i, h := range hosts {
		n := node(h)
		r, ok := c.Results[n]
		var err error
		switch {
		case !ok:
			err = noResult(n, stepErr)
		case r.Error != "":
			err = fmt.Errorf("node %s: %s", n, r.Error)
		case part(r) == nil:
			err = fmt.Errorf("node %s: %w: %s in its result", n, ErrNoResult, what)
		default:
			out[i] = *part(r)
		}
		if err != nil {
			errs[i] = wrap(h, err)
		}
	}
	return out, errs
}

// NCCLRunSpec is the spec of an NCCL run step: every spec's part on its host's node.
func NCCLRunSpec(specs []collective.Spec, node func(host string) string) Spec {
	st := &NCCLStep{}
	for _, s := range specs {
		st.Nodes = append(st.Nodes, NCCLNode{Node: node(s.Host), Host: s.Host, Spec: &s})
	}
	return Spec{Version: Version, Kind: KindNCCLRun, NCCL: st}
}

// NCCLResults returns every spec's node result from an NCCL run step's results, in order, with
// an error naming the node for every part whose node reported none: a task that died, or a node
// the step never reached (stepErr says how the step ended).
func NCCLResults(specs []collective.Spec, node func(host string) string, c Collected, stepErr error) ([]collective.NodeResult, []error) {
	hosts := make([]string, len(specs))
	for i, s := range specs {
		hosts[i] = s.Host
	}
	return pick(hosts, node, c, stepErr, "no all-reduce result", func(r Result) *collective.NodeResult { return r.NCCLRun },
		func(h string, err error) error { return fmt.Errorf("running the all-reduce on %s: %w", h, err) })
}
