package session

import (
	"context"
	"errors"
	"fmt"
	"github.com/fabricctl/fabricctl/internal/knownhosts"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/driver/opoptions"
	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/logging"
	"github.com/scrapli/scrapligo/platform"
	"github.com/scrapli/scrapligo/util"
	"golang.org/x/crypto/ssh"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// Defaults for the zero values of Options.
const (
	DefaultPort           = 22
	DefaultConnectTimeout = 15 * time.Second
	DefaultCommandTimeout = 60 * time.Second
)

// Sentinel errors; every error returned by this package wraps at most one of them.
var (
	// ErrUnknownPlatform: Options.Spec names no scrapligo platform definition.
	ErrUnknownPlatform = errors.New("unknown session platform")
	// ErrNoCredentials: neither a password (PasswordEnv/Password) nor an identity file was given.
	ErrNoCredentials = errors.New("no credentials")
	// ErrHostKeyUnknown: the switch's host key is not in the known_hosts file.
	ErrHostKeyUnknown = errors.New("host key unknown")
	// ErrHostKeyRevoked: a @revoked line in known_hosts names the switch's key.
	ErrHostKeyRevoked = errors.New("host key revoked")
	// ErrHostKeyMismatch: known_hosts holds a different key for the switch.
	ErrHostKeyMismatch = errors.New("host key mismatch")
	// ErrAuth: the switch refused the credentials.
	ErrAuth = errors.New("authentication failed")
	// ErrTimeout: the connection or a prompt did not come in time. The session is
	// closed afterwards (a late reply would corrupt the next command's output).
	ErrTimeout = errors.New("timed out")
	// ErrConnectionLost: the connection broke during a command; the session is closed.
	ErrConnectionLost = errors.New("connection lost")
	// ErrCommandFailed: the device answered with one of its error messages.
	// errors.As with *CommandError (or *switchcfg.LineError) gives the command
	// and the message.
	ErrCommandFailed = errors.New("command rejected by device")
	// ErrClosed: the session was closed (by Close, or after a timeout, a lost
	// connection or a cancelled context).
	ErrClosed = errors.New("session closed")
)

// CommandError is a command the device rejected with one of its error messages
// (e.g. EOS "% Invalid input", Junos "syntax error.", NVUE "Error: ...").
// The session stays usable: the device returned to its prompt.
type CommandError struct {
	// Command is the line that was sent.
	Command string
	// Message is the first output line carrying the device's error.
	Message string
	// Output is the whole output of the command.
	Output string
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("device rejected %q: %s", e.Command, e.Message)
}

// Unwrap returns ErrCommandFailed and a *switchcfg.LineError, so drivers find
// the rejected line with switchcfg.FailedLine.
func (e *CommandError) Unwrap() []error {
	return []error{ErrCommandFailed, &switchcfg.LineError{Line: e.Command, Message: e.Message}}
}

// Options say how to reach and log into one switch.
type Options struct {
	// Platform is the fabric platform name (cumulus-nvue, arista-eos, …),
	// used in messages.
	Platform string
	// Spec says how to drive the platform's CLI: its driver's
	// Info().Session. Required.
	Spec switchcfg.SessionSpec
	// Address is a host name or IP address, optionally with ":port".
	Address string
	// Port is used when Address carries none; 0 means DefaultPort.
	Port int
	// User is the login name.
	User string
	// PasswordEnv names the environment variable holding the password
	// (secrets never sit in fabric files). Password, when set, wins; it exists
	// for programs and tests and is never printed.
	PasswordEnv string
	Password    string
	// IdentityFile is an unencrypted private key (OpenSSH or PEM) for public-key
	// authentication. "~/" is expanded.
	IdentityFile string
	// KnownHostsFile is the known_hosts file the host key is checked against;
	// checking is always strict. "~/" is expanded. Required.
	KnownHostsFile string
	// ConnectTimeout bounds TCP connect, SSH handshake and the first prompt;
	// 0 means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// CommandTimeout bounds the wait for the prompt after each command; 0 means
	// DefaultCommandTimeout. A context deadline that comes sooner wins.
	CommandTimeout time.Duration
	// Record, when set, receives every byte read from the device: a transcript
	// that Replay plays back.
	Record io.Writer
	// Logger receives scrapligo's debug log (passwords redacted); nil discards it.
	Logger *slog.Logger
}

// LogValue keeps the password out of structured logs.
func (o Options) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("platform", o.Platform), slog.String("address", o.Address),
		slog.Int("port", o.Port), slog.String("user", o.User),
		slog.String("passwordEnv", o.PasswordEnv), slog.String("identityFile", o.IdentityFile),
		slog.String("knownHostsFile", o.KnownHostsFile))
}

