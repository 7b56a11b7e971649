package main

import (
	"fmt"
	"runtime"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/agentclient"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

type versionInfo struct {
	APIVersion string `json:"apiVersion"`
	Version    string `json:"version"`
	Revision   string `json:"revision"`
	SHA256     string `json:"sha256"`
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
}

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the fabricctl version (and, with -o json, the binary's sha256)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := output.Check(g.output); err != nil {
				return err
			}
			v := versionInfo{APIVersion: fabric.APIVersion, Version: version, Revision: agentclient.SelfRevision(),
				SHA256: agentclient.SelfSHA256(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
			return output.Write(g.stdout, g.output, v, func(*output.TableWriter) {
				fmt.Fprintf(g.stdout, "fabricctl %s (%s, %s/%s)\n", v.Version, v.Revision, v.GOOS, v.GOARCH)
			})
		},
	}
}
