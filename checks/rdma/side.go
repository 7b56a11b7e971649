package rdma

import (
	"context"
	"fmt"
	"regexp"
	"time"
)

// notConnected matches a client that never reached its server's listener: the TCP connect was
// refused, or (rdma_cm, -R) the server's CM rejected a request that came before rdma_listen.
// Nothing reached the server's perftest, so running the client again is harmless.
var notConnected = regexp.MustCompile(`Couldn't connect to |Unexpected CM event`)

// retryEvery is how long a client waits before it tries its server again.
const retryEvery = 250 * time.Millisecond

// RunSide runs this host's side of j without a controller in between, as a launcher's task does
// (every host of a round runs its side at once, started by Slurm or Kubernetes). The server side
// starts, listens and is waited for. The client side cannot see its server start: it runs again
// while perftest could not connect at all, until the server's readiness bound (half the test's
// Bound, at most a minute) has passed. A loopback job runs both sides here (RunLoopback).
func (a *Agent) RunSide(ctx context.Context, j Job, role Role, id string) Outcome {
	switch role {
	case Server:
		return a.runServer(ctx, j, id)
	case Client:
		return a.runClient(ctx, j, id)
	}
	return Outcome{ID: id, Role: role, ExitCode: -1, Error: fmt.Sprintf("unknown role %q", role)}
}

// RunLoopback runs both sides of a loopback job on this host: the server first, the client once
// it listens; a server whose client failed is stopped.
func (a *Agent) RunLoopback(ctx context.Context, j Job, id string) (srv, cli Outcome) {
	st, err := a.Start(ctx, StartArgs{ID: id + "-server", Role: Server, Spec: j.ServerSpec(), Timeout: j.Test.Bound()})
	if err != nil {
		return Outcome{ID: id + "-server", Role: Server, ExitCode: -1, Error: err.Error()}, Outcome{}
	}
	if st.Outcome != nil {
		return *st.Outcome, Outcome{}
	}
	cli = a.runOnce(ctx, id+"-client", Client, j)
	srv, err = a.Wait(ctx, WaitArgs{ID: id + "-server", Stop: cli.ExitCode != 0})
	if err != nil {
		srv = Outcome{ID: id + "-server", Role: Server, ExitCode: -1, Error: err.Error()}
	}
	return srv, cli
}

func (a *Agent) runServer(ctx context.Context, j Job, id string) Outcome {
	return a.runOnce(ctx, id, Server, j)
}

func (a *Agent) runClient(ctx context.Context, j Job, id string) Outcome {
	ready := min(j.Test.Bound()/2, time.Minute)
	deadline := time.Now().Add(ready)
	for attempt := 1; ; attempt++ {
		o := a.runOnce(ctx, fmt.Sprintf("%s-%d", id, attempt), Client, j)
		if o.ExitCode == 0 || !notConnected.MatchString(o.Stdout+o.Stderr) || !time.Now().Before(deadline) {
			return o
		}
		select {
		case <-ctx.Done():
			return o
		case <-time.After(retryEvery):
		}
	}
}

// runOnce starts one process and waits for it.
func (a *Agent) runOnce(ctx context.Context, id string, role Role, j Job) Outcome {
	spec := j.ClientSpec()
	if role == Server {
		spec = j.ServerSpec()
	}
	st, err := a.Start(ctx, StartArgs{ID: id, Role: role, Spec: spec, Timeout: j.Test.Bound()})
	if err != nil {
		return Outcome{ID: id, Role: role, ExitCode: -1, Error: err.Error()}
	}
	if st.Outcome != nil {
		return *st.Outcome
	}
	o, err := a.Wait(ctx, WaitArgs{ID: id})
	if err != nil {
		return Outcome{ID: id, Role: role, ExitCode: -1, Error: err.Error()}
	}
	return o
}