// Conn is a CLI session to one switch. It implements switchcfg.Session.
//
// A Conn serialises its calls (a CLI runs one command at a time), so it may be
// shared by goroutines, but commands from different goroutines interleave in
// whatever order they take the lock.
type Conn struct {
	mu         sync.Mutex
	d          *network.Driver
	prof       profile
	platform   string
	target     string
	cmdTimeout time.Duration
	secret     string
	configRe   *regexp.Regexp
	history    []string
	dead       error // why the session is unusable; nil while it works
}

var _ switchcfg.Session = (*Conn)(nil)

// Dial connects to the switch, logs in, checks the host key against
// Options.KnownHostsFile, waits for the prompt and prepares the terminal (the
// platform's on-open commands, e.g. "terminal length 0"). The context bounds the
// whole opening; cancelling it later has no effect on the returned Conn.
func Dial(ctx context.Context, opt Options) (*Conn, error) {
	prof, err := newProfile(opt.Platform, opt.Spec)
	if err != nil {
		return nil, err
	}
	host, port, err := splitAddress(opt.Address, opt.Port)
	if err != nil {
		return nil, err
	}
	target := net.JoinHostPort(host, strconv.Itoa(port))
	secret := opt.Password
	if secret == "" && opt.PasswordEnv != "" {
		secret = os.Getenv(opt.PasswordEnv)
		if secret == "" {
			return nil, fmt.Errorf("connecting to %s: %w: environment variable %s is empty or unset",
				target, ErrNoCredentials, opt.PasswordEnv)
		}
	}
	var key []byte
	if opt.IdentityFile != "" {
		path := expandHome(opt.IdentityFile)
		key, err = os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading identity file: %w", err)
		}
		if _, err := ssh.ParsePrivateKey(key); err != nil {
			return nil, fmt.Errorf("parsing identity file %s (encrypted keys are not supported): %w", path, err)
		}
	}
	if secret == "" && key == nil {
		return nil, fmt.Errorf("connecting to %s: %w: set a password environment variable or an identity file",
			target, ErrNoCredentials)
	}
	if opt.KnownHostsFile == "" {
		return nil, fmt.Errorf("connecting to %s: no known_hosts file given (host key checking is always on)", target)
	}
	known, err := knownhosts.Load(expandHome(opt.KnownHostsFile))
	if err != nil {
		return nil, fmt.Errorf("reading known_hosts file: %w", err)
	}
	connectTimeout := durationOr(opt.ConnectTimeout, DefaultConnectTimeout)
	cmdTimeout := durationOr(opt.CommandTimeout, DefaultCommandTimeout)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < connectTimeout {
		connectTimeout = max(time.Until(dl), time.Millisecond)
	}

	opts := []util.Option{
		// Host keys are checked as OpenSSH checks them (internal/knownhosts).
		options.WithCustomTransport(&sshTransport{known: known, key: key}),
		options.WithPort(port),
		options.WithAuthUsername(opt.User),
		options.WithTimeoutSocket(connectTimeout),
		options.WithTimeoutOps(min(connectTimeout, cmdTimeout)),
		options.WithTermWidth(511),
		options.WithLogger(scrapliLogger(opt.Logger, secret)),
	}
	if secret != "" {
		opts = append(opts, options.WithAuthPassword(secret), options.WithAuthSecondary(secret))
	}
	if opt.Record != nil {
		opts = append(opts, options.WithChannelLog(opt.Record))
	}
	c, err := newConn(opt.Platform, prof, host, target, cmdTimeout, secret, opts)
	if err != nil {
		return nil, err
	}
	if err := c.open(ctx, connectTimeout); err != nil {
		return nil, err
	}
	c.d.Channel.TimeoutOps = cmdTimeout
	return c, nil
}

func newConn(name string, prof profile, host, target string, cmdTimeout time.Duration, secret string, opts []util.Option) (*Conn, error) {
	p, err := platform.NewPlatform(prof.definition, host, opts...)
	if err != nil {
		return nil, fmt.Errorf("loading platform %s: %w", name, err)
	}
	d, err := p.GetNetworkDriver()
	if err != nil {
		return nil, fmt.Errorf("loading platform %s: %w", name, err)
	}
	c := &Conn{d: d, prof: prof, platform: name, target: target, cmdTimeout: cmdTimeout, secret: secret}
	if prof.configPriv != "" {
		c.configRe = regexp.MustCompile(d.PrivilegeLevels[prof.configPriv].Pattern)
	}
	return c, nil
}

