package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// Errors callers can test with errors.Is. A host-key refusal is whatever
// Config.HostKeys returned (internal/knownhosts: ErrUnknown, ErrChanged,
// ErrRevoked), unchanged.
var (
	ErrAuth    = errors.New("authentication failed")
	ErrTimeout = errors.New("timed out")
)

// HostKeyCheck builds the host-key check of one dial: the callback and the
// host key algorithms to offer (nil: x/crypto's defaults), for the target's
// resolved address and port, against the known_hosts file named ("~/" not
// yet expanded).
// knownhosts.Checker is fabricctl's.
type HostKeyCheck func(knownHostsFile, address string, port int) (ssh.HostKeyCallback, []string, error)

// DialFunc opens the TCP connection (the lab dials through its namespace).
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Config says how to reach one target.
type Config struct {
	// Name is the target's fabric name, used in messages.
	Name    string
	Address string
	Port    int    // default 22
	User    string // default: current user
	// IdentityFile is a private key file ("~" expands); default: the usual
	// ~/.ssh/id_ed25519, id_ecdsa, id_rsa that exist, plus ssh-agent.
	IdentityFile string
	// KnownHostsFile defaults to ~/.ssh/known_hosts.
	KnownHostsFile string
	// HostKeys checks the target's host key against KnownHostsFile
	// (knownhosts.Checker). Required unless InsecureIgnoreHostKey: a
	// Config without it is refused, never dialled unchecked.
	HostKeys HostKeyCheck
	// PasswordEnv names the environment variable holding the password.
	PasswordEnv string
	// InsecureIgnoreHostKey disables host-key checking (logged loudly).
	InsecureIgnoreHostKey bool
	// SSHConfigFile is an OpenSSH client config whose Host aliases are honoured
	// for HostName, Port, User and IdentityFile (default ~/.ssh/config; "none" disables).
	SSHConfigFile  string
	ConnectTimeout time.Duration // default 10s
	KeepAlive      time.Duration // default 15s; 0 disables keep-alives when set negative
	Dial           DialFunc
	Log            *slog.Logger
}

// Client is a connection to one target.
type Client struct {
	name   string
	client *ssh.Client
	done   chan struct{}
}

func expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

// Dial connects and authenticates, bounded by ctx and ConnectTimeout.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	cfg = applyDefaults(cfg)
	name := cfg.Name
	if name == "" {
		name = cfg.Address
	}
	hostKey, algos, err := hostKeyCallback(cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", name, err)
	}
	auth, closeAgent, err := authMethods(cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", name, err)
	}
	defer closeAgent()
	addr := net.JoinHostPort(cfg.Address, strconv.Itoa(cfg.Port))
	ctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	conn, err := cfg.Dial(ctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("connecting to %s (%s): %w after %s", name, addr, ErrTimeout, cfg.ConnectTimeout)
		}
		return nil, fmt.Errorf("connecting to %s (%s): %w", name, addr, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	sc, chans, reqs, err := ssh.NewClientConn(conn, addr, &ssh.ClientConfig{
		User: cfg.User, Auth: auth, HostKeyCallback: hostKey, HostKeyAlgorithms: algos, Timeout: cfg.ConnectTimeout,
	})
	stop()
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("connecting to %s (%s): %w", name, addr, classify(ctx, err))
	}
	conn.SetDeadline(time.Time{})
	c := &Client{name: name, client: ssh.NewClient(sc, chans, reqs), done: make(chan struct{})}
	if cfg.KeepAlive > 0 {
		go c.keepAlive(cfg.KeepAlive)
	}
	return c, nil
}

