// Package rdma runs the RDMA tests of fabricctl check with the real perftest
// binaries: the host side (an Agent that starts, watches, bounds and cleans up
// ib_* processes behind the agent ops perftest-start, perftest-wait and
// cleanup) and the controller side (RunPair, and the loopback and pairwise
// sweeps that turn outcomes into checks.Results).
//
// On the host, an Agent serves the ops through the agent protocol:
//
//	a := &rdma.Agent{Sys: sysfs.NewFS("/sys"), StateDir: rdma.DefaultStateDir()}
//	a.Register(handler) // perftest-start, perftest-wait, cleanup, port-counters, ib-diag
//
// perftest-start decodes its args strictly (a spec cannot name a JSONFile:
// no request chooses a path the agent writes), checks the device, port and
// GID index against the host's /sys/class/infiniband (a name that is not
// there, or that would leave it, is a bad request naming the ones the host
// has), builds the argv with perftest.Args (exec'd directly, never
// through a shell), reads the port's hw_counters and counters, starts the
// process in its own process group (killed with the agent should the agent
// die), and for a server replies only once the server listens on its TCP
// port (/proc/net/tcp; perftest's own banner is block-buffered and useless
// for this). Every process has a wall-clock bound: at the deadline its whole
// process group is killed — rxe retries a black-holed path forever. Failures
// to run at all (missing binary, bad arguments) come back as an Outcome with
// a checks.FailureClass, never as a hang. perftest-wait returns the Outcome:
// exit code, the tail of both streams, the counters after. A pid file per
// running process (StateDir) lets the cleanup op of a later agent kill what
// an agent that lost its SSH session left behind.
//
// The same Agent serves port-counters (OpCounters, Agent.ReadCounters) for
// `fabricctl counters`: every RDMA port's hw_counters and counters, and
// its netdev's statistics, carrier counts and ethtool -S, each source with
// the directory or command it came from. A source the host lacks is left
// out, never reported as zeros; one that fails (no ethtool) carries its
// error beside the others.
//
// It also serves ib-diag (OpIBDiag, Agent.RunIBDiag) for `fabricctl check
// --suite ib` on a vantage host: one infiniband-diags tool from a fixed
// list (sminfo, ibnetdiscover [-p], iblinkinfo, saquery SMIR,
// ibqueryerrors [--skip-sl], smpquery pkeys LID|-G GUID [PORT], and for
// the localiser dump_fts, ibroute LID, perfquery LID PORT | -l LID 255;
// CheckIBDiag is the rule) exec'd directly with LC_ALL=C, bounded in
// time (60 s, at most 10 min) and output (the first 16 MiB of stdout),
// answering its stdout, stderr and exit status. Any other tool or
// argument is a bad request.
//
// On the controller, RunPair drives one test between two Endpoints: the
// server's start and wait go to one agent process (an agentclient.Session),
// the client's to another, and the client starts only once the server is
// ready (its own socket listens). A run that failed for a cause of the
// measurement — perftest's clock calibration, its out-of-band connect, a
// server that did not listen in time or found its port taken, a broken
// agent session — runs again (Test.Retries, on another port after "port in
// use"); if the cause persists, Judge makes it an error of the measurement,
// never a failure of the link. A duration-mode bandwidth run whose only
// trouble is the clock calibration keeps a number (Estimated: iterations ×
// size over the alarm-timed sampling window).
//
// Loopback and Pairwise run whole suites: every pair of a schedule round at
// once on its own TCP port; each run judged on its own (Judge), then against
// the fleet — below the relative floor of the best run it is an outlier, and
// its counters are evidence only beyond the healthy spread (per GB moved,
// mean + k·σ, σ at least the counting noise) of the runs its host took no
// part in, so a faulty host's runs never excuse it. With Retest, bad runs
// are confirmed before the verdict, ClusterKit-style: suspects against
// known-good partners (a host is blamed, IDHost, only when it fails with
// good partners too), a bad pair between healthy hosts once more (a pass
// clears it):
//
//	sw := rdma.Sweep{Test: rdma.Test{Test: perftest.WriteBW, Duration: 5 * time.Second, Bidirectional: true, Retries: 2},
//		Retest: true, Counters: evaluate.Rules{Sigma: 4, MinEvents: 10}}
//	res, err := sw.Pairwise(ctx, endpoints)
//	// res.Results: one verdict per pair; res.Hosts: the blamed hosts
//
// A sweep can also run each round through an Executor instead of the agents: a launcher such
// as action/launch/slurm runs a whole round as one job step, and on every host of it the step's task
// calls Agent.RunSide (RunLoopback for a loopback). There the client cannot see its server
// start, so it runs again while perftest could not connect at all ("Couldn't connect to"),
// within half the test's bound.
//
// An Agent is safe for concurrent use; the controller functions are safe to
// call concurrently with distinct TCP ports.
package rdma
