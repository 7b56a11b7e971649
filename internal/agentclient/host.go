package agentclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/agent"
)

// HostTarget reconciles one host for the fabric engine (fabric.Target) by
// running the agent on it over Conn: plan asks the agent for its plan; apply
// sends the desired state with the fingerprint of the plan the user saw (the
// agent refuses if the host changed since), and when anything fails it sends
// the agent's undo plan back, so the host ends exactly as before.
type HostTarget struct {
	Intent   fabric.HostIntent
	Conn     Conn
	Deployer *Deployer
	// Deps are targets whose failure means this host must not be applied
	// (the leaf switch it hangs off).
	Deps []string

	mu          sync.Mutex
	remote      *Remote
	fingerprint string
}

var _ fabric.Target = (*HostTarget)(nil)

func (t *HostTarget) Name() string        { return t.Intent.Host }
func (t *HostTarget) Tier() fabric.Tier   { return fabric.TierHost }
func (t *HostTarget) DependsOn() []string { return t.Deps }

// agentPath delivers the agent once per target.
func (t *HostTarget) agentPath(ctx context.Context) (string, error) {
	t.mu.Lock()
	if t.remote == nil {
		t.remote = &Remote{Conn: t.Conn, Deployer: t.Deployer}
	}
	r := t.remote
	t.mu.Unlock()
	return r.Path(ctx)
}

// call sends one request and checks the protocol envelope.
func (t *HostTarget) call(ctx context.Context, req agent.Request) (agent.Reply, error) {
	path, err := t.agentPath(ctx)
	if err != nil {
		return agent.Reply{}, err
	}
	req.APIVersion, req.Protocol = fabric.APIVersion, agent.Protocol
	var rep agent.Reply
	if err := RoundTrip(ctx, t.Conn, path, req, &rep); err != nil {
		return rep, err
	}
	if !rep.OK {
		if rep.Error == nil {
			return rep, fmt.Errorf("%w: %s failed without a reason", ErrAgent, req.Op)
		}
		return rep, fmt.Errorf("%w: %w", ErrAgent, rep.Error)
	}
	return rep, nil
}

// Plan asks the agent what apply would change.
func (t *HostTarget) Plan(ctx context.Context) ([]fabric.Change, error) {
	rep, err := t.call(ctx, agent.Request{Op: agent.OpPlan, Desired: &t.Intent})
	if err != nil {
		return nil, err
	}
	if rep.Plan == nil {
		return nil, fmt.Errorf("%w: plan reply without a plan", ErrAgent)
	}
	t.mu.Lock()
	t.fingerprint = rep.Fingerprint
	t.mu.Unlock()
	return Changes(*rep.Plan), nil
}

// Changes converts a host plan into engine changes; issues become
// unsupported changes that are reported but never applied.
func Changes(p hostcfg.Plan) []fabric.Change {
	out := make([]fabric.Change, 0, len(p.Changes)+len(p.Issues))
	for _, c := range p.Changes {
		out = append(out, fabric.Change{Component: c.Interface, Setting: c.Setting, Old: c.Old, New: c.New,
			Disruptive: c.Disruptive, Note: c.Reason})
	}
	for _, is := range p.Issues {
		if is.Kind == hostcfg.IssueExternal {
			continue // owned by another system (pkeys: the subnet manager)
		}
		out = append(out, fabric.Change{Component: is.Interface, Setting: is.Setting, Old: is.Observed, New: is.Desired,
			Unsupported: true, Note: is.Kind + ": " + is.Reason})
	}
	return out
}

// Apply applies the plan the user confirmed and verifies it. On any failure
// the agent's undo plan is applied, restoring the pre-image.
func (t *HostTarget) Apply(ctx context.Context, _ []fabric.Change) ([]fabric.Change, error) {
	t.mu.Lock()
	fp := t.fingerprint
	t.mu.Unlock()
	// The apply itself is not interrupted by cancellation: killing the agent
	// mid-write would leave the host half changed with no undo plan. It runs
	// to its end (bounded), and a cancelled apply is then rolled back.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), applyTimeout)
	defer cancel()
	rep, err := t.call(actx, agent.Request{Op: agent.OpApply, Desired: &t.Intent, PlanFingerprint: fp})
	if err != nil {
		var ae *agent.Error
		if errors.As(err, &ae) && ae.Kind == agent.ErrorPlanChanged {
			return nil, fmt.Errorf("the host changed since the plan was shown; nothing was applied, plan again: %w", err)
		}
		if rep.Result != nil && len(rep.Result.Undo.Changes) > 0 {
			return nil, t.rollback(rep.Result.Undo, err)
		}
		if rep.Result != nil && len(rep.Result.Applied) == 0 {
			return nil, fmt.Errorf("%w (nothing was written) (%w)", err, fabric.ErrRolledBack)
		}
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		if rep.Result != nil && len(rep.Result.Undo.Changes) > 0 {
			return nil, t.rollback(rep.Result.Undo, fmt.Errorf("interrupted: %w", err))
		}
		return nil, fmt.Errorf("interrupted before anything was written: %w (%w)", err, fabric.ErrRolledBack)
	}
	remaining, perr := t.Plan(ctx)
	if perr != nil {
		return nil, fmt.Errorf("verifying: %w", perr)
	}
	if len(fabric.Actionable(remaining)) > 0 && rep.Result != nil && len(rep.Result.Undo.Changes) > 0 {
		return remaining, t.rollback(rep.Result.Undo, fmt.Errorf("verify found %d setting(s) still different", len(fabric.Actionable(remaining))))
	}
	return remaining, nil
}

// rollback restores the pre-image; it runs even when the command is being
// cancelled (a half-applied host is worse than a late exit).
func (t *HostTarget) rollback(undo hostcfg.Plan, cause error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(context.Background()), rollbackTimeout)
	defer cancel()
	if _, err := t.call(ctx, agent.Request{Op: agent.OpRollback, Plan: &undo}); err != nil {
		return fmt.Errorf("%w; rolling back failed too: %w", cause, err)
	}
	return fmt.Errorf("%w (%w)", cause, fabric.ErrRolledBack)
}

// rollbackTimeout bounds the restore after a failure or cancellation;
// applyTimeout bounds one agent apply.
const (
	rollbackTimeout = 60 * time.Second
	applyTimeout    = 5 * time.Minute
)

// MarshalJSON keeps the target readable in debug output.
func (t *HostTarget) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"host": t.Intent.Host})
}
