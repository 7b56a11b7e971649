package agentsim

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/hostops"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
)

// MaxUpload bounds one uploaded file (a static fabricctl is ~20 MB).
const MaxUpload = 256 << 20

// file is one file the double holds: an uploaded one keeps its bytes; a
// preinstalled one only its hash (500 copies of a 20 MB binary would be the
// double's memory, not the controller's).
type file struct {
	sha256 string
	mode   uint32
	data   []byte
}

// Server is one simulated host: an SSH server on 127.0.0.1 whose exec
// requests are served in-process, as a host with fabricctl installed would
// serve them. It is safe for concurrent use.
type Server struct {
	// Name is the host's fabric name; Address and Port where it listens.
	Name    string
	Address string
	Port    int
	// HostKey is the server's public host key (known_hosts lists it).
	HostKey ssh.PublicKey
	// Host is the fake host state the agent reads and writes.
	Host *hostcfg.Host
	// StateDir is where the agent journals applies (each server has its
	// own; the --state-dir the controller names is relative to a home the
	// simulated host does not have).
	StateDir string

	cfg    *ssh.ServerConfig
	ln     net.Listener
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	files map[string]file
	conns map[*ssh.ServerConn]struct{}
	execs map[string]int
	// agentMu runs one agent at a time: the Handler closes its Host when the
	// session ends, and the fake host is one machine.
	agentMu sync.Mutex
}

// newServer listens on addr (a loopback address, a free port) with a fresh
// ed25519 host key and accepts only the client key authorized.
func newServer(parent context.Context, name, addr string, host *hostcfg.Host, authorized ssh.PublicKey) (*Server, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the host key of %s: %w", name, err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return nil, fmt.Errorf("generating the host key of %s: %w", name, err)
	}
	want := authorized.Marshal()
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
			if string(k.Marshal()) != string(want) {
				return nil, errors.New("public key not authorized")
			}
			return &ssh.Permissions{}, nil
		},
	}
	cfg.AddHostKey(signer)
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		return nil, fmt.Errorf("listening for %s: %w", name, err)
	}
	ctx, cancel := context.WithCancel(parent)
	s := &Server{Name: name, Address: addr, Port: ln.Addr().(*net.TCPAddr).Port, HostKey: signer.PublicKey(), Host: host,
		cfg: cfg, ln: ln, ctx: ctx, cancel: cancel,
		files: map[string]file{}, conns: map[*ssh.ServerConn]struct{}{}, execs: map[string]int{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Install puts an agent with the given sha256 at path, as if it had been
// delivered before (only the hash is kept).
func (s *Server) Install(path, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = file{sha256: sha, mode: 0o755}
}

// File returns the bytes uploaded to path and whether there were any.
func (s *Server) File(path string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[path]
	return f.data, ok && f.data != nil
}

// Execs counts the commands run so far by kind: "version", "uname",
// "upload", "agent", "refused".
func (s *Server) Execs(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.execs[kind]
}

// Close stops listening and drops every connection.
func (s *Server) Close() error {
	s.cancel()
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(nc)
		}()
	}
}

func (s *Server) serveConn(nc net.Conn) {
	sc, chans, reqs, err := ssh.NewServerConn(nc, s.cfg)
	if err != nil {
		nc.Close()
		return
	}
	s.mu.Lock()
	s.conns[sc] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, sc)
		s.mu.Unlock()
		sc.Close()
	}()
	go ssh.DiscardRequests(reqs) // keepalive@openssh.com gets "false", as from sshd
	var wg sync.WaitGroup
	for nch := range chans {
		if nch.ChannelType() != "session" {
			nch.Reject(ssh.UnknownChannelType, "only session channels are served")
			continue
		}
		ch, creqs, err := nch.Accept()
		if err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.session(ch, creqs)
		}()
	}
	wg.Wait()
}

// session serves one channel: env is accepted and ignored, one exec runs,
// a signal cancels it (sshd's SIGHUP/SIGKILL), and the exit status is sent.
func (s *Server) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	cmds := make(chan string, 1)
	go func() {
		started := false
		for req := range reqs {
			ok := false
			switch req.Type {
			case "exec":
				var p struct{ Command string }
				if !started && ssh.Unmarshal(req.Payload, &p) == nil {
					started, ok = true, true
					cmds <- p.Command
				}
			case "signal":
				cancel()
				ok = true
			case "env":
				ok = true
			}
			if req.WantReply {
				req.Reply(ok, nil)
			}
		}
		cancel() // the client closed the channel
	}()
	var line string
	select {
	case line = <-cmds:
	case <-ctx.Done():
		return
	}
	status := s.exec(ctx, line, ch, ch, ch.Stderr())
	ch.CloseWrite()
	ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
}

