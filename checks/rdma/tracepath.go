package rdma

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/checks"
)

// OpTracePath traces the path a RoCE v2 flow with a given UDP source port
// takes to a peer: TraceArgs → Traced. It runs
//
//	traceroute -n -U -p 4791 --sport=S -q 1 -w 1 -N 1 -m M [-s SRC] DST
//
// (Debian's traceroute package), Repeat times in a row, each bounded in
// time, through exec without a shell, and says whether the kernel routes
// DST on the source's own link (/proc/net/route): then no switch routes
// between them and no hop can show the path. docs/agent-protocol.md.
const OpTracePath = "trace-path"

// RoCEv2Port is RoCE v2's UDP destination port (IANA; ROCE_V2_UDP_DPORT in
// include/rdma/ib_verbs.h): the probes carry it so that the switches hash
// them as they hash the test's packets.
const RoCEv2Port = 4791

// Bounds of OpTracePath's arguments.
const (
	DefaultTraceHops = 8
	MaxTraceHops     = 16
	MaxTraceRepeat   = 3
)

// TraceArgs are the arguments of OpTracePath.
type TraceArgs struct {
	// Dest is the peer's RoCE address (the IP of its RoCE v2 GID), a literal.
	Dest string `json:"dest"`
	// Source is the local address to send from (this host's RoCE v2 GID's),
	// a literal; "" lets the kernel choose.
	Source string `json:"source,omitempty"`
	// SourcePort is the UDP source port of the probes, in RoCE v2's range
	// 49152..65535 (UDPSourcePort of the test's flow label).
	SourcePort int `json:"sourcePort"`
	// MaxHops is traceroute's -m, 1..16 (0: 8).
	MaxHops int `json:"maxHops,omitempty"`
	// Repeat traces the same 5-tuple this many times, 1..3 (0: 1): two
	// traces that differ mean the fabric's ECMP is not deterministic for it.
	Repeat int `json:"repeat,omitempty"`
}

// Traced is the reply of OpTracePath.
type Traced struct {
	Argv []string `json:"argv"`
	// Traces are the runs' readings, in order.
	Traces []Trace `json:"traces,omitempty"`
	// OnLink is whether the kernel routes Dest without a gateway
	// (/proc/net/route); nil when it could not tell (an IPv6 peer, no
	// readable table).
	OnLink *bool `json:"onLink,omitempty"`
	// Class and Error say why nothing was traced (no traceroute, its
	// failure); Stderr is the end of what it printed there.
	Class  checks.FailureClass `json:"class,omitempty"`
	Error  string              `json:"error,omitempty"`
	Stderr string              `json:"stderr,omitempty"`
}

// traceWait is each probe's wait (-w) and traceStart what a run may take
// beyond its probes.
const (
	traceWait  = time.Second
	traceStart = 5 * time.Second
)

