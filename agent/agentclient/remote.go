package agentclient

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/fabricctl/fabricctl/internal/remote"
)

// exitSomeReplyFailed is `fabricctl agent`'s exit status when it ran but
// some reply said ok=false; the replies say why.
const exitSomeReplyFailed = 1

// Remote is the Agent of a host reached over Conn (SSH): it runs
// `fabricctl agent` there, delivering the binary through Deployer on first
// use (once per Remote). It is safe for concurrent use; several sessions may
// run on one host at once.
type Remote struct {
	Conn     Conn
	Deployer *Deployer

	mu   sync.Mutex
	path string
}

var _ Agent = (*Remote)(nil)

// Path delivers the agent when needed and returns where it is on the host.
func (r *Remote) Path(ctx context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.path != "" {
		return r.path, nil
	}
	p, _, err := r.Deployer.Ensure(ctx, r.Conn)
	if err != nil {
		return "", err
	}
	r.path = p
	return p, nil
}

// Exec runs one agent process with stdin and stdout. An agent that ran but
// answered some request with ok=false is not an error here: the replies
// carry it.
func (r *Remote) Exec(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	path, err := r.Path(ctx)
	if err != nil {
		return err
	}
	err = r.Conn.Run(ctx, AgentCommand(path), stdin, stdout, nil)
	var ee *remote.ExitError
	if errors.As(err, &ee) && ee.Status == exitSomeReplyFailed {
		return nil
	}
	return err
}
