package lldpagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/fabric/lldp"
)

// Op is the agent op's name.
const Op = "lldp"

// Reply is the op's answer: the host's LLDP neighbours in lldpcli's order.
type Reply struct {
	Neighbors []fabric.Neighbor `json:"neighbors"`
}

// Agent answers the op on a host.
type Agent struct {
	// Run runs argv and returns its stdout (nil: the real program, its
	// stderr in the error).
	Run func(ctx context.Context, argv []string) ([]byte, error)
	// Socket, when set, is the lldpd control socket to ask (lldpcli -u):
	// an lldpd other than the host's own, e.g. a lab leaf's.
	Socket string
}

// Register adds the op to the agent's handler. It takes no args: absent,
// null or {} (agent.NoArgs); anything else is a bad request.
func (a *Agent) Register(h *agent.Handler) {
	h.Register(Op, func(ctx context.Context, raw json.RawMessage) (any, error) {
		if err := agent.NoArgs(raw); err != nil {
			return nil, err
		}
		return a.Read(ctx)
	})
}

// Read runs lldp.Command and parses its output.
func (a *Agent) Read(ctx context.Context) (Reply, error) {
	run := a.Run
	if run == nil {
		run = execRun
	}
	argv := lldp.Command
	if a.Socket != "" {
		argv = append([]string{argv[0], "-u", a.Socket}, argv[1:]...)
	}
	out, err := run(ctx, argv)
	if err != nil {
		return Reply{}, fmt.Errorf("reading LLDP neighbours (%s): %w", strings.Join(argv, " "), err)
	}
	ns, err := lldp.Parse(out)
	if err != nil {
		return Reply{}, fmt.Errorf("parsing the output of %s: %w", strings.Join(argv, " "), err)
	}
	if ns == nil {
		ns = []fabric.Neighbor{}
	}
	return Reply{Neighbors: ns}, nil
}

// ErrNoLLDPD: the host has no lldpcli (install lldpd and start it).
var ErrNoLLDPD = errors.New("lldpcli not found (install lldpd and start it)")

func execRun(ctx context.Context, argv []string) ([]byte, error) {
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, ErrNoLLDPD
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out.Bytes(), nil
}

// Observe asks host's agent for its LLDP neighbours.
func Observe(ctx context.Context, host string, ag agentclient.Agent) (topology.Observation, error) {
	var r Reply
	if err := agentclient.Call(ctx, ag, Op, nil, &r); err != nil {
		return topology.Observation{}, fmt.Errorf("reading LLDP neighbours of %s: %w", host, err)
	}
	return topology.Observation{Device: host, Neighbors: r.Neighbors}, nil
}
