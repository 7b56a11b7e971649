package lab

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// command runs a host program and returns its error with the program's stderr in it.
func command(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("running %s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

// NetnsPath is the bind mount of the lab namespace (as `ip netns add` creates it).
func (s *State) NetnsPath() string { return filepath.Join("/run/netns", s.Netns) }

func netnsExists(name string) bool {
	_, err := os.Stat(filepath.Join("/run/netns", name))
	return err == nil
}

// BridgeMTU is the MTU of the lab bridge and taps: a switch's usual jumbo MTU (switchMtu 9216),
// so hosts whose eth0 the fabric sets to MTU 9000 keep talking (rxe's path MTU follows eth0:
// 4096-byte RoCE payloads, which a 1500-byte tap would drop).
const BridgeMTU = 9216

// setupNetwork creates the lab namespace: loopback up, the bridge with the controller's (and
// the extra) addresses and one tap per VM enslaved to it. Nothing in it is connected to any other
// namespace, so lab traffic never leaves it.
func (s *State) setupNetwork(ctx context.Context) error {
	for _, st := range s.networkSteps() {
		if err := command(ctx, "ip", st...); err != nil {
			return fmt.Errorf("creating the lab network: %w", err)
		}
	}
	if len(s.Leaves) > 0 {
		return s.setupLeaves(ctx)
	}
	return nil
}

// networkSteps are setupNetwork's ip commands, in order.
func (s *State) networkSteps() [][]string {
	ns := s.Netns
	bits := s.Topology.Subnet.Bits()
	steps := [][]string{
		{"netns", "add", ns},
		{"-n", ns, "link", "set", "lo", "up"},
		// group_fwd_mask 0 (the kernel's default, made explicit): the bridge keeps LLDP
		// (01:80:c2:00:00:0e) to itself, so a VM's lldpd never sees another VM as its neighbour
		{"-n", ns, "link", "add", s.Bridge, "mtu", strconv.Itoa(BridgeMTU), "type", "bridge", "group_fwd_mask", "0"},
		{"-n", ns, "link", "set", s.Bridge, "address", MAC(s.Topology.Controller)},
		{"-n", ns, "addr", "add", fmt.Sprintf("%s/%d", s.Topology.Controller, bits), "dev", s.Bridge},
	}
	for _, a := range s.Topology.Extra {
		steps = append(steps, []string{"-n", ns, "addr", "add", fmt.Sprintf("%s/%d", a, bits), "dev", s.Bridge})
	}
	steps = append(steps, []string{"-n", ns, "link", "set", s.Bridge, "up"})
	for _, v := range s.VMs {
		if v.Netns != "" {
			continue // on a leaf: setupLeaves creates it
		}
		steps = append(steps,
			[]string{"-n", ns, "tuntap", "add", "dev", v.Tap, "mode", "tap"},
			[]string{"-n", ns, "link", "set", v.Tap, "mtu", strconv.Itoa(BridgeMTU)},
			portQueueArgs(ns, v.Tap, LosslessQueueLen), // the lossless emulation (lossless.go)
			[]string{"-n", ns, "link", "set", v.Tap, "master", s.Bridge},
			[]string{"-n", ns, "link", "set", v.Tap, "up"})
	}
	return steps
}

// InNetns runs fn on an OS thread that has entered the lab namespace; sockets fn creates live in
// the namespace. The thread returns to its namespace afterwards (or is discarded if it cannot).
func (s *State) InNetns(fn func() error) error {
	target, err := os.Open(s.NetnsPath())
	if err != nil {
		return fmt.Errorf("opening the lab namespace: %w (is the lab up?)", err)
	}
	defer target.Close()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("opening the current namespace: %w", err)
			return
		}
		defer orig.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("entering the lab namespace: %w (needs root)", err)
			return
		}
		ferr := fn()
		if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
			// leave the thread locked: Go discards it when this goroutine ends
			errc <- ferr
			return
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

// Dial connects to addr from inside the lab namespace (the controller's view of the fabric). It
// is a drop-in dialer for SSH clients, switch-driver sessions and HTTP transports.
func (s *State) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var c net.Conn
	err := s.InNetns(func() error {
		var err error
		c, err = (&net.Dialer{}).DialContext(ctx, network, addr)
		return err
	})
	return c, err
}
