package nccl

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// maxLine bounds one log line; NCCL's longest (a 34-port NET/IB list, a
// topology dump) is a few KiB.
const maxLine = 1 << 20

// Sentinels for errors.Is.
var (
	// ErrNoNCCL: a log holds no NCCL_DEBUG=INFO line and no nccl-tests output.
	ErrNoNCCL = errors.New("no NCCL output found")
)

// Source is one log to analyse.
type Source struct {
	Name string // shown in findings as "Name:line"
	R    io.Reader
}

// Options tunes what counts as a finding.
type Options struct {
	// AllowSocket accepts the socket transport (a fabric without RDMA):
	// socket-fallback and no-ib-device are then not reported.
	AllowSocket bool
	// Interfaces, when set, are the only interfaces NCCL should use for its
	// bootstrap, OOB and sockets; others are unexpected-interface. Loopback
	// and container overlays are unexpected in any case.
	Interfaces []string
	// HCAs, when set, are the only RDMA devices NET/IB should use.
	HCAs []string
}

var (
	// versionRe: NCCL's banner and RCCL's ("RCCL version 2.18.3+hip5.5",
	// "RCCL version : 2.21.5-HEAD:9a0e6a1").
	versionRe    = regexp.MustCompile(`^\s*(NCCL|RCCL) version\s*:?\s*(\S+)`)
	cudaDriverRe = regexp.MustCompile(`^cudaDriverVersion (\d+)`)
	bootstrapRe  = regexp.MustCompile(`^Bootstrap\s*: Using (.*)$`)
	noIBRe       = regexp.MustCompile(`^NET/IB\s*: No device found`)
	// noVerbsRe: NCCL could not load libibverbs, so NET/IB has no device.
	noVerbsRe     = regexp.MustCompile(`^Failed to open libibverbs\.so`)
	netIBRe       = regexp.MustCompile(`^NET/IB\s*: Using (\[.*)$`)
	netIBOldRe    = regexp.MustCompile(`^NET/IB\s*:\s*(\[\d+\]\s*\S+:\d+/(?:IB|RoCE).*)$`)             // NCCL 2.3: "NET/IB: [0] mlx5_0:1/IB"
	sidebandRe    = regexp.MustCompile(`^NET/IB\s*: Using interface (\S+) for sideband communication`) // NCCL 2.3
	netIfaceOldRe = regexp.MustCompile(`^NET : Using interface (\S+)`)                                 // NCCL 2.3 bootstrap/socket
	netSocketRe   = regexp.MustCompile(`^NET/(\w+)\s*: Using (\[\d+\].*)$`)
	networkRe     = regexp.MustCompile(`^Using (?:internal )?[Nn]etwork (.+?)\s*$`)
	envRe         = regexp.MustCompile(`^(NCCL_\w+) set (?:by environment )?to (.*?)\.?\s*$`)
	commRe        = regexp.MustCompile(`^(?:ncclCommInitRank\w* )?comm \S+ rank (\d+) n[Rr]anks (\d+)(?: (?:nNodes (\d+)|cudaDev))?`)
	channelRe     = regexp.MustCompile(`^(?:Channel|Ring)\s+\d+(?:/\d+)?\s*:\s*(\d+)(?:\[\w+\])?\s*->\s*(\d+)(?:\[\w+\])?\s*(?:\[(send|receive)\]\s*)?via\s+(\S+(?: shared memory| pointer| device)?)`)
	// distanceRe: NCCL 2.1-2.3's "CUDA Dev 0[0], IB NIC distance : PIX" and
	// 2.0's "CUDA Dev 0, IB Ports : mlx4_0/1(PHB)".
	distanceRe    = regexp.MustCompile(`^CUDA Dev (\d+)(?:\[\d+\])?, (?:\w+ NIC distance\s*:\s*(\w+)|IB Ports\s*:\s*\S+?\((\w+)\))`)
	ibPortRe      = regexp.MustCompile(`\[\d+\]\s*([^\s:\[\]]+):(\d+)/(IB|RoCE)(/SHARP)?`)
	ifaceRe       = regexp.MustCompile(`(?:\[\d+\])?([^\s:\[\]<>]+):(\S+?)<\d+>`)
	ooBRe         = regexp.MustCompile(`OOB (\S+)`)
	versionPartRe = regexp.MustCompile(`\d+|\D+`)
	transportRe   = regexp.MustCompile(`^(?:P2P|SHM|NET|COLLNET|CollNet|NVLS)$`)
	testRankRe    = regexp.MustCompile(`^#\s+Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)`)
	channelsRe    = regexp.MustCompile(`^(\d+) coll channels, (?:(\d+) collnet channels, )?(?:(\d+) nvls channels, )?`)
	nvlsSupportRe = regexp.MustCompile(`^NVLS multicast support is (not )?available on dev \d+`)
	nvlsUsedRe    = regexp.MustCompile(`^(?:Connected NVLS|NVLS comm )`)
	initDoneRe    = regexp.MustCompile(`\bInit COMPLETE\b|^Connected all (?:rings|trees)|^Init timings\b`)
	collNetUsedRe = regexp.MustCompile(`^(?:rank \d+ )?Connected CollNet`)
	gdrEnabledRe  = regexp.MustCompile(`GPU Direct RDMA (?:\([\w-]+\) )?[Ee]nabled`)
	gdrDisabledRe = regexp.MustCompile(`GPU Direct RDMA Disabled for GPU \d+ / HCA \S+ \(([^)]*)\)`)
)

