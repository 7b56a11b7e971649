package agentsim_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/action/fleet"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/knownhosts"
	"github.com/fabricctl/fabricctl/internal/remote"
	"github.com/fabricctl/fabricctl/internal/sshdtest"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/testkit/agentsim"
)

var interfaces = []string{"ens1f0np0", "ens1f1np1"}

// setup starts n servers and returns them with a loaded fabric pointing at
// them and a deployer for a fake agent binary.
func setup(t *testing.T, n int, preinstall bool) (*agentsim.Fleet, *fabric.Fabric, *agentclient.Deployer) {
	t.Helper()
	root := testutil.RepoRoot(t)
	bin := filepath.Join(t.TempDir(), "fabricctl")
	if err := os.WriteFile(bin, []byte("#!fake fabricctl agent binary for agentsim tests\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	d := &agentclient.Deployer{Path: bin}
	o := agentsim.Options{N: n, Fixture: filepath.Join(root, "hostcfg", "testdata", "hosts", "mlx5-ofed")}
	if preinstall {
		h, err := d.Hash()
		if err != nil {
			t.Fatal(err)
		}
		o.AgentSHA256 = h
	}
	fl := agentsim.Start(t, o)
	path := filepath.Join(t.TempDir(), "fabric.yaml")
	doc := fl.Spec.FabricYAML([]string{filepath.Join(root, "profiles", "roce-lossless.yaml")}, "roce-lossless", interfaces)
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := fabric.Load(path)
	if err != nil {
		t.Fatalf("loading the generated fabric: %v\n%s", err, doc)
	}
	return fl, f, d
}

func plan(t *testing.T, f *fabric.Fabric, d *agentclient.Deployer) (*fabric.Plan, []fabric.Target) {
	t.Helper()
	targets, closeAll, err := fleet.Targets(f, fleet.Options{Registry: all.Registry(), Deployer: d, SSHConfigFile: "none"})
	t.Cleanup(closeAll)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := (&fabric.Engine{Parallel: 32}).Plan(ctx, targets)
	if err := p.Err(); err != nil {
		t.Fatalf("plan: %v", err)
	}
	return p, targets
}

// TestPlanApplyDriftZero is the controller's whole loop over real SSH against
// five simulated mlx5 hosts: the plan shows the fixture's real differences,
// apply reaches every host's fake kernel, and a fresh drift run finds nothing.
func TestPlanApplyDriftZero(t *testing.T) {
	fl, f, d := setup(t, 5, true)
	p, targets := plan(t, f, d)
	if len(p.Targets) != 5 {
		t.Fatalf("plan has %d targets, want 5", len(p.Targets))
	}
	for _, tp := range p.Targets {
		var mtu bool
		for _, c := range tp.Changes {
			if c.Component == "ens1f0np0" && c.Setting == "mtu" && c.Old == "1500" && c.New == "9000" {
				mtu = true
			}
		}
		if !mtu || len(fabric.Actionable(tp.Changes)) < 5 {
			t.Errorf("%s: plan lacks the fixture's differences (mtu 1500 → 9000 among them): %+v", tp.Target, tp.Changes)
		}
	}
	ctx := context.Background()
	res := (&fabric.Engine{Parallel: 32}).Apply(ctx, targets, p, fabric.ApplyOptions{})
	for _, r := range res.Targets {
		if r.Outcome != fabric.OutcomeChanged {
			t.Errorf("%s: outcome %s (%s), want changed", r.Target, r.Outcome, r.Error)
		}
	}
	for _, s := range fl.Servers {
		l, err := s.Host.Links.Link(ctx, "ens1f1np1")
		if err != nil || l.MTU != 9000 {
			t.Errorf("%s: fake host MTU of ens1f1np1 is %d (%v), want 9000 written through the agent", s.Name, l.MTU, err)
		}
	}
	drift, _ := plan(t, f, d) // a new controller run: fresh connections
	if drift.HasChanges() {
		t.Errorf("drift after apply: %+v", drift.Targets)
	}
	for _, s := range fl.Servers {
		if n := s.Execs("upload"); n != 0 {
			t.Errorf("%s: %d uploads, want none (the agent's hash matched)", s.Name, n)
		}
		if n := s.Execs("version"); n != 2 {
			t.Errorf("%s: %d version checks, want one per controller run (2)", s.Name, n)
		}
	}
}

// TestUploadWhenAbsent: a host without the agent gets the controller's binary
// through remote.Upload's script, once; the next run finds it by hash.
func TestUploadWhenAbsent(t *testing.T) {
	fl, f, d := setup(t, 2, false)
	plan(t, f, d)
	want, err := os.ReadFile(d.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range fl.Servers {
		got, ok := s.File(agentclient.RemotePath)
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: uploaded %q (present %v), want the deployer's binary", s.Name, got, ok)
		}
		if s.Execs("uname") != 1 || s.Execs("upload") != 1 {
			t.Errorf("%s: uname %d, upload %d; want 1 each", s.Name, s.Execs("uname"), s.Execs("upload"))
		}
	}
	plan(t, f, d)
	for _, s := range fl.Servers {
		if n := s.Execs("upload"); n != 1 {
			t.Errorf("%s: %d uploads after a second run, want still 1", s.Name, n)
		}
	}
}

// TestRefusals: the servers check like sshd does (unknown client key, host
// key of another server) and refuse command lines a shell would interpret.
func TestRefusals(t *testing.T) {
	fl, _, _ := setup(t, 2, true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := func(i int) remote.Config {
		h := fl.Spec.Hosts[i]
		return remote.Config{Name: h.Name, Address: h.Address, Port: h.Port, User: fl.Spec.User,
			IdentityFile: fl.Spec.IdentityFile, KnownHostsFile: fl.Spec.KnownHostsFile, HostKeys: knownhosts.Checker, SSHConfigFile: "none", KeepAlive: -1}
	}

	other := filepath.Join(t.TempDir(), "id_other")
	if err := os.WriteFile(other, sshdtest.NewKey(t).PrivatePEM, 0o600); err != nil {
		t.Fatal(err)
	}
	c := cfg(0)
	c.IdentityFile = other
	if _, err := remote.Dial(ctx, c); !errors.Is(err, remote.ErrAuth) {
		t.Errorf("unauthorized client key: got %v, want ErrAuth", err)
	}

	// known_hosts naming server 0's port with server 1's key.
	kh, err := os.ReadFile(fl.Spec.KnownHostsFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(kh)), "\n")
	swapped := strings.Fields(lines[0])[0] + " " + strings.SplitN(lines[1], " ", 2)[1] + "\n"
	c = cfg(0)
	c.KnownHostsFile = filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(c.KnownHostsFile, []byte(swapped), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := remote.Dial(ctx, c); !errors.Is(err, knownhosts.ErrChanged) {
		t.Errorf("another server's host key: got %v, want ErrChangedHostKey", err)
	}

	cl, err := remote.Dial(ctx, cfg(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	sess, err := cl.SSH().NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var stderr bytes.Buffer
	sess.Stderr = &stderr
	err = sess.Run(agentclient.RemotePath + " agent; rm -rf ~")
	var ee interface{ ExitStatus() int }
	if !errors.As(err, &ee) || ee.ExitStatus() != 2 || !strings.Contains(stderr.String(), `unquoted ';'`) {
		t.Errorf("unquoted ';': got %v, stderr %q; want exit 2 naming it", err, stderr.String())
	}
	if n := fl.Servers[1].Execs("agent"); n != 0 {
		t.Errorf("the agent ran %d times for a refused line", n)
	}
	var out bytes.Buffer
	if err := cl.Run(ctx, []string{"cat", "/etc/shadow"}, nil, &out, nil); err == nil {
		t.Errorf("an unserved command succeeded: %q", out.String())
	}
}
