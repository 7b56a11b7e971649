package task

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/fabric"
)

// Version is the version of the spec and result formats; a task refuses a spec of another.
const Version = 1

// Kind says what a step does.
type Kind string

// The kinds of step.
const (
	// KindPreflight gathers preflight facts on every node of the step.
	KindPreflight Kind = "preflight"
	// KindRound runs one round of tests (pairs, or loopbacks: a job whose server and client are
	// the same node) on every node of the step.
	KindRound Kind = "round"
	// KindNCCLProbe asks every node of the step what it can run for the NCCL
	// suite (collective.Node.Probe: GPUs, PyTorch, nccl-tests).
	KindNCCLProbe Kind = "nccl-probe"
	// KindNCCLRun runs every node's part of the NCCL all-reduce
	// (collective.Node.Run), all nodes at once.
	KindNCCLRun Kind = "nccl-run"
)

// Spec is what every task of a step gets: the whole step, so that one argv serves every node
// (Slurm and Kubernetes give all tasks of a step the same command line); each task finds its own
// part by its node name.
type Spec struct {
	Version int  `json:"v"`
	Kind    Kind `json:"kind"`
	// Hosts are the preflight step's nodes with their hosts' desired state; Peers are every
	// host of the fabric, whose names must resolve (a task leaves itself out).
	Hosts []Host           `json:"hosts,omitempty"`
	Peers []preflight.Peer `json:"peers,omitempty"`
	// Test and Jobs are a round's.
	Test rdma.Test `json:"test,omitzero"`
	Jobs []Job     `json:"jobs,omitempty"`
	// NCCL is an NCCL step's.
	NCCL *NCCLStep `json:"nccl,omitempty"`
}

// NCCLStep is an NCCL probe or run step: the nodes with their hosts, the
// probe's arguments, and in a run every node's part of the job.
type NCCLStep struct {
	Probe collective.ProbeArgs `json:"probe,omitzero"`
	Nodes []NCCLNode           `json:"nodes"`
}

// NCCLNode is one node of an NCCL step; Spec is its part of a run.
type NCCLNode struct {
	Node string           `json:"node"`
	Host string           `json:"host"`
	Spec *collective.Spec `json:"spec,omitempty"`
}

// Host is one node of a preflight step.
type Host struct {
	Node   string            `json:"node"`
	Intent fabric.HostIntent `json:"intent"`
}

// Job is one test of a round.
type Job struct {
	Server  Side `json:"server"`
	Client  Side `json:"client"`
	TCPPort int  `json:"tcpPort"`
}

// Side is one end of a job: the node that runs it and what perftest needs there. A side
// without a Device (a spec rendered before any preflight ran: the Kubernetes Jobs) is resolved on
// its node from Interface (every RDMA netdev when empty): the first ACTIVE port with its RoCE v2
// GID index.
type Side struct {
	Node       string `json:"node"`
	Host       string `json:"host"`
	Address    string `json:"address,omitempty"`
	Interface  string `json:"interface,omitempty"`
	Device     string `json:"device,omitempty"`
	Port       int    `json:"port,omitempty"`
	GIDIndex   *int   `json:"gidIndex,omitempty"`
	LoopDevice string `json:"loopDevice,omitempty"`
}

// Endpoint is the side as the rdma package knows it.
func (s Side) Endpoint() rdma.Endpoint {
	return rdma.Endpoint{Host: s.Host, Address: s.Address, Device: s.Device, Port: s.Port, GIDIndex: s.GIDIndex, LoopDevice: s.LoopDevice}
}

// SideOf is the side of e on node.
func SideOf(e rdma.Endpoint, node string) Side {
	return Side{Node: node, Host: e.Host, Address: e.Address, Device: e.Device, Port: e.Port, GIDIndex: e.GIDIndex, LoopDevice: e.LoopDevice}
}