// procKey tells one process apart: its hostname, pid and, when a launcher
// prefix says, its machine. Two processes of one hostname may run on two
// machines (containers, pods).
type procKey struct {
	host, machine string
	pid           int
}

// proc is one process: who it is, and the machine its lines are gathered
// under. What it prints goes straight into its machine's state, so a
// process costs a few words however much it prints.
type proc struct {
	key procKey
	m   *machine
	// minAddr is the lowest non-loopback address its bootstrap, OOB and
	// socket lines named ("" for none): with the machine a launcher prefix
	// names, it labels machines that share a hostname.
	minAddr string
	// traced are the result classes its back-trace lines reported.
	traced *set[string]
	// lastPend is 1 + the index of its latest pending finding, 0 for none.
	lastPend int
}

// machine gathers the processes of one hostname found so far to run on one
// machine: those that share a launcher-named machine or an address.
// Machines only ever unite (union-find); a united one points at the one
// that took its state in.
type machine struct {
	*hostState // nil once united into another
	parent     *machine
	procs      int // processes on it: the smaller of two machines joins the larger
}

// root returns the machine m is now part of (shortening the path there).
func (m *machine) root() *machine {
	for m.parent != nil {
		if m.parent.parent != nil {
			m.parent = m.parent.parent
		}
		m = m.parent
	}
	return m
}

// nameKey is a hostname with a machine name or an address of it.
type nameKey struct{ host, id string }

// hostState accumulates what the processes of one machine printed, then is
// its host: only what the Host and the verdicts need, in small sets of
// interned strings, with where each thing was first seen (a pos, formatted
// only when a finding prints it).
type hostState struct {
	name                                         string
	cudaDriver                                   string
	pids, ranks                                  set[int]
	versions, networks                           set[string]
	ib                                           smallMap[ibPort, bool] // NET/IB ports → SHARP
	oob, boot                                    set[Iface]
	env                                          smallMap[string, string]
	transports                                   smallMap[string, int] // channel connections by transport
	links                                        smallMap[linkKey, linkState]
	ifaceAt                                      smallMap[string, pos] // interface → first line naming it
	versionAt, netAt, ibAt                       pos
	maxNodes                                     int // the largest "nNodes N" of its communicators; 0 when not printed
	noIB, relaxed, nvlink, initComplete, rdmaNet bool
	gdr                                          bool // a NET channel ran GPUDirect RDMA
	nvls, nvlsAvail, nvlsNone, collnet           bool
	rare                                         *rareState
}

// rareState holds what few processes print (socket transports, NET/IB
// finding no device, old NCCL's NIC distances, GRAPH paths, NVLS and
// CollNet channel counts), apart: most processes never need it.
type rareState struct {
	sock                          set[Iface]
	nicDistance                   smallMap[string, string]
	paths                         []Path
	socketAt, noIBAt, distanceAt  pos
	noIBLine                      string
	gdrOff                        string // "GPU Direct RDMA Disabled … (reason)"
	nvlsChannels, collnetChannels int
}

// more returns the rare state, creating it, to record into.
func (h *hostState) more() *rareState {
	if h.rare == nil {
		h.rare = &rareState{}
	}
	return h.rare
}

// seen returns the rare state to read (empty when nothing rare was printed).
func (h *hostState) seen() rareState {
	if h.rare == nil {
		return rareState{}
	}
	return *h.rare
}

// ibPort is a NET/IB port without its SHARP flag: a port listed with and
// without /SHARP is one port.
type ibPort struct {
	name      string
	port      int
	linkLayer string
}

// pending is a finding whose host is known only once every process is
// grouped into hosts; repeats of it are counted, not kept.
type pending struct {
	f    Finding
	proc *proc // nil when the line named no process
	rank int   // the rank a launcher prefix or PyTorch named, -1 without one
	n    int   // how many lines showed it
}

// pendKey tells pending findings apart: by process and rank, kind and
// message.
type pendKey struct {
	origin
	kind Kind
	msg  string
}

// origin is the process and rank a pending finding came from.
type origin struct {
	proc *proc
	rank int // -1 when no launcher prefix or PyTorch named one
}

// overflow counts the findings of one kind from one origin past
// maxDistinct: each had a message of its own, none is listed.
type overflow struct {
	n      int
	status checks.Status
	where  string // the first one's
}

