package netnstest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
)

// Host is one namespace.
type Host struct {
	Name  string // h1, h2, …
	Netns string
	Addr  string // IPv4 address of eth0
	Veth  string // the bridge-side veth in the initial namespace
}

// Net is a bridge and its hosts.
type Net struct {
	Bridge  string
	Gateway string // the controller's address on the bridge
	Hosts   []Host
	extra   []Host // namespaces added with AddNamespace
}

var seq atomic.Int32

// New creates a bridge with n host namespaces.
func New(t testing.TB, n int) *Net {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("SKIPPING: iproute2 (ip) not installed; run scripts/install-deps.sh")
	}
	k := int(seq.Add(1)) + os.Getpid()%200
	sub := fmt.Sprintf("10.77.%d", k%250)
	id := fmt.Sprintf("%x", k)
	nt := &Net{Bridge: "fbr" + id, Gateway: sub + ".1"}
	t.Cleanup(nt.teardown)
	run(t, "ip", "link", "add", nt.Bridge, "type", "bridge")
	run(t, "ip", "addr", "add", nt.Gateway+"/24", "dev", nt.Bridge)
	run(t, "ip", "link", "set", nt.Bridge, "up")
	for i := 1; i <= n; i++ {
		h := Host{Name: fmt.Sprintf("h%d", i), Netns: fmt.Sprintf("fns%s-h%d", id, i),
			Addr: fmt.Sprintf("%s.%d", sub, 10+i), Veth: fmt.Sprintf("fv%sh%d", id, i)}
		nt.Hosts = append(nt.Hosts, h)
		nt.wire(t, h)
	}
	return nt
}

// wire creates h's namespace and joins its eth0 to the bridge.
func (n *Net) wire(t testing.TB, h Host) {
	t.Helper()
	run(t, "ip", "netns", "add", h.Netns)
	run(t, "ip", "link", "add", h.Veth, "type", "veth", "peer", "name", "eth0", "netns", h.Netns)
	run(t, "ip", "link", "set", h.Veth, "master", n.Bridge, "up")
	run(t, "ip", "-n", h.Netns, "addr", "add", h.Addr+"/24", "dev", "eth0")
	run(t, "ip", "-n", h.Netns, "link", "set", "eth0", "up")
	run(t, "ip", "-n", h.Netns, "link", "set", "lo", "up")
}

// Exec runs argv inside host h's namespace and returns its output.
func (n *Net) Exec(t testing.TB, h Host, argv ...string) string {
	t.Helper()
	return run(t, append([]string{"ip", "netns", "exec", h.Netns}, argv...)...)
}

func (n *Net) teardown() {
	for _, h := range append(n.Hosts, n.extra...) {
		exec.Command("ip", "netns", "pids", h.Netns).Run()
		if out, err := exec.Command("ip", "netns", "pids", h.Netns).Output(); err == nil {
			for _, pid := range strings.Fields(string(out)) {
				exec.Command("kill", "-9", pid).Run()
			}
		}
		exec.Command("ip", "link", "del", h.Veth).Run()
		exec.Command("ip", "netns", "del", h.Netns).Run()
	}
	exec.Command("ip", "link", "del", n.Bridge).Run()
}

func run(t testing.TB, argv ...string) string {
	t.Helper()
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(argv, " "), err, out)
	}
	return string(out)
}
