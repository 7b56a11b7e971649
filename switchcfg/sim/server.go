package sim

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"github.com/fabricctl/fabricctl/fabric"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Banner is the first line every simulator prints at login, so nobody mistakes
// it for a switch.
const Banner = "*** fabricctl switch SIMULATOR (test double, not a real switch) ***"

// ErrUnknownPlatform: Options.Platform names no simulated platform.
var ErrUnknownPlatform = errors.New("unknown simulator platform")

// Platforms returns the platform names the simulator speaks, sorted.
func Platforms() []string {
	names := make([]string, 0, len(platforms))
	for n := range platforms {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// platforms are the simulated operating systems by platform name (the
// names of the switch drivers' Info: switchcfg/all's test holds the two
// lists equal): how to build a fresh device, and the hostname of a fresh
// install.
var platforms = map[string]struct {
	new      func(env *env) device
	hostname string
}{
	"cumulus-nvue": {newNVUE, "leaf01"},
	"sonic":        {newSONiC, "sonic"},
	"arista-eos":   {newEOS, "leaf01"},
	"cisco-nxos":   {newNXOS, "leaf01"},
	"junos":        {newJunos, "leaf01"},
}

// Options configure one simulated switch.
type Options struct {
	// Platform is the fabric platform name: cumulus-nvue, sonic, arista-eos,
	// cisco-nxos or junos.
	Platform string
	// Model is the hardware family where the NOS's commands differ by
	// hardware (arista-eos: "strata", the default, or "sand"; junos: a QFX
	// model; sonic: the ASIC vendor); the device then refuses what that
	// hardware refuses.
	Model string
	// Hostname appears in prompts and read-backs; empty means "leaf01"
	// ("sonic" for SONiC, like a fresh install).
	Hostname string
	// User is the only login accepted; empty means the platform's default
	// account (cumulus, admin).
	User string
	// Password enables password (and keyboard-interactive) authentication.
	Password string
	// AuthorizedKeys enables public-key authentication for these keys.
	AuthorizedKeys []ssh.PublicKey
	// HostKey is the server's key; nil generates a fresh ed25519 key.
	HostKey ssh.Signer
	// Faults start armed (see SetFaults).
	Faults Faults
	// Now is the clock used for timestamps in read-backs; nil means time.Now.
	Now func() time.Time
	// Neighbors is the LLDP neighbour table the switch reports (lldp.go);
	// nil reports none. It is called once per LLDP command.
	Neighbors func() ([]fabric.Neighbor, error)
	// Counters are the ports' receive error counters the switch reports
	// (counters.go; PortCounters.Read is one); nil reports no port. It is
	// called once per counter command.
	Counters func() ([]PortErrors, error)
	// Congestion are the ports' congestion counters the switch reports
	// (congestion.go; Congestion.Read is one): PFC frames per priority,
	// ECN marks and drops per queue; nil reports no port. It is called
	// once per congestion counter command.
	Congestion func() ([]PortCongestion, error)
}

// Faults inject failures on demand. Drop and stall faults fire once and then
// disarm; Reject and Delay stay until the next SetFaults.
type Faults struct {
	// DropAfter > 0 closes the connection, without executing it, when the
	// (DropAfter+1)-th command since SetFaults arrives.
	DropAfter int
	// DropOn closes the connection, without executing it, when a command
	// equal to this text (surrounding spaces ignored) arrives.
	DropOn string
	// LoseReplyOn executes a command equal to this text (surrounding
	// spaces ignored), then closes the connection before the reply is
	// sent: the device changed, the client never hears so.
	LoseReplyOn string
	// Reject answers a command or configuration line equal to this text
	// (surrounding spaces ignored) with the platform's invalid-input error.
	Reject string
	// StallOn never answers a command containing this text: the prompt never
	// comes, the connection stays open.
	StallOn string
	// Delay holds back every reply this long.
	Delay time.Duration
}

// Stats count what the simulated device did; tests assert on them (e.g. that
// pushing an unchanged intent committed nothing).
type Stats struct {
	// Commits counts commits that changed the running configuration
	// (including confirmed commits; on NX-OS, which has no commit, leaving
	// configuration mode after a change).
	Commits int
	// ConfirmedCommits counts commits with an automatic rollback timer.
	ConfirmedCommits int
	// Confirms counts confirmations of a confirmed commit.
	Confirms int
	// AutoRollbacks counts rollbacks by an expired confirm timer.
	AutoRollbacks int
	// Rollbacks counts explicit rollbacks to a checkpoint (NX-OS, SONiC) or an
	// earlier revision.
	Rollbacks int
	// Aborts counts discarded candidates (EOS abort, NVUE detach, Junos rollback 0).
	Aborts int
	// Saves counts saves to the startup configuration.
	Saves int
	// Connections counts SSH sessions that reached the shell.
	Connections int
}

// Server is one simulated switch: an SSH server whose shell behaves like the
// platform's CLI. All methods are safe for concurrent use.
type Server struct {
	platform string
	user     string
	password string
	keys     []ssh.PublicKey
	signer   ssh.Signer

	mu       sync.Mutex // guards everything below and the device
	dev      device
	env      *env
	faults   Faults
	counted  int // commands since SetFaults
	commands []string
	ln       net.Listener
	conns    map[net.Conn]struct{}
	closed   bool
	wg       sync.WaitGroup
}

// New builds a simulated switch; it listens once Listen or Serve is called.
func New(opt Options) (*Server, error) {
	p, ok := platforms[opt.Platform]
	if !ok {
		return nil, fmt.Errorf("%w %q (valid: %s)", ErrUnknownPlatform, opt.Platform, strings.Join(Platforms(), ", "))
	}
	if opt.Password == "" && len(opt.AuthorizedKeys) == 0 {
		return nil, errors.New("building simulator: give a password or authorized keys")
	}
	signer := opt.HostKey
	if signer == nil {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generating host key: %w", err)
		}
		if signer, err = ssh.NewSignerFromKey(priv); err != nil {
			return nil, fmt.Errorf("generating host key: %w", err)
		}
	}
	s := &Server{platform: opt.Platform, password: opt.Password, keys: opt.AuthorizedKeys,
		signer: signer, faults: opt.Faults, conns: map[net.Conn]struct{}{}}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	host := opt.Hostname
	if host == "" {
		host = p.hostname
	}
	s.env = &env{server: s, now: now, hostname: host, model: opt.Model, lldp: opt.Neighbors, counters: opt.Counters,
		congestion: opt.Congestion}
	s.dev = p.new(s.env)
	s.user = opt.User
	if s.user == "" {
		s.user = s.dev.defaultUser()
	}
	return s, nil
}

// Platform returns the simulated platform's name.
func (s *Server) Platform() string { return s.platform }

// User returns the login name the simulator accepts.
func (s *Server) User() string { return s.user }

// HostKey returns the server's public host key.
func (s *Server) HostKey() ssh.PublicKey { return s.signer.PublicKey() }

// Listen starts serving on addr (e.g. "127.0.0.1:0") in the background.
func (s *Server) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.Serve(ln)
	}()
	return nil
}

