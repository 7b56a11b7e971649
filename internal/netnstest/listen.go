package netnstest

import (
	"fmt"
	"net"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// ListenIn opens a TCP listener inside network namespace ns (a name under
// /run/netns). The socket stays in that namespace after the calling thread
// returns to its own, so in-process servers (the switch simulators) can live
// in a namespace of their own.
func ListenIn(t testing.TB, ns, addr string) net.Listener {
	t.Helper()
	ln, err := listenIn(ns, addr)
	if err != nil {
		t.Fatalf("listening on %s in %s: %v", addr, ns, err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

func listenIn(ns, addr string) (net.Listener, error) {
	runtime.LockOSThread()
	// The thread is not unlocked on error paths after a failed return to the
	// original namespace: the runtime then retires it instead of reusing it.
	orig, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer unix.Close(orig)
	target, err := unix.Open("/run/netns/"+ns, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer unix.Close(target)
	if err := unix.Setns(target, unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("entering %s: %w", ns, err)
	}
	ln, lerr := net.Listen("tcp", addr)
	if err := unix.Setns(orig, unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("returning from %s: %w", ns, err)
	}
	runtime.UnlockOSThread()
	return ln, lerr
}

// AddNamespace adds a namespace joined to the bridge without a host entry
// (for a switch simulator), returning its address.
func (n *Net) AddNamespace(t testing.TB, name string, hostOctet int) Host {
	t.Helper()
	h := Host{Name: name, Netns: n.Hosts[0].Netns[:len(n.Hosts[0].Netns)-len(n.Hosts[0].Name)] + name,
		Veth: n.Hosts[0].Veth[:len(n.Hosts[0].Veth)-len(n.Hosts[0].Name)] + name}
	h.Addr = fmt.Sprintf("%s.%d", n.Gateway[:len(n.Gateway)-2], hostOctet)
	n.extra = append(n.extra, h)
	n.wire(t, h)
	return h
}
