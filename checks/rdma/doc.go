// Package rdma runs the RDMA tests of fabricctl check with the real perftest
// binaries: the host side (an Agent that starts, watches, bounds and cleans up
// ib_* processes behind the agent ops perftest-start, perftest-wait and
// cleanup) and the controller side (RunPair, and the loopback and pairwise
// sweeps that turn outcomes into checks.Results).
//
// On the host, an Agent serves the ops through the agent protocol:
//
//	a := &rdma.Agent{Sys: sysfs.NewFS("/sys"), StateDir: rdma.DefaultStateDir()}
//	a.Register(handler) // perftest-start, perftest-wait, cleanup
//
// perftest-start builds the argv with perftest.Args (exec'd directly, never
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
// On the controller, RunPair drives one test between two Endpoints: the
// server's start and wait go to one agent process (an agentclient.Session),
// the client's to another, and the client starts only once the server is
// ready. Loopback and Pairwise run whole suites: every pair of a schedule
// round at once on its own TCP port, outliers below 93% of the fleet's best
// re-tested against known-good partners, counter movements judged against a
// baseline built from the healthy pairs of the same sweep.
//
// A sweep can also run each round through an Executor instead of the agents: a launcher such
// as checks/slurm runs a whole round as one job step, and on every host of it the step's task
// calls Agent.RunSide (RunLoopback for a loopback). There the client cannot see its server
// start, so it runs again while perftest could not connect at all ("Couldn't connect to"),
// within half the test's bound.
//
// An Agent is safe for concurrent use; the controller functions are safe to
// call concurrently with distinct TCP ports.
package rdma