// Addr returns the listening address ("" before Listen/Serve).
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// KnownHostsLine returns the known_hosts line for the listening address
// ("[127.0.0.1]:40123 ssh-ed25519 AAAA...").
func (s *Server) KnownHostsLine() string {
	return knownhosts.Line([]string{knownhosts.Normalize(s.Addr())}, s.HostKey())
}

// WriteKnownHosts appends KnownHostsLine to the file at path, creating it.
func (s *Server) WriteKnownHosts(path string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("writing known_hosts: %w", err)
	}
	if _, err := fmt.Fprintln(f, s.KnownHostsLine()); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing known_hosts: %w", err)
	}
	return f.Close()
}

// Serve accepts connections on ln until Close; it returns nil after Close.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	cfg := &ssh.ServerConfig{ServerVersion: "SSH-2.0-fabricctl-switch-simulator"}
	if s.password != "" {
		cfg.PasswordCallback = func(c ssh.ConnMetadata, pw []byte) (*ssh.Permissions, error) {
			if c.User() == s.user && subtle.ConstantTimeCompare(pw, []byte(s.password)) == 1 {
				return nil, nil
			}
			return nil, errors.New("wrong user or password")
		}
		cfg.KeyboardInteractiveCallback = func(c ssh.ConnMetadata, ask ssh.KeyboardInteractiveChallenge) (*ssh.Permissions, error) {
			ans, err := ask(c.User(), "", []string{"Password: "}, []bool{false})
			if err != nil || len(ans) != 1 {
				return nil, errors.New("no answer")
			}
			if c.User() == s.user && subtle.ConstantTimeCompare([]byte(ans[0]), []byte(s.password)) == 1 {
				return nil, nil
			}
			return nil, errors.New("wrong user or password")
		}
	}
	if len(s.keys) > 0 {
		cfg.PublicKeyCallback = func(c ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
			if c.User() != s.user {
				return nil, errors.New("wrong user")
			}
			for _, ak := range s.keys {
				if subtle.ConstantTimeCompare(ak.Marshal(), k.Marshal()) == 1 {
					return nil, nil
				}
			}
			return nil, errors.New("key not authorized")
		}
	}
	cfg.AddHostKey(s.signer)
	for {
		nc, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			return fmt.Errorf("accepting: %w", err)
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = nc.Close()
			return nil
		}
		s.conns[nc] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.handleConn(nc, cfg)
			s.mu.Lock()
			delete(s.conns, nc)
			s.mu.Unlock()
		}()
	}
}

