package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/agentclient"
	"github.com/fabricctl/fabricctl/internal/remote"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/session"
)

// targetOptions are the connection flags shared by plan, apply and drift.
type targetOptions struct {
	insecureIgnoreHostKey bool
	only                  []string // --target: restrict to these names
	confirmTimeout        time.Duration
	deployer              *agentclient.Deployer
	log                   *slog.Logger
	dial                  remote.DialFunc // tests and the lab dial through a namespace
}

// sshConfigFor merges a target's ssh settings over the fabric defaults.
func sshConfigFor(f *fabric.Fabric, name, address string, own *fabric.SSH, o targetOptions) remote.Config {
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
		KnownHostsFile: s.KnownHostsFile, PasswordEnv: s.PasswordEnv,
		InsecureIgnoreHostKey: o.insecureIgnoreHostKey, Dial: o.dial, Log: o.log}
}

// buildTargets turns the resolved fabric into engine targets. Connections
// open lazily, on the target's first Plan. closeAll releases them.
func buildTargets(f *fabric.Fabric, o targetOptions) (targets []fabric.Target, closeAll func(), err error) {
	r := f.Resolve()
	var lazies []*remote.Lazy
	closeAll = func() {
		for _, l := range lazies {
			l.Close()
		}
	}
	want := func(name string) bool {
		if len(o.only) == 0 {
			return true
		}
		for _, n := range o.only {
			if n == name {
				return true
			}
		}
		return false
	}
	guids := hostGUIDs(f)
	reg := switchRegistry()
	for _, sm := range r.SubnetManagers {
		if !want(sm.Name) {
			continue
		}
		spec := findSM(f, sm.Name)
		cfg := sshConfigFor(f, sm.Name, sm.Address, spec.SSH, o)
		m, err := reg.SubnetManager(sm.Kind)
		if err != nil {
			return nil, closeAll, fmt.Errorf("subnet manager %s: %w", sm.Name, err)
		}
		l := &remote.Lazy{Config: cfg}
		lazies = append(lazies, l)
		t, err := m.Target(sm, guids, switchcfg.SubnetManagerConn{Address: sm.Address, User: cfg.User,
			PasswordEnv: cfg.PasswordEnv, Run: l.Output, HTTP: http.DefaultClient})
		if err != nil {
			return nil, closeAll, err
		}
		targets = append(targets, t)
	}
	for _, s := range r.Switches {
		if !want(s.Name) {
			continue
		}
		d, err := reg.Driver(s.Platform)
		if err != nil {
			return nil, closeAll, fmt.Errorf("switch %s: %w", s.Name, err)
		}
		spec := findSwitch(f, s.Name)
		cfg := sshConfigFor(f, s.Name, s.Address, spec.SSH, o)
		opt := session.Options{Platform: s.Platform, Spec: d.Info().Session, Address: s.Address, Port: cfg.Port, User: cfg.User,
			PasswordEnv: cfg.PasswordEnv, IdentityFile: cfg.IdentityFile, KnownHostsFile: cfg.KnownHostsFile}
		if opt.KnownHostsFile == "" {
			opt.KnownHostsFile = "~/.ssh/known_hosts"
		}
		targets = append(targets, &switchcfg.Target{Intent: s, Driver: d,
			Push: switchcfg.PushOptions{ConfirmTimeout: o.confirmTimeout},
			Connect: func(ctx context.Context) (switchcfg.Session, error) {
				c, err := session.Dial(ctx, opt)
				if err != nil {
					return nil, err
				}
				return c, nil
			}})
	}
	for _, h := range r.Hosts {
		if !want(h.Host) {
			continue
		}
		spec := findHost(f, h.Host)
		l := &remote.Lazy{Config: sshConfigFor(f, h.Host, h.Address, spec.SSH, o)}
		lazies = append(lazies, l)
		targets = append(targets, newHostTarget(f, h, l, o))
	}
	if len(targets) == 0 && len(o.only) > 0 {
		return nil, closeAll, fmt.Errorf("no target named %v in the fabric (targets: %v)", o.only, r.Targets())
	}
	return targets, closeAll, nil
}

func findHost(f *fabric.Fabric, name string) fabric.Host {
	for _, h := range f.Spec.Hosts {
		if h.Name == name {
			return h
		}
	}
	return fabric.Host{}
}

func findSwitch(f *fabric.Fabric, name string) fabric.Switch {
	for _, s := range f.Spec.Switches {
		if s.Name == name {
			return s
		}
	}
	return fabric.Switch{}
}

func findSM(f *fabric.Fabric, name string) fabric.SubnetManager {
	for _, s := range f.Spec.SubnetManagers {
		if s.Name == name {
			return s
		}
	}
	return fabric.SubnetManager{}
}

// newHostTarget reaches a host's agent over SSH. A host whose leaf label
// names a switch of the fabric depends on that switch: when the switch's push
// fails, the host is not changed.
func newHostTarget(f *fabric.Fabric, h fabric.HostIntent, conn agentclient.Conn, o targetOptions) fabric.Target {
	d := o.deployer
	var deps []string
	if leaf := h.Labels["leaf"]; leaf != "" {
		for _, s := range f.Spec.Switches {
			if s.Name == leaf {
				deps = append(deps, leaf)
			}
		}
	}
	return &agentclient.HostTarget{Intent: h, Conn: conn, Deployer: d, Deps: deps}
}
