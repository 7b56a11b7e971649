package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

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

// buildHash identifies the binary (VCS revision when known).
func buildHash() string { return build().Revision }

// selfSHA256 hashes the running executable: the controller compares it with
// the agent's to decide whether to upload itself.
var selfSHA256 = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
})

type versionInfo struct {
	APIVersion string `json:"apiVersion"`
	Version    string `json:"version"`
	Revision   string `json:"revision"`
	Modified   bool   `json:"modified,omitempty"`
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
			b := build()
			v := versionInfo{APIVersion: fabric.APIVersion, Version: b.Version, Revision: b.Revision, Modified: b.Modified,
				SHA256: selfSHA256(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
			return output.Write(g.stdout, g.output, v, func(*output.TableWriter) {
				fmt.Fprintf(g.stdout, "fabricctl %s (%s, %s/%s)\n", v.Version, v.Revision, v.GOOS, v.GOARCH)
			})
		},
	}
}