// analyzer carries the state of one Analyze call.
type analyzer struct {
	opt        Options
	procs      map[procKey]*proc
	lastProc   map[string]*proc // launcher stream → process of its last prefixed line
	findings   map[string]*Finding
	order      []string
	pend       []pending
	pendAt     map[pendKey]int // pending finding → its index in pend
	distinct   map[pendKey]int // origin and kind (no message) → distinct pending findings
	over       map[pendKey]*overflow
	testRanks  map[int]map[procKey]pos // nccl-tests rank → process → where
	byMachine  map[nameKey]*machine    // hostname and launcher-named machine → machine
	byAddr     map[nameKey]*machine    // hostname and address → machine
	perf       *perfParser
	tests      []Perf
	timeouts   map[string]*timeout
	ras        *rasReport
	errs       []SourceError
	hostCount  int // hosts of the analysis, UnknownHost aside
	sources    int // sources read so far
	rasReports int
}

// SourceError is a log that could not be analysed; the others still are.
type SourceError struct {
	Source  string `json:"source"`
	Message string `json:"error"`
	Err     error  `json:"-"`
}

func (e SourceError) Error() string { return e.Message }

// Unwrap returns the underlying error (ErrNoNCCL, a read error).
func (e SourceError) Unwrap() error { return e.Err }

// Analyze reads NCCL_DEBUG=INFO logs (any mix of hosts, ranks and launcher
// prefixes: mpirun --tag-output, srun -l, pdsh, Ray, torchrun, kubectl
// --prefix, timestamps), nccl-tests output, PyTorch's NCCL watchdog and error
// lines and NCCL RAS reports, and reports per host what NCCL chose and what is
// wrong. A log that cannot be read, or in which nothing is recognised
// (ErrNoNCCL), is listed in Analysis.Errors and the other logs are analysed
// all the same; the returned error is non-nil only when no log could be
// analysed at all (the Analysis is then still returned, with its Errors).
func Analyze(opt Options, sources ...Source) (*Analysis, error) {
	a := &analyzer{opt: opt, procs: map[procKey]*proc{}, lastProc: map[string]*proc{},
		findings: map[string]*Finding{}, testRanks: map[int]map[procKey]pos{}, timeouts: map[string]*timeout{},
		byMachine: map[nameKey]*machine{}, byAddr: map[nameKey]*machine{},
		pendAt: map[pendKey]int{}, distinct: map[pendKey]int{}, over: map[pendKey]*overflow{}}
	ok := 0
	var errs []error
	for _, src := range sources {
		if err := a.read(src); err != nil {
			a.errs = append(a.errs, SourceError{Source: src.Name, Message: err.Error(), Err: err})
			errs = append(errs, err)
			continue
		}
		ok++
	}
	out := a.finish()
	if ok == 0 && len(sources) > 0 {
		return out, errors.Join(errs...)
	}
	return out, nil
}

func (a *analyzer) read(src Source) error {
	sc := bufio.NewScanner(src.R)
	sc.Buffer(make([]byte, 0, 4096), maxLine) // grows to the longest line
	a.perf = &perfParser{source: src.Name}
	a.ras = &rasReport{}
	n, recognised := 0, 0
	file := &source{name: src.Name, index: a.sources}
	a.sources++
	for sc.Scan() {
		n++
		if a.line(strings.TrimRight(sc.Text(), "\r"), pos{file, n}) {
			recognised++
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("analysing %s: line %d: longer than %d bytes: %w", src.Name, n+1, maxLine, err)
		}
		return fmt.Errorf("analysing %s: reading: %w", src.Name, err)
	}
	if p, ok := a.perf.result(); ok {
		a.tests = append(a.tests, p)
	}
	a.rasFindings()
	if a.ras.seen {
		a.rasReports++
	}
	if recognised == 0 {
		return fmt.Errorf("analysing %s: %d lines: %w", src.Name, n, ErrNoNCCL)
	}
	return nil
}

// proc returns the process of key, creating it (with its names copied: the
// key is cut from a log line) on the machine its launcher prefix names, or
// on a machine of its own until an address it names tells which.
func (a *analyzer) proc(key procKey) *proc {
	p, ok := a.procs[key]
	if ok {
		return p
	}
	key.host, key.machine = strings.Clone(key.host), strings.Clone(key.machine)
	p = &proc{key: key}
	if key.machine != "" {
		p.m = a.byMachine[nameKey{key.host, key.machine}]
	}
	if p.m == nil {
		p.m = &machine{hostState: &hostState{name: key.host}}
		if key.machine != "" {
			a.byMachine[nameKey{key.host, key.machine}] = p.m
		}
	}
	p.m.root().procs++
	if key.pid != 0 {
		a.state(p).pids.add(key.pid)
	}
	a.procs[key] = p
	return p
}

// state is where what p prints is gathered: its machine's state.
func (a *analyzer) state(p *proc) *hostState {
	p.m = p.m.root()
	return p.m.hostState
}

// address records an address p named: machines of p's hostname that named
// it are one machine.
func (a *analyzer) address(p *proc, addr string) {
	if !identifying(addr) {
		return
	}
	if p.minAddr == "" || addr < p.minAddr {
		p.minAddr = strings.Clone(addr)
	}
	mine := p.m.root()
	k := nameKey{p.key.host, addr}
	other, ok := a.byAddr[k]
	if !ok {
		a.byAddr[nameKey{p.key.host, strings.Clone(addr)}] = mine
		return
	}
	unite(mine, other.root())
}

