package agentclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
)

// HostTarget reconciles one host for the fabric engine (fabric.Target) by
// running the agent on it over Conn: plan asks the agent for its plan; apply
// sends the desired state with the fingerprint of the plan the user saw (the
// agent refuses if the host changed since) and a journal id under which the
// agent records every write's pre-image before making it. When anything
// fails — the apply, the verify, or the reply itself, lost with the
// connection — the target asks the agent (over a new connection when
// needed) to recover that journal, so the host ends exactly as before; when
// all went well it settles the journal.
type HostTarget struct {
	Intent   fabric.HostIntent
	Conn     Conn
	Deployer *Deployer
	// Deps are targets whose failure means this host must not be applied
	// (the leaf switch it hangs off).
	Deps []string
	// Log receives warnings about recoveries; nil discards them.
	Log *slog.Logger

	mu          sync.Mutex
	remote      *Remote
	fingerprint string
	applying    string          // the journal id of this target's apply in flight
	interrupted *journal.Record // an interrupted apply's journal Plan found
}

func (t *HostTarget) log() *slog.Logger {
	if t.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return t.Log
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

// Plan asks the agent what apply would change. A journal an interrupted
// apply left on the host (not this target's own apply in flight) is
// reported as one more change, "journal interrupted-apply": Plan never
// touches the host, Apply rolls it back first.
func (t *HostTarget) Plan(ctx context.Context) ([]fabric.Change, error) {
	rep, err := t.call(ctx, agent.Request{Op: agent.OpPlan, Desired: &t.Intent})
	if err != nil {
		return nil, err
	}
	if rep.Plan == nil {
		return nil, fmt.Errorf("%w: plan reply without a plan", ErrAgent)
	}
	cs := Changes(*rep.Plan)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fingerprint, t.interrupted = rep.Fingerprint, nil
	if j := rep.Journal; j != nil && j.Pending && !j.InProgress && j.Record.ID != t.applying {
		rec := j.Record
		t.interrupted = &rec
		cs = append(cs, fabric.Change{Component: "journal", Setting: "interrupted-apply", Old: rec.Summary(), New: "rolled back",
			Note: "an interrupted apply may have left the host half-changed; apply rolls it back first (or fabricctl recover)"})
	}
	return cs, nil
}

// recoverInterrupted rolls back the interrupted apply Plan found, then
// plans again from the restored host.
func (t *HostTarget) recoverInterrupted(ctx context.Context, rec journal.Record) error {
	rep, err := t.recover(ctx, rec.ID)
	if err != nil {
		return fmt.Errorf("rolling back an interrupted apply (%s): %w", rec.Summary(), err)
	}
	t.log().Warn("rolled back an interrupted apply", "host", t.Intent.Host, "journal", rec.Summary(),
		"restored", restoredCount(rep), "unchanged", unchangedCount(rep))
	if _, err := t.Plan(ctx); err != nil {
		return fmt.Errorf("planning after rolling back an interrupted apply (%s): %w", rec.Summary(), err)
	}
	return nil
}

// Changes converts a host plan into engine changes; issues become
// unsupported changes that are reported but never applied.
func Changes(p hostcfg.Plan) []fabric.Change {
	out := make([]fabric.Change, 0, len(p.Changes)+len(p.Issues))
	for _, c := range p.Changes {
		out = append(out, fabric.Change{Component: c.Interface, Setting: c.Setting, Old: c.Old, New: c.New,
			Disruptive: c.Disruptive, Note: c.Reason, Flaps: c.Flaps})
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

// Apply applies the plan the user confirmed and verifies it. An
// interrupted apply Plan found is rolled back first (and the host planned
// again). On any failure the agent recovers the apply's journal, restoring
// the pre-image of every setting the apply wrote, on every interface.
func (t *HostTarget) Apply(ctx context.Context, _ []fabric.Change) ([]fabric.Change, error) {
	t.mu.Lock()
	interrupted := t.interrupted
	t.mu.Unlock()
	if interrupted != nil {
		if err := t.recoverInterrupted(ctx, *interrupted); err != nil {
			return nil, fmt.Errorf("nothing was applied: %w", err)
		}
	}
	id := journal.NewID()
	t.mu.Lock()
	fp := t.fingerprint
	t.applying = id
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.applying = ""
		t.mu.Unlock()
	}()
	// The apply itself is not interrupted by cancellation: killing the agent
	// mid-write would leave the host half changed. It runs to its end
	// (bounded), and a cancelled apply is then rolled back.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), applyTimeout)
	defer cancel()
	rep, err := t.call(actx, agent.Request{Op: agent.OpApply, Desired: &t.Intent, PlanFingerprint: fp, Journal: id})
	if err != nil {
		var ae *agent.Error
		switch {
		case errors.As(err, &ae) && ae.Kind == agent.ErrorPlanChanged:
			return nil, fmt.Errorf("the host changed since the plan was shown; nothing was applied, plan again: %w", err)
		case errors.As(err, &ae) && (ae.Kind == agent.ErrorInterrupted || ae.Kind == agent.ErrorBusy):
			return nil, fmt.Errorf("nothing was applied: %w", err)
		case errors.As(err, &ae):
			return nil, t.undo(rep, id, err)
		}
		// No reply: the connection or the agent died. The agent may have
		// written anything up to the whole plan.
		return nil, t.rollback(id, fmt.Errorf("the agent's reply to apply was lost (%w); the host may have been half-changed", err))
	}
	if err := ctx.Err(); err != nil {
		return nil, t.undo(rep, id, fmt.Errorf("interrupted: %w", err))
	}
	remaining, perr := t.Plan(ctx)
	if perr != nil {
		return nil, t.undo(rep, id, fmt.Errorf("verifying: %w", perr))
	}
	if len(fabric.Actionable(remaining)) > 0 {
		if !wrote(rep) {
			return remaining, nil // nothing was written: nothing to undo
		}
		return remaining, t.undo(rep, id, fmt.Errorf("verify found %d setting(s) still different", len(fabric.Actionable(remaining))))
	}
	if rep.Journal != nil {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		if _, err := t.call(sctx, agent.Request{Op: agent.OpSettle, Desired: &t.Intent, Journal: id}); err != nil {
			// The host is applied and verified; only the acknowledgement is
			// missing. The next apply rolls it back and applies it again.
			t.log().Warn("the host is applied and verified, but settling its journal failed: the next apply rolls it back and applies it again",
				"host", t.Intent.Host, "journal", id, "error", err)
		}
	}
	return remaining, nil
}

// wrote reports whether an apply reply says something was written.
func wrote(rep agent.Reply) bool {
	return rep.Journal != nil || rep.Result != nil && (len(rep.Result.Applied) > 0 || len(rep.Result.RolledBack) > 0)
}

// undo restores the host after an apply that answered: from its journal
// when the agent kept one, else (an agent without a journal) with the
// reply's undo plan.
func (t *HostTarget) undo(rep agent.Reply, id string, cause error) error {
	switch {
	case rep.Journal != nil:
		return t.rollback(id, cause)
	case rep.Result != nil && len(rep.Result.Undo.Changes) > 0:
		ctx, cancel := context.WithTimeout(context.Background(), rollbackTimeout)
		defer cancel()
		if _, err := t.call(ctx, agent.Request{Op: agent.OpRollback, Plan: &rep.Result.Undo}); err != nil {
			return fmt.Errorf("%w; rolling back failed too: %w", cause, err)
		}
		return fmt.Errorf("%w (%w)", cause, fabric.ErrRolledBack)
	case !wrote(rep):
		return fmt.Errorf("%w (nothing was written) (%w)", cause, fabric.ErrRolledBack)
	}
	return cause
}

// Recovered is what RecoverInterrupted did on one host.
type Recovered struct {
	Host string `json:"host"`
	// Journal is the interrupted apply's journal; nil when none was pending.
	Journal *journal.Record `json:"journal,omitempty"`
	// Result says which settings were restored (Applied), which already
	// were at their pre-image (Unchanged) and which failed.
	Result *hostcfg.Result `json:"result,omitempty"`
}

// RecoverInterrupted rolls back whatever apply an earlier run left
// interrupted on the host (fabricctl recover); nothing pending is no error.
func (t *HostTarget) RecoverInterrupted(ctx context.Context) (Recovered, error) {
	out := Recovered{Host: t.Intent.Host}
	rep, err := t.recover(ctx, "")
	if rep.Journal != nil {
		rec := rep.Journal.Record
		out.Journal = &rec
	}
	out.Result = rep.Result
	if err != nil {
		return out, fmt.Errorf("recovering %s: %w", t.Intent.Host, err)
	}
	return out, nil
}

// recover asks the agent to roll back the pending journal (expected: id),
// over a new connection when the old one is gone.
func (t *HostTarget) recover(ctx context.Context, id string) (agent.Reply, error) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recoverTimeout)
	defer cancel()
	return t.call(rctx, agent.Request{Op: agent.OpRecover, Desired: &t.Intent, Journal: id})
}

