package rdma

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/perftest"
)

// The agent ops this package serves (Agent.Register).
const (
	// OpStart starts one side of a perftest: StartArgs → Started. A server's
	// reply comes once it listens on its TCP port.
	OpStart = "perftest-start"
	// OpWait waits for a started side to end: WaitArgs → Outcome.
	OpWait = "perftest-wait"
	// OpCleanup kills every perftest this host's agents started that still
	// runs: CleanupArgs → Cleaned.
	OpCleanup = "cleanup"
)

// Role is the side of a test a process plays.
type Role string

// The roles.
const (
	Server Role = "server"
	Client Role = "client"
)

// StartArgs are the arguments of OpStart.
type StartArgs struct {
	// ID names the process in this agent; OpWait refers to it.
	ID   string        `json:"id"`
	Role Role          `json:"role"`
	Spec perftest.Spec `json:"spec"`
	// Timeout bounds the process from its start (wall clock): at the
	// deadline its whole process group is killed. perftest on rxe retries
	// a black-holed path forever, so this is what ends it.
	Timeout time.Duration `json:"timeout"`
	// ReadyTimeout bounds the wait for a server to listen (default Timeout).
	ReadyTimeout time.Duration `json:"readyTimeout,omitempty"`
}

// startWire is StartArgs as the protocol carries it: Spec without
// JSONFile. Its own Spec (depth 0) shadows the embedded one.
type startWire struct {
	startPlain
	Spec specWire `json:"spec"`
}

type startPlain StartArgs // StartArgs without its methods

// specWire is perftest.Spec as the protocol carries it: every field under
// its Go name, but JSONFile, which no controller sets and which would let
// a request name a file for perftest to write (--out_json_file). Sending
// it is refused.
type specWire struct {
	perftest.Spec
	JSONFile notInProtocol `json:",omitzero"`
}

// notInProtocol is a field that no request may carry: any value is refused.
type notInProtocol struct{}

func (*notInProtocol) UnmarshalJSON([]byte) error {
	return errors.New("spec.JSONFile is not part of the protocol: the agent chooses the paths it writes")
}

// MarshalJSON writes the protocol's form: a Spec with JSONFile set cannot
// be sent.
func (a StartArgs) MarshalJSON() ([]byte, error) {
	if a.Spec.JSONFile != "" {
		return nil, fmt.Errorf("encoding %s arguments: %w: spec.JSONFile is not part of the protocol", OpStart, ErrBadArgs)
	}
	return json.Marshal(startWire{startPlain(a), specWire{Spec: a.Spec}})
}

// UnmarshalJSON reads the protocol's form strictly: unknown fields, and
// JSONFile, are errors.
func (a *StartArgs) UnmarshalJSON(b []byte) error {
	var w startWire
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return err
	}
	*a = StartArgs(w.startPlain)
	a.Spec = w.Spec.Spec
	return nil
}

// Started is the reply of OpStart.
type Started struct {
	ID  string `json:"id"`
	PID int    `json:"pid,omitempty"`
	// Ready is set when the process runs (a client) or listens (a server).
	Ready bool `json:"ready"`
	// Outcome is set when the process could not start or ended before it was
	// ready; there is nothing to wait for then.
	Outcome *Outcome `json:"outcome,omitempty"`
}

// WaitArgs are the arguments of OpWait.
type WaitArgs struct {
	ID string `json:"id"`
	// Stop kills the process first (its peer failed; a server would wait
	// for a client until its timeout).
	Stop bool `json:"stop,omitempty"`
}

// CleanupArgs are the arguments of OpCleanup.
type CleanupArgs struct{}

// Cleaned is the reply of OpCleanup.
type Cleaned struct {
	// Killed lists the pids of perftest processes that were still running.
	Killed []int `json:"killed"`
}

// Outcome is everything one side of a test left behind.
type Outcome struct {
	ID   string   `json:"id"`
	Role Role     `json:"role"`
	Argv []string `json:"argv"`
	// ExitCode is the process's exit status, -1 when it was killed or never ran.
	ExitCode int  `json:"exitCode"`
	TimedOut bool `json:"timedOut,omitempty"`
	Stopped  bool `json:"stopped,omitempty"` // killed on request (OpWait Stop)
	// Wall is how long the process ran.
	Wall   time.Duration `json:"wall"`
	Stdout string        `json:"stdout,omitempty"` // the last 64 KiB
	Stderr string        `json:"stderr,omitempty"` // the last 64 KiB
	// Class and Error are set when the process could not run at all
	// (missing binary, bad arguments, a failed fork).
	Class checks.FailureClass `json:"class,omitempty"`
	Error string              `json:"error,omitempty"`
	// Before and After are the port's counters
	// (/sys/class/infiniband/<dev>/ports/<n>/hw_counters/* and counters/*)
	// just before the start and just after the end.
	Before       evaluate.Counters `json:"before,omitempty"`
	After        evaluate.Counters `json:"after,omitempty"`
	CounterError string            `json:"counterError,omitempty"`

	// parsed remembers Report's answer for the output it was parsed from: judging a run asks
	// for it several times, and a sweep of thousands of pairs spent most of its time re-parsing.
	parsed *parsedReport
}

type parsedReport struct {
	stdout, stderr string
	rep            *perftest.Report
}

// Report parses what the process printed (stdout, then stderr). It is nil
// when the process printed nothing perftest prints.
func (o *Outcome) Report() *perftest.Report {
	if o == nil || o.Stdout+o.Stderr == "" {
		return nil
	}
	if p := o.parsed; p != nil && p.stdout == o.Stdout && p.stderr == o.Stderr {
		return p.rep
	}
	r, err := perftest.Parse(strings.NewReader(o.Stdout + "\n" + o.Stderr))
	if err != nil {
		r = nil
	}
	o.parsed = &parsedReport{stdout: o.Stdout, stderr: o.Stderr, rep: r}
	return r
}

// Deltas are the counter movements during the run.
func (o *Outcome) Deltas() []evaluate.Delta {
	if o == nil {
		return nil
	}
	return evaluate.Deltas(o.Before, o.After)
}
