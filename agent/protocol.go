package agent

import (
	"encoding/json"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
)

// Protocol versions. A request names the version it speaks; the agent
// answers requests of any version from MinProtocol to Protocol and refuses
// others with ErrorProtocol, naming the range it speaks.
const (
	Protocol    = 1
	MinProtocol = 1
)

// Ops served by every agent. Handler.Register adds more (the checks'
// exec-check ops).
const (
	OpHello    = "hello"    // versions, build hash, ops: the handshake
	OpObserve  = "observe"  // Request.Desired → Reply.Observed
	OpShow     = "show"     // Request.Interfaces (empty: every RDMA netdev) → Reply.Observed
	OpPlan     = "plan"     // Request.Desired → Reply.Observed, Plan, Fingerprint
	OpApply    = "apply"    // Request.Desired [DryRun, PlanFingerprint] → Reply.Plan, Result
	OpRollback = "rollback" // Request.Plan (a Result.Undo) [Journal] → Reply.Result
	OpRecover  = "recover"  // Request.Desired [Journal] → Reply.Result, Journal: an interrupted apply rolled back
	OpSettle   = "settle"   // Request.Desired, Journal: the apply is acknowledged, its journal goes
)

// Request is one JSON document on the agent's stdin.
type Request struct {
	APIVersion string `json:"apiVersion"` // fabric.APIVersion
	Protocol   int    `json:"protocol"`   // the protocol version the caller speaks
	// ID is echoed in the reply (for callers that pipeline requests).
	ID string `json:"id,omitempty"`
	Op string `json:"op"`
	// Desired is the host's desired state (observe, plan, apply), as
	// `fabricctl render` writes it.
	Desired *fabric.HostIntent `json:"desired,omitempty"`
	// Interfaces limits show; empty means every netdev with an RDMA device.
	Interfaces []string `json:"interfaces,omitempty"`
	// DryRun makes apply plan only.
	DryRun bool `json:"dryRun,omitempty"`
	// PlanFingerprint, when set, makes apply refuse (ErrorPlanChanged) unless
	// the plan it computes now has this fingerprint: the plan the user confirmed.
	PlanFingerprint string `json:"planFingerprint,omitempty"`
	// Plan is what rollback applies: an apply's Result.Undo.
	Plan *hostcfg.Plan `json:"plan,omitempty"`
	// Journal is the id of an apply's journal: apply journals under it
	// (the agent picks one when empty), settle removes it, rollback removes
	// it once the rollback succeeded, recover names the apply it expects.
	Journal string `json:"journal,omitempty"`
	// Args carries the arguments of registered ops (exec-check …).
	Args json.RawMessage `json:"args,omitempty"`
}

// Reply is one JSON document on the agent's stdout, one per request.
type Reply struct {
	APIVersion string `json:"apiVersion"`
	Protocol   int    `json:"protocol"` // the version the reply is in
	ID         string `json:"id,omitempty"`
	Op         string `json:"op"`
	OK         bool   `json:"ok"`
	// Error is set when OK is false.
	Error *Error `json:"error,omitempty"`

	Hello    *Hello            `json:"hello,omitempty"`
	Observed *hostcfg.Observed `json:"observed,omitempty"`
	Plan     *hostcfg.Plan     `json:"plan,omitempty"`
	// Fingerprint is Plan.Fingerprint(): send it back as PlanFingerprint.
	Fingerprint string          `json:"fingerprint,omitempty"`
	Result      *hostcfg.Result `json:"result,omitempty"`
	// Journal is the host's apply journal: an apply's own (kept until
	// settled), the one recover rolled back, or — on observe and plan — one
	// left pending by an interrupted apply.
	Journal *journal.Status `json:"journal,omitempty"`
	// Data is the result of a registered op.
	Data json.RawMessage `json:"data,omitempty"`
}

// Error kinds.
const (
	ErrorProtocol    = "protocol"     // version or apiVersion not spoken; upgrade the agent
	ErrorBadRequest  = "bad-request"  // malformed JSON, missing fields, unknown op
	ErrorHost        = "host"         // the host backends could not be opened
	ErrorPlanChanged = "plan-changed" // the host changed since the confirmed plan; Reply.Plan is the new one
	ErrorApply       = "apply"        // apply failed; Reply.Result says what was rolled back
	ErrorOp          = "op"           // a registered op failed
	ErrorInterrupted = "interrupted"  // an earlier apply's journal is pending; Reply.Journal is it: recover first
	ErrorBusy        = "busy"         // another apply holds the host's journal lock
	ErrorRecover     = "recover"      // recover could not restore everything; Reply.Result and Journal say what
)

// Error is a failed request.
type Error struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Details lists located errors one per line, when there are several.
	Details []string `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Kind + ": " + e.Message }

// Hello is the handshake: what this agent is and speaks.
type Hello struct {
	Version  string `json:"version"`
	Revision string `json:"revision"`
	// SHA256 of the agent binary: the controller uploads itself when it differs.
	SHA256    string   `json:"sha256"`
	GOOS      string   `json:"goos"`
	GOARCH    string   `json:"goarch"`
	Protocols []int    `json:"protocols"` // every protocol version spoken, ascending
	Ops       []string `json:"ops"`       // sorted
	Hostname  string   `json:"hostname"`
	Kernel    string   `json:"kernel"` // uname -r
}