// unite makes one machine of the roots x and y: the state of the one with
// fewer processes goes into the other's, so a host of many processes is
// never copied for each.
func unite(x, y *machine) {
	if x == y {
		return
	}
	if x.procs < y.procs {
		x, y = y, x
	}
	x.merge(y.hostState)
	x.procs += y.procs
	y.hostState, y.parent = nil, x
}

// line handles one line and reports whether it was recognised.
func (a *analyzer) line(raw string, at pos) bool {
	rec := splitLine(raw)
	if rec.level == "" {
		return a.plain(rec, at)
	}
	key := procKey{host: rec.host, machine: rec.machine, pid: rec.pid}
	if key.host == "" {
		// A trimmed line: the launcher may still say the machine.
		key = procKey{host: rec.machine}
	}
	p := a.proc(key)
	if rec.host != "" {
		a.lastProc[rec.stream] = p
	}
	if rec.level == "WARN" || rec.level == "ABORT" {
		a.warn(p, rec, at)
		return true
	}
	a.info(p, rec.msg, at)
	return true
}

// plain handles lines without the NCCL prefix: the version banner,
// nccl-tests output, PyTorch's watchdog and errors, NCCL RAS reports.
func (a *analyzer) plain(rec record, at pos) bool {
	if m := versionRe.FindStringSubmatch(rec.msg); m != nil {
		p := a.lastProc[rec.stream]
		if p == nil {
			p = a.proc(procKey{host: rec.machine})
		}
		a.state(p).version(versionOf(m), at)
		return true
	}
	if m := testRankRe.FindStringSubmatch(rec.trimmed()); m != nil {
		rank, ok1 := a.num(nil, rec.msg, at, "rank", m[1])
		pid, ok2 := a.num(nil, rec.msg, at, "pid", m[2])
		if !ok1 || !ok2 {
			return true
		}
		p := a.proc(procKey{host: m[3], machine: rec.machine, pid: pid})
		h := a.state(p)
		h.ranks.add(rank)
		h.pids.add(pid)
		if a.testRanks[rank] == nil {
			a.testRanks[rank] = map[procKey]pos{}
		}
		if _, ok := a.testRanks[rank][p.key]; !ok {
			a.testRanks[rank][p.key] = at
		}
		return true
	}
	if a.failure(rec, at) {
		return true
	}
	if a.ras.line(rec.trimmed(), at) {
		return true
	}
	return a.perf.line(rec.msg, at)
}

// versionOf is a banner's version; RCCL's says so ("2.18.3+hip5.5 (RCCL)").
func versionOf(m []string) string {
	if m[1] == "RCCL" {
		return intern(m[2] + " (RCCL)")
	}
	return intern(m[2])
}

func (h *hostState) version(v string, at pos) {
	h.versions.add(v)
	h.versionAt = earlier(h.versionAt, at)
}

