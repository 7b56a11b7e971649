package checklocal

import (
	"fmt"
	"os"
	"strings"

	"github.com/fabricctl/fabricctl/action/check"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/fabric"
)

// Scheduler is a workload manager that tells the processes it starts which of its nodes they
// run on: Env is the environment variable holding the node's name (slurmd's SLURMD_NODENAME,
// the NODE_NAME a Kubernetes DaemonSet sets), Node the name it gives a fabric host.
type Scheduler struct {
	Env  string
	Node func(fabric.HostIntent) string
}

// FindHost picks the fabric host this machine is: the one named host when host is set, else
// the first whose node name in one of schedulers is that scheduler's Env, else the one named as
// this machine (its full or short host name). file names the fabric in errors, which say what
// was tried.
func FindHost(f *fabric.Fabric, file, host string, schedulers []Scheduler) (fabric.HostIntent, error) {
	r := f.Resolve()
	if host != "" {
		h, err := r.Host(host)
		if err != nil {
			return h, fmt.Errorf("%s: %w", file, err)
		}
		return h, nil
	}
	pick := func(ok func(h fabric.HostIntent) bool) (fabric.HostIntent, bool) {
		for _, h := range r.Hosts {
			if ok(h) {
				return h, true
			}
		}
		return fabric.HostIntent{}, false
	}
	var tried []string
	for _, s := range schedulers {
		if n := os.Getenv(s.Env); n != "" {
			if h, ok := pick(func(h fabric.HostIntent) bool { return s.Node(h) == n }); ok {
				return h, nil
			}
			tried = append(tried, s.Env+"="+n)
		}
	}
	if hn, err := os.Hostname(); err == nil {
		short, _, _ := strings.Cut(hn, ".")
		if h, ok := pick(func(h fabric.HostIntent) bool { return h.Host == hn || h.Host == short }); ok {
			return h, nil
		}
		tried = append(tried, "host name "+hn)
	}
	return fabric.HostIntent{}, fmt.Errorf("%s: no host of the fabric is this machine (%s); give --host NAME", file, strings.Join(tried, ", "))
}

// ForFabric sets what the fabric f says about checking its host h: h as the intent, the other
// hosts as peers, the report's name, spec.checks' expected port rate and loopback test.
func (o *Options) ForFabric(f *fabric.Fabric, h fabric.HostIntent) {
	o.Intent = h
	for _, p := range f.Resolve().Hosts {
		if p.Host != h.Host {
			o.Peers = append(o.Peers, preflight.Peer{Name: p.Host, Address: p.Address})
		}
	}
	o.Name = f.Metadata.Name
	o.Fabric = f
	o.ExpectedRate = check.ExpectedRate(f.Spec.Checks)
	o.Loopback, o.LoopbackThresholds = check.LoopbackTest(f.Spec.Checks)
	if c := f.Spec.Checks; c != nil && c.NCCL != nil {
		o.NCCL = *c.NCCL
	}
}