func applyDefaults(cfg Config) Config {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.SSHConfigFile != "none" {
		applySSHConfig(&cfg)
	}
	if cfg.Port == 0 {
		cfg.Port = 22
	}
	if cfg.User == "" {
		cfg.User = os.Getenv("USER")
		if cfg.User == "" {
			cfg.User = "root"
		}
	}
	if cfg.KnownHostsFile == "" {
		cfg.KnownHostsFile = "~/.ssh/known_hosts"
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	if cfg.KeepAlive == 0 {
		cfg.KeepAlive = 15 * time.Second
	}
	if cfg.Dial == nil {
		var d net.Dialer
		cfg.Dial = d.DialContext
	}
	return cfg
}

// classify turns handshake errors into the sentinels, without leaking secrets.
func classify(ctx context.Context, err error) error {
	switch {
	case errors.As(err, new(*hostKeyError)):
		return err
	case ctx.Err() != nil:
		return fmt.Errorf("%w during the SSH handshake", ErrTimeout)
	case strings.Contains(err.Error(), "unable to authenticate"):
		return fmt.Errorf("%w: no offered key or password was accepted", ErrAuth)
	}
	return err
}

// hostKeyCallback is Config.HostKeys's check for the resolved target, its
// refusals marked so that classify passes them on unchanged; with
// InsecureIgnoreHostKey, no check at all, said loudly.
func hostKeyCallback(cfg Config) (ssh.HostKeyCallback, []string, error) {
	if cfg.InsecureIgnoreHostKey {
		cfg.Log.Warn("HOST KEY CHECKING IS DISABLED (--insecure-ignore-host-key): anyone on the path can impersonate this target", "target", cfg.Name)
		return ssh.InsecureIgnoreHostKey(), nil, nil
	}
	if cfg.HostKeys == nil {
		return nil, nil, errors.New("no host-key check configured (Config.HostKeys); refusing to connect unchecked")
	}
	check, algos, err := cfg.HostKeys(cfg.KnownHostsFile, cfg.Address, cfg.Port)
	if err != nil {
		return nil, nil, err
	}
	return func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		if err := check(hostname, remote, key); err != nil {
			return &hostKeyError{err}
		}
		return nil
	}, algos, nil
}

// hostKeyError is a refusal of the target's host key.
type hostKeyError struct{ err error }

func (e *hostKeyError) Error() string { return e.err.Error() }
func (e *hostKeyError) Unwrap() error { return e.err }

func authMethods(cfg Config) ([]ssh.AuthMethod, func(), error) {
	var methods []ssh.AuthMethod
	closeFn := func() {}
	var signers []ssh.Signer
	files := []string{cfg.IdentityFile}
	if cfg.IdentityFile == "" {
		files = []string{"~/.ssh/id_ed25519", "~/.ssh/id_ecdsa", "~/.ssh/id_rsa"}
	}
	for _, f := range files {
		data, err := os.ReadFile(expandHome(f))
		if err != nil {
			if cfg.IdentityFile != "" {
				return nil, closeFn, fmt.Errorf("reading identity file %s: %w", f, err)
			}
			continue
		}
		s, err := ssh.ParsePrivateKey(data)
		if err != nil {
			var pp *ssh.PassphraseMissingError
			if errors.As(err, &pp) {
				cfg.Log.Debug("identity file needs a passphrase; use ssh-agent", "file", f)
				continue
			}
			return nil, closeFn, fmt.Errorf("parsing identity file %s: %w", f, err)
		}
		signers = append(signers, s)
	}
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		if conn, err := net.Dial("unix", sock); err == nil {
			ag := agent.NewClient(conn)
			closeFn = func() { conn.Close() }
			if agentSigners, err := ag.Signers(); err == nil {
				signers = append(signers, agentSigners...)
			}
		}
	}
	if len(signers) > 0 {
		methods = append(methods, ssh.PublicKeys(signers...))
	}
	if cfg.PasswordEnv != "" {
		pw, ok := os.LookupEnv(cfg.PasswordEnv)
		if !ok {
			return nil, closeFn, fmt.Errorf("environment variable %s (the password for %s) is not set", cfg.PasswordEnv, cfg.Name)
		}
		methods = append(methods, ssh.Password(pw), ssh.KeyboardInteractive(func(_, _ string, qs []string, _ []bool) ([]string, error) {
			answers := make([]string, len(qs))
			for i := range qs {
				answers[i] = pw
			}
			return answers, nil
		}))
	}
	if len(methods) == 0 {
		return nil, closeFn, fmt.Errorf("%w: no identity file, ssh-agent key or password environment variable to offer", ErrAuth)
	}
	return methods, closeFn, nil
}

func (c *Client) keepAlive(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			if _, _, err := c.client.SendRequest("keepalive@openssh.com", true, nil); err != nil {
				c.client.Close()
				return
			}
		}
	}
}