func (s *Server) count(kind string) {
	s.mu.Lock()
	s.execs[kind]++
	s.mu.Unlock()
}

// versionReply is what `fabricctl version -o json` prints.
type versionReply struct {
	APIVersion string `json:"apiVersion"`
	Version    string `json:"version"`
	Revision   string `json:"revision"`
	SHA256     string `json:"sha256"`
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
}

var machineOf = map[string]string{"amd64": "x86_64", "arm64": "aarch64"}

// exec runs one command line and returns its exit status. It serves exactly
// what the controller sends; anything else exits 127 like an unknown command.
func (s *Server) exec(ctx context.Context, line string, stdin io.Reader, stdout, stderr io.Writer) uint32 {
	argv, err := SplitWords(line)
	if err != nil {
		s.count("refused")
		fmt.Fprintf(stderr, "sh: %v\n", err)
		return 2
	}
	switch {
	case len(argv) == 4 && argv[1] == "version" && argv[2] == "-o" && argv[3] == "json":
		s.count("version")
		f, ok := s.installed(argv[0])
		if !ok {
			fmt.Fprintf(stderr, "sh: 1: %s: not found\n", argv[0])
			return 127
		}
		json.NewEncoder(stdout).Encode(versionReply{APIVersion: fabric.APIVersion, Version: "agentsim",
			Revision: "agentsim", SHA256: f.sha256, GOOS: "linux", GOARCH: runtime.GOARCH})
		return 0
	case len(argv) == 2 && argv[0] == "uname" && argv[1] == "-m":
		s.count("uname")
		fmt.Fprintln(stdout, machineOf[runtime.GOARCH])
		return 0
	case len(argv) == 6 && argv[0] == "sh" && argv[1] == "-c" && argv[3] == "fabricctl-upload":
		// remote.Upload's script: mkdir -p, temp file, cat, chmod, rename.
		// Its effect is an atomic replacement of $1 with stdin, mode $2.
		s.count("upload")
		return s.upload(argv[4], argv[5], stdin, stderr)
	case len(argv) == 2 && argv[1] == "agent",
		len(argv) == 4 && argv[1] == "agent" && argv[2] == "--state-dir":
		s.count("agent")
		return s.agent(ctx, argv[0], stdin, stdout, stderr)
	}
	s.count("refused")
	fmt.Fprintf(stderr, "sh: 1: %s: not found (agentsim serves only what the controller sends)\n", argv[0])
	return 127
}

func (s *Server) installed(path string) (file, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[path]
	return f, ok
}

func (s *Server) upload(path, mode string, stdin io.Reader, stderr io.Writer) uint32 {
	m, err := strconv.ParseUint(mode, 8, 32)
	if err != nil || path == "" {
		fmt.Fprintf(stderr, "chmod: invalid mode: %q\n", mode)
		return 1
	}
	data, err := io.ReadAll(io.LimitReader(stdin, MaxUpload+1))
	if err != nil {
		fmt.Fprintf(stderr, "cat: %v\n", err)
		return 1
	}
	if len(data) > MaxUpload {
		fmt.Fprintf(stderr, "cat: write error: No space left on device\n")
		return 1
	}
	sum := sha256.Sum256(data)
	s.mu.Lock()
	s.files[path] = file{sha256: hex.EncodeToString(sum[:]), mode: uint32(m), data: data}
	s.mu.Unlock()
	return 0
}

func (s *Server) agent(ctx context.Context, path string, stdin io.Reader, stdout, stderr io.Writer) uint32 {
	f, ok := s.installed(path)
	if !ok {
		fmt.Fprintf(stderr, "sh: 1: %s: not found\n", path)
		return 127
	}
	s.agentMu.Lock()
	defer s.agentMu.Unlock()
	h := &agent.Handler{
		Info: agent.Hello{Version: "agentsim", Revision: "agentsim", SHA256: f.sha256, GOOS: "linux",
			GOARCH: runtime.GOARCH, Hostname: s.Name, Kernel: "agentsim"},
	}
	ops := &hostops.Ops{Open: func(context.Context) (*hostcfg.Host, error) { return s.Host, nil }}
	if s.StateDir != "" {
		ops.Journal, _ = journal.Open(s.StateDir) // Open fails only on an empty path
	}
	ops.Register(h)
	failed, err := h.Serve(ctx, stdin, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "fabricctl: %v\n", err)
		return 1
	}
	if failed > 0 {
		return 1
	}
	return 0
}
