package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// ErrUnknownScenario is returned by RunScenario for a name not in Scenarios().
var ErrUnknownScenario = errors.New("unknown scenario")

// Scenario is a named end-to-end test run against a running lab.
type Scenario struct {
	Name        string
	Description string
	MinHosts    int
	// Timeout bounds the whole scenario (the watchdog): when it passes, every VM is probed and a
	// hung one is killed and reported.
	Timeout time.Duration
	run     func(ctx context.Context, r *runner) error
}

// Scenarios lists every scenario, sorted by name.
func Scenarios() []Scenario {
	s := []Scenario{
		{Name: "smoke", Description: "every VM-host has rxe0 on eth0 (+ rxelb), ports ACTIVE/LinkUp, the RoCE v2 IPv4 GID of its address",
			MinHosts: 1, Timeout: 2 * time.Minute, run: smoke},
		{Name: "perftest", Description: "loopback perftests on one host; write/read/send bandwidth and latency (verbs and rdma_cm) between two VM-hosts",
			MinHosts: 2, Timeout: 8 * time.Minute, run: perftestScenario},
		{Name: "lossy", Description: "netem loss on one host's RoCE traffic shows in counters and bandwidth against a baseline; a black-holed path ends in a timeout",
			MinHosts: 2, Timeout: 6 * time.Minute, run: lossy},
	}
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
	return s
}

type runner struct {
	s   *State
	res *Result
	log *slog.Logger
	mu  sync.Mutex
}

func (r *runner) check(name string, ok bool, format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.Checks = append(r.res.Checks, Check{Name: name, Passed: ok, Detail: fmt.Sprintf(format, a...)})
	if !ok {
		r.log.Warn("check failed", "check", name, "detail", fmt.Sprintf(format, a...))
	}
}

// RunScenario runs a scenario against the lab, writes its result to
// StateDir/results/NAME.json and returns it. Failed checks leave Result.Passed false with a nil
// error; the error is for a scenario that could not run (unknown name, lab down, a hung VM).
func (s *State) RunScenario(ctx context.Context, name string, log *slog.Logger) (*Result, error) {
	log = discard(log)
	var sc *Scenario
	var names []string
	for _, c := range Scenarios() {
		names = append(names, c.Name)
		if c.Name == name {
			sc = &c
		}
	}
	if sc == nil {
		return nil, fmt.Errorf("%w %q (have %s)", ErrUnknownScenario, name, strings.Join(names, ", "))
	}
	if len(s.VMs) < sc.MinHosts {
		return nil, fmt.Errorf("scenario %s needs %d hosts, the lab has %d", name, sc.MinHosts, len(s.VMs))
	}
	for _, v := range s.VMs {
		if !alive(v) {
			return nil, fmt.Errorf("running scenario %s: %s: %w; console tail:\n%s", name, v.Name, ErrVMDied, s.ConsoleTail(v, 10))
		}
	}
	res := &Result{APIVersion: APIVersion, Scenario: name, StartedAt: time.Now().UTC(), Checks: []Check{}}
	r := &runner{s: s, res: res, log: log}
	sctx, cancel := context.WithTimeout(ctx, sc.Timeout)
	err := sc.run(sctx, r)
	cancel()
	res.DurationMS = time.Since(res.StartedAt).Milliseconds()
	if err != nil && ctx.Err() == nil && sctx.Err() != nil {
		err = fmt.Errorf("scenario %s exceeded its %s bound: %w", name, sc.Timeout, err)
	}
	if err != nil {
		// the watchdog: a VM that no longer answers is killed and named
		if hung := s.reapHung(context.WithoutCancel(ctx), log); hung != nil {
			err = errors.Join(err, hung)
		}
		r.check("scenario completed", false, "%v", err)
	}
	res.Passed = err == nil && len(res.Checks) > 0
	for _, c := range res.Checks {
		res.Passed = res.Passed && c.Passed
	}
	if werr := s.writeResult(res); werr != nil {
		err = errors.Join(err, werr)
	}
	return res, err
}

// reapHung probes every VM (10 s bound) and kills those that no longer run a command over SSH.
func (s *State) reapHung(ctx context.Context, log *slog.Logger) error {
	var errs []error
	for _, h := range s.Status(ctx) {
		if h.Running && h.SSH {
			continue
		}
		v, _ := s.VM(h.Name)
		if h.Running {
			log.Error("vm hung: killing it", "host", h.Name, "error", h.Error)
			s.Kill(v)
			errs = append(errs, fmt.Errorf("%s: %w: no answer over SSH (%s); killed; console tail:\n%s", h.Name, ErrVMHung, h.Error, s.ConsoleTail(v, 10)))
		} else {
			errs = append(errs, fmt.Errorf("%s: %w; console tail:\n%s", h.Name, ErrVMDied, s.ConsoleTail(v, 10)))
		}
	}
	return errors.Join(errs...)
}

