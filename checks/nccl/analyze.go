package nccl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

// proc accumulates what one process printed.
type proc struct {
	hostState
	key procKey
	// addrs are the non-loopback addresses its bootstrap, OOB and socket
	// lines named: they tell machines with one hostname apart.
	addrs map[string]bool
	// traced are the result classes NCCL's back-trace lines reported.
	traced map[string]bool
}

// hostState accumulates one process, then one host.
type hostState struct {
	Host
	pids, ranks                          map[int]bool
	versions, networks                   map[string]bool
	ib, oob, boot, sock                  map[string]bool
	ibDevs                               []IBDevice
	socketWhere, noIBWhere, versionWhere string
	noIBLine                             string
	ifaceWhere                           map[string]string
	netWhere, ibWhere, distanceWhere     string
	rdmaNet, gdr                         bool   // a NET channel over RDMA was seen; one ran GPUDirect RDMA
	gdrOff                               string // "GPU Direct RDMA Disabled … (reason)"
	nvls, nvlsAvail, nvlsNone            bool
	collnet                              bool
	maxNodes                             int // the largest "nNodes N" of its communicators; 0 when not printed
	links                                map[linkKey]*linkState
}

func newHostState(name string) hostState {
	return hostState{Host: Host{Name: name}, pids: map[int]bool{}, ranks: map[int]bool{},
		versions: map[string]bool{}, networks: map[string]bool{}, ib: map[string]bool{},
		oob: map[string]bool{}, boot: map[string]bool{}, sock: map[string]bool{}, ifaceWhere: map[string]string{}}
}

// pending is a finding whose host is known only once every process is
// grouped into hosts.
type pending struct {
	f    Finding
	proc *proc // nil when the line named no process
	rank int   // the rank a launcher prefix or PyTorch named, -1 without one
}

