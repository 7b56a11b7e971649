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
	versionRe     = regexp.MustCompile(`^\s*NCCL version (\S+)`)
	cudaDriverRe  = regexp.MustCompile(`^cudaDriverVersion (\d+)`)
	bootstrapRe   = regexp.MustCompile(`^Bootstrap\s*: Using (.*)$`)
	noIBRe        = regexp.MustCompile(`^NET/IB\s*: No device found`)
	netIBRe       = regexp.MustCompile(`^NET/IB\s*: Using (.*)$`)
	netSocketRe   = regexp.MustCompile(`^NET/(\w+)\s*: Using (\[\d+\].*)$`)
	networkRe     = regexp.MustCompile(`^Using network (.+?)\s*$`)
	envRe         = regexp.MustCompile(`^(NCCL_\w+) set (?:by environment )?to (.*?)\.?\s*$`)
	commRe        = regexp.MustCompile(`^comm \S+ rank (\d+) n[Rr]anks (\d+)`)
	channelRe     = regexp.MustCompile(`^(?:Channel|Ring)\s+\d+(?:/\d+)?\s*:\s*(\d+)(?:\[\w+\])?\s*->\s*(\d+)(?:\[\w+\])?\s*(?:\[(send|receive)\]\s*)?via\s+(\S+)`)
	distanceRe    = regexp.MustCompile(`^CUDA Dev (\d+)\[\d+\], \w+ NIC distance\s*:\s*(\S+)`)
	completionRe  = regexp.MustCompile(`Got completion from peer (\S+) with (?:error |status=)(\d+)(?:.*vendor err (\d+))?(?:.*\((Send|Recv)\))?`)
	ibPortRe      = regexp.MustCompile(`\[\d+\]([^\s:\[\]]+):(\d+)/(IB|RoCE)(/SHARP)?`)
	ifaceRe       = regexp.MustCompile(`(?:\[\d+\])?([^\s:\[\]<>]+):(\S+?)<\d+>`)
	ooBRe         = regexp.MustCompile(`OOB (\S+)`)
	versionPartRe = regexp.MustCompile(`\d+|\D+`)
	transportRe   = regexp.MustCompile(`^(?:P2P|SHM|NET|COLLNET|CollNet|NVLS)$`)
	testRankRe    = regexp.MustCompile(`^#\s+Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)`)
)

// hostState accumulates one host.
type hostState struct {
	Host
	pids, ranks                          map[int]bool
	versions, networks                   map[string]bool
	ib, oob, boot, sock                  map[string]bool
	ibDevs                               []IBDevice
	socketWhere, noIBWhere, versionWhere string
	ifaceWhere                           map[string]string
	netWhere, ibWhere                    string
}

// analyzer carries the state of one Analyze call.
type analyzer struct {
	opt       Options
	hosts     map[string]*hostState
	lastHost  map[string]string // launcher stream → host of its last prefixed line
	findings  map[string]*Finding
	order     []string
	testRanks map[int]map[string]string // nccl-tests rank → host → where
	perf      *perfParser
	tests     []Perf
}

// Analyze reads NCCL_DEBUG=INFO logs (any mix of hosts, ranks and launcher
// prefixes: mpirun --tag-output, srun -l, "[rank] ") and nccl-tests output,
// and reports per host what NCCL chose and what is wrong. A log in which
// nothing is recognised is an error (ErrNoNCCL), joined with the others.
func Analyze(opt Options, sources ...Source) (*Analysis, error) {
	a := &analyzer{opt: opt, hosts: map[string]*hostState{}, lastHost: map[string]string{},
		findings: map[string]*Finding{}, testRanks: map[int]map[string]string{}}
	var errs []error
	for _, src := range sources {
		if err := a.read(src); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return a.finish(), nil
}

func (a *analyzer) read(src Source) error {
	sc := bufio.NewScanner(src.R)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	a.perf = &perfParser{source: src.Name}
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
	if recognised == 0 {
		return fmt.Errorf("analysing %s: %d lines: %w", src.Name, n, ErrNoNCCL)
	}
	return nil
}

func (a *analyzer) host(name string) *hostState {
	if name == "" {
		name = UnknownHost
	}
	h, ok := a.hosts[name]
	if !ok {
		h = &hostState{Host: Host{Name: name}, pids: map[int]bool{}, ranks: map[int]bool{},
			versions: map[string]bool{}, networks: map[string]bool{}, ib: map[string]bool{},
			oob: map[string]bool{}, boot: map[string]bool{}, sock: map[string]bool{}, ifaceWhere: map[string]string{}}
		a.hosts[name] = h
	}
	return h
}

// line handles one line and reports whether it was recognised.
func (a *analyzer) line(raw, where string) bool {
	rec := splitLine(raw)
	if rec.level == "" {
		return a.plain(rec, where)
	}
	if rec.host != "" {
		a.lastHost[rec.stream] = rec.host
	}
	h := a.host(rec.host)
	if rec.pid != 0 {
		h.pids[rec.pid] = true
	}
	if rec.level == "WARN" || rec.level == "ABORT" {
		a.warn(h.Name, rec.msg, where)
		return true
	}
	a.info(h, rec.msg, where)
	return true
}

// plain handles lines without the NCCL prefix: the version banner and
// nccl-tests output.
func (a *analyzer) plain(rec record, where string) bool {
	if m := versionRe.FindStringSubmatch(rec.msg); m != nil {
		a.version(a.host(a.lastHost[rec.stream]), m[1], where)
		return true
	}
	if m := testRankRe.FindStringSubmatch(strings.TrimSpace(rec.msg)); m != nil {
		rank, _ := strconv.Atoi(m[1])
		h := a.host(m[3])
		h.ranks[rank] = true
		if a.testRanks[rank] == nil {
			a.testRanks[rank] = map[string]string{}
		}
		if _, ok := a.testRanks[rank][m[3]]; !ok {
			a.testRanks[rank][m[3]] = where
		}
		return true
	}
	return a.perf.line(rec.msg, where)
}

func (a *analyzer) version(h *hostState, v, where string) {
	if !h.versions[v] && h.versionWhere == "" {
		h.versionWhere = where
	}
	h.versions[v] = true
}

func (a *analyzer) info(h *hostState, msg, where string) {
	switch {
	case versionRe.MatchString(msg):
		a.version(h, versionRe.FindStringSubmatch(msg)[1], where)
	case cudaDriverRe.MatchString(msg):
		h.CUDADriver = cudaDriverRe.FindStringSubmatch(msg)[1]
	case bootstrapRe.MatchString(msg):
		a.ifaces(h, h.boot, bootstrapRe.FindStringSubmatch(msg)[1], where)
	case noIBRe.MatchString(msg):
		h.NoIBDevice = true
		if h.noIBWhere == "" {
			h.noIBWhere = where
		}
	case netIBRe.MatchString(msg):
		list := netIBRe.FindStringSubmatch(msg)[1]
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
			a.ifaces(h, h.oob, m[1], where)
		}
	case netSocketRe.MatchString(msg):
		a.ifaces(h, h.sock, netSocketRe.FindStringSubmatch(msg)[2], where)
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
		r, _ := strconv.Atoi(commRe.FindStringSubmatch(msg)[1])
		h.ranks[r] = true
	case channelRe.MatchString(msg):
		a.channel(h, channelRe.FindStringSubmatch(msg), where)
	case distanceRe.MatchString(msg):
		m := distanceRe.FindStringSubmatch(msg)
		if h.NICDistance == nil {
			h.NICDistance = map[string]string{}
		}
		h.NICDistance["CUDA Dev "+m[1]] = m[2]
	}
}

