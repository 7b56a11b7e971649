package main

import (
	"context"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/agent/hostops"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
	"github.com/fabricctl/fabricctl/internal/ctxio"
)

func newAgentCmd(g *globals) *cobra.Command {
	var hf hostFlags
	var stateDir string
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Serve the controller: JSON requests on stdin, one JSON reply per line on stdout",
		Long: `The controller runs this over SSH. Each JSON request on stdin (op hello, observe,
show, plan, apply, rollback, …) gets one JSON reply line on stdout; logs go to
stderr. See docs/agent-protocol.md. Exit 0 when every reply was ok, 1 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := commandContext(cmd, g)
			defer cancel()
			h := &agent.Handler{Info: agent.Hello{Version: build().Version, Revision: build().Revision, SHA256: agentclient.SelfSHA256(),
				GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}}
			ops := &hostops.Ops{Open: func(ctx context.Context) (*hostcfg.Host, error) { return openHost(ctx, hf.options(g)) }}
			// The journal's directory is made when the first apply begins.
			if dir, err := journal.Open(stateDir); err == nil {
				ops.Journal = dir
			} else {
				g.log.Warn("no apply journal: applies cannot be recovered if interrupted", "error", err)
			}
			registerAgentOps(h, ops)
			// A request that never comes must not outlive the first SIGTERM.
			failed, err := h.Serve(ctx, ctxio.NewReader(ctx, g.stdin), g.stdout)
			if err != nil {
				return err
			}
			if failed > 0 {
				return exitCodeError{exitError}
			}
			return nil
		},
	}
	hf.registerRoots(cmd)
	registerStateDir(cmd, &stateDir)
	return cmd
}

// defaultStateDir is where the agent delivered to the default path keeps
// its apply journal (agentclient.StateDirFor), relative to the home
// directory; `host apply` and `host recover` use it too.
const defaultStateDir = "~/.cache/fabricctl/state"

func registerStateDir(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "state-dir", defaultStateDir, "where applies are journaled (to roll back an interrupted one)")
}
