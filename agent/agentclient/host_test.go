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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
)

// scriptedHost answers the agent protocol like a host whose eth0 MTU is
// 1500, journaling its apply as the real agent does.
type scriptedHost struct {
	mu        sync.Mutex
	sha       string
	mtu       string
	ops       []string
	applyWait time.Duration
	applyFail bool
	// loseReply makes the apply run and then the connection die before
	// its reply: Run returns an error and writes nothing.
	loseReply bool
	// recoverFail makes recover fail.
	recoverFail bool
	// journal is the pending journal: the id and the pre-image it holds.
	journal, journalPre string
	argv                []string
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
	h.argv = argv
	mtu := h.mtu
	h.mu.Unlock()
	change := hostcfg.Change{Interface: "eth0", Setting: "mtu", Old: mtu, New: "9000"}
	rep := agent.Reply{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: req.Op, OK: true}
	pending := func() *journal.Status {
		if h.journal == "" {
			return nil
		}
		return &journal.Status{Pending: true, Record: journal.Record{ID: h.journal, State: journal.StateApplied,
			Written: []journal.Entry{{Interface: "eth0", Setting: "mtu", Pre: h.journalPre, New: "9000"}}}}
	}
	switch req.Op {
	case agent.OpPlan:
		p := hostcfg.Plan{}
		if mtu != "9000" {
			p.Changes = []hostcfg.Change{change}
		}
		rep.Plan, rep.Fingerprint = &p, "fp-"+mtu
		rep.Journal = pending()
	case agent.OpApply:
		time.Sleep(h.applyWait) // the controller is cancelled meanwhile
		if ctx.Err() != nil {
			return ctx.Err() // the agent was killed: that must not happen
		}
		res := hostcfg.Result{Applied: []hostcfg.Change{change},
			Undo: hostcfg.Plan{Changes: []hostcfg.Change{{Interface: "eth0", Setting: "mtu", Old: "9000", New: mtu}}}}
		h.mu.Lock()
		h.journal, h.journalPre = req.Journal, mtu
		h.mtu = "9000"
		h.mu.Unlock()
		if h.loseReply {
			return errors.New("wait: remote command exited without exit status or exit signal")
		}
		if h.applyFail {
			rep.OK, rep.Error = false, &agent.Error{Kind: agent.ErrorApply, Message: "writing pfc on eth1: invalid argument"}
		}
		rep.Result = &res
		rep.Journal = pending()
	case agent.OpRecover:
		if h.recoverFail {
			rep.OK, rep.Error = false, &agent.Error{Kind: agent.ErrorRecover, Message: "restoring mtu on eth0 via netlink: device busy"}
			break
		}
		if st := pending(); st != nil {
			h.mu.Lock()
			h.mtu, h.journal = h.journalPre, ""
			h.mu.Unlock()
			st.Pending = false
			rep.Journal = st
			rep.Result = &hostcfg.Result{Applied: []hostcfg.Change{{Interface: "eth0", Setting: "mtu", Old: "9000", New: st.Record.Written[0].Pre}}}
		}
	case agent.OpSettle:
		if req.Journal == h.journal {
			h.journal = ""
		}
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
	if fmt.Sprint(h.ops) != "[plan apply recover]" || h.mtu != "1500" {
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

func TestHostTargetConvergesAndSettles(t *testing.T) {
	h, d := newScripted(t)
	tg := &HostTarget{Intent: fabric.HostIntent{Host: "h1"}, Conn: h, Deployer: d}
	tg.Plan(context.Background())
	if _, err := tg.Apply(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(h.ops) != "[plan apply plan settle]" || h.journal != "" {
		t.Fatalf("ops %v, journal %q: a verified apply must be settled", h.ops, h.journal)
	}
	if got := strings.Join(h.argv, " "); got != RemotePath+" agent --state-dir .cache/fabricctl/state" {
		t.Errorf("agent command %q", got)
	}
}

// TestHostTargetReplyLost is issue 13's host case: the agent wrote, then its
// reply was lost. The controller recovers the apply's journal over a new
// connection and says the host may have been half-changed and what the
// recovery did.
func TestHostTargetReplyLost(t *testing.T) {
	h, d := newScripted(t)
	h.loseReply = true
	tg := &HostTarget{Intent: fabric.HostIntent{Host: "h1"}, Conn: h, Deployer: d}
	tg.Plan(context.Background())
	_, err := tg.Apply(context.Background(), nil)
	if !errors.Is(err, fabric.ErrRolledBack) || h.mtu != "1500" || h.journal != "" {
		t.Fatalf("want the host restored from its journal, got %v (mtu %s, journal %q)", err, h.mtu, h.journal)
	}
	for _, want := range []string{"reply to apply was lost", "may have been half-changed", "restored 1 setting(s)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}

	// The recovery fails too: the error says the host may be half-changed
	// and how it gets recovered later; no rollback is claimed.
	h, d = newScripted(t)
	h.loseReply, h.recoverFail = true, true
	tg = &HostTarget{Intent: fabric.HostIntent{Host: "h1"}, Conn: h, Deployer: d}
	tg.Plan(context.Background())
	_, err = tg.Apply(context.Background(), nil)
	if errors.Is(err, fabric.ErrRolledBack) || !strings.Contains(err.Error(), "half-changed") ||
		!strings.Contains(err.Error(), "the journal stays on the host") || !strings.Contains(err.Error(), "fabricctl host recover") {
		t.Fatalf("got %v", err)
	}

	// The next run: plan reports the interrupted apply and changes
	// nothing; apply rolls it back first, then applies from the restored
	// host.
	h.recoverFail, h.loseReply = false, false
	tg = &HostTarget{Intent: fabric.HostIntent{Host: "h1"}, Conn: h, Deployer: d}
	cs, err := tg.Plan(context.Background())
	if err != nil || h.mtu != "9000" || len(fabric.Actionable(cs)) != 1 || cs[0].Setting != "interrupted-apply" {
		t.Fatalf("plan: %v %+v (mtu %s)", err, cs, h.mtu)
	}
	h.ops = nil
	if _, err := tg.Apply(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(h.ops) != "[recover plan apply plan settle]" || h.mtu != "9000" || h.journal != "" {
		t.Fatalf("ops %v (mtu %s, journal %q): want the interrupted apply rolled back, then a fresh one", h.ops, h.mtu, h.journal)
	}
}