// traceArgv is the command line of a trace; argument errors wrap ErrBadArgs.
func traceArgv(a TraceArgs) ([]string, error) {
	dst, err := netip.ParseAddr(a.Dest)
	if err != nil || dst.Zone() != "" || dst.IsUnspecified() || dst.IsMulticast() {
		return nil, fmt.Errorf("%w: dest %q is not a unicast IP address", ErrBadArgs, clip(a.Dest))
	}
	if a.SourcePort < 0xC000 || a.SourcePort > 0xFFFF {
		return nil, fmt.Errorf("%w: sourcePort %d is outside RoCE v2's 49152..65535", ErrBadArgs, a.SourcePort)
	}
	hops := a.MaxHops
	if hops == 0 {
		hops = DefaultTraceHops
	}
	if hops < 1 || hops > MaxTraceHops {
		return nil, fmt.Errorf("%w: maxHops %d is outside 1..%d", ErrBadArgs, a.MaxHops, MaxTraceHops)
	}
	if a.Repeat < 0 || a.Repeat > MaxTraceRepeat {
		return nil, fmt.Errorf("%w: repeat %d is outside 1..%d", ErrBadArgs, a.Repeat, MaxTraceRepeat)
	}
	argv := []string{"traceroute", "-n", "-U", "-p", strconv.Itoa(RoCEv2Port), "--sport=" + strconv.Itoa(a.SourcePort),
		"-q", "1", "-w", strconv.Itoa(int(traceWait / time.Second)), "-N", "1", "-m", strconv.Itoa(hops)}
	if a.Source != "" {
		src, err := netip.ParseAddr(a.Source)
		if err != nil || src.Zone() != "" || src.Is4() != dst.Is4() || src.IsUnspecified() || src.IsMulticast() {
			return nil, fmt.Errorf("%w: source %q is not a unicast IP address of dest's family", ErrBadArgs, clip(a.Source))
		}
		argv = append(argv, "-s", src.String())
	}
	if dst.Is6() {
		argv = append(argv, "-6")
	}
	return append(argv, dst.String()), nil
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// registerTracePath adds OpTracePath to h (Register).
func (a *Agent) registerTracePath(h *agent.Handler) {
	h.Register(OpTracePath, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var args TraceArgs
		if err := agent.DecodeArgs(raw, &args); err != nil {
			return nil, err
		}
		out, err := a.TracePath(ctx, args)
		return out, badArgs(err)
	})
}

// ErrNoTraceroute: the host has no traceroute binary (Debian's
// traceroute package; inetutils' and busybox's lack --sport).
var ErrNoTraceroute = errors.New("traceroute not found (install traceroute)")

