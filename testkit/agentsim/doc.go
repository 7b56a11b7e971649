// Package agentsim is a test double for a fleet of hosts with fabricctl
// installed: real SSH servers (golang.org/x/crypto/ssh) on loopback, each
// answering the controller's commands in-process over fake host state. It
// exists so the controller's whole path — fabric file, remote.Lazy SSH with
// strict known_hosts checking, agent delivery, the agent protocol, the fabric
// engine — can be exercised and measured against hundreds of hosts on one
// machine (bench/scale). Only the host is fake; SSH is real.
//
//	fl := agentsim.Start(t, agentsim.Options{N: 5,
//		Fixture: "hostcfg/testdata/hosts/mlx5-ofed", AgentSHA256: hash})
//	doc := fl.Spec.FabricYAML([]string{"profiles/roce-lossless.yaml"}, "roce-lossless",
//		[]string{"ens1f0np0", "ens1f1np1"})
//	f, _ := fabric.Load(pathOf(doc))
//	targets, closeAll, _ := fleet.Targets(f, fleet.Options{Registry: all.Registry(),
//		Deployer: deployer, SSHConfigFile: "none"})  // what fabricctl plan builds
//	plan := (&fabric.Engine{Parallel: 32}).Plan(ctx, targets)
//
// Each server:
//   - listens on its own loopback address (127.77.0.1, 127.77.0.2, …: a
//     fabric refuses two hosts on one address) and its own free port;
//   - has its own ed25519 host key, generated at start (cheap, and it makes
//     known_hosts checking real: a client holding another server's key for
//     this port gets knownhosts.ErrChanged); Spec.KnownHostsFile lists all;
//   - accepts public-key authentication with the one client key written to
//     Spec.IdentityFile, and nothing else;
//   - serves session channels with one exec each, splitting the command line
//     with SplitWords (which refuses unquoted shell metacharacters, so an
//     argument interpolated into the line is caught) and answering exactly
//     what the controller sends: `PATH version -o json` (the installed
//     agent's sha256, so a matching controller uploads nothing), `uname -m`,
//     remote.Upload's `sh -c SCRIPT fabricctl-upload PATH MODE` (the bytes are
//     kept in memory; File returns them) and `PATH agent [--state-dir DIR]`
//     (applies journaled in the server's own StateDir), served by the real
//     agent.Handler on the server's hostcfgtest fixture host (fake DCB
//     kernel, fake links and ethtool, private sysfs/configfs copy), so plans
//     carry the fixture's real differences and apply really changes it.
//     Anything else exits 127; a signal request cancels the running command.
//
// Agent sessions on one server run one at a time; servers are independent.
// Fleet, Server and Spec are safe for concurrent use; Start and Close are
// called from the test goroutine.
package agentsim
