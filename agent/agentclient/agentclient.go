package agentclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/fabricctl/fabricctl/agent"
)

// RemotePath is where the agent lives on a target, relative to the login
// user's home directory (ssh runs commands there).
const RemotePath = ".cache/fabricctl/bin/fabricctl"

// Conn runs commands and uploads files on one target; *remote.Client implements it.
type Conn interface {
	Run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) error
	Upload(ctx context.Context, path string, data []byte, mode os.FileMode) error
}

// Deployer holds the binary to deliver.
type Deployer struct {
	// Path of the local binary to upload (a static linux build).
	Path string
	// RemotePath overrides RemotePath.
	RemotePath string

	once sync.Once
	data []byte
	hash string
	err  error
}

// Self returns a Deployer for the running executable.
func Self() *Deployer {
	exe, err := os.Executable()
	d := &Deployer{Path: exe}
	if err != nil {
		d.once.Do(func() { d.err = fmt.Errorf("finding this executable: %w", err) })
	}
	return d
}

func (d *Deployer) load() error {
	d.once.Do(func() {
		d.data, d.err = os.ReadFile(d.Path)
		if d.err != nil {
			d.err = fmt.Errorf("reading the agent binary: %w", d.err)
			return
		}
		sum := sha256.Sum256(d.data)
		d.hash = hex.EncodeToString(sum[:])
	})
	return d.err
}

// Hash is the sha256 of the binary to deliver.
func (d *Deployer) Hash() (string, error) {
	if err := d.load(); err != nil {
		return "", err
	}
	return d.hash, nil
}

func (d *Deployer) remotePath() string {
	if d.RemotePath != "" {
		return d.RemotePath
	}
	return RemotePath
}

type remoteVersion struct {
	SHA256 string `json:"sha256"`
	GOOS   string `json:"goos"`
	GOARCH string `json:"goarch"`
}

var archOf = map[string]string{"x86_64": "amd64", "aarch64": "arm64"}

// Ensure makes sure the remote agent is this binary and returns its path and
// whether it had to be uploaded.
func (d *Deployer) Ensure(ctx context.Context, c Conn) (path string, uploaded bool, err error) {
	if err := d.load(); err != nil {
		return "", false, err
	}
	path = d.remotePath()
	var out bytes.Buffer
	if err := c.Run(ctx, []string{path, "version", "-o", "json"}, nil, &out, nil); err == nil {
		var v remoteVersion
		if json.Unmarshal(out.Bytes(), &v) == nil && v.SHA256 == d.hash {
			return path, false, nil
		}
	} else if ctx.Err() != nil {
		return "", false, fmt.Errorf("checking the agent version: %w", ctx.Err())
	}
	out.Reset()
	if err := c.Run(ctx, []string{"uname", "-m"}, nil, &out, nil); err != nil {
		return "", false, fmt.Errorf("checking the target's architecture: %w", err)
	}
	if arch := archOf[strings.TrimSpace(out.String())]; arch != runtime.GOARCH {
		return "", false, fmt.Errorf("target is %s but this fabricctl is built for %s; build one for the target", strings.TrimSpace(out.String()), runtime.GOARCH)
	}
	if err := c.Upload(ctx, path, d.data, 0o755); err != nil {
		return "", false, fmt.Errorf("delivering the agent: %w", err)
	}
	return path, true, nil
}

// ErrAgent is an error the agent itself reported: ok=false in a reply (the
// message says why) or no reply at all. It is the one sentinel for agent
// failures, for host targets and checks alike.
var ErrAgent = errors.New("agent error")

// StateDirFor is where the agent delivered to path keeps its apply journal
// (--state-dir): "state" beside the binary's directory, so the default
// .cache/fabricctl/bin/fabricctl keeps it in .cache/fabricctl/state, the
// default of `fabricctl agent` and `fabricctl host recover` too.
func StateDirFor(path string) string {
	return filepath.Join(filepath.Dir(filepath.Dir(path)), "state")
}

// AgentCommand is the command line that runs the agent delivered to path.
func AgentCommand(path string) []string {
	return []string{path, "agent", "--state-dir", StateDirFor(path)}
}

// RoundTrip runs `path agent` on c, sends req as JSON and decodes the one
// reply into resp (what a host target does for each engine phase; the checks
// use a Session over a Remote).
func RoundTrip(ctx context.Context, c Conn, path string, req, resp any) error {
	op := "agent"
	if r, ok := req.(agent.Request); ok {
		op = r.Op
	}
	in, err := encodeRequest(op, req)
	if err != nil {
		return err
	}
	var out, errOut bytes.Buffer
	runErr := c.Run(ctx, AgentCommand(path), bytes.NewReader(append(in, '\n')), &out, &errOut)
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), resp); err != nil {
			return fmt.Errorf("decoding the agent reply: %w (stderr: %s)", err, lastLine(errOut.String()))
		}
		return nil
	}
	if runErr != nil {
		return fmt.Errorf("running the agent: %w", runErr)
	}
	return fmt.Errorf("%w: empty reply (stderr: %s)", ErrAgent, lastLine(errOut.String()))
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
