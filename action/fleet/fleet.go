package fleet

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/knownhosts"
	"github.com/fabricctl/fabricctl/internal/remote"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/session"
)

// Options say how the controller reaches the fabric's targets.
type Options struct {
	// Registry holds the switch and subnet-manager drivers.
	Registry *switchcfg.Registry
	// Only restricts the targets to these names (--target); empty means all.
	Only []string
	// InsecureIgnoreHostKey disables SSH host-key checking of hosts and
	// subnet managers (switch sessions always check).
	InsecureIgnoreHostKey bool
	// ConfirmTimeout is the confirmed-commit window of switch pushes.
	ConfirmTimeout time.Duration
	// Deployer delivers the agent to hosts.
	Deployer *agentclient.Deployer
	// IdentityFile and KnownHostsFile, when set, replace the fabric's for
	// every host (check's --identity-file, --known-hosts).
	IdentityFile, KnownHostsFile string
	// SSHConfigFile is remote.Config's: "" reads ~/.ssh/config, "none" nothing.
	SSHConfigFile string
	// Log receives SSH debug detail; Dial, when set, opens every TCP
	// connection (tests and the lab reach namespaces through it).
	Log  *slog.Logger
	Dial remote.DialFunc
	// SubnetManagerAt, when set, may redirect a subnet manager: ok true
	// means use the returned intent (its files' paths) and run its commands
	// with run instead of over SSH (the InfiniBand lab's OpenSM runs on
	// this machine).
	// AllowUnparsed judges switch readings with QoS input their reader did
	// not understand instead of failing their plan (--allow-unparsed).
	AllowUnparsed   bool
	SubnetManagerAt func(sm fabric.SubnetManagerIntent) (at fabric.SubnetManagerIntent, run func(ctx context.Context, argv []string, stdin []byte) ([]byte, error), ok bool)
}

// SSHConfig merges a target's own ssh settings over the fabric defaults.
func SSHConfig(f *fabric.Fabric, name, address string, own *fabric.SSH, o Options) remote.Config {
	var s fabric.SSH
	if d := f.Spec.Defaults.SSH; d != nil {
		s = *d
	}
	if own != nil {
		if own.User != "" {
			s.User = own.User
		}
		if own.Port != 0 {
			s.Port = own.Port
		}
		if own.IdentityFile != "" {
			s.IdentityFile = own.IdentityFile
		}
		if own.KnownHostsFile != "" {
			s.KnownHostsFile = own.KnownHostsFile
		}
		if own.PasswordEnv != "" {
			s.PasswordEnv = own.PasswordEnv
		}
	}
	return remote.Config{Name: name, Address: address, Port: s.Port, User: s.User, IdentityFile: s.IdentityFile,
		KnownHostsFile: s.KnownHostsFile, HostKeys: knownhosts.Checker, PasswordEnv: s.PasswordEnv, SSHConfigFile: o.SSHConfigFile,
		InsecureIgnoreHostKey: o.InsecureIgnoreHostKey, Dial: o.Dial, Log: o.Log}
}

// conns collects the lazy connections a build opens, to close them all.
type conns []*remote.Lazy

func (c *conns) lazy(cfg remote.Config) *remote.Lazy {
	l := &remote.Lazy{Config: cfg}
	*c = append(*c, l)
	return l
}

func (c *conns) closeAll() {
	for _, l := range *c {
		l.Close()
	}
}