// TracePath runs OpTracePath. Failures to trace come back in Traced
// (Class, Error); errors are for malformed arguments.
func (a *Agent) TracePath(ctx context.Context, args TraceArgs) (Traced, error) {
	argv, err := traceArgv(args)
	if err != nil {
		return Traced{}, fmt.Errorf("tracing a path: %w", err)
	}
	out := Traced{Argv: argv}
	if on, ok := a.onLink(netip.MustParseAddr(argv[len(argv)-1])); ok {
		out.OnLink = &on
	}
	hops, _ := strconv.Atoi(argv[slices.Index(argv, "-m")+1])
	bound := time.Duration(hops)*traceWait + traceStart
	for range max(args.Repeat, 1) {
		cctx, cancel := context.WithTimeout(ctx, bound)
		b, stderr, err := a.runTrace(cctx, argv)
		cancel()
		out.Stderr = tail(stderr, 4<<10)
		tr, perr := ParseTraceroute(b)
		if perr == nil {
			out.Traces = append(out.Traces, tr)
		}
		switch {
		case errors.Is(err, ErrNoTraceroute):
			out.Class, out.Error = checks.MissingTool, err.Error()
			return out, nil
		case err != nil:
			out.Class, out.Error = checks.ArgumentError, fmt.Sprintf("running %s: %v", strings.Join(argv, " "), err)
			return out, nil
		case perr != nil:
			out.Class, out.Error = checks.ArgumentError, fmt.Sprintf("reading %s output: %v", argv[0], perr)
			return out, nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	return out, nil
}

// runTrace runs argv (RunTool in tests) and returns its stdout, its
// stderr and why it failed: ErrNoTraceroute, its exit status or the end
// of its time.
func (a *Agent) runTrace(ctx context.Context, argv []string) (stdout, stderr []byte, err error) {
	if a.RunTool != nil {
		b, err := a.RunTool(ctx, argv)
		return b, nil, err
	}
	look := a.LookPath
	if look == nil {
		look = exec.LookPath
	}
	path, err := look(argv[0])
	if err != nil {
		path = ""
		for _, dir := range sbinDirs {
			if p := dir + "/" + argv[0]; isExecutable(p) {
				path = p
				break
			}
		}
		if path == "" {
			return nil, nil, ErrNoTraceroute
		}
	}
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("stopped after %s: %w", context.Cause(ctx), ctx.Err())
	}
	return o.Bytes(), e.Bytes(), err
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

// onLink reads the IPv4 routing table for dst.
func (a *Agent) onLink(dst netip.Addr) (bool, bool) {
	if !dst.Is4() {
		return false, false
	}
	b, err := os.ReadFile(filepath.Join(a.procRoot(), "net", "route"))
	if err != nil {
		return false, false
	}
	routes, err := ParseProcNetRoute(b)
	if err != nil {
		return false, false
	}
	return OnLink(routes, dst)
}

// Route is one line of /proc/net/route (the main IPv4 table).
type Route struct {
	Iface   string       `json:"iface"`
	Dest    netip.Prefix `json:"dest"`
	Gateway netip.Addr   `json:"gateway"` // 0.0.0.0: on the link
	Flags   uint32       `json:"flags"`
	Metric  int          `json:"metric"`
}

// rtfUp is RTF_UP (include/uapi/linux/route.h): the route is usable.
const rtfUp = 0x1

// ParseProcNetRoute reads /proc/net/route: a header line, then one route
// a line, its addresses and mask as the kernel prints them (8 hex digits,
// in host byte order: little-endian on x86 and arm64). Lines that are not
// a route are an error: the file has one format.
func ParseProcNetRoute(b []byte) ([]Route, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var out []Route
	first := true
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if first {
			first = false
			if f[0] != "Iface" {
				return nil, errors.New("not /proc/net/route: no Iface header")
			}
			continue
		}
		if len(f) < 8 {
			return nil, fmt.Errorf("reading /proc/net/route: %q has %d fields, want 11", clip(sc.Text()), len(f))
		}
		dst, e1 := hexAddr(f[1])
		gw, e2 := hexAddr(f[2])
		flags, e3 := strconv.ParseUint(f[3], 16, 32)
		metric, e4 := strconv.Atoi(f[6])
		mask, e5 := hexAddr(f[7])
		if err := errors.Join(e1, e2, e3, e4, e5); err != nil {
			return nil, fmt.Errorf("reading /proc/net/route line %q: %w", clip(sc.Text()), err)
		}
		bits, ok := maskBits(mask)
		if !ok {
			return nil, fmt.Errorf("reading /proc/net/route: mask %s is not contiguous", mask)
		}
		out = append(out, Route{Iface: f[0], Dest: netip.PrefixFrom(dst, bits).Masked(), Gateway: gw, Flags: uint32(flags), Metric: metric})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading /proc/net/route: %w", err)
	}
	if first {
		return nil, errors.New("not /proc/net/route: empty")
	}
	return out, nil
}

// hexAddr reads "0101010A" (10.1.1.1 stored little-endian).
func hexAddr(s string) (netip.Addr, error) {
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil || len(s) != 8 {
		return netip.Addr{}, fmt.Errorf("%q is not 8 hex digits", clip(s))
	}
	return netip.AddrFrom4([4]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}), nil
}

func maskBits(m netip.Addr) (int, bool) {
	b := m.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	n := 0
	for v&0x80000000 != 0 {
		n++
		v <<= 1
	}
	return n, v == 0
}

// OnLink picks the route the kernel's main table gives dst (the longest
// usable prefix, then the lowest metric) and reports whether it has no
// gateway: dst is then on the source's own link. ok is false when no
// route matches. Policy routing (other tables, ip rule) is not read.
func OnLink(routes []Route, dst netip.Addr) (onLink, ok bool) {
	best := -1
	for i, r := range routes {
		if r.Flags&rtfUp == 0 || !r.Dest.Contains(dst) {
			continue
		}
		if best < 0 || r.Dest.Bits() > routes[best].Dest.Bits() ||
			r.Dest.Bits() == routes[best].Dest.Bits() && r.Metric < routes[best].Metric {
			best = i
		}
	}
	if best < 0 {
		return false, false
	}
	return !routes[best].Gateway.IsValid() || routes[best].Gateway.IsUnspecified(), true
}