// analyzer carries the state of one Analyze call.
type analyzer struct {
	opt        Options
	procs      map[procKey]*proc
	lastProc   map[string]*proc // launcher stream → process of its last prefixed line
	findings   map[string]*Finding
	order      []string
	pend       []pending
	testRanks  map[int]map[procKey]string // nccl-tests rank → process → where
	perf       *perfParser
	tests      []Perf
	timeouts   map[string]*timeout
	ras        *rasReport
	errs       []SourceError
	hostCount  int // hosts of the analysis, UnknownHost aside
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
		findings: map[string]*Finding{}, testRanks: map[int]map[procKey]string{}, timeouts: map[string]*timeout{}}
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
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	a.perf = &perfParser{source: src.Name}
	a.ras = &rasReport{}
	n, recognised := 0, 0
	for sc.Scan() {
		n++
		if a.line(strings.TrimRight(sc.Text(), "\r"), fmt.Sprintf("%s:%d", src.Name, n)) {
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

// proc returns the process of key, creating it.
func (a *analyzer) proc(key procKey) *proc {
	p, ok := a.procs[key]
	if !ok {
		p = &proc{hostState: newHostState(key.host), key: key, addrs: map[string]bool{}, traced: map[string]bool{}}
		a.procs[key] = p
	}
	return p
}

// line handles one line and reports whether it was recognised.
func (a *analyzer) line(raw, where string) bool {
	rec := splitLine(raw)
	if rec.level == "" {
		return a.plain(rec, where)
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
	if rec.pid != 0 {
		p.pids[rec.pid] = true
	}
	if rec.level == "WARN" || rec.level == "ABORT" {
		a.warn(p, rec, where)
		return true
	}
	a.info(p, rec.msg, where)
	return true
}

// plain handles lines without the NCCL prefix: the version banner,
// nccl-tests output, PyTorch's watchdog and errors, NCCL RAS reports.
func (a *analyzer) plain(rec record, where string) bool {
	if m := versionRe.FindStringSubmatch(rec.msg); m != nil {
		p := a.lastProc[rec.stream]
		if p == nil {
			p = a.proc(procKey{host: rec.machine})
		}
		a.version(&p.hostState, versionOf(m), where)
		return true
	}
	if m := testRankRe.FindStringSubmatch(rec.trimmed()); m != nil {
		rank, _ := strconv.Atoi(m[1])
		pid, _ := strconv.Atoi(m[2])
		key := procKey{host: m[3], machine: rec.machine, pid: pid}
		p := a.proc(key)
		p.ranks[rank] = true
		p.pids[pid] = true
		if a.testRanks[rank] == nil {
			a.testRanks[rank] = map[procKey]string{}
		}
		if _, ok := a.testRanks[rank][key]; !ok {
			a.testRanks[rank][key] = where
		}
		return true
	}
	if a.failure(rec, where) {
		return true
	}
	if a.ras.line(rec.trimmed(), where) {
		return true
	}
	return a.perf.line(rec.msg, where)
}

// versionOf is a banner's version; RCCL's says so ("2.18.3+hip5.5 (RCCL)").
func versionOf(m []string) string {
	if m[1] == "RCCL" {
		return m[2] + " (RCCL)"
	}
	return m[2]
}

func (a *analyzer) version(h *hostState, v, where string) {
	if !h.versions[v] && h.versionWhere == "" {
		h.versionWhere = where
	}
	h.versions[v] = true
}

func (a *analyzer) info(p *proc, msg, where string) {
	h := &p.hostState
	if h.graph(msg) || a.trace(p, msg, where) {
		return
	}
	if initDoneRe.MatchString(msg) {
		h.InitComplete = true
	}
	switch {
	case versionRe.MatchString(msg):
		a.version(h, versionOf(versionRe.FindStringSubmatch(msg)), where)
	case cudaDriverRe.MatchString(msg):
		h.CUDADriver = cudaDriverRe.FindStringSubmatch(msg)[1]
	case bootstrapRe.MatchString(msg):
		a.ifaces(p, h.boot, bootstrapRe.FindStringSubmatch(msg)[1], where)
	case netIfaceOldRe.MatchString(msg):
		a.ifaces(p, h.boot, netIfaceOldRe.FindStringSubmatch(msg)[1], where)
	case noIBRe.MatchString(msg):
		h.NoIBDevice = true
		if h.noIBWhere == "" {
			h.noIBWhere, h.noIBLine = where, quote(msg)
		}
	case sidebandRe.MatchString(msg):
		name := sidebandRe.FindStringSubmatch(msg)[1]
		h.oob[name] = true
		if _, ok := h.ifaceWhere[name]; !ok {
			h.ifaceWhere[name] = where
		}
	case netIBRe.MatchString(msg), netIBOldRe.MatchString(msg):
		a.ibList(p, msg[strings.Index(msg, "["):], where)
	case netSocketRe.MatchString(msg):
		a.ifaces(p, h.sock, netSocketRe.FindStringSubmatch(msg)[2], where)
	case networkRe.MatchString(msg):
		n := networkRe.FindStringSubmatch(msg)[1]
		h.networks[n] = true
		if n == "Socket" && h.socketWhere == "" {
			h.socketWhere = where
		}
	case envRe.MatchString(msg):
		m := envRe.FindStringSubmatch(msg)
		if h.Env == nil {
			h.Env = map[string]string{}
		}
		h.Env[m[1]] = m[2]
	case commRe.MatchString(msg):
		m := commRe.FindStringSubmatch(msg)
		r, _ := strconv.Atoi(m[1])
		h.ranks[r] = true
		if n, err := strconv.Atoi(m[3]); err == nil {
			h.maxNodes = max(h.maxNodes, n)
		}
	case channelRe.MatchString(msg):
		a.channel(h, msg, channelRe.FindStringSubmatch(msg), where)
	case distanceRe.MatchString(msg):
		m := distanceRe.FindStringSubmatch(msg)
		if h.NICDistance == nil {
			h.NICDistance = map[string]string{}
		}
		h.NICDistance["CUDA Dev "+m[1]] = m[2] + m[3]
		if h.distanceWhere == "" {
			h.distanceWhere = where
		}
	case channelsRe.MatchString(msg):
		m := channelsRe.FindStringSubmatch(msg)
		if n, err := strconv.Atoi(m[2]); err == nil {
			h.CollNetChannels = max(h.CollNetChannels, n)
		}
		if n, err := strconv.Atoi(m[3]); err == nil {
			h.NVLSChannels = max(h.NVLSChannels, n)
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
		h.gdrOff = gdrDisabledRe.FindStringSubmatch(msg)[1]
	}
}

// ibList records a NET/IB device list: "[0]mlx5_0:1/RoCE [1]… [RO]; OOB eth0:…".
func (a *analyzer) ibList(p *proc, list, where string) {
	h := &p.hostState
	for _, m := range ibPortRe.FindAllStringSubmatch(list, -1) {
		port, _ := strconv.Atoi(m[2])
		d := IBDevice{Name: m[1], Port: port, LinkLayer: m[3], SHARP: m[4] != ""}
		if !h.ib[d.String()] {
			h.ib[d.String()] = true
			h.ibDevs = append(h.ibDevs, d)
		}
	}
	if h.ibWhere == "" {
		h.ibWhere = where
	}
	h.RelaxedOrdering = h.RelaxedOrdering || strings.Contains(list, "[RO]")
	if m := ooBRe.FindStringSubmatch(list); m != nil {
		a.ifaces(p, h.oob, m[1], where)
	}
}

// ifaces records "[0]eth0:10.0.0.1<0> [1]…" or "eth0:10.0.0.1<0>" into set,
// and the addresses into the process' identity.
func (a *analyzer) ifaces(p *proc, set map[string]bool, list, where string) {
	h := &p.hostState
	for _, m := range ifaceRe.FindAllStringSubmatch(list, -1) {
		i := Iface{Name: m[1], Addr: m[2]}
		set[i.String()] = true
		if _, ok := h.ifaceWhere[i.Name]; !ok {
			h.ifaceWhere[i.Name] = where
		}
		if identifying(i.Addr) {
			p.addrs[i.Addr] = true
		}
	}
}

// identifying reports whether an address can tell machines apart: loopback
// and link-local addresses cannot.
func identifying(addr string) bool {
	return addr != "" && !strings.HasPrefix(addr, "127.") && addr != "::1" && !strings.HasPrefix(strings.ToLower(addr), "fe80:")
}

func (a *analyzer) channel(h *hostState, msg string, m []string, where string) {
	src, _ := strconv.Atoi(m[1])
	dst, _ := strconv.Atoi(m[2])
	switch {
	case m[3] == "receive":
		h.ranks[dst] = true // the receiving rank prints [receive] lines
	case m[3] == "" && strings.HasPrefix(m[4], "NET/"):
		h.ranks[dst] = true // NCCL 2.3 printed NET rings on the receiving side only, untagged
	default:
		h.ranks[src] = true
	}
	name, gdr, ok := transportOf(m[4])
	if !ok {
		return // a line cut off inside the transport name
	}
	if h.Transports == nil {
		h.Transports = map[string]int{}
	}
	h.Transports[name]++
	h.link(msg, src, dst, name, gdr, where)
	h.gdr = h.gdr || gdr
	if name == "NET/Socket" && h.socketWhere == "" {
		h.socketWhere = where
	}
	if strings.HasPrefix(name, "NET/") {
		if h.netWhere == "" {
			h.netWhere = where
		}
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
		return s, false, s == "SHM" || s == "NVLS" || s == "CollNet"
	case parts[1] == "" || !transportRe.MatchString(parts[0]):
		return "", false, false
	case parts[0] == "SHM":
		return "SHM", false, true // "SHM/direct/direct", "SHM/CE/…": the mode is no transport
	}
	return parts[0] + "/" + parts[1], parts[0] == "NET" && parts[len(parts)-1] == "GDRDMA", true
}

// add records a finding, counting repeats of the same kind, host and message.
func (a *analyzer) add(f Finding) {
	key := string(f.Kind) + "\x00" + f.Host + "\x00" + f.Message
	if old, ok := a.findings[key]; ok {
		old.Count++
		return
	}
	f.Count = 1
	a.findings[key] = &f
	a.order = append(a.order, key)
}

// finish groups the processes into hosts and turns the accumulated state
// into the Analysis.
func (a *analyzer) finish() *Analysis {
	out := &Analysis{Tests: a.tests, Errors: a.errs, RASReports: a.rasReports}
	hosts, of := a.group()
	rankHost := map[int]string{}
	for _, name := range slices.Sorted(maps.Keys(hosts)) {
		for r := range hosts[name].ranks {
			if other, ok := rankHost[r]; ok && other != name {
				rankHost[r] = "" // ambiguous: several jobs or communicators
				continue
			}
			rankHost[r] = name
		}
	}
	for _, pd := range a.pend {
		f := pd.f
		switch {
		case pd.proc != nil && pd.proc.key.host != "":
			f.Host = of[pd.proc]
		case pd.rank >= 0 && rankHost[pd.rank] != "":
			f.Host = rankHost[pd.rank]
		case pd.proc != nil:
			f.Host = of[pd.proc]
		}
		a.add(f)
	}
	a.timeoutFindings(rankHost)
	for name := range hosts {
		if name != UnknownHost {
			a.hostCount++
		}
	}
	for _, name := range slices.Sorted(maps.Keys(hosts)) {
		h := hosts[name]
		h.Versions = slices.SortedFunc(maps.Keys(h.versions), compareNatural)
		h.Networks = slices.Sorted(maps.Keys(h.networks))
		h.PIDs = slices.Sorted(maps.Keys(h.pids))
		h.Ranks = slices.Sorted(maps.Keys(h.ranks))
		h.IBDevices = slices.SortedFunc(slices.Values(h.ibDevs), func(x, y IBDevice) int { return compareNatural(x.String(), y.String()) })
		h.OOB, h.Bootstrap, h.Sockets = ifaceList(h.oob), ifaceList(h.boot), ifaceList(h.sock)
		h.GDRDMA = h.gdrState()
		h.NVLS = h.nvlsState()
		h.CollNet = h.collnet || h.CollNetChannels > 0
		h.finishLinks(rankHost)
		a.hostFindings(h)
		a.linkFindings(h)
		out.Hosts = append(out.Hosts, h.Host)
	}
	a.fleetFindings(hosts, of)
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

// gdrState says whether NET channels ran GPUDirect RDMA: "yes", "no" (NET
// channels without it, or NCCL said it disabled it) or "unknown" (no NET
// channel seen: a single-host job, or a log cut before the channels).
func (h *hostState) gdrState() string {
	switch {
	case h.gdr:
		return GDRYes
	case h.rdmaNet, h.gdrOff != "", h.Transports["NET/Socket"] > 0:
		return GDRNo
	}
	return GDRUnknown
}

// nvlsState says whether NVLink SHARP (NVLS) was used, available or not.
func (h *hostState) nvlsState() string {
	switch {
	case h.nvls || h.NVLSChannels > 0:
		return "used"
	case h.nvlsAvail:
		return "available"
	case h.nvlsNone:
		return "unavailable"
	}
	return ""
}

// group sorts the processes into hosts: by hostname, split where processes
// of one hostname run on different machines (a launcher prefix naming the
// machine, or disjoint bootstrap/OOB addresses). It returns the hosts by
// display name and each process' host name.
func (a *analyzer) group() (map[string]*hostState, map[*proc]string) {
	byName := map[string][]*proc{}
	for _, p := range a.procs {
		byName[p.key.host] = append(byName[p.key.host], p)
	}
	hosts := map[string]*hostState{}
	of := map[*proc]string{}
	for name, procs := range byName {
		slices.SortFunc(procs, func(x, y *proc) int {
			if c := strings.Compare(x.key.machine, y.key.machine); c != 0 {
				return c
			}
			return x.key.pid - y.key.pid
		})
		machines := machinesOf(procs)
		display := name
		if display == "" {
			display = UnknownHost
		}
		for i, p := range procs {
			label := display
			if len(machines.labels) > 1 {
				label = fmt.Sprintf("%s [%s]", display, machines.labels[machines.of[i]])
			}
			h, ok := hosts[label]
			if !ok {
				st := newHostState(label)
				h = &st
				hosts[label] = h
			}
			h.merge(&p.hostState)
			of[p] = label
		}
	}
	return hosts, of
}

// machineSet is the outcome of telling one hostname's processes apart.
type machineSet struct {
	of     []int    // process index → machine index
	labels []string // machine index → its label (the launcher's name for it, or its lowest address)
}

// machinesOf unites processes that share a launcher-named machine or an
// address; a process with neither joins the only machine, or a machine of
// its own labelled "unattributed" when there are several.
func machinesOf(procs []*proc) machineSet {
	parent := make([]int, len(procs))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	union := func(i, j int) { parent[find(i)] = find(j) }
	byMachine, byAddr := map[string]int{}, map[string]int{}
	for i, p := range procs {
		if m := p.key.machine; m != "" {
			if j, ok := byMachine[m]; ok {
				union(i, j)
			} else {
				byMachine[m] = i
			}
		}
		for addr := range p.addrs {
			if j, ok := byAddr[addr]; ok {
				union(i, j)
			} else {
				byAddr[addr] = i
			}
		}
	}
	var out machineSet
	out.of = make([]int, len(procs))
	root := map[int]int{}
	var anonymous []int
	for i, p := range procs {
		if p.key.machine == "" && len(p.addrs) == 0 {
			anonymous = append(anonymous, i)
			continue
		}
		r := find(i)
		idx, ok := root[r]
		if !ok {
			idx = len(out.labels)
			root[r] = idx
			out.labels = append(out.labels, "")
		}
		out.of[i] = idx
		if label := machineLabel(p); out.labels[idx] == "" || (label != "" && label < out.labels[idx]) {
			out.labels[idx] = label
		}
	}
	switch {
	case len(anonymous) == 0:
	case len(out.labels) <= 1:
		if len(out.labels) == 0 {
			out.labels = append(out.labels, "")
		}
		for _, i := range anonymous {
			out.of[i] = 0
		}
	default:
		out.labels = append(out.labels, "unattributed")
		for _, i := range anonymous {
			out.of[i] = len(out.labels) - 1
		}
	}
	return out
}

func machineLabel(p *proc) string {
	if p.key.machine != "" {
		return p.key.machine
	}
	return slices.Min(slices.Collect(maps.Keys(p.addrs)))
}

// merge adds what another process printed to h.
func (h *hostState) merge(o *hostState) {
	h.InitComplete = h.InitComplete || o.InitComplete
	for _, set := range []struct{ dst, src map[int]bool }{{h.pids, o.pids}, {h.ranks, o.ranks}} {
		maps.Copy(set.dst, set.src)
	}
	for _, set := range []struct{ dst, src map[string]bool }{{h.versions, o.versions}, {h.networks, o.networks}, {h.oob, o.oob}, {h.boot, o.boot}, {h.sock, o.sock}} {
		maps.Copy(set.dst, set.src)
	}
	for _, d := range o.ibDevs {
		if !h.ib[d.String()] {
			h.ib[d.String()] = true
			h.ibDevs = append(h.ibDevs, d)
		}
	}
	for k, v := range o.ifaceWhere {
		if _, ok := h.ifaceWhere[k]; !ok {
			h.ifaceWhere[k] = v
		}
	}
	first := func(dst *string, src string) {
		if *dst == "" {
			*dst = src
		}
	}
	first(&h.socketWhere, o.socketWhere)
	first(&h.noIBWhere, o.noIBWhere)
	first(&h.noIBLine, o.noIBLine)
	first(&h.versionWhere, o.versionWhere)
	first(&h.netWhere, o.netWhere)
	first(&h.ibWhere, o.ibWhere)
	first(&h.gdrOff, o.gdrOff)
	first(&h.CUDADriver, o.CUDADriver)
	h.NoIBDevice = h.NoIBDevice || o.NoIBDevice
	h.RelaxedOrdering = h.RelaxedOrdering || o.RelaxedOrdering
	h.rdmaNet, h.gdr = h.rdmaNet || o.rdmaNet, h.gdr || o.gdr
	h.nvls, h.nvlsAvail, h.nvlsNone, h.collnet = h.nvls || o.nvls, h.nvlsAvail || o.nvlsAvail, h.nvlsNone || o.nvlsNone, h.collnet || o.collnet
	h.NVLSChannels, h.CollNetChannels = max(h.NVLSChannels, o.NVLSChannels), max(h.CollNetChannels, o.CollNetChannels)
	h.maxNodes = max(h.maxNodes, o.maxNodes)
	if o.Env != nil && h.Env == nil {
		h.Env = map[string]string{}
	}
	maps.Copy(h.Env, o.Env)
	if o.Transports != nil && h.Transports == nil {
		h.Transports = map[string]int{}
	}
	for k, v := range o.Transports {
		h.Transports[k] += v
	}
	h.mergeLinks(o)
	if o.NICDistance != nil && h.NICDistance == nil {
		h.NICDistance = map[string]string{}
	}
	maps.Copy(h.NICDistance, o.NICDistance)
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

func ifaceList(set map[string]bool) []Iface {
	var out []Iface
	for _, s := range slices.Sorted(maps.Keys(set)) {
		name, addr, _ := strings.Cut(s, ":")
		out = append(out, Iface{Name: name, Addr: addr})
	}
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