// Targets turns the resolved fabric into engine targets: subnet managers,
// switches, hosts. Connections open lazily, on the target's first Plan;
// closeAll releases them (also after an error).
func Targets(f *fabric.Fabric, o Options) (targets []fabric.Target, closeAll func(), err error) {
	r := f.Resolve()
	var cs conns
	want := func(name string) bool { return len(o.Only) == 0 || slices.Contains(o.Only, name) }
	guids := f.PortGUIDs()
	sms := byName(f.Spec.SubnetManagers, func(sm fabric.SubnetManager) string { return sm.Name })
	for _, sm := range r.SubnetManagers {
		if !want(sm.Name) {
			continue
		}
		m, err := o.Registry.SubnetManager(sm.Kind)
		if err != nil {
			return nil, cs.closeAll, fmt.Errorf("subnet manager %s: %w", sm.Name, err)
		}
		cfg := SSHConfig(f, sm.Name, sm.Address, sms[sm.Name].SSH, o)
		conn := switchcfg.SubnetManagerConn{Address: sm.Address, User: cfg.User, PasswordEnv: cfg.PasswordEnv, HTTP: http.DefaultClient}
		if at, run, ok := redirect(o, sm); ok {
			sm, conn.Run = at, run
		} else {
			conn.Run = cs.lazy(cfg).Output
		}
		t, err := m.Target(sm, guids, conn)
		if err != nil {
			return nil, cs.closeAll, err
		}
		targets = append(targets, t)
	}
	switches := byName(f.Spec.Switches, func(s fabric.Switch) string { return s.Name })
	for _, s := range r.Switches {
		if !want(s.Name) {
			continue
		}
		d, err := o.Registry.Driver(s.Platform)
		if err != nil {
			return nil, cs.closeAll, fmt.Errorf("switch %s: %w", s.Name, err)
		}
		targets = append(targets, switchTarget(f, s, switches[s.Name], d, o))
	}
	for _, h := range hostAgents(f, r, o, &cs) {
		var deps []string
		if leaf := h.Intent.Labels["leaf"]; leaf != "" {
			if _, ok := switches[leaf]; ok {
				deps = append(deps, leaf)
			}
		}
		targets = append(targets, &agentclient.HostTarget{Intent: h.Intent, Conn: h.conn, Deployer: o.Deployer, Deps: deps, Log: o.Log})
	}
	if len(targets) == 0 && len(o.Only) > 0 {
		return nil, cs.closeAll, fmt.Errorf("no target named %v in the fabric (targets: %v)", o.Only, r.Targets())
	}
	return targets, cs.closeAll, nil
}

// switchTarget reaches a switch through a scrapligo session, host key
// always checked (~/.ssh/known_hosts unless the fabric names a file).
func switchTarget(f *fabric.Fabric, s fabric.SwitchIntent, spec fabric.Switch, d switchcfg.Driver, o Options) fabric.Target {
	cfg := SSHConfig(f, s.Name, s.Address, spec.SSH, o)
	opt := session.Options{Platform: s.Platform, Spec: d.Info().Session, Address: s.Address, Port: cfg.Port, User: cfg.User,
		PasswordEnv: cfg.PasswordEnv, IdentityFile: cfg.IdentityFile, KnownHostsFile: cfg.KnownHostsFile}
	if opt.KnownHostsFile == "" {
		opt.KnownHostsFile = "~/.ssh/known_hosts"
	}
	return &switchcfg.Target{Intent: s, Driver: d, AllowUnparsed: o.AllowUnparsed,
		Push: switchcfg.PushOptions{ConfirmTimeout: o.ConfirmTimeout},
		Connect: func(ctx context.Context) (switchcfg.Session, error) {
			c, err := session.Dial(ctx, opt)
			if err != nil {
				return nil, err
			}
			return c, nil
		}}
}

// Host is one host of the fabric as the checks reach it.
type Host struct {
	Intent fabric.HostIntent
	// Agent runs `fabricctl agent` on the host over SSH.
	Agent *agentclient.Remote
	conn  *remote.Lazy
}

// Hosts returns every host (or those Only names) with its agent, for the
// checks; closeAll closes the connections.
func Hosts(f *fabric.Fabric, o Options) (hosts []Host, closeAll func()) {
	var cs conns
	return hostAgents(f, f.Resolve(), o, &cs), cs.closeAll
}

func hostAgents(f *fabric.Fabric, r fabric.Resolved, o Options, cs *conns) []Host {
	specs := byName(f.Spec.Hosts, func(h fabric.Host) string { return h.Name })
	var out []Host
	for _, h := range r.Hosts {
		if len(o.Only) > 0 && !slices.Contains(o.Only, h.Host) {
			continue
		}
		cfg := SSHConfig(f, h.Host, h.Address, specs[h.Host].SSH, o)
		if o.IdentityFile != "" {
			cfg.IdentityFile = o.IdentityFile
		}
		if o.KnownHostsFile != "" {
			cfg.KnownHostsFile = o.KnownHostsFile
		}
		l := cs.lazy(cfg)
		out = append(out, Host{Intent: h, Agent: &agentclient.Remote{Conn: l, Deployer: o.Deployer}, conn: l})
	}
	return out
}

// byName indexes a fabric's targets by name (one lookup per target, not a
// scan of the list).
func byName[T any](items []T, name func(T) string) map[string]T {
	m := make(map[string]T, len(items))
	for _, it := range items {
		m[name(it)] = it
	}
	return m
}

func redirect(o Options, sm fabric.SubnetManagerIntent) (fabric.SubnetManagerIntent, func(context.Context, []string, []byte) ([]byte, error), bool) {
	if o.SubnetManagerAt == nil {
		return sm, nil, false
	}
	return o.SubnetManagerAt(sm)
}
