package counters

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// KindReport is the kind of a Report, next to its apiVersion.
const KindReport = "CounterReport"

// Report is what `fabricctl counters` prints.
type Report struct {
	APIVersion string `json:"apiVersion"`
	Fabric     string `json:"fabric"`
	// Interval is the time asked for between the two readings ("" for
	// one reading: the values are the counters themselves).
	Interval string `json:"interval,omitempty"`
	// Lossless are the PFC priorities whose pause metrics are shown.
	Lossless []int `json:"losslessPriorities"`
	// Ports are every port read, hosts first, by target and port.
	Ports []Port `json:"ports"`
	// Unread are the targets (or ports) that could not be read, with why.
	Unread []Unread `json:"unread,omitempty"`
}

// DocumentKind is KindReport.
func (Report) DocumentKind() string { return KindReport }

// Tier says what kind of target a port belongs to.
type Tier string

// The tiers.
const (
	Host   Tier = "host"
	Switch Tier = "switch"
)

// Port is one port's counters.
type Port struct {
	Target string `json:"target"`
	Tier   Tier   `json:"tier"`
	// Port names the port: "netdev/device:port" on a host
	// ("ens1f0np0/mlx5_0:1", "mlx5_0:1" without a netdev), the switch's
	// own port name on a switch.
	Port      string `json:"port"`
	Device    string `json:"device,omitempty"`
	PortNum   int    `json:"portNumber,omitempty"`
	Netdev    string `json:"netdev,omitempty"`
	LinkLayer string `json:"linkLayer,omitempty"`
	// Seconds is the time between the two readings, on the target's clock
	// for a host (the controller's for a switch); 0 for one reading.
	Seconds float64 `json:"seconds,omitempty"`
	// Clean: no loss or error metric is above zero.
	Clean bool `json:"clean"`
	// Metrics are the table's columns, by name (Metrics, PauseRx…); a
	// metric the port has no counter for is absent, never 0.
	Metrics map[string]Value `json:"metrics"`
	// Counters are every counter read, by key: "source/name" on a host
	// (Key), the NOS's name on a switch.
	Counters map[string]Counter `json:"counters"`
	// SourceErrors say which sources of the port could not be read.
	SourceErrors []string `json:"sourceErrors,omitempty"`
}

// Counter is one counter of a port.
type Counter struct {
	// Value is the counter, or with an interval its movement.
	Value uint64 `json:"value"`
	// Before and After are the two readings, with an interval.
	Before *uint64 `json:"before,omitempty"`
	After  *uint64 `json:"after,omitempty"`
	// Reset: the counter went down between the readings (cleared or
	// wrapped); Value is After, a lower bound.
	Reset bool `json:"reset,omitempty"`
	// Kind is what the counter is evidence of (evaluate.KindOf; the
	// switch driver's kind on a switch); "" for counts of traffic.
	Kind string `json:"kind,omitempty"`
	// From is the file or the command it was read from.
	From string `json:"from"`
}

// Unread is a target, or one of its ports, that could not be read.
type Unread struct {
	Target string `json:"target"`
	Error  string `json:"error"`
}

// Options say how to read.
type Options struct {
	// Interval, when positive, reads twice this far apart and reports the
	// movements.
	Interval time.Duration
	// Lossless are the priorities whose PFC pause metrics to show (the
	// fabric's lossless classes: LosslessPriorities).
	Lossless []int
	// Parallel bounds the hosts read at once (0: 32).
	Parallel int
	// Progress, when set, is told what is being done (stderr).
	Progress func(format string, a ...any)
}

// HostAgent is a host to read through its agent.
type HostAgent struct {
	Name  string
	Agent agentclient.Agent
}

// SwitchReading is one switch's port counters, read once.
type SwitchReading struct {
	Switch string
	// At is when the reading ended, on the controller's clock.
	At time.Time
	// From are the commands whose outputs the counters were parsed from.
	From     []string
	Counters []switchcfg.PortCounter
	// Err is why the switch could not be read (Counters are then empty).
	Err error
}

// SwitchSource reads every switch once (NewSwitchSource); nil reads none.
type SwitchSource func(ctx context.Context) []SwitchReading

// reading is one read of every target.
type reading struct {
	hosts    map[string]hostRead
	switches map[string]SwitchReading
}

type hostRead struct {
	r   rdma.PortCounters
	err error
}

// Run reads every host and switch (twice with an interval) and returns
// the report. A target that cannot be read is in Unread; Run itself fails
// only when ctx ends.
func Run(ctx context.Context, fabricName string, hosts []HostAgent, switches SwitchSource, o Options) (*Report, error) {
	progress := o.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	progress("reading the counters of %d host(s) and the switches", len(hosts))
	first := read(ctx, hosts, switches, o.Parallel)
	rep := &Report{APIVersion: fabric.APIVersion, Fabric: fabricName, Lossless: slices.Clone(o.Lossless), Ports: []Port{}}
	if rep.Lossless == nil {
		rep.Lossless = []int{}
	}
	if o.Interval <= 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rep.assemble(first, reading{}, false)
		return rep, nil
	}
	rep.Interval = o.Interval.String()
	progress("waiting %s for the second reading", o.Interval)
	t := time.NewTimer(o.Interval)
	select {
	case <-ctx.Done():
		t.Stop()
		return nil, ctx.Err()
	case <-t.C:
	}
	second := read(ctx, hosts, switches, o.Parallel)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep.assemble(first, second, true)
	return rep, nil
}

