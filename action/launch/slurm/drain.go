package slurm

import (
	"context"
	"errors"
	"fmt"

	"github.com/fabricctl/fabricctl/checks/report"
)

// Action is one node state change Reconcile made or chose not to make.
type Action struct {
	Host string `json:"host"`
	Node string `json:"node"`
	// Do is "drain", "resume" or "keep" (nothing changed: why is in Reason).
	Do     string `json:"do"`
	Reason string `json:"reason"`
	Err    error  `json:"-"`
}

func (a Action) String() string {
	s := fmt.Sprintf("%s %s (%s): %s", a.Do, a.Node, a.Host, a.Reason)
	if a.Err != nil {
		s += ": " + a.Err.Error()
	}
	return s
}

// Reconcile makes Slurm's node states follow the verdicts, the way LBNL NHC does for its own
// checks: a failed host's node is drained with the reason (DrainPrefix first); a host that passed
// and whose node fabricctl drained earlier is resumed; an undecided host is left alone; a node
// drained by someone else (another reason) keeps its state and reason. Drains come before
// resumes. With dryRun nothing is changed and the actions say what would be. The error joins
// every failed change.
func Reconcile(ctx context.Context, c Client, verdicts []report.HostVerdict, node func(host string) string, dryRun bool) ([]Action, error) {
	if node == nil {
		node = func(h string) string { return h }
	}
	names := make([]string, len(verdicts))
	for i, v := range verdicts {
		names[i] = node(v.Host)
	}
	if len(names) == 0 {
		return nil, nil
	}
	nodes, err := c.Nodes(ctx, names...)
	if err != nil {
		return nil, err
	}
	state := map[string]Node{}
	for _, n := range nodes {
		state[n.Name] = n
	}
	var drains, resumes, keeps []Action
	for i, v := range verdicts {
		n, known := state[names[i]]
		a := Action{Host: v.Host, Node: names[i]}
		switch {
		case !known:
			a.Do, a.Reason = "keep", "Slurm has no such node"
			keeps = append(keeps, a)
		case v.Failed && n.Drained() && !DrainedByUs(n):
			a.Do, a.Reason = "keep", fmt.Sprintf("already drained by %s: %s", orUnknown(n.ReasonBy), n.Reason)
			keeps = append(keeps, a)
		case v.Failed:
			a.Do, a.Reason = "drain", Reason(v.Reason)
			if n.Drained() && n.Reason == a.Reason {
				a.Do, a.Reason = "keep", "already drained: "+n.Reason
				keeps = append(keeps, a)
				continue
			}
			drains = append(drains, a)
		case v.Undecided:
			a.Do, a.Reason = "keep", "some checks could not decide"
			keeps = append(keeps, a)
		case DrainedByUs(n):
			a.Do, a.Reason = "resume", "passed again; was drained: "+n.Reason
			resumes = append(resumes, a)
		}
	}
	var errs []error
	for _, list := range [][]Action{drains, resumes} {
		for i := range list {
			a := &list[i]
			if dryRun {
				continue
			}
			if a.Do == "drain" {
				a.Err = c.Drain(ctx, a.Node, a.Reason)
			} else {
				a.Err = c.Resume(ctx, a.Node)
			}
			if a.Err != nil {
				errs = append(errs, a.Err)
			}
		}
	}
	return append(append(drains, resumes...), keeps...), errors.Join(errs...)
}

func orUnknown(s string) string {
	if s == "" {
		return "someone"
	}
	return s
}