// open runs the driver's Open (transport, login, on-open commands) bounded by
// ctx and limit.
func (c *Conn) open(ctx context.Context, limit time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- c.d.Open() }()
	timer := time.NewTimer(limit + time.Second)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return c.redact(fmt.Errorf("connecting to %s: %w", c.target, classifyOpen(err)))
		}
		return nil
	case <-ctx.Done():
		go func() { // Open cannot be interrupted; clean up once it returns
			if <-done == nil {
				_ = c.d.Channel.Close()
			}
		}()
		return fmt.Errorf("connecting to %s: %w", c.target, ctx.Err())
	case <-timer.C:
		go func() {
			if <-done == nil {
				_ = c.d.Channel.Close()
			}
		}()
		return fmt.Errorf("connecting to %s: %w after %s", c.target, ErrTimeout, limit)
	}
}

func classifyOpen(err error) error {
	var ke *knownhosts.KeyError
	switch {
	case errors.As(err, &ke) && errors.Is(err, knownhosts.ErrUnknown):
		return fmt.Errorf("%w: %v; add it after verifying its fingerprint", ErrHostKeyUnknown, ke)
	case errors.As(err, &ke) && errors.Is(err, knownhosts.ErrRevoked):
		return fmt.Errorf("%w: %v", ErrHostKeyRevoked, ke)
	case errors.As(err, &ke):
		return fmt.Errorf("%w: %v (possible man-in-the-middle, or the switch was reinstalled)", ErrHostKeyMismatch, ke)
	case strings.Contains(err.Error(), "unable to authenticate"):
		return fmt.Errorf("%w: the switch refused the user's password or key: %w", ErrAuth, err)
	case errors.Is(err, util.ErrTimeoutError):
		return fmt.Errorf("%w waiting for the prompt: %w", ErrTimeout, err)
	case errors.Is(err, util.ErrPrivilegeError):
		return fmt.Errorf("unexpected prompt (is the platform right?): %w", err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return err
}

// Platform returns the fabric platform name the session speaks.
func (c *Conn) Platform() string { return c.platform }

// History returns every command sent so far, in order: Send's commands,
// SendConfig's lines, and the configuration-mode entry SendConfig issued
// ("configure terminal", "configure private"). The platform's on-open commands
// are not included.
func (c *Conn) History() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.history...)
}

// Send runs one command in the current mode (it never changes mode by itself,
// unlike scrapligo's SendCommand) and returns its output without the echo and
// the prompt. When the output carries one of the device's error messages, the
// output is returned together with a *CommandError. A multi-line command (a
// shell here-document) is sent as one input.
func (c *Conn) Send(ctx context.Context, command string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.send(ctx, command)
}

// SendConfig enters the platform's configuration mode unless the prompt
// already is a configuration prompt (so lines go into an open EOS configure
// session or a Junos "configure private" the caller entered with Send), then
// sends lines in order. It stops at the first line the device rejects and
// returns the output so far with a *CommandError naming that line. It does not
// leave configuration mode: the transaction's next steps (diff, commit, abort)
// run there.
//
// Modes per platform: EOS and NX-OS "configure terminal"; Junos
// "configure private"; NVUE and SONiC have none (lines run in the shell).
func (c *Conn) SendConfig(ctx context.Context, lines []string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enterConfig(ctx); err != nil {
		return "", err
	}
	var outs []string
	for _, line := range lines {
		out, err := c.send(ctx, line)
		if out != "" {
			outs = append(outs, out)
		}
		if err != nil {
			return strings.Join(outs, "\n"), err
		}
	}
	return strings.Join(outs, "\n"), nil
}

// Close ends the session by closing the connection; nothing more is sent, so a
// pending (uncommitted) change is left to the device's own rules. Close is
// idempotent.
func (c *Conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead == nil {
		c.dead = ErrClosed
	}
	return c.d.Channel.Close()
}

func (c *Conn) usable() error {
	if c.dead == nil {
		return nil
	}
	if errors.Is(c.dead, ErrClosed) {
		return c.dead
	}
	return fmt.Errorf("%w after an earlier failure: %w", ErrClosed, c.dead)
}