// Close ends the connection.
func (c *Client) Close() error {
	select {
	case <-c.done:
	default:
		close(c.done)
	}
	return c.client.Close()
}

// SSH returns the underlying connection (for protocols such as scrapligo).
func (c *Client) SSH() *ssh.Client { return c.client }

// Quote returns s as one POSIX shell word.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Command joins argv into the command line sent to the remote shell, each
// argument quoted as one word.
func Command(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// ExitError is a remote command that ran and exited non-zero.
type ExitError struct {
	Argv   []string
	Status int
	Stderr string
}

func (e *ExitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	if msg != "" {
		return fmt.Sprintf("%s exited %d: %s", e.Argv[0], e.Status, msg)
	}
	return fmt.Sprintf("%s exited %d", e.Argv[0], e.Status)
}

// Run runs argv on the target with stdin, writing its output to stdout and
// stderr. Cancelling ctx closes the session (the remote command gets SIGHUP
// from sshd).
func (c *Client) Run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(argv) == 0 {
		return errors.New("running a command: empty argv")
	}
	s, err := c.client.NewSession()
	if err != nil {
		return fmt.Errorf("opening a session on %s: %w", c.name, err)
	}
	defer s.Close()
	s.Stdin, s.Stdout = stdin, stdout
	var errBuf bytes.Buffer
	if stderr != nil {
		s.Stderr = io.MultiWriter(stderr, &limitedBuffer{b: &errBuf, max: 64 << 10})
	} else {
		s.Stderr = &limitedBuffer{b: &errBuf, max: 64 << 10}
	}
	if err := s.Start(Command(argv)); err != nil {
		return fmt.Errorf("running %s on %s: %w", argv[0], c.name, err)
	}
	waited := make(chan error, 1)
	go func() { waited <- s.Wait() }()
	select {
	case err = <-waited:
	case <-ctx.Done():
		// OpenSSH (≥ 7.9) delivers the signal to the command; closing the
		// channel then ends the session. Do not wait long for a server that
		// ignores both.
		s.Signal(ssh.SIGKILL)
		s.Close()
		select {
		case <-waited:
		case <-time.After(2 * time.Second):
		}
		return fmt.Errorf("running %s on %s: %w", argv[0], c.name, ctx.Err())
	}
	var ee *ssh.ExitError
	if errors.As(err, &ee) {
		return &ExitError{Argv: argv, Status: ee.ExitStatus(), Stderr: errBuf.String()}
	}
	if err != nil {
		return fmt.Errorf("running %s on %s: %w", argv[0], c.name, err)
	}
	return nil
}

// Output runs argv and returns its stdout.
func (c *Client) Output(ctx context.Context, argv []string, stdin []byte) ([]byte, error) {
	var out bytes.Buffer
	var in io.Reader
	if stdin != nil {
		in = bytes.NewReader(stdin)
	}
	err := c.Run(ctx, argv, in, &out, nil)
	if ctx.Err() != nil {
		// Run may return before the session stops writing to out: the
		// output of a cancelled command is neither read nor returned.
		return nil, err
	}
	return out.Bytes(), err
}

// Upload writes data to path atomically: into a temporary file beside it,
// chmod, then rename. Directories are created. path is passed as an argument,
// never interpolated into the script.
func (c *Client) Upload(ctx context.Context, path string, data []byte, mode os.FileMode) error {
	script := `set -e; d=$(dirname "$1"); mkdir -p "$d"; t=$(mktemp "$1.tmp.XXXXXX"); cat > "$t"; chmod "$2" "$t"; mv -f "$t" "$1"`
	argv := []string{"sh", "-c", script, "fabricctl-upload", path, fmt.Sprintf("%o", mode.Perm())}
	if err := c.Run(ctx, argv, bytes.NewReader(data), io.Discard, nil); err != nil {
		return fmt.Errorf("uploading %s to %s: %w", path, c.name, err)
	}
	return nil
}

type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		if len(p) > room {
			l.b.Write(p[:room])
		} else {
			l.b.Write(p)
		}
	}
	return len(p), nil
}

// ExitCode returns the remote command's exit status.
func (e *ExitError) ExitCode() int { return e.Status }