// ResultPath is where RunScenario writes the result of scenario name.
func (s *State) ResultPath(name string) string {
	return filepath.Join(s.StateDir, "results", name+".json")
}

func (s *State) writeResult(res *Result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding result: %w", err)
	}
	p := s.ResultPath(res.Scenario)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("writing result: %w", err)
	}
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing result: %w", err)
	}
	return nil
}

// shellJoin quotes words for root's shell on the VM.
func shellJoin(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=%,") == "" {
			q[i] = w
		} else {
			q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}

// --- smoke -------------------------------------------------------------------------------------

func smoke(ctx context.Context, r *runner) error {
	infos := make([]HostInfo, len(r.s.VMs))
	errs := make([]error, len(r.s.VMs))
	var wg sync.WaitGroup
	for i, v := range r.s.VMs {
		wg.Add(1)
		go func(i int, v VM) {
			defer wg.Done()
			out, err := r.s.Output(ctx, v.Name, "lab-info")
			if err != nil {
				errs[i] = fmt.Errorf("%s: lab-info: %w", v.Name, err)
				return
			}
			if err := json.Unmarshal(out, &infos[i]); err != nil {
				errs[i] = fmt.Errorf("%s: decoding lab-info: %w", v.Name, err)
			}
		}(i, v)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	r.res.Hosts = infos
	guids := map[string]string{}
	for i, v := range r.s.VMs {
		checkHost(r, v, infos[i], guids)
	}
	return nil
}

// IPv4GID is the RoCE v2 GID of an IPv4 address as sysfs prints it (::ffff:a.b.c.d).
func IPv4GID(a [4]byte) string {
	return fmt.Sprintf("0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", a[0], a[1], a[2], a[3])
}

func checkHost(r *runner, v VM, h HostInfo, guids map[string]string) {
	r.check(v.Name+": host name", h.Host == v.Name, "VM reports %q", h.Host)
	r.check(v.Name+": kernel", h.Kernel == r.s.Image.KernelVersion, "running %q, image has %q", h.Kernel, r.s.Image.KernelVersion)
	devs := map[string]RDMADevice{}
	for _, d := range h.Devices {
		devs[d.Name] = d
	}
	for _, want := range []struct{ dev, netdev string }{{"rxe0", "eth0"}, {"rxelb", "lb0"}} {
		d, ok := devs[want.dev]
		name := v.Name + ": " + want.dev
		if !r.checkOK(name+" present", ok, "devices: %v", deviceNames(h)) {
			continue
		}
		r.check(name+" on "+want.netdev, d.Netdev == want.netdev, "parent netdev %q", d.Netdev)
		if prev, dup := guids[d.NodeGUID]; dup {
			r.check(name+" node GUID unique", false, "%s shared with %s", d.NodeGUID, prev)
		}
		guids[d.NodeGUID] = name
		if !r.checkOK(name+" has one port", len(d.Ports) == 1, "%d ports", len(d.Ports)) {
			continue
		}
		p := d.Ports[0]
		r.check(name+" port ACTIVE", p.State == "4: ACTIVE", "state %q", p.State)
		r.check(name+" port LinkUp", p.PhysState == "5: LinkUp", "phys_state %q", p.PhysState)
		r.check(name+" link layer Ethernet", p.LinkLayer == "Ethernet", "link_layer %q", p.LinkLayer)
		if want.dev == "rxe0" {
			gid := IPv4GID(v.Address.As4())
			found := false
			for _, g := range p.GIDs {
				if g.GID == gid && g.Type == "RoCE v2" && g.Netdev == "eth0" {
					found = true
				}
			}
			r.check(name+" RoCE v2 GID of "+v.Address.String(), found, "want %s (RoCE v2, eth0) among %d GIDs", gid, len(p.GIDs))
		}
	}
}

func (r *runner) checkOK(name string, ok bool, format string, a ...any) bool {
	if !ok {
		r.check(name, false, format, a...)
	}
	return ok
}

func deviceNames(h HostInfo) []string {
	var n []string
	for _, d := range h.Devices {
		n = append(n, d.Name)
	}
	return n
}

// --- perftest runs -----------------------------------------------------------------------------

// ptSpec is one perftest invocation.
type ptSpec struct {
	name    string
	tool    string
	dev     string // rxe0 unless loopback over rdma_cm (rxelb)
	args    []string
	timeout time.Duration
}

func (p ptSpec) cm() bool {
	for _, a := range p.args {
		if a == "-R" {
			return true
		}
	}
	return false
}

// loop runs server and client of a perftest on one host (lab-pt loop).
func (r *runner) loop(ctx context.Context, host string, p ptSpec) Perftest {
	dev := p.dev
	if dev == "" {
		dev = "rxe0"
	}
	res := Perftest{Name: p.name, Tool: p.tool, Client: host, Server: host, Loopback: true}
	cmd := shellJoin(append([]string{"lab-pt", "loop", p.name, fmt.Sprint(int(p.timeout.Seconds())), dev, "-", p.tool}, p.args...)...)
	side, err := r.runSide(ctx, host, cmd, p.timeout+20*time.Second)
	if err != nil {
		side = &PerftestSide{Name: p.name, Role: "loop", RC: -1, Error: err.Error()}
	}
	res.ClientSide, res.ServerSide = side, side
	r.log.Info("perftest", "name", p.name, "host", host, "rc", side.RC, "summary", summary(side))
	return res
}

// pair runs a perftest between two VM-hosts: the server first, a readiness probe (its TCP
// listener, or its rdma_cm id in LISTEN for -R), then the client. perftest's TSC calibration
// sometimes fails under emulation ("Can't produce a report"); such a pair is run again, once.
func (r *runner) pair(ctx context.Context, client, server string, p ptSpec) Perftest {
	var res Perftest
	for try := 1; try <= 2; try++ {
		res = r.pairOnce(ctx, client, server, p)
		calib := func(sd *PerftestSide) bool { return sd != nil && strings.Contains(sd.Error, "Can't produce a report") }
		if ctx.Err() != nil || !(calib(res.ClientSide) || calib(res.ServerSide)) {
			break
		}
		r.log.Info("perftest TSC calibration failed; running the pair again", "name", p.name)
	}
	r.log.Info("perftest", "name", p.name, "client", client, "server", server,
		"rc", fmt.Sprintf("%d/%d", res.ClientSide.RC, res.ServerSide.RC), "summary", summary(res.ClientSide))
	return res
}

func (r *runner) pairOnce(ctx context.Context, client, server string, p ptSpec) Perftest {
	res := Perftest{Name: p.name, Tool: p.tool, Client: client, Server: server}
	sv, _ := r.s.VM(server)
	secs := int(p.timeout.Seconds())
	srvCmd := shellJoin(append([]string{"lab-pt", "server", p.name, fmt.Sprint(secs + 5), "rxe0", "-", p.tool}, p.args...)...)
	cliCmd := shellJoin(append([]string{"lab-pt", "client", p.name, fmt.Sprint(secs), "rxe0", sv.Address.String(), p.tool}, p.args...)...)
	type out struct {
		side *PerftestSide
		err  error
	}
	srvc := make(chan out, 1)
	go func() {
		sd, err := r.runSide(ctx, server, srvCmd, p.timeout+25*time.Second)
		srvc <- out{sd, err}
	}()
	kind := "tcp"
	if p.cm() {
		kind = "cm"
	}
	if _, err := r.s.Output(ctx, server, shellJoin("lab-wait-listen", kind, "18515", "30")); err != nil {
		r.log.Warn("server not seen listening; the client retries on its own", "name", p.name, "error", err)
	}
	cs, err := r.runSide(ctx, client, cliCmd, p.timeout+20*time.Second)
	if err != nil {
		cs = &PerftestSide{Name: p.name, Role: "client", RC: -1, Error: err.Error()}
	}
	so := <-srvc
	if so.err != nil {
		so.side = &PerftestSide{Name: p.name, Role: "server", RC: -1, Error: so.err.Error()}
	}
	res.ClientSide, res.ServerSide = cs, so.side
	return res
}

// runSide runs a lab-pt command (which prints its JSON even when the test fails).
func (r *runner) runSide(ctx context.Context, host, cmd string, bound time.Duration) (*PerftestSide, error) {
	cctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var out, errb bytes.Buffer
	err := r.s.Run(cctx, host, cmd, &out, &errb)
	line := bytes.TrimSpace(out.Bytes())
	if len(line) == 0 {
		if err == nil {
			err = errors.New("no output")
		}
		return nil, fmt.Errorf("%s on %s: %w: %s", cmd, host, err, truncate(errb.String(), 300))
	}
	if i := bytes.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	}
	return decodeSide(line)
}

