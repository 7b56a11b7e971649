package main

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/buildinfo"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/spf13/cobra"
)

// version and revision are set at build time with -ldflags "-X
// main.version=… -X main.revision=…" (make build); without them the
// toolchain's build information names the build (internal/buildinfo).
var version, revision = "dev", ""

// build identifies the binary: version, VCS revision when recorded.
var build = sync.OnceValue(func() buildinfo.Info {
	b := buildinfo.Read(version)
	if b.Revision == buildinfo.Unknown && revision != "" {
		b.Revision = revision
	}
	return b
})

// versionKind is the kind of the document version prints with -o json or yaml.
const versionKind = "Version"

// versionInfo is what version prints.
type versionInfo struct {
	APIVersion string `json:"apiVersion"`
	Version    string `json:"version"`
	Revision   string `json:"revision"`
	Modified   bool   `json:"modified,omitempty"`
	SHA256     string `json:"sha256"`
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
}

// DocumentKind is versionKind.
func (versionInfo) DocumentKind() string { return versionKind }

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the fabricctl version (and, with -o json, the binary's sha256)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := output.Check(g.output); err != nil {
				return err
			}
			b := build()
			v := versionInfo{APIVersion: fabric.APIVersion, Version: b.Version, Revision: b.Revision, Modified: b.Modified,
				SHA256: agentclient.SelfSHA256(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
			return output.Write(g.stdout, g.output, v, func(*output.TableWriter) {
				fmt.Fprintf(g.stdout, "fabricctl %s (%s, %s/%s)\n", v.Version, v.Revision, v.GOOS, v.GOARCH)
			})
		},
	}
}