// Close stops listening, drops every connection, stops confirm timers and
// waits for the connection handlers to finish.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	var err error
	if s.ln != nil {
		err = s.ln.Close()
	}
	for c := range s.conns {
		_ = c.Close()
	}
	s.env.stopTimer()
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// SetFaults replaces the armed faults and restarts the DropAfter count.
func (s *Server) SetFaults(f Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f
	s.counted = 0
}

// Stats returns the device's counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.env.stats
}

// Commands returns every command line the simulator received, in order,
// across connections (on-open commands included).
func (s *Server) Commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.commands...)
}

// Running returns the running configuration exactly as the platform's main
// read-back command prints it (nv config show -o json, show
// runningconfiguration all, show running-config, show configuration
// class-of-service | display set).
func (s *Server) Running() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dev.readback()
}

// Apply changes the running configuration directly, bypassing sessions and
// transactions (an operator's out-of-band edit, to create drift). Lines use
// the platform's own syntax: NVUE "nv set"/"nv unset" lines, one SONiC JSON
// patch document, EOS/NX-OS configuration lines as typed after "configure
// terminal", Junos "set"/"delete" statements.
func (s *Server) Apply(lines ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.dev.apply(lines); err != nil {
		return fmt.Errorf("applying to simulated %s: %w", s.platform, err)
	}
	return nil
}

// ExpireConfirm fires a pending confirmed-commit timer now, as if the confirm
// window had passed: the device rolls back. It reports whether one was pending.
func (s *Server) ExpireConfirm() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.env.fireTimer()
}

// ConfirmPending reports whether a confirmed commit awaits confirmation.
func (s *Server) ConfirmPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.env.timer != nil
}

func (s *Server) handleConn(nc net.Conn, cfg *ssh.ServerConfig) {
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(30 * time.Second))
	sc, chans, reqs, err := ssh.NewServerConn(nc, cfg)
	if err != nil {
		return
	}
	_ = nc.SetDeadline(time.Time{})
	defer sc.Close()
	go ssh.DiscardRequests(reqs)
	for nch := range chans {
		if nch.ChannelType() != "session" {
			_ = nch.Reject(ssh.UnknownChannelType, "only session channels")
			continue
		}
		ch, creqs, err := nch.Accept()
		if err != nil {
			return
		}
		go s.handleSession(sc, ch, creqs)
	}
}

// handleSession serves one session channel: a pty shell or one exec command.
func (s *Server) handleSession(sc *ssh.ServerConn, ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	for req := range reqs {
		switch req.Type {
		case "pty-req", "env", "window-change":
			_ = req.Reply(true, nil)
		case "shell":
			_ = req.Reply(true, nil)
			go ssh.DiscardRequests(reqs)
			s.runShell(sc, ch)
			return
		case "exec":
			var p struct{ Command string }
			if err := ssh.Unmarshal(req.Payload, &p); err != nil {
				_ = req.Reply(false, nil)
				continue
			}
			_ = req.Reply(true, nil)
			go ssh.DiscardRequests(reqs)
			s.runExec(sc, ch, p.Command)
			return
		default:
			_ = req.Reply(false, nil)
		}
	}
}

func (s *Server) runExec(sc *ssh.ServerConn, ch ssh.Channel, command string) {
	s.mu.Lock()
	sh := s.dev.newShell(sc.User())
	s.commands = append(s.commands, command)
	r := sh.exec(command)
	s.mu.Unlock()
	_, _ = io.WriteString(ch, crlf(r.out))
	status := 0
	if r.failed {
		status = 1
	}
	_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(status)}))
}

