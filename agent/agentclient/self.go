package agentclient

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"sync"
)

// SelfRevision identifies the running binary's source: its VCS revision when the build recorded
// one, else "unknown".
func SelfRevision() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// SelfSHA256 hashes the running executable ("" when it cannot be read), reading it once: the
// agent's hello carries it and the controller compares it with its Deployer's Hash to decide
// whether to upload itself.
var SelfSHA256 = sync.OnceValue(func() string {
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
