package main

import (
	"context"
	"github.com/fabricctl/fabricctl/internal/ctxio"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/agent"
)

// registerAgentOps adds the ops beyond the built-in ones (the checks'
// exec-check ops register here).
func registerAgentOps(h *agent.Handler) { registerCheckOps(h) }

func newAgentCmd(g *globals) *cobra.Command {
	var hf hostFlags
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
			h := &agent.Handler{
				Open: func(ctx context.Context) (*hostcfg.Host, error) { return openHost(ctx, hf.options(g)) },
				Info: agent.Hello{Version: build().Version, Revision: buildHash(), SHA256: selfSHA256(),
					GOOS: runtime.GOOS, GOARCH: runtime.GOARCH},
			}
			registerAgentOps(h)
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
	return cmd
}