func (a *analyzer) info(p *proc, msg string, at pos) {
	h := a.state(p)
	if a.graph(p, msg, at) || a.trace(p, msg, at) {
		return
	}
	if initDoneRe.MatchString(msg) {
		h.initComplete = true
	}
	switch {
	case versionRe.MatchString(msg):
		h.version(versionOf(versionRe.FindStringSubmatch(msg)), at)
	case cudaDriverRe.MatchString(msg):
		h.cudaDriver = intern(cudaDriverRe.FindStringSubmatch(msg)[1])
	case bootstrapRe.MatchString(msg):
		a.ifaces(p, func(h *hostState) *set[Iface] { return &h.boot }, bootstrapRe.FindStringSubmatch(msg)[1], at)
	case netIfaceOldRe.MatchString(msg):
		a.ifaces(p, func(h *hostState) *set[Iface] { return &h.boot }, netIfaceOldRe.FindStringSubmatch(msg)[1], at)
	case noIBRe.MatchString(msg):
		h.noIBFound(msg, at)
	case sidebandRe.MatchString(msg):
		name := intern(sidebandRe.FindStringSubmatch(msg)[1])
		h.oob.add(Iface{Name: name})
		firstAt(&h.ifaceAt, name, at)
	case netIBRe.MatchString(msg), netIBOldRe.MatchString(msg):
		a.ibList(p, msg[strings.Index(msg, "["):], at)
	case netSocketRe.MatchString(msg):
		a.ifaces(p, func(h *hostState) *set[Iface] { return &h.more().sock }, netSocketRe.FindStringSubmatch(msg)[2], at)
	case networkRe.MatchString(msg):
		n := intern(networkRe.FindStringSubmatch(msg)[1])
		h.networks.add(n)
		if n == "Socket" {
			h.more().socketAt = earlier(h.more().socketAt, at)
		}
	case envRe.MatchString(msg):
		m := envRe.FindStringSubmatch(msg)
		h.env.set(intern(m[1]), intern(m[2]))
	case commRe.MatchString(msg):
		m := commRe.FindStringSubmatch(msg)
		r, ok := a.num(p, msg, at, "rank", m[1])
		if !ok {
			break
		}
		h.ranks.add(r)
		if m[3] == "" {
			break
		}
		if n, ok := a.num(p, msg, at, "nNodes", m[3]); ok {
			h.maxNodes = max(h.maxNodes, n)
		}
	case channelRe.MatchString(msg):
		m := channelRe.FindStringSubmatch(msg)
		src, ok1 := a.num(p, msg, at, "rank", m[1])
		dst, ok2 := a.num(p, msg, at, "rank", m[2])
		ch := -1 // none printed: the next one of the link
		if c := channelNumRe.FindStringSubmatch(msg); c != nil {
			n, ok := a.num(p, msg, at, "channel", c[1])
			ch, ok1 = n, ok1 && ok
		}
		if ok1 && ok2 {
			h.channel(src, dst, ch, m[3], m[4], at)
		}
	case distanceRe.MatchString(msg):
		m := distanceRe.FindStringSubmatch(msg)
		r := h.more()
		r.nicDistance.set(intern("CUDA Dev "+m[1]), intern(m[2]+m[3]))
		r.distanceAt = earlier(r.distanceAt, at)
	case channelsRe.MatchString(msg):
		m := channelsRe.FindStringSubmatch(msg)
		if m[2] != "" {
			if n, ok := a.num(p, msg, at, "collnet channels", m[2]); ok && n > 0 {
				h.more().collnetChannels = max(h.more().collnetChannels, n)
			}
		}
		if m[3] != "" {
			if n, ok := a.num(p, msg, at, "nvls channels", m[3]); ok && n > 0 {
				h.more().nvlsChannels = max(h.more().nvlsChannels, n)
			}
		}
	case nvlsSupportRe.MatchString(msg):
		if nvlsSupportRe.FindStringSubmatch(msg)[1] == "" {
			h.nvlsAvail = true
		} else {
			h.nvlsNone = true
		}
	case nvlsUsedRe.MatchString(msg):
		h.nvls = true
	case collNetUsedRe.MatchString(msg):
		h.collnet = true
	case gdrEnabledRe.MatchString(msg):
		h.gdr = true
	case gdrDisabledRe.MatchString(msg):
		h.more().gdrOff = intern(gdrDisabledRe.FindStringSubmatch(msg)[1])
	}
}

// noIBFound records that NET/IB found no device, quoting the first line.
func (h *hostState) noIBFound(msg string, at pos) {
	h.noIB = true
	if r := h.more(); earlier(r.noIBAt, at) != r.noIBAt {
		r.noIBAt, r.noIBLine = at, quote(msg)
	}
}

// ibList records a NET/IB device list: "[0]mlx5_0:1/RoCE [1]… [RO]; OOB eth0:…".
func (a *analyzer) ibList(p *proc, list string, at pos) {
	h := a.state(p)
	for _, m := range ibPortRe.FindAllStringSubmatch(list, -1) {
		port, ok := a.num(p, list, at, "port", m[2])
		if !ok {
			continue
		}
		sharp, _ := h.ib.slot(ibPort{name: intern(m[1]), port: port, linkLayer: intern(m[3])})
		*sharp = *sharp || m[4] != ""
	}
	h.ibAt = earlier(h.ibAt, at)
	h.relaxed = h.relaxed || strings.Contains(list, "[RO]")
	if m := ooBRe.FindStringSubmatch(list); m != nil {
		a.ifaces(p, func(h *hostState) *set[Iface] { return &h.oob }, m[1], at)
	}
}

// ifaces records "[0]eth0:10.0.0.1<0> [1]…" or "eth0:10.0.0.1<0>" into the
// set role picks of p's machine, and the addresses into p's identity (which
// may unite p's machine with another: role is picked again for each).
func (a *analyzer) ifaces(p *proc, role func(*hostState) *set[Iface], list string, at pos) {
	for _, m := range ifaceRe.FindAllStringSubmatch(list, -1) {
		addr := m[2]
		a.address(p, addr)
		h := a.state(p)
		i := Iface{Name: intern(m[1]), Addr: addr}
		if !role(h).has(i) {
			i.Addr = strings.Clone(addr)
			role(h).add(i)
		}
		firstAt(&h.ifaceAt, i.Name, at)
	}
}

// identifying reports whether an address can tell machines apart: loopback
// and link-local addresses cannot.
func identifying(addr string) bool {
	return addr != "" && !strings.HasPrefix(addr, "127.") && addr != "::1" && !strings.HasPrefix(strings.ToLower(addr), "fe80:")
}

