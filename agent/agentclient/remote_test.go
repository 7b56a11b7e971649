package agentclient

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/remote"
)

// exitingConn runs every command: `version` reports sha, `agent` copies its
// stdin to stdout and exits with status.
type exitingConn struct {
	sha    string
	status int
	runs   []string
}

func (c *exitingConn) Run(_ context.Context, argv []string, stdin io.Reader, stdout, _ io.Writer) error {
	c.runs = append(c.runs, strings.Join(argv[1:], " "))
	if len(argv) > 1 && argv[1] == "version" {
		_, err := io.WriteString(stdout, `{"sha256":"`+c.sha+`"}`)
		return err
	}
	io.Copy(stdout, stdin)
	if c.status != 0 {
		return &remote.ExitError{Argv: argv, Status: c.status}
	}
	return nil
}

func (c *exitingConn) Upload(context.Context, string, []byte, os.FileMode) error {
	return errors.New("no upload expected")
}

// TestRemoteAgentExitStatus: exit 1 means some reply was not ok (the replies
// say which), not a failed agent; any other status is an error. The agent
// is delivered (checked) once per Remote.
func TestRemoteAgentExitStatus(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "fabricctl")
	os.WriteFile(bin, []byte("agent"), 0o755)
	d := &Deployer{Path: bin}
	sha, err := d.Hash()
	if err != nil {
		t.Fatal(err)
	}
	for status, wantErr := range map[int]bool{0: false, 1: false, 2: true, 127: true} {
		c := &exitingConn{sha: sha, status: status}
		r := &Remote{Conn: c, Deployer: d}
		for range 2 {
			var out strings.Builder
			err := r.Exec(context.Background(), strings.NewReader("req\n"), &out)
			if (err != nil) != wantErr || out.String() != "req\n" {
				t.Errorf("exit %d: err %v, out %q", status, err, out.String())
			}
		}
		if got := strings.Join(c.runs, "|"); got != "version -o json|agent --state-dir .cache/fabricctl/state|agent --state-dir .cache/fabricctl/state" {
			t.Errorf("exit %d: ran %q, want one version check then the agent twice", status, got)
		}
	}
}
