package main

import (
	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/lldpagent"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/agent"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// registerCheckOps adds the checks' agent ops: preflight (facts gathered
// through the handler's host backends), perftest-start, perftest-wait and
// cleanup (real perftest processes, pid files under the user's cache dir),
// nccl-probe and nccl-run (the NCCL all-reduce of check --suite nccl) and
// lldp (the host's LLDP neighbours from lldpcli).
// registerAgentOps calls it.
func registerCheckOps(h *agent.Handler) {
	(&preflight.Gatherer{Open: h.Open}).Register(h)
	(&rdma.Agent{Sys: sysfs.NewFS(hostcfg.DefaultSysRoot), StateDir: rdma.DefaultStateDir()}).Register(h)
	(&collective.Node{}).Register(h)
	(&lldpagent.Agent{}).Register(h)
}