// kill marks the session unusable and closes the connection.
func (c *Conn) kill(cause error) {
	if c.dead == nil {
		c.dead = cause
	}
	_ = c.d.Channel.Close()
}

func (c *Conn) timeoutFor(ctx context.Context) time.Duration {
	t := c.cmdTimeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < t {
		t = max(time.Until(dl), time.Millisecond)
	}
	return t
}

func (c *Conn) send(ctx context.Context, command string) (string, error) {
	if err := c.usable(); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("sending %q: %w", command, err)
	}
	c.history = append(c.history, command)
	timeout := c.timeoutFor(ctx)
	stop := context.AfterFunc(ctx, func() { _ = c.d.Channel.Close() })
	r, err := c.d.Driver.SendCommand(command, opoptions.WithTimeoutOps(timeout))
	if !stop() || ctx.Err() != nil {
		err = fmt.Errorf("sending %q: %w", command, ctx.Err())
		c.kill(err)
		return "", err
	}
	if err != nil {
		return "", c.redact(c.transportFailure(command, timeout, err))
	}
	out := r.Result
	if msg := c.prof.failure(out); msg != "" {
		return out, c.redact(&CommandError{Command: command, Message: msg, Output: out})
	}
	return out, nil
}

func (c *Conn) transportFailure(command string, timeout time.Duration, err error) error {
	switch {
	case errors.Is(err, util.ErrTimeoutError):
		err = fmt.Errorf("sending %q: %w: no prompt within %s", command, ErrTimeout, timeout)
	case errors.Is(err, util.ErrConnectionError), errors.Is(err, io.EOF):
		err = fmt.Errorf("sending %q: %w", command, ErrConnectionLost)
	default:
		err = fmt.Errorf("sending %q: %w: %w", command, ErrConnectionLost, err)
	}
	c.kill(err)
	return err
}

// enterConfig moves to the platform's configuration mode unless the current
// prompt already is one.
func (c *Conn) enterConfig(ctx context.Context) error {
	if err := c.usable(); err != nil {
		return err
	}
	if c.prof.configPriv == "" {
		return nil
	}
	stop := context.AfterFunc(ctx, func() { _ = c.d.Channel.Close() })
	defer stop()
	prompt, err := c.d.GetPrompt()
	if err == nil && c.configRe.MatchString(prompt) {
		c.d.CurrentPriv = c.prof.configPriv
		return nil
	}
	if err == nil {
		c.history = append(c.history, c.d.PrivilegeLevels[c.prof.configPriv].Escalate)
		err = c.d.AcquirePriv(c.prof.configPriv)
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("entering configuration mode: %w", ctx.Err())
		c.kill(err)
		return err
	}
	if err != nil {
		if errors.Is(err, util.ErrPrivilegeError) {
			return c.redact(fmt.Errorf("entering configuration mode: %w", err))
		}
		return c.redact(c.transportFailure("(entering configuration mode)", c.cmdTimeout, err))
	}
	return nil
}

// redact removes the password from an error's text, keeping errors.Is/As.
func (c *Conn) redact(err error) error {
	if err == nil || c.secret == "" || !strings.Contains(err.Error(), c.secret) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), c.secret, "<redacted>"), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// scrapliLogger routes scrapligo's log to l at debug level with secret removed.
func scrapliLogger(l *slog.Logger, secret string) *logging.Instance {
	inst, _ := logging.NewInstance()
	if l == nil {
		return inst // no loggers: scrapligo logs nothing
	}
	inst.Level = logging.Debug
	inst.Formatter = func(level, msg string) string { return level + "\x00" + msg }
	inst.Loggers = []func(...any){func(args ...any) {
		for _, a := range args {
			s := fmt.Sprint(a)
			if secret != "" {
				s = strings.ReplaceAll(s, secret, "<redacted>")
			}
			level, msg, _ := strings.Cut(s, "\x00")
			l.Debug(msg, slog.String("component", "scrapligo"), slog.String("level", level))
		}
	}}
	return inst
}

func splitAddress(addr string, port int) (string, int, error) {
	if addr == "" {
		return "", 0, errors.New("no switch address given")
	}
	if port == 0 {
		port = DefaultPort
	}
	if h, p, err := net.SplitHostPort(addr); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("parsing address %q: bad port", addr)
		}
		return h, n, nil
	}
	return strings.Trim(addr, "[]"), port, nil
}

func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

func durationOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