// Nodes lists the step's nodes, each once, in spec order.
func (s Spec) Nodes() []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, h := range s.Hosts {
		add(h.Node)
	}
	for _, j := range s.Jobs {
		add(j.Server.Node)
		add(j.Client.Node)
	}
	if s.NCCL != nil {
		for _, n := range s.NCCL.Nodes {
			add(n.Node)
		}
	}
	return out
}

// Sentinels for errors.Is.
var (
	// ErrSpec: the arguments are not a spec this binary can run.
	ErrSpec = errors.New("invalid task spec")
	// ErrFrame: a result frame on a task's output cannot be read.
	ErrFrame = errors.New("invalid task result")
)

// ArgChunk is the largest argument EncodeArgs writes: Linux refuses a single argument over
// 128 KiB (MAX_ARG_STRLEN), and the whole argv shares ARG_MAX (2 MiB by default).
const ArgChunk = 64 << 10

// EncodeArgs writes the spec as command-line arguments: gzip'd JSON in URL-safe base64, cut into
// ArgChunk pieces.
func EncodeArgs(s Spec) ([]string, error) {
	s.Version = Version
	b, err := pack(s)
	if err != nil {
		return nil, fmt.Errorf("encoding the task spec: %w", err)
	}
	var out []string
	for len(b) > ArgChunk {
		out = append(out, b[:ArgChunk])
		b = b[ArgChunk:]
	}
	return append(out, b), nil
}

// DecodeArgs reads the arguments EncodeArgs wrote. Unknown fields, another Version, a kind
// without its parts, JSON over MaxJSON or MaxDecoded (ErrTooLarge, found while inflating, before
// anything is decoded), names with white space or control characters, device names that are
// paths and numbers out of range are errors.
func DecodeArgs(args []string) (Spec, error) {
	var s Spec
	if len(args) == 0 {
		return s, fmt.Errorf("%w: no arguments", ErrSpec)
	}
	if err := unpack(args, &s); err != nil {
		return Spec{}, fmt.Errorf("%w: %w", ErrSpec, err)
	}
	if s.Version != Version {
		return Spec{}, fmt.Errorf("%w: version %d, this fabricctl reads %d (run the same fabricctl on the nodes)", ErrSpec, s.Version, Version)
	}
	switch s.Kind {
	case KindPreflight:
		if len(s.Hosts) == 0 {
			return Spec{}, fmt.Errorf("%w: a preflight step without hosts", ErrSpec)
		}
	case KindRound:
		if len(s.Jobs) == 0 {
			return Spec{}, fmt.Errorf("%w: a round without jobs", ErrSpec)
		}
	case KindNCCLProbe, KindNCCLRun:
		if s.NCCL == nil || len(s.NCCL.Nodes) == 0 {
			return Spec{}, fmt.Errorf("%w: an %s step without nodes", ErrSpec, s.Kind)
		}
		for _, n := range s.NCCL.Nodes {
			if s.Kind == KindNCCLRun && n.Spec == nil {
				return Spec{}, fmt.Errorf("%w: node %+q of an %s step has no part", ErrSpec, n.Node, s.Kind)
			}
		}
	default:
		return Spec{}, fmt.Errorf("%w: unknown kind %+q", ErrSpec, s.Kind)
	}
	if err := s.check(); err != nil {
		return Spec{}, fmt.Errorf("%w: %w", ErrSpec, err)
	}
	return s, nil
}

// gzip writers and readers are reused: a writer holds about a megabyte of tables, and a
// controller reads one result per node of every step.
var (
	writers = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.BestCompression); return w }}
	readers sync.Pool
)

// pack is JSON → gzip → base64 (URL-safe, unpadded).
func pack(v any) (string, error) {
	var buf bytes.Buffer
	zw := writers.Get().(*gzip.Writer)
	defer writers.Put(zw)
	zw.Reset(&buf)
	if err := json.NewEncoder(zw).Encode(v); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(buf.Bytes()), nil
}