// channel records a channel line: ranks src → dst on channel ch (-1 when
// the line prints none), dir "send", "receive" or "", via the transport.
func (h *hostState) channel(src, dst, ch int, dir, via string, at pos) {
	switch {
	case dir == "receive":
		h.ranks.add(dst) // the receiving rank prints [receive] lines
	case dir == "" && strings.HasPrefix(via, "NET/"):
		h.ranks.add(dst) // NCCL 2.3 printed NET rings on the receiving side only, untagged
	default:
		h.ranks.add(src)
	}
	name, gdr, ok := transportOf(via)
	if !ok {
		return // a line cut off inside the transport name
	}
	n, _ := h.transports.slot(name)
	*n++
	h.link(src, dst, ch, name, gdr, at)
	h.gdr = h.gdr || gdr
	if name == "NET/Socket" {
		h.more().socketAt = earlier(h.more().socketAt, at)
	}
	if strings.HasPrefix(name, "NET/") {
		h.netAt = earlier(h.netAt, at)
		if name != "NET/Socket" && name != "NET/FastSocket" {
			h.rdmaNet = true
		}
	}
}

// transportOf folds "NET/IB/3/GDRDMA" to ("NET/IB", true), "P2P/CUMEM/read"
// to "P2P/CUMEM", "NET/Socket/0" to "NET/Socket", "SHM/direct/direct" and
// NCCL 2.3's "direct shared memory" to "SHM"; ok is false for names that are no transport (a line cut
// off after "via P2").
func transportOf(s string) (name string, gdr, ok bool) {
	switch {
	case strings.HasSuffix(s, " shared memory"):
		return "SHM", false, true
	case strings.HasSuffix(s, " pointer"), strings.HasSuffix(s, " device"):
		s, _, _ = strings.Cut(s, " ")
	}
	parts := strings.Split(s, "/")
	switch {
	case len(parts) == 1:
		return intern(s), false, s == "SHM" || s == "NVLS" || s == "CollNet"
	case parts[1] == "" || !transportRe.MatchString(parts[0]):
		return "", false, false
	case parts[0] == "SHM":
		return "SHM", false, true // "SHM/direct/direct", "SHM/CE/…": the mode is no transport
	}
	return intern(parts[0] + "/" + parts[1]), parts[0] == "NET" && parts[len(parts)-1] == "GDRDMA", true
}

// num reads a whole number of line (a rank, a count, a port): one that no
// int holds is a bad-number finding quoting the line (never read as 0 or as
// the largest int), and ok is false.
func (a *analyzer) num(p *proc, line string, at pos, what, s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if err == nil {
		return n, true
	}
	a.later(Finding{Kind: BadNumber, Status: checks.StatusError, Where: at.String(), Line: quote(strings.TrimSpace(line)),
		Message: fmt.Sprintf("%s %s is not a number that fits: the line was not read", what, clip(s, 40))}, p, -1)
	return 0, false
}

// add records a finding, counting repeats of the same kind, host and
// message; f.Count, when set, is how many lines showed it.
func (a *analyzer) add(f Finding) {
	n := max(f.Count, 1)
	key := string(f.Kind) + "\x00" + f.Host + "\x00" + f.Message
	if old, ok := a.findings[key]; ok {
		old.Count += n
		return
	}
	f.Count = n
	a.findings[key] = &f
	a.order = append(a.order, key)
}

// finish groups the processes into hosts and turns the accumulated state
// into the Analysis, letting each host's state go once its Host is built.
func (a *analyzer) finish() *Analysis {
	out := &Analysis{Tests: a.tests, Errors: a.errs, RASReports: a.rasReports}
	hosts, of := a.group()
	names := slices.Sorted(maps.Keys(hosts))
	rankHost := map[int]string{}
	for _, name := range names {
		for _, r := range hosts[name].ranks.keys {
			if other, ok := rankHost[r]; ok && other != name {
				rankHost[r] = "" // ambiguous: several jobs or communicators
				continue
			}
			rankHost[r] = name
		}
	}
	hostOf := func(src origin) string {
		switch {
		case src.proc != nil && src.proc.key.host != "":
			return of[src.proc]
		case src.rank >= 0 && rankHost[src.rank] != "":
			return rankHost[src.rank]
		case src.proc != nil:
			return of[src.proc]
		}
		return ""
	}
	for _, pd := range a.pend {
		f := pd.f
		f.Host, f.Count = hostOf(origin{pd.proc, pd.rank}), pd.n
		a.add(f)
	}
	for _, k := range slices.SortedFunc(maps.Keys(a.over), func(x, y pendKey) int { return cmp.Compare(a.over[x].where, a.over[y].where) }) {
		o := a.over[k]
		a.add(Finding{Kind: k.kind, Status: o.status, Host: hostOf(k.origin), Where: o.where,
			Message: fmt.Sprintf("%d more %s lines, each with a message of its own, not listed (the first %d are)", o.n, k.kind, maxDistinct)})
	}
	a.pend, a.pendAt, a.distinct, a.over = nil, nil, nil, nil
	a.timeoutFindings(rankHost)
	for _, name := range names {
		if name != UnknownHost {
			a.hostCount++
		}
	}
	var skew versionSkew
	var share shared
	if len(names) > 0 {
		out.Hosts = make([]Host, 0, len(names))
	}
	for _, name := range names {
		h := hosts[name]
		host := h.host(rankHost, &share)
		a.hostFindings(h, &host)
		a.linkFindings(&host)
		skew.add(h)
		out.Hosts = append(out.Hosts, host)
		*h, hosts[name] = hostState{}, nil // built: let its state go
	}
	a.fleetFindings(skew, of)
	for _, p := range a.tests {
		for _, f := range p.findings() {
			a.add(f)
		}
	}
	for _, k := range a.order {
		f := *a.findings[k]
		if f.Count == 1 {
			f.Count = 0
		}
		out.Findings = append(out.Findings, f)
	}
	slices.SortStableFunc(out.Findings, cmpFindings)
	return out
}

