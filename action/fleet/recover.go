package fleet

import (
	"context"
	"sync"

	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/fabric"
)

// Recover asks the agent of every host among targets to roll back an apply
// an earlier run left interrupted (agentclient.HostTarget.RecoverInterrupted),
// at most parallel hosts at a time: `fabricctl recover`. Other targets are
// skipped (switches recover within their own push). It returns one result
// and one error (nil when the host had nothing pending or was restored) per
// host, in the targets' order.
func Recover(ctx context.Context, targets []fabric.Target, parallel int) ([]agentclient.Recovered, []error) {
	var hosts []*agentclient.HostTarget
	for _, t := range targets {
		if h, ok := t.(*agentclient.HostTarget); ok {
			hosts = append(hosts, h)
		}
	}
	results := make([]agentclient.Recovered, len(hosts))
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(parallel, 1))
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i], errs[i] = h.RecoverInterrupted(ctx)
		}()
	}
	wg.Wait()
	return results, errs
}