func summary(s *PerftestSide) string {
	if s == nil || s.Result == nil {
		if s != nil {
			return "no result: " + s.Error
		}
		return "no result"
	}
	if s.Result.BWUnit != "" {
		return fmt.Sprintf("%.3f %s avg", s.Result.BWAvg, s.Result.BWUnit)
	}
	return fmt.Sprintf("%.1f us typical", s.Result.TTypicalUS)
}

func (r *runner) add(p Perftest) Perftest {
	r.mu.Lock()
	r.res.Perftests = append(r.res.Perftests, p)
	r.mu.Unlock()
	return p
}

// checkRun asserts that a perftest ran and moved RoCE packets over the devices.
func (r *runner) checkRun(p Perftest) {
	c, s := p.ClientSide, p.ServerSide
	// the server side of a read test prints no summary row: its exit status is what counts
	ok := c.OK() && s != nil && s.RC == 0 && !s.TimedOut
	detail := fmt.Sprintf("client rc=%d timed_out=%v attempts=%d %s; server rc=%d %s", c.RC, c.TimedOut, c.Attempts, c.Error, s.RC, s.Error)
	r.check(p.Name+": completed", ok, "%s", detail)
	if !ok {
		return
	}
	res := c.Result
	if res.BWUnit != "" {
		r.check(p.Name+": bandwidth > 0", res.BWAvg > 0, "%.3f %s", res.BWAvg, res.BWUnit)
	} else {
		r.check(p.Name+": latency > 0", res.TTypicalUS > 0 && res.TAvgUS >= res.TMinUS, "typical %.2f us avg %.2f us", res.TTypicalUS, res.TAvgUS)
	}
	if p.Loopback {
		r.check(p.Name+": packets on "+c.Device, c.Counters["sent_pkts"] > 0 && c.Counters["rcvd_pkts"] > 0,
			"sent_pkts +%d rcvd_pkts +%d", c.Counters["sent_pkts"], c.Counters["rcvd_pkts"])
		return
	}
	r.check(p.Name+": packets crossed the wire", c.Counters["sent_pkts"] > 0 && s.Counters["rcvd_pkts"] > 0,
		"%s sent_pkts +%d, %s rcvd_pkts +%d", p.Client, c.Counters["sent_pkts"], p.Server, s.Counters["rcvd_pkts"])
}