// ifaces records "[0]eth0:10.0.0.1<0> [1]…" or "eth0:10.0.0.1<0>" into set.
func (a *analyzer) ifaces(h *hostState, set map[string]bool, list, where string) {
	for _, m := range ifaceRe.FindAllStringSubmatch(list, -1) {
		i := Iface{Name: m[1], Addr: m[2]}
		set[i.String()] = true
		if _, ok := h.ifaceWhere[i.Name]; !ok {
			h.ifaceWhere[i.Name] = where
		}
	}
}

func (a *analyzer) channel(h *hostState, m []string, where string) {
	src, _ := strconv.Atoi(m[1])
	dst, _ := strconv.Atoi(m[2])
	if m[3] == "receive" {
		h.ranks[dst] = true // the receiving rank prints [receive] lines
	} else {
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
	h.GDRDMA = h.GDRDMA || gdr
	if name == "NET/Socket" && h.socketWhere == "" {
		h.socketWhere = where
	}
	if strings.HasPrefix(name, "NET/") && h.netWhere == "" {
		h.netWhere = where
	}
}

// transportOf folds "NET/IB/3/GDRDMA" to ("NET/IB", true), "P2P/CUMEM/read"
// to "P2P/CUMEM", "NET/Socket/0" to "NET/Socket"; ok is false for names that
// are no transport (a line cut off after "via P2").
func transportOf(s string) (name string, gdr, ok bool) {
	parts := strings.Split(s, "/")
	switch {
	case len(parts) == 1:
		return s, false, s == "SHM"
	case parts[1] == "" || !transportRe.MatchString(parts[0]):
		return "", false, false
	}
	return parts[0] + "/" + parts[1], parts[0] == "NET" && parts[len(parts)-1] == "GDRDMA", true
}

// warn turns a WARN line into a finding.
func (a *analyzer) warn(host, msg, where string) {
	if m := completionRe.FindStringSubmatch(msg); m != nil {
		status, _ := strconv.Atoi(m[2])
		text := fmt.Sprintf("NET/IB completion error %d (%s) from peer %s", status, checks.WCStatusName(status), m[1])
		if m[3] != "" {
			text += ", vendor err " + m[3]
		}
		if m[4] != "" {
			text += " (" + m[4] + ")"
		}
		a.add(Finding{Kind: IBCompletionError, Status: checks.StatusFail, Class: checks.CompletionError, Host: host, Message: text, Where: where})
		return
	}
	a.add(Finding{Kind: NCCLWarning, Status: checks.StatusWarn, Host: host, Message: strings.TrimSpace(msg), Where: where})
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

// finish turns the accumulated state into the Analysis.
func (a *analyzer) finish() *Analysis {
	out := &Analysis{Tests: a.tests}
	for _, name := range slices.Sorted(maps.Keys(a.hosts)) {
		h := a.hosts[name]
		h.Versions = slices.SortedFunc(maps.Keys(h.versions), compareNatural)
		h.Networks = slices.Sorted(maps.Keys(h.networks))
		h.PIDs = slices.Sorted(maps.Keys(h.pids))
		h.Ranks = slices.Sorted(maps.Keys(h.ranks))
		h.IBDevices = slices.SortedFunc(slices.Values(h.ibDevs), func(x, y IBDevice) int { return compareNatural(x.String(), y.String()) })
		h.OOB, h.Bootstrap, h.Sockets = ifaceList(h.oob), ifaceList(h.boot), ifaceList(h.sock)
		a.hostFindings(h)
		out.Hosts = append(out.Hosts, h.Host)
	}
	a.fleetFindings()
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
	slices.SortStableFunc(out.Findings, func(x, y Finding) int {
		return cmpFindings(x, y)
	})
	return out
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
