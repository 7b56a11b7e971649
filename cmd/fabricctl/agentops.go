package main

import (
	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/hostops"
	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/lldpagent"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// registerAgentOps adds every op the agent serves: the host ops (ops:
// observe, show, plan, apply, rollback, recover, settle) and the checks'
// ops: preflight (facts gathered through the same host backends),
// perftest-start, perftest-wait and cleanup (real perftest processes, pid
// files under the user's cache dir), nccl-probe and nccl-run (the NCCL
// all-reduce of check --suite nccl) and lldp (the host's LLDP neighbours
// from lldpcli).
func registerAgentOps(h *agent.Handler, ops *hostops.Ops) {
	ops.Register(h)
	(&preflight.Gatherer{Open: ops.Open}).Register(h)
	(&rdma.Agent{Sys: sysfs.NewFS(hostcfg.DefaultSysRoot), StateDir: rdma.DefaultStateDir()}).Register(h)
	(&collective.Node{}).Register(h)
	(&lldpagent.Agent{}).Register(h)
}