func perftestScenario(ctx context.Context, r *runner) error {
	h1, h2 := r.s.VMs[0].Name, r.s.VMs[1].Name
	bw := func(name, tool string, n int, extra ...string) ptSpec {
		return ptSpec{name: name, tool: tool, args: append([]string{"--report_gbits", "-n", fmt.Sprint(n)}, extra...), timeout: 90 * time.Second}
	}
	lat := func(name, tool string, n int, extra ...string) ptSpec {
		return ptSpec{name: name, tool: tool, args: append([]string{"-n", fmt.Sprint(n)}, extra...), timeout: 90 * time.Second}
	}
	// iteration counts keep each run to seconds under emulation on a busy 2-core machine
	loops := []ptSpec{
		bw("loop_write_bw", "ib_write_bw", 300),
		lat("loop_send_lat", "ib_send_lat", 200),
	}
	cmLoop := bw("loop_write_bw_cm", "ib_write_bw", 200, "-R")
	cmLoop.dev = "rxelb"
	loops = append(loops, cmLoop)
	for _, p := range loops {
		r.checkRun(r.add(r.loop(ctx, h1, p)))
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	pairs := []ptSpec{
		bw("write_bw", "ib_write_bw", 500),
		bw("read_bw", "ib_read_bw", 300),
		bw("send_bw", "ib_send_bw", 300),
		lat("write_lat", "ib_write_lat", 300),
		lat("read_lat", "ib_read_lat", 300),
		lat("send_lat", "ib_send_lat", 300),
		bw("write_bw_cm", "ib_write_bw", 300, "-R"),
		lat("send_lat_cm", "ib_send_lat", 200, "-R"),
	}
	for _, p := range pairs {
		r.checkRun(r.add(r.pair(ctx, h1, h2, p)))
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// --- lossy -------------------------------------------------------------------------------------

// LossPercent is the netem loss the lossy scenario puts on the client host's RoCE traffic.
const LossPercent = 3

func lossy(ctx context.Context, r *runner) error {
	h1, h2 := r.s.VMs[0].Name, r.s.VMs[1].Name
	spec := func(name string, n int, tmo time.Duration) ptSpec {
		return ptSpec{name: name, tool: "ib_write_bw", args: []string{"--report_gbits", "-s", "4096", "-n", fmt.Sprint(n)}, timeout: tmo}
	}
	clear := func() {
		_, _ = r.s.Output(context.WithoutCancel(ctx), h1, "lab-netem clear eth0")
	}
	defer clear()
	clear()
	base := r.add(r.pair(ctx, h1, h2, spec("baseline_write_bw_4k", 2000, 90*time.Second)))
	r.checkRun(base)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	lossSpec := fmt.Sprintf("loss %d%%", LossPercent)
	if _, err := r.s.Output(ctx, h1, "lab-netem set eth0 "+lossSpec); err != nil {
		return fmt.Errorf("setting netem on %s: %w", h1, err)
	}
	lp := spec("lossy_write_bw_4k", 2000, 150*time.Second)
	lossyRun := r.pair(ctx, h1, h2, lp)
	lossyRun.Fault = h1 + " eth0 " + lossSpec + " (UDP dport 4791 only)"
	r.add(lossyRun)
	r.checkRun(lossyRun)
	if st, err := r.netemStats(ctx, h1, lossSpec); err == nil {
		r.check("netem dropped RoCE packets", st.Dropped > 0, "%d of %d packets dropped on %s eth0", st.Dropped, st.SentPkts+st.Dropped, h1)
	} else {
		r.check("netem statistics", false, "%v", err)
	}
	if base.ClientSide.OK() && lossyRun.ClientSide.OK() {
		b, l := base.ClientSide.Result.BWAvg, lossyRun.ClientSide.Result.BWAvg
		r.check("loss lowers bandwidth", l < b, "baseline %.4f Gb/s, with %s %.4f Gb/s (%.0f%%)", b, lossSpec, l, 100*l/b)
		bc, lc := base.ClientSide.Counters, lossyRun.ClientSide.Counters
		bs, ls := base.ServerSide.Counters, lossyRun.ServerSide.Counters
		r.check("loss shows in requester retries", lc["completer_retry_err"] > bc["completer_retry_err"],
			"%s completer_retry_err +%d (baseline +%d)", h1, lc["completer_retry_err"], bc["completer_retry_err"])
		r.check("loss shows in responder sequence errors", ls["out_of_seq_request"] > bs["out_of_seq_request"],
			"%s out_of_seq_request +%d (baseline +%d)", h2, ls["out_of_seq_request"], bs["out_of_seq_request"])
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// black hole: perftest's retry count 7 means "retry forever" to rxe; only the wall-clock
	// bound of lab-pt ends it.
	if _, err := r.s.Output(ctx, h1, "lab-netem set eth0 loss 100%"); err != nil {
		return fmt.Errorf("setting netem on %s: %w", h1, err)
	}
	bound := 20 * time.Second
	t0 := time.Now()
	bh := r.pair(ctx, h1, h2, spec("blackhole_write_bw_4k", 200, bound))
	took := time.Since(t0)
	bh.Fault = h1 + " eth0 loss 100% (UDP dport 4791 only)"
	r.add(bh)
	_, _ = r.netemStats(ctx, h1, "loss 100%")
	c, s := bh.ClientSide, bh.ServerSide
	r.check("black hole ends in a timeout", c != nil && c.TimedOut && c.Result == nil,
		"client rc=%d timed_out=%v after %d ms (bound %s)", c.RC, c.TimedOut, c.WallMS, bound)
	r.check("black hole is bounded", took < bound+45*time.Second, "pair took %s", took.Round(time.Second))
	r.check("black hole: requester retried, responder received nothing",
		c.Counters["completer_retry_err"] > 0 && s.Counters["rcvd_pkts"] == 0,
		"%s completer_retry_err +%d sent_pkts +%d; %s rcvd_pkts +%d", h1, c.Counters["completer_retry_err"], c.Counters["sent_pkts"], h2, s.Counters["rcvd_pkts"])
	return nil
}

func (r *runner) netemStats(ctx context.Context, host, spec string) (Netem, error) {
	out, err := r.s.Output(ctx, host, "lab-netem stats eth0")
	if err != nil {
		return Netem{}, err
	}
	n := Netem{Host: host, Dev: "eth0", Spec: spec}
	if err := json.Unmarshal(bytes.TrimSpace(out), &n); err != nil {
		return Netem{}, fmt.Errorf("decoding netem stats %q: %w", out, err)
	}
	n.Host, n.Dev, n.Spec = host, "eth0", spec
	r.mu.Lock()
	r.res.Netem = append(r.res.Netem, n)
	r.mu.Unlock()
	return n, nil
}