// host builds the Host of the state: sorted lists, maps only where the
// host has entries, each shared with the hosts that have equal ones.
func (h *hostState) host(rankHost map[int]string, c *shared) Host {
	r := h.seen()
	out := Host{Name: h.name, CUDADriver: h.cudaDriver, RelaxedOrdering: h.relaxed, NoIBDevice: h.noIB,
		NVLSChannels: r.nvlsChannels, CollNetChannels: r.collnetChannels, NVLink: h.nvlink, InitComplete: h.initComplete,
		Versions: sharedList(c, "versions", slices.SortedFunc(slices.Values(h.versions.keys), compareNatural)),
		Networks: sharedList(c, "networks", slices.Sorted(slices.Values(h.networks.keys))),
		PIDs:     slices.Clip(slices.Sorted(slices.Values(h.pids.keys))),
		Ranks:    slices.Clip(slices.Sorted(slices.Values(h.ranks.keys))),
		OOB:      ifaceList(&h.oob), Bootstrap: ifaceList(&h.boot), Sockets: ifaceList(&r.sock),
		Env: sharedMap(c, "env", &h.env), Transports: sharedMap(c, "transports", &h.transports), NICDistance: sharedMap(c, "distance", &r.nicDistance),
		GDRDMA: h.gdrState(), NVLS: h.nvlsState(), CollNet: h.collnet || r.collnetChannels > 0,
	}
	var ib []IBDevice
	for k, sharp := range h.ib.all() {
		ib = append(ib, IBDevice{Name: k.name, Port: k.port, LinkLayer: k.linkLayer, SHARP: *sharp})
	}
	slices.SortFunc(ib, func(x, y IBDevice) int { return compareNatural(x.String(), y.String()) })
	out.IBDevices = sharedList(c, "ib", ib)
	out.Links, out.Paths = h.linkList(rankHost), sharedList(c, "paths", h.sortedPaths())
	return out
}

// gdrState says whether NET channels ran GPUDirect RDMA: "yes", "no" (NET
// channels without it, or NCCL said it disabled it) or "unknown" (no NET
// channel seen: a single-host job, or a log cut before the channels).
func (h *hostState) gdrState() string {
	socket, _ := h.transports.get("NET/Socket")
	switch {
	case h.gdr:
		return GDRYes
	case h.rdmaNet, h.seen().gdrOff != "", socket > 0:
		return GDRNo
	}
	return GDRUnknown
}

// nvlsState says whether NVLink SHARP (NVLS) was used, available or not.
func (h *hostState) nvlsState() string {
	switch {
	case h.nvls || h.seen().nvlsChannels > 0:
		return "used"
	case h.nvlsAvail:
		return "available"
	case h.nvlsNone:
		return "unavailable"
	}
	return ""
}

// group names the machines: a hostname's machines are one host, or, where
// its processes ran on several, one host each ("host [machine]", labelled by
// the launcher's name for it or its lowest address). A process that named
// neither joins the only machine, or, with several, one labelled
// "unattributed". It returns the hosts by name and each process' host.
func (a *analyzer) group() (map[string]*hostState, map[*proc]string) {
	byName := map[string][]*proc{}
	for _, p := range a.procs {
		byName[p.key.host] = append(byName[p.key.host], p)
	}
	named := map[string]*machine{}
	of := make(map[*proc]string, len(a.procs))
	for name, procs := range byName {
		slices.SortFunc(procs, func(x, y *proc) int {
			return cmp.Or(strings.Compare(x.key.machine, y.key.machine), cmp.Compare(x.key.pid, y.key.pid))
		})
		display := name
		if display == "" {
			display = UnknownHost
		}
		var machines []*machine // in the order of their first process
		label := map[*machine]string{}
		var anonymous []*proc
		for _, p := range procs {
			id := cmp.Or(p.key.machine, p.minAddr)
			if id == "" {
				anonymous = append(anonymous, p)
				continue
			}
			m := p.m.root()
			old, ok := label[m]
			if !ok {
				machines = append(machines, m)
			}
			if !ok || id < old {
				label[m] = id
			}
		}
		if len(anonymous) > 0 {
			var into *machine
			switch {
			case len(machines) == 1:
				into = machines[0]
			case len(machines) == 0:
				into = anonymous[0].m.root()
				machines, label[into] = append(machines, into), ""
			default:
				into = anonymous[0].m.root()
				machines, label[into] = append(machines, into), "unattributed"
			}
			for _, p := range anonymous {
				unite(into.root(), p.m.root())
			}
			if r := into.root(); r != into { // the larger side kept its state
				machines[slices.Index(machines, into)], label[r] = r, label[into]
			}
		}
		for _, m := range machines {
			l := display
			if len(machines) > 1 {
				l = fmt.Sprintf("%s [%s]", display, label[m])
			}
			if other, ok := named[l]; ok {
				unite(other, m) // a hostname that reads like another's label
				r := other.root()
				r.name, named[l] = l, r
				continue
			}
			m.name, named[l] = l, m
		}
		for _, p := range procs {
			of[p] = p.m.root().name
		}
	}
	hosts := make(map[string]*hostState, len(named))
	for l, m := range named {
		hosts[l] = m.hostState
	}
	return hosts, of
}