// rollback recovers this target's own apply after cause; it runs even when
// the command is being cancelled (a half-applied host is worse than a late
// exit). The error says what happened on recovery.
func (t *HostTarget) rollback(id string, cause error) error {
	rep, err := t.recover(context.Background(), id)
	if err != nil {
		return fmt.Errorf("%w; recovering the host from its apply journal failed: %w; the journal stays on the host: "+
			"the next fabricctl apply rolls it back first (or run fabricctl recover, or fabricctl host recover on the host)", cause, err)
	}
	if rep.Journal == nil {
		return fmt.Errorf("%w; the host journaled no write, so nothing was changed (%w)", cause, fabric.ErrRolledBack)
	}
	return fmt.Errorf("%w; recovered from journal %s: restored %d setting(s) to their pre-image, %d already were (%w)",
		cause, rep.Journal.Record.ID, restoredCount(rep), unchangedCount(rep), fabric.ErrRolledBack)
}

func restoredCount(rep agent.Reply) int {
	if rep.Result == nil {
		return 0
	}
	return len(rep.Result.Applied)
}

func unchangedCount(rep agent.Reply) int {
	if rep.Result == nil {
		return 0
	}
	return len(rep.Result.Unchanged)
}

// rollbackTimeout bounds a settle; recoverTimeout a recovery, which may
// wait for an apply still running on the host (its reply lost, the process
// going on); applyTimeout bounds one agent apply.
const (
	rollbackTimeout = 60 * time.Second
	recoverTimeout  = applyTimeout + rollbackTimeout
	applyTimeout    = 5 * time.Minute
)

// MarshalJSON keeps the target readable in debug output.
func (t *HostTarget) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"host": t.Intent.Host})
}
