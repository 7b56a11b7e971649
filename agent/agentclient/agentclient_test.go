package agentclient

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/internal/knownhosts"
	"github.com/fabricctl/fabricctl/internal/remote"
	"github.com/fabricctl/fabricctl/internal/sshdtest"
)

// standIn is a stand-in agent: it reports its own sha256 like
// `fabricctl version -o json` and echoes one request like `fabricctl agent`.
const standIn = `#!/bin/sh
case "$1" in
version) printf '{"sha256":"%s","goos":"linux"}\n' "$(sha256sum "$0" | cut -d' ' -f1)" ;;
agent) read -r line; printf '{"echo":%s}\n' "$line" ;;
*) exit 2 ;;
esac
`

func TestEnsureUploadsOnceAndCalls(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: sshd with root login needs root")
	}
	s := sshdtest.Start(t, sshdtest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // generous: CI machines are small
	defer cancel()
	t.Setenv("SSH_AUTH_SOCK", "")
	c, err := remote.Dial(ctx, remote.Config{Name: "h1", Address: s.Addr, Port: s.Port, User: "root",
		IdentityFile: s.ClientKey, KnownHostsFile: s.KnownHosts, HostKeys: knownhosts.Checker, SSHConfigFile: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	local := filepath.Join(t.TempDir(), "agent")
	os.WriteFile(local, []byte(standIn), 0o755)
	dst := filepath.Join(t.TempDir(), "cache", "fabricctl")
	d := &Deployer{Path: local, RemotePath: dst}

	path, uploaded, err := d.Ensure(ctx, c)
	if err != nil || !uploaded || path != dst {
		t.Fatalf("first Ensure: %s %v %v", path, uploaded, err)
	}
	if _, uploaded, err = d.Ensure(ctx, c); err != nil || uploaded {
		t.Fatalf("second Ensure uploaded again (%v, %v); the hash check does not work", uploaded, err)
	}
	// A different remote copy is replaced.
	os.WriteFile(dst, []byte("#!/bin/sh\necho old\n"), 0o755)
	if _, uploaded, err = d.Ensure(ctx, c); err != nil || !uploaded {
		t.Fatalf("stale agent not replaced: %v %v", uploaded, err)
	}
	var reply struct {
		Echo struct {
			Op string `json:"op"`
		} `json:"echo"`
	}
	if err := RoundTrip(ctx, c, path, map[string]string{"op": "hello"}, &reply); err != nil || reply.Echo.Op != "hello" {
		t.Fatalf("RoundTrip: %+v %v", reply, err)
	}
}