// read reads every host (Parallel at once) while the switches are read.
func read(ctx context.Context, hosts []HostAgent, switches SwitchSource, parallel int) reading {
	if parallel <= 0 {
		parallel = 32
	}
	out := reading{hosts: map[string]hostRead{}, switches: map[string]SwitchReading{}}
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, parallel)
	)
	if switches != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, s := range switches(ctx) {
				mu.Lock()
				out.switches[s.Switch] = s
				mu.Unlock()
			}
		}()
	}
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				mu.Lock()
				out.hosts[h.Name] = hostRead{err: ctx.Err()}
				mu.Unlock()
				return
			}
			defer func() { <-sem }()
			var r rdma.PortCounters
			err := agentclient.Call(ctx, h.Agent, rdma.OpCounters, nil, &r)
			if err != nil {
				err = fmt.Errorf("reading port counters: %w", err)
			}
			mu.Lock()
			out.hosts[h.Name] = hostRead{r: r, err: err}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// assemble fills the report from one reading (twice false) or the
// movements between two.
func (rep *Report) assemble(first, second reading, twice bool) {
	for _, name := range slices.Sorted(maps.Keys(first.hosts)) {
		a := first.hosts[name]
		if a.err != nil {
			rep.unread(name, a.err)
			continue
		}
		if !twice {
			for _, p := range a.r.Ports {
				rep.Ports = append(rep.Ports, rep.hostPort(name, p, nil, 0))
			}
			continue
		}
		b := second.hosts[name]
		if b.err != nil {
			rep.unread(name, b.err)
			continue
		}
		secs := b.r.At.Sub(a.r.At).Seconds()
		before := map[string]rdma.PortReading{}
		for _, p := range a.r.Ports {
			before[portID(p)] = p
		}
		for _, p := range b.r.Ports {
			pb, ok := before[portID(p)]
			if !ok {
				rep.unread(name, fmt.Errorf("port %s appeared between the readings", hostPortName(p)))
				continue
			}
			delete(before, portID(p))
			rep.Ports = append(rep.Ports, rep.hostPort(name, p, &pb, secs))
		}
		for _, id := range slices.Sorted(maps.Keys(before)) {
			// A port that vanished (a device reset, a driver reload) is news.
			rep.unread(name, fmt.Errorf("port %s vanished between the readings", hostPortName(before[id])))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(first.switches)) {
		a := first.switches[name]
		if a.Err != nil {
			rep.unread(name, a.Err)
			continue
		}
		if !twice {
			ports, _ := switchPorts(a, nil)
			rep.Ports = append(rep.Ports, ports...)
			continue
		}
		b, ok := second.switches[name]
		switch {
		case !ok:
			rep.unread(name, errors.New("not read the second time"))
			continue
		case b.Err != nil:
			rep.unread(name, b.Err)
			continue
		}
		ports, changed := switchPorts(b, &a)
		rep.Ports = append(rep.Ports, ports...)
		for _, c := range changed {
			rep.unread(name, errors.New(c))
		}
	}
}

func (rep *Report) unread(target string, err error) {
	rep.Unread = append(rep.Unread, Unread{Target: target, Error: err.Error()})
}

func portID(p rdma.PortReading) string { return p.Device + ":" + strconv.Itoa(p.Port) }

// hostPortName is "netdev/device:port", or "device:port" without a netdev.
func hostPortName(p rdma.PortReading) string {
	if p.Netdev == "" {
		return portID(p)
	}
	return p.Netdev + "/" + portID(p)
}

// hostPort makes one host port: its counters (movements since before when
// set), metrics and cleanliness.
func (rep *Report) hostPort(target string, p rdma.PortReading, before *rdma.PortReading, secs float64) Port {
	out := Port{Target: target, Tier: Host, Port: hostPortName(p), Device: p.Device, PortNum: p.Port,
		Netdev: p.Netdev, LinkLayer: p.LinkLayer}
	after, from := flatten(p, &out.SourceErrors)
	if before == nil {
		out.Counters = absolute(after, from, func(name string) string { return bareKind(name) })
	} else {
		// What failed the first time is missing from the movements: say so.
		var first []string
		prev, _ := flatten(*before, &first)
		for _, e := range first {
			out.SourceErrors = append(out.SourceErrors, "first reading: "+e)
		}
		out.Counters = moved(prev, after, from, func(name string) string { return bareKind(name) })
		out.Seconds = secs
	}
	out.Metrics = metrics(rep.Lossless, out.Counters, out.Seconds)
	if !rdma.CountsPhyErrors(p) {
		// The netdev's rx_crc_errors reads 0 on a NIC that never counts
		// it (virtio, veth): absent, not 0.
		delete(out.Metrics, SymbolCRC)
	}
	out.Clean = rep.clean(out.Metrics) && len(out.SourceErrors) == 0
	return out
}

// flatten keys a host port's counters by "source/name" with the file or
// command each came from, and lists the sources that failed.
func flatten(p rdma.PortReading, errs *[]string) (evaluate.Counters, map[string]string) {
	cs, from := evaluate.Counters{}, map[string]string{}
	for _, s := range p.Sources {
		if s.Error != "" {
			*errs = append(*errs, s.Name+": "+s.Error)
		}
		if n := len(s.Unparsed); n > 0 {
			*errs = append(*errs, fmt.Sprintf("%s: %d line(s) not understood, first %q", s.Name, n, s.Unparsed[0]))
		}
		for name, v := range s.Counters {
			k := Key(s.Name, name)
			cs[k] = v
			if s.Name == rdma.SourceEthtool {
				from[k] = s.From
			} else {
				from[k] = s.From + "/" + name
			}
		}
	}
	return cs, from
}

// bareKind is the evidence kind of a "source/name" key's counter.
func bareKind(key string) string {
	_, name, _ := strings.Cut(key, "/")
	k, _ := evaluate.KindOf(name)
	return string(k)
}

// absolute makes counters of one reading.
func absolute(cs evaluate.Counters, from map[string]string, kind func(string) string) map[string]Counter {
	out := make(map[string]Counter, len(cs))
	for k, v := range cs {
		out[k] = Counter{Value: v, Kind: kind(k), From: from[k]}
	}
	return out
}

// moved makes counters of the movements between two readings: a counter
// in one reading only is absent (evaluate.Deltas).
func moved(before, after evaluate.Counters, from map[string]string, kind func(string) string) map[string]Counter {
	out := map[string]Counter{}
	for _, d := range evaluate.Deltas(before, after) {
		b, a := d.Before, d.After
		out[d.Name] = Counter{Value: d.Delta, Before: &b, After: &a, Reset: d.Reset, Kind: kind(d.Name), From: from[d.Name]}
	}
	return out
}

// clean reports whether the port has loss or error metrics and none is
// above zero: a port none of whose loss or error counters could be read is
// not clean but unknown, and stays in the table.
func (rep *Report) clean(ms map[string]Value) bool {
	seen := false
	for name, v := range ms {
		if g := groupOf(rep.Lossless, name); g == Loss || g == Errors {
			if v.Value > 0 {
				return false
			}
			seen = true
		}
	}
	return seen
}

// switchPorts makes the ports of one switch reading (movements since
// before when set), and says which ports were in one reading only.
func switchPorts(r SwitchReading, before *SwitchReading) ([]Port, []string) {
	from := strings.Join(r.From, "; ")
	group := func(s SwitchReading) (map[string]evaluate.Counters, map[string]switchcfg.ErrorKind) {
		ports, kinds := map[string]evaluate.Counters{}, map[string]switchcfg.ErrorKind{}
		for _, c := range s.Counters {
			if ports[c.Port] == nil {
				ports[c.Port] = evaluate.Counters{}
			}
			ports[c.Port][c.Name] = c.Value
			kinds[c.Name] = c.Kind
		}
		return ports, kinds
	}
	now, kinds := group(r)
	var prev map[string]evaluate.Counters
	var secs float64
	if before != nil {
		prev, _ = group(*before)
		secs = r.At.Sub(before.At).Seconds()
	}
	kind := func(name string) string { return string(kinds[name]) }
	var out []Port
	var changed []string
	for _, port := range slices.Sorted(maps.Keys(prev)) {
		if _, ok := now[port]; !ok {
			changed = append(changed, "port "+port+" vanished between the readings")
		}
	}
	for _, port := range slices.Sorted(maps.Keys(now)) {
		froms := map[string]string{}
		for name := range now[port] {
			froms[name] = from
		}
		p := Port{Target: r.Switch, Tier: Switch, Port: port}
		if before == nil {
			p.Counters = absolute(now[port], froms, kind)
		} else {
			pb, ok := prev[port]
			if !ok {
				changed = append(changed, "port "+port+" appeared between the readings")
				continue
			}
			p.Counters = moved(pb, now[port], froms, kind)
			p.Seconds = secs
		}
		p.Metrics = switchMetrics(kinds, p.Counters)
		// Clean: some error or loss metric read, none above zero.
		p.Clean = len(p.Metrics) > 0
		for _, v := range p.Metrics {
			if v.Value > 0 {
				p.Clean = false
			}
		}
		out = append(out, p)
	}
	return out, changed
}

// LosslessPriorities returns the priorities of f's hosts' and switches'
// PFC, ascending: the pause metrics worth a column.
func LosslessPriorities(f *fabric.Fabric) []int {
	seen := map[int]bool{}
	r := f.Resolve()
	for _, h := range r.Hosts {
		for _, i := range h.Interfaces {
			for _, p := range i.PFC.Priorities {
				seen[p] = true
			}
		}
	}
	for _, s := range r.Switches {
		for _, p := range s.PFC.Priorities {
			seen[p] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}