// faultFor decides what to do with an arriving command: "" (execute), "drop",
// "lose" (execute, then drop), "stall" or "reject". It also returns the
// delay to apply.
func (s *Server) faultFor(line string) (string, time.Duration) {
	f := &s.faults
	s.counted++
	switch {
	case f.DropAfter > 0 && s.counted > f.DropAfter:
		f.DropAfter = 0
		return "drop", 0
	case f.DropOn != "" && strings.TrimSpace(line) == strings.TrimSpace(f.DropOn):
		f.DropOn = ""
		return "drop", 0
	case f.LoseReplyOn != "" && strings.TrimSpace(line) == strings.TrimSpace(f.LoseReplyOn):
		f.LoseReplyOn = ""
		return "lose", 0
	case f.StallOn != "" && strings.Contains(line, f.StallOn):
		f.StallOn = ""
		return "stall", 0
	case f.Reject != "" && strings.TrimSpace(line) == strings.TrimSpace(f.Reject):
		return "reject", f.Delay
	}
	return "", f.Delay
}

func (s *Server) runShell(sc *ssh.ServerConn, ch ssh.Channel) {
	s.mu.Lock()
	s.env.stats.Connections++
	sh := s.dev.newShell(sc.User())
	greeting := Banner + "\n" + s.dev.banner() + sh.prompt()
	s.mu.Unlock()
	if _, err := io.WriteString(ch, crlf(greeting)); err != nil {
		return
	}
	term := &lineReader{r: ch, echo: ch}
	for {
		line, eof, err := term.readLine()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.commands = append(s.commands, line)
		fault, delay := s.faultFor(line)
		var out string
		exit := false
		switch fault {
		case "drop":
			s.mu.Unlock()
			_ = sc.Close()
			return
		case "stall":
			s.mu.Unlock()
			_ = sc.Wait()
			return
		case "reject":
			out = sh.reject(line)
		case "lose":
			if eof {
				sh.eof(line)
			} else {
				sh.exec(line)
			}
			s.mu.Unlock()
			_ = sc.Close()
			return
		default:
			var r reply
			if eof {
				r = sh.eof(line)
			} else {
				r = sh.exec(line)
			}
			out, exit = r.out, r.exit
		}
		prompt := ""
		if !exit {
			prompt = sh.prompt()
		}
		s.mu.Unlock()
		if delay > 0 {
			time.Sleep(delay)
		}
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if _, err := io.WriteString(ch, crlf("\n"+out+prompt)); err != nil || exit {
			return
		}
	}
}

// crlf turns "\n" into "\r\n" like a terminal with onlcr.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// lineReader is the terminal's line discipline: it echoes what it reads and
// returns complete lines (CR, LF or CRLF end a line; ^D ends one too).
type lineReader struct {
	r      io.Reader
	echo   io.Writer
	buf    []byte
	pend   []byte
	lastCR bool
}

func (t *lineReader) readLine() (line string, eof bool, err error) {
	for {
		for len(t.pend) > 0 {
			b := t.pend[0]
			t.pend = t.pend[1:]
			wasCR := t.lastCR
			t.lastCR = b == '\r'
			switch {
			case b == '\n' && wasCR:
				continue
			case b == '\r' || b == '\n':
				l := string(t.buf)
				t.buf = t.buf[:0]
				return l, false, nil
			case b == 0x04:
				l := string(t.buf)
				t.buf = t.buf[:0]
				return l, true, nil
			case b == 0x7f || b == 0x08:
				if len(t.buf) > 0 {
					t.buf = t.buf[:len(t.buf)-1]
					_, _ = t.echo.Write([]byte("\b \b"))
				}
			case b == 0x03:
				t.buf = t.buf[:0]
				_, _ = t.echo.Write([]byte("^C"))
				return "", false, nil
			case b == '\t' || b >= 0x20:
				t.buf = append(t.buf, b)
				if _, err := t.echo.Write([]byte{b}); err != nil {
					return "", false, err
				}
			}
		}
		chunk := make([]byte, 4096)
		n, err := t.r.Read(chunk)
		if n > 0 {
			t.pend = append(t.pend, chunk[:n]...)
			continue
		}
		if err != nil {
			return "", false, err
		}
	}
}
