package rdma

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ErrIncastRound: a round Incast refuses — a host both sends and receives
// in it, or two of its jobs share a server's TCP port.
var ErrIncastRound = errors.New("cannot run the incast round")

// Incast runs one round of a congestion suite: every job at once, as a
// round of the sweep runs (its retries, its Executor or the endpoints'
// agents, Progress told of every run), except that one endpoint may serve
// several jobs at once, each on its own TCP port — N senders writing to
// one receiver, which Extra refuses. Every job runs the sweep's Test. A job with a blocked endpoint does not
// run. A round where a host is a server and a client, or where two jobs
// share a server's TCP port (or a port within portStride of another's,
// where retries move to), is refused before anything runs. The runs come
// back in job order, unjudged: the caller judges them (Judge) with the
// counters it read around the round.
func (s Sweep) Incast(ctx context.Context, jobs []Job) ([]PairRun, error) {
	servers, clients := map[string]bool{}, map[string]bool{}
	ports := map[string]map[int]bool{}
	for i, j := range jobs {
		servers[j.Server.Host], clients[j.Client.Host] = true, true
		if ports[j.Server.Host] == nil {
			ports[j.Server.Host] = map[int]bool{}
		}
		p := j.TCPPort % portStride
		if ports[j.Server.Host][p] {
			return nil, fmt.Errorf("job %d (%s<-%s): %w: TCP port %d is taken by another job on %s", i+1, j.Server.Host, j.Client.Host, ErrIncastRound, j.TCPPort, j.Server.Host)
		}
		ports[j.Server.Host][p] = true
	}
	for h := range servers {
		if clients[h] {
			return nil, fmt.Errorf("%w: %s would both receive and send", ErrIncastRound, h)
		}
	}
	jobs = slices.Clone(jobs)
	for i := range jobs {
		jobs[i].Test = s.Test
	}
	var mu sync.Mutex
	done := 0
	pool := newSessionPool(ctx)
	defer pool.close()
	return s.runJobs(ctx, pool, jobs, &mu, &done, len(jobs)), nil
}
