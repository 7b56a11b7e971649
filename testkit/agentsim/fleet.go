package agentsim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
	"github.com/fabricctl/fabricctl/internal/sshdtest"
)

// Options configure a fleet.
type Options struct {
	// N is the number of servers (hosts).
	N int
	// Fixture is the fixture host every server starts from, e.g.
	// hostcfg/testdata/hosts/mlx5-ofed; each server gets its own copy.
	Fixture string
	// AgentPath is where the agent lives (default agentclient.RemotePath).
	AgentPath string
	// AgentSHA256 preinstalls an agent with this hash on every server; empty
	// means none is installed and the controller uploads one.
	AgentSHA256 string
	// User is the login name the fabric uses (default "fabricctl"; any user
	// with the client key is accepted).
	User string
	// NamePrefix names the hosts <prefix>-00001… (default "sim").
	NamePrefix string
}

// Fleet is a set of running servers and what a controller needs to reach
// them. Stop it with Close (Start registers that with t.Cleanup).
type Fleet struct {
	Servers []*Server
	Spec    Spec
}

// Spec is what a controller needs to reach a fleet; it marshals to JSON so
// that a helper process running the servers can hand it over.
type Spec struct {
	Hosts []Endpoint `json:"hosts"`
	User  string     `json:"user"`
	// IdentityFile is the client private key; KnownHostsFile lists every
	// server's host key as [127.0.0.1]:port.
	IdentityFile   string `json:"identityFile"`
	KnownHostsFile string `json:"knownHostsFile"`
}

// Endpoint is one server.
type Endpoint struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Port    int    `json:"port"`
}

// Start starts o.N servers, each on its own loopback address and port with
// its own ed25519 host key and its own copy of the fixture host, writes the client key and a
// known_hosts for all of them into a temporary directory, and stops them when
// the test ends.
func Start(t testing.TB, o Options) *Fleet {
	t.Helper()
	if o.N <= 0 || o.Fixture == "" {
		t.Fatalf("agentsim: Options need N > 0 and a Fixture (got N=%d, Fixture=%q)", o.N, o.Fixture)
	}
	if o.AgentPath == "" {
		o.AgentPath = agentclient.RemotePath
	}
	if o.User == "" {
		o.User = "fabricctl"
	}
	if o.NamePrefix == "" {
		o.NamePrefix = "sim"
	}
	dir := t.TempDir()
	client := sshdtest.NewKey(t)
	f := &Fleet{Spec: Spec{User: o.User, IdentityFile: filepath.Join(dir, "id_ed25519"),
		KnownHostsFile: filepath.Join(dir, "known_hosts")}}
	t.Cleanup(func() { f.Close() })
	if err := os.WriteFile(f.Spec.IdentityFile, client.PrivatePEM, 0o600); err != nil {
		t.Fatalf("agentsim: writing the client key: %v", err)
	}
	ctx := context.Background()
	var known strings.Builder
	for i := range o.N {
		name := fmt.Sprintf("%s-%05d", o.NamePrefix, i)
		fx := hostcfgtest.Load(t, o.Fixture)
		fx.Host.Name = name
		s, err := newServer(ctx, name, LoopbackAddress(i), fx.Host, client.Public)
		if err != nil {
			t.Fatalf("agentsim: %v", err)
		}
		s.StateDir = filepath.Join(dir, "state", name)
		if o.AgentSHA256 != "" {
			s.Install(o.AgentPath, o.AgentSHA256)
		}
		f.Servers = append(f.Servers, s)
		ep := Endpoint{Name: name, Address: s.Address, Port: s.Port}
		f.Spec.Hosts = append(f.Spec.Hosts, ep)
		known.WriteString(knownhosts.Line([]string{knownhosts.Normalize(fmt.Sprintf("%s:%d", ep.Address, ep.Port))}, s.HostKey))
		known.WriteByte('\n')
	}
	if err := os.WriteFile(f.Spec.KnownHostsFile, []byte(known.String()), 0o600); err != nil {
		t.Fatalf("agentsim: writing known_hosts: %v", err)
	}
	return f
}

// LoopbackAddress is server i's address: 127.77.0.1, 127.77.0.2, … in the
// loopback /8 (Linux answers the whole 127.0.0.0/8 on lo). Each host needs an
// address of its own because a fabric refuses two hosts on one address.
func LoopbackAddress(i int) string {
	return fmt.Sprintf("127.%d.%d.%d", 77+i/(254*256), (i/254)%256, i%254+1)
}

// Close stops every server.
func (f *Fleet) Close() error {
	var errs []error
	for _, s := range f.Servers {
		if err := s.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			errs = append(errs, err)
		}
	}
	f.Servers = nil
	return errors.Join(errs...)
}

// FabricYAML writes a Fabric document whose hosts are the fleet's servers
// (each with its loopback address and ssh port), all on profile, with the
// given RoCE interfaces; include names the profile files (absolute paths or
// relative to where the document is loaded from).
func (s Spec) FabricYAML(include []string, profile string, interfaces []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: %s\nkind: Fabric\nmetadata: {name: agentsim}\nspec:\n  include: [%s]\n", fabric.APIVersion, strings.Join(quoteAll(include), ", "))
	fmt.Fprintf(&b, "  defaults:\n    ssh: {user: %q, identityFile: %q, knownHostsFile: %q}\n  hosts:\n", s.User, s.IdentityFile, s.KnownHostsFile)
	for _, h := range s.Hosts {
		fmt.Fprintf(&b, "    - {name: %s, address: %s, profile: %s, interfaces: [%s], labels: {role: gpu}, ssh: {port: %d}}\n",
			h.Name, h.Address, profile, strings.Join(interfaces, ", "), h.Port)
	}
	return []byte(b.String())
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
