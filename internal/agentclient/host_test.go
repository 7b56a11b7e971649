package agentclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/agent"
)

// scriptedHost answers the agent protocol like a host whose eth0 MTU is 1500.
type scriptedHost struct {
	mu        sync.Mutex
	sha       string
	mtu       string
	ops       []string
	applyWait time.Duration
	applyFail bool
}

func (h *scriptedHost) Run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(argv) >= 2 && argv[1] == "version" {
		fmt.Fprintf(stdout, `{"sha256":%q}`, h.sha)
		return nil
	}
	var req agent.Request
	if err := json.NewDecoder(stdin).Decode(&req); err != nil {
		return err
	}
	h.mu.Lock()
	h.ops = append(h.ops, req.Op)
	mtu := h.mtu
	h.mu.Unlock()
	change := hostcfg.Change{Interface: "eth0", Setting: "mtu", Old: mtu, New: "9000"}
	rep := agent.Reply{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: req.Op, OK: true}
	switch req.Op {
	case agent.OpPlan:
		p := hostcfg.Plan{}
		if mtu != "9000" {
			p.Changes = []hostcfg.Change{change}
		}
		rep.Plan, rep.Fingerprint = &p, "fp-"+mtu
	case agent.OpApply:
		time.Sleep(h.applyWait) // the controller is cancelled meanwhile
		if ctx.Err() != nil {
			return ctx.Err() // the agent was killed: that must not happen
		}
		res := hostcfg.Result{Applied: []hostcfg.Change{change},
			Undo: hostcfg.Plan{Changes: []hostcfg.Change{{Interface: "eth0", Setting: "mtu", Old: "9000", New: mtu}}}}
		h.mu.Lock()
		h.mtu = "9000"
		h.mu.Unlock()
		if h.applyFail {
			rep.OK, rep.Error = false, &agent.Error{Kind: agent.ErrorApply, Message: "writing pfc on eth1: invalid argument"}
		}
		rep.Result = &res
	case agent.OpRollback:
		h.mu.Lock()
		h.mtu = req.Plan.Changes[0].New
		h.mu.Unlock()
		rep.Result = &hostcfg.Result{}
	}
	return json.NewEncoder(stdout).Encode(rep)
}

func (h *scriptedHost) Upload(context.Context, string, []byte, os.FileMode) error {
	return errors.New("no upload expected")
}

func newScripted(t *testing.T) (*scriptedHost, *Deployer) {
	bin := filepath.Join(t.TempDir(), "fabricctl")
	os.WriteFile(bin, []byte("binary"), 0o755)
	sum := sha256.Sum256([]byte("binary"))
	return &scriptedHost{sha: hex.EncodeToString(sum[:]), mtu: "1500"}, &Deployer{Path: bin}
}

func TestHostTargetCancelledApplyIsRolledBack(t *testing.T) {
	h, d := newScripted(t)
	h.applyWait = 300 * time.Millisecond
	tg := &HostTarget{Intent: fabric.HostIntent{Host: "h1"}, Conn: h, Deployer: d}
	if cs, err := tg.Plan(context.Background()); err != nil || len(cs) != 1 {
		t.Fatalf("plan: %v %+v", err, cs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := tg.Apply(ctx, nil)
	if !errors.Is(err, fabric.ErrRolledBack) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want a rolled-back, interrupted apply, got %v", err)
	}
	if fmt.Sprint(h.ops) != "[plan apply rollback]" || h.mtu != "1500" {
		t.Errorf("ops %v, mtu %s: the apply must finish and then be undone", h.ops, h.mtu)
	}
}

func TestHostTargetFailedApplyIsRolledBack(t *testing.T) {
	h, d := newScripted(t)
	h.applyFail = true
	tg := &HostTarget{Intent: fabric.HostIntent{Host: "h1"}, Conn: h, Deployer: d}
	tg.Plan(context.Background())
	_, err := tg.Apply(context.Background(), nil)
	if !errors.Is(err, fabric.ErrRolledBack) || h.mtu != "1500" {
		t.Fatalf("want the host restored, got %v (mtu %s)", err, h.mtu)
	}
}

func TestHostTargetConverges(t *testing.T) {
	h, d := newScripted(t)
	tg := &HostTarget{Intent: fabric.HostIntent{Host: "h1"}, Conn: h, Deployer: d}
	tg.Plan(context.Background())
	remaining, err := tg.Apply(context.Background(), nil)
	if err != nil || len(remaining) != 0 || h.mtu != "9000" {
		t.Fatalf("apply: %v %+v mtu %s", err, remaining, h.mtu)
	}
}
