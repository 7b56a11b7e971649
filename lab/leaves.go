package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The two-leaf lab: instead of one bridge holding every tap, each leaf
// "switch" is a Linux bridge in a network namespace of its own, with its
// hosts' taps as ports swp1, swp2, … (in Leaf.Hosts order), an inter-leaf
// link (a veth pair, TrunkPort on both leaves) and lldpd advertising the
// leaf's name and port names. The controller's bridge in the lab namespace
// joins the first leaf through a veth (ControllerPort on that leaf), so the
// controller reaches the second leaf's hosts across the inter-leaf link —
// only RoCE (UDP 4791) is ever impaired there, so SSH keeps working.
//
//	lab netns: br0 (controller, simulators) ─ leaf0 ══ swp32 ─┐
//	leaf-01 netns: br0 ─ swp1 (tap, lab-h1) ─ swp2 (lab-h2) ─ swp49 ══╗
//	leaf-02 netns: br0 ─ swp1 (tap, lab-h3) ─ swp2 (lab-h4) ─ swp49 ══╝

// Port names of a leaf that are not host ports.
const (
	TrunkPort      = "swp49" // the inter-leaf link, on both leaves
	ControllerPort = "swp32" // the first leaf's port towards the controller's bridge
	controllerVeth = "leaf0" // its other end, on the controller's bridge
)

// Leaf is one leaf "switch" of a two-leaf lab topology.
type Leaf struct {
	Name string `json:"name"`
	// Hosts are the VM-hosts cabled to the leaf, on swp1, swp2, … in this order unless Ports
	// names a host's port.
	Hosts []string `json:"hosts"`
	// Ports maps a host to its port on the leaf (a Linux interface name: the tap is named
	// like the port), as the fabric's cabling declares it.
	Ports map[string]string `json:"ports,omitempty"`
}

// port is host i's port on the leaf.
func (l Leaf) port(i int) string {
	if p := l.Ports[l.Hosts[i]]; p != "" {
		return p
	}
	return HostPort(i)
}

// LeafSwitch is a leaf as Up started it.
type LeafSwitch struct {
	Name   string `json:"name"`
	Netns  string `json:"netns"`
	Dir    string `json:"dir"`    // state: lldpd.conf, lldpd.log, lldpd.socket
	Socket string `json:"socket"` // lldpd's control socket: lldpcli -u SOCKET show neighbors
	Pid    int    `json:"pid,omitempty"`
}

// TwoLeafTopology is DefaultTopology with lab-h1, lab-h2 on leaf-01 and
// lab-h3, lab-h4 on leaf-02 (profiles/lab/two-leaf.yaml declares this
// cabling).
func TwoLeafTopology() Topology {
	t := DefaultTopology()
	t.Leaves = []Leaf{{Name: "leaf-01", Hosts: []string{"lab-h1", "lab-h2"}}, {Name: "leaf-02", Hosts: []string{"lab-h3", "lab-h4"}}}
	return t
}

// HostPort is the leaf port a host is cabled to in a two-leaf topology.
func HostPort(i int) string { return "swp" + strconv.Itoa(i+1) }

var portNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,14}$`)

// validateLeaves checks a topology's leaves: none, or exactly two with
// valid names, every host on exactly one leaf.
func (t Topology) validateLeaves() error {
	if len(t.Leaves) == 0 {
		return nil
	}
	if len(t.Leaves) != 2 {
		return fmt.Errorf("leaves: %d given, the lab builds two: %w", len(t.Leaves), ErrBadTopology)
	}
	var errs []error
	on := map[string]string{}
	for i, l := range t.Leaves {
		if !hostNameRE.MatchString(l.Name) {
			errs = append(errs, fmt.Errorf("leaves[%d]: name %q: want lower-case letters, digits and '-': %w", i, l.Name, ErrBadTopology))
		}
		if len(l.Hosts) > 31 {
			errs = append(errs, fmt.Errorf("leaves[%d] %s: %d hosts, at most 31 (swp1-31): %w", i, l.Name, len(l.Hosts), ErrBadTopology))
		}
		ports := map[string]bool{TrunkPort: true, "br0": true}
		if i == 0 {
			ports[ControllerPort] = true
		}
		for j, h := range l.Hosts {
			p := l.port(j)
			if !portNameRE.MatchString(p) || ports[p] {
				errs = append(errs, fmt.Errorf("leaves[%d] %s: host %s's port %q: want a free interface name of up to 15 letters and digits (not %s, %s): %w",
					i, l.Name, h, p, TrunkPort, ControllerPort, ErrBadTopology))
			}
			ports[p] = true
			if prev, dup := on[h]; dup {
				errs = append(errs, fmt.Errorf("leaves[%d] %s: host %s is already on %s: %w", i, l.Name, h, prev, ErrBadTopology))
			}
			on[h] = l.Name
		}
	}
	if t.Leaves[0].Name == t.Leaves[1].Name {
		errs = append(errs, fmt.Errorf("leaves: name %s used twice: %w", t.Leaves[0].Name, ErrBadTopology))
	}
	for _, h := range t.Hosts {
		if on[h.Name] == "" {
			errs = append(errs, fmt.Errorf("host %s is on no leaf: %w", h.Name, ErrBadTopology))
		}
		delete(on, h.Name)
	}
	for h, l := range on {
		errs = append(errs, fmt.Errorf("leaf %s: no lab host %s: %w", l, h, ErrBadTopology))
	}
	return errors.Join(errs...)
}

// planLeaves gives each VM of a two-leaf topology its leaf port (its tap,
// named like the port) and the leaf's namespace.
func (s *State) planLeaves() {
	for _, l := range s.Topology.Leaves {
		ls := LeafSwitch{Name: l.Name, Netns: s.Netns + "-" + l.Name, Dir: filepath.Join(s.StateDir, "leaves", l.Name)}
		ls.Socket = filepath.Join(ls.Dir, "lldpd.socket")
		s.Leaves = append(s.Leaves, ls)
		for i, h := range l.Hosts {
			for j := range s.VMs {
				if s.VMs[j].Name == h {
					s.VMs[j].Tap = l.port(i)
					s.VMs[j].Netns = ls.Netns
					s.VMs[j].Leaf = l.Name
				}
			}
		}
	}
}

// vmNetns is the namespace holding v's tap (and its qemu).
func (s *State) vmNetns(v VM) string {
	if v.Netns != "" {
		return v.Netns
	}
	return s.Netns
}

// Leaf returns the started leaf called name.
func (s *State) Leaf(name string) (LeafSwitch, error) {
	for _, l := range s.Leaves {
		if l.Name == name {
			return l, nil
		}
	}
	var names []string
	for _, l := range s.Leaves {
		names = append(names, l.Name)
	}
	if len(names) == 0 {
		return LeafSwitch{}, fmt.Errorf("no leaf %q: this lab has one bridge, no leaves (lab up --leaves 2)", name)
	}
	return LeafSwitch{}, fmt.Errorf("no leaf %q (have %s)", name, strings.Join(names, ", "))
}

// TrunkName is the fault target name of the inter-leaf link ("leaf-01~leaf-02").
func (s *State) TrunkName() string {
	if len(s.Leaves) != 2 {
		return ""
	}
	return s.Leaves[0].Name + "~" + s.Leaves[1].Name
}

// setupLeaves creates the leaves' namespaces and bridges, the hosts' taps
// as leaf ports, the inter-leaf veth and the controller's veth.
func (s *State) setupLeaves(ctx context.Context) error {
	for _, st := range s.leafSteps() {
		if err := command(ctx, "ip", st...); err != nil {
			return fmt.Errorf("creating the leaves: %w", err)
		}
	}
	return nil
}

// leafSteps are setupLeaves' ip commands, in order.
func (s *State) leafSteps() [][]string {
	mtu := strconv.Itoa(BridgeMTU)
	var steps [][]string
	for _, l := range s.Leaves {
		ns := l.Netns
		steps = append(steps,
			[]string{"netns", "add", ns},
			[]string{"-n", ns, "link", "set", "lo", "up"},
			// group_fwd_mask 0: LLDP frames stop at the port they arrive on, where the leaf's
			// lldpd reads them; a host sees its leaf's port, never another host
			[]string{"-n", ns, "link", "add", "br0", "mtu", mtu, "type", "bridge", "group_fwd_mask", "0"},
			[]string{"-n", ns, "link", "set", "br0", "up"})
		for _, v := range s.VMs {
			if v.Netns != ns {
				continue
			}
			steps = append(steps,
				[]string{"-n", ns, "tuntap", "add", "dev", v.Tap, "mode", "tap"},
				[]string{"-n", ns, "link", "set", v.Tap, "mtu", mtu},
				portQueueArgs(ns, v.Tap, LosslessQueueLen), // the lossless emulation (lossless.go)
				[]string{"-n", ns, "link", "set", v.Tap, "master", "br0"},
				[]string{"-n", ns, "link", "set", v.Tap, "up"})
		}
	}
	a, b := s.Leaves[0].Netns, s.Leaves[1].Netns
	steps = append(steps,
		[]string{"-n", a, "link", "add", TrunkPort, "mtu", mtu, "type", "veth", "peer", "name", TrunkPort, "netns", b},
		[]string{"-n", b, "link", "set", TrunkPort, "mtu", mtu},
		[]string{"-n", a, "link", "add", ControllerPort, "mtu", mtu, "type", "veth", "peer", "name", controllerVeth, "netns", s.Netns},
		[]string{"-n", s.Netns, "link", "set", controllerVeth, "mtu", mtu},
		[]string{"-n", s.Netns, "link", "set", controllerVeth, "master", s.Bridge},
		[]string{"-n", s.Netns, "link", "set", controllerVeth, "up"})
	for _, p := range [][2]string{{a, TrunkPort}, {b, TrunkPort}, {a, ControllerPort}} {
		steps = append(steps,
			[]string{"-n", p[0], "link", "set", p[1], "master", "br0"},
			[]string{"-n", p[0], "link", "set", p[1], "up"})
	}
	return steps
}

// lldpdConf is a leaf's lldpd configuration: its name as system name,
// interface names as port IDs (as a switch sends them), swp ports only.
func lldpdConf(name string) string {
	return "configure system hostname " + name + "\n" +
		"configure system description \"fabricctl lab leaf (Linux bridge)\"\n" +
		"configure system interface pattern swp*\n" +
		"configure lldp portidsubtype ifname\n" +
		"configure lldp tx-interval 5\n"
}

// startLLDP starts one lldpd per leaf, inside the leaf's namespace, as a
// detached process whose pid is recorded (Down stops it).
func (s *State) startLLDP(ctx context.Context) error {
	if len(s.Leaves) == 0 {
		return nil
	}
	bin, err := exec.LookPath("lldpd")
	if err != nil {
		return fmt.Errorf("starting lldpd on the leaves: lldpd: %w (run lab/scripts/install-deps.sh)", err)
	}
	for i := range s.Leaves {
		l := &s.Leaves[i]
		if err := os.MkdirAll(l.Dir, 0o755); err != nil {
			return fmt.Errorf("starting lldpd on %s: %w", l.Name, err)
		}
		conf := filepath.Join(l.Dir, "lldpd.conf")
		if err := os.WriteFile(conf, []byte(lldpdConf(l.Name)), 0o644); err != nil {
			return fmt.Errorf("starting lldpd on %s: %w", l.Name, err)
		}
		_ = os.Remove(l.Socket)
		logf, err := os.Create(filepath.Join(l.Dir, "lldpd.log"))
		if err != nil {
			return fmt.Errorf("starting lldpd on %s: %w", l.Name, err)
		}
		// -d: stay in the foreground (a daemonized lldpd writes one global pid file)
		cmd := exec.Command("ip", "netns", "exec", l.Netns, bin, "-d", "-u", l.Socket, "-O", conf, "-I", "swp*")
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		err = cmd.Start()
		logf.Close()
		if err != nil {
			return fmt.Errorf("starting lldpd on %s: %w", l.Name, err)
		}
		l.Pid = cmd.Process.Pid
		go func() { _ = cmd.Wait() }()
	}
	if err := s.Save(); err != nil {
		return err
	}
	for _, l := range s.Leaves {
		if err := s.waitLLDP(ctx, l); err != nil {
			return err
		}
	}
	return nil
}

// waitLLDP waits until a leaf's lldpd answers on its socket with its
// configuration applied (the system name is the leaf's).
func (s *State) waitLLDP(ctx context.Context, l LeafSwitch) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var last string
	for {
		out, err := exec.CommandContext(ctx, "ip", "netns", "exec", l.Netns, "lldpcli", "-u", l.Socket, "show", "chassis").CombinedOutput()
		last = strings.TrimSpace(string(out))
		if err == nil && strings.Contains(last, "SysName:      "+l.Name) {
			return nil
		}
		if !pidRuns(l.Pid, "lldpd") {
			return fmt.Errorf("lldpd on %s exited: %s", l.Name, tail(filepath.Join(l.Dir, "lldpd.log"), 10))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for lldpd on %s: %w (last answer: %s)", l.Name, ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// LeafNeighbors is `lldpcli -f json show neighbors` on a leaf: what the
// leaf "switch" learnt over LLDP.
func (s *State) LeafNeighbors(ctx context.Context, leaf string) ([]byte, error) {
	l, err := s.Leaf(leaf)
	if err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, "ip", "netns", "exec", l.Netns, "lldpcli", "-u", l.Socket, "-f", "json", "show", "neighbors").Output()
	if err != nil {
		return nil, fmt.Errorf("reading LLDP neighbours of %s: %w", leaf, err)
	}
	return out, nil
}

// stopLeaves stops the leaves' lldpd and removes their namespaces.
func (s *State) stopLeaves(ctx context.Context) error {
	var errs []error
	for _, l := range s.Leaves {
		if l.Pid > 0 && pidRuns(l.Pid, "lldpd") {
			_ = syscall.Kill(-l.Pid, syscall.SIGTERM) // its session: the monitor and its privilege-separated child
			for range 50 {
				if !pidRuns(l.Pid, "lldpd") {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if pidRuns(l.Pid, "lldpd") {
				_ = syscall.Kill(-l.Pid, syscall.SIGKILL)
			}
		}
		if netnsExists(l.Netns) {
			if err := command(ctx, "ip", "netns", "del", l.Netns); err != nil {
				errs = append(errs, fmt.Errorf("deleting leaf %s's namespace: %w", l.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// leafNamespaces are the namespaces a two-leaf lab of netns would use, for
// cleaning up after a lab whose state is lost.
func leafNamespaces(netns string) []string {
	ents, err := os.ReadDir("/run/netns")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), netns+"-leaf") {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out
}