// merge adds what another process printed to h.
func (h *hostState) merge(o *hostState) {
	h.pids.addAll(&o.pids)
	h.ranks.addAll(&o.ranks)
	for _, v := range o.versions.keys {
		h.version(v, o.versionAt)
	}
	h.networks.addAll(&o.networks)
	h.oob.addAll(&o.oob)
	h.boot.addAll(&o.boot)
	for k, v := range o.ib.all() {
		sharp, _ := h.ib.slot(k)
		*sharp = *sharp || *v
	}
	for k, v := range o.ifaceAt.all() {
		firstAt(&h.ifaceAt, k, *v)
	}
	for k, v := range o.env.all() {
		h.env.set(k, *v)
	}
	for k, v := range o.transports.all() {
		n, _ := h.transports.slot(k)
		*n += *v
	}
	h.versionAt, h.netAt, h.ibAt = earlier(h.versionAt, o.versionAt), earlier(h.netAt, o.netAt), earlier(h.ibAt, o.ibAt)
	h.cudaDriver = cmp.Or(h.cudaDriver, o.cudaDriver)
	h.initComplete = h.initComplete || o.initComplete
	h.noIB = h.noIB || o.noIB
	h.relaxed = h.relaxed || o.relaxed
	h.rdmaNet, h.gdr = h.rdmaNet || o.rdmaNet, h.gdr || o.gdr
	h.nvls, h.nvlsAvail, h.nvlsNone, h.collnet = h.nvls || o.nvls, h.nvlsAvail || o.nvlsAvail, h.nvlsNone || o.nvlsNone, h.collnet || o.collnet
	h.maxNodes = max(h.maxNodes, o.maxNodes)
	h.mergeLinks(o)
	if o.rare != nil {
		h.more().merge(o.rare)
	}
}

// merge adds another process' rare state to r.
func (r *rareState) merge(o *rareState) {
	for _, i := range o.sock.keys {
		r.sock.add(i)
	}
	for k, v := range o.nicDistance.all() {
		r.nicDistance.set(k, *v)
	}
	for _, p := range o.paths {
		if !slices.Contains(r.paths, p) {
			r.paths = append(r.paths, p)
		}
	}
	if earlier(r.noIBAt, o.noIBAt) != r.noIBAt {
		r.noIBAt, r.noIBLine = o.noIBAt, o.noIBLine
	}
	r.socketAt, r.distanceAt = earlier(r.socketAt, o.socketAt), earlier(r.distanceAt, o.distanceAt)
	r.gdrOff = cmp.Or(r.gdrOff, o.gdrOff)
	r.nvlsChannels, r.collnetChannels = max(r.nvlsChannels, o.nvlsChannels), max(r.collnetChannels, o.collnetChannels)
}

func cmpFindings(x, y Finding) int {
	if c := strings.Compare(x.Host, y.Host); c != 0 {
		return c
	}
	if c := strings.Compare(string(x.Kind), string(y.Kind)); c != 0 {
		return c
	}
	return strings.Compare(x.Message, y.Message)
}

// ifaceList is s sorted as "name:addr".
func ifaceList(s *set[Iface]) []Iface {
	out := slices.Clip(slices.Clone(s.keys))
	slices.SortFunc(out, func(x, y Iface) int { return strings.Compare(x.String(), y.String()) })
	return out
}

// compareNatural orders "2.4.2+cuda10.0" before "2.19.3+cuda12.3" and
// mlx5_2 before mlx5_10: numbers compare as numbers, everything else as text.
func compareNatural(a, b string) int {
	split := func(s string) []string {
		return versionPartRe.FindAllString(s, -1)
	}
	x, y := split(a), split(b)
	for i := 0; i < len(x) && i < len(y); i++ {
		nx, errx := strconv.Atoi(x[i])
		ny, erry := strconv.Atoi(y[i])
		if errx == nil && erry == nil {
			if nx != ny {
				return nx - ny
			}
			continue
		}
		if c := strings.Compare(x[i], y[i]); c != 0 {
			return c
		}
	}
	return len(x) - len(y)
}
