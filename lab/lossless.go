package lab

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// The lab's lossless emulation. rxe has no PFC: it sends no pause frames
// and honours none, and Linux bridges neither. What PFC buys a real fabric
// — a congested port holds packets back instead of dropping them — the lab
// emulates with a queue deep enough that it never fills: every leaf port
// facing a host (the VM's tap, in the lab namespace or, in the two-leaf
// lab, the leaf's swpN) gets a transmit queue of LosslessQueueLen packets
// at lab up. A tap's queue is the tun driver's ring, sized by the
// interface's txqueuelen; when it is full, the packet is dropped and the
// tap counts tx_dropped (the qdisc above it never backs up and counts no
// drop). An incast never fills a deep ring: rxe keeps at most 128 packets
// of an RC QP unacknowledged (RXE_MAX_UNACKED_PSNS,
// https://github.com/torvalds/linux/blob/v6.1/drivers/infiniband/sw/rxe/rxe_param.h),
// so 3 senders with 2 QPs each have at most 768 packets in flight towards
// the receiver, plus whatever copies their retransmit timers add.
//
// The fault `lab fault add host/NAME pfc-off` (PFCOff) takes the emulation
// off one port: NAME's leaf port gets a ring of PFCOffQueueLen packets,
// which holds one sender's burst (1 flow of 2 QPs: 256 packets) but not an
// incast's, so that port drops under congestion, as a real port whose PFC
// is off does, while one sender through it keeps its sequence.
// `lab fault clear` gives the port its deep queue back.
//
// Measured on this project's 2-core machine (docs/lab.md has the table and
// the commands; 3 senders to lab-h4, ib_write_bw -D 10 -s 65536 -q 2): the
// tun's default 1000 dropped 2308 packets; 10000 dropped none in 11 runs;
// 256 dropped 2434-27295 with 50-405 out_of_seq_request on the receiver,
// while one 2-QP sender alone moved the sequence counters by 0-2.

// Queue depths, in packets, of a leaf port facing a host.
const (
	// LosslessQueueLen is every such port's depth at lab up: 13 times the
	// 768 packets a 3-sender, 2-QP incast can have in flight.
	LosslessQueueLen = 10000
	// PFCOffQueueLen is the depth of a port under the pfc-off fault: two
	// QPs' windows, one sender's worth.
	PFCOffQueueLen = 256
)

// PFCOff is the fault that takes the lossless emulation off the leaf port
// facing a host: `fabricctl lab fault add host/NAME pfc-off`.
const PFCOff = "pfc-off"

// IsPFCOff reports whether a fault's arguments (Fault.Netem) are the
// pfc-off fault rather than netem.
func IsPFCOff(args []string) bool { return len(args) > 0 && args[0] == PFCOff }

// portQueueArgs are ip's arguments that set the transmit queue of port dev
// in namespace ns to n packets (a tap's ring: the tun driver resizes it
// while qemu holds the tap open).
func portQueueArgs(ns, dev string, n int) []string {
	return []string{"-n", ns, "link", "set", "dev", dev, "txqueuelen", strconv.Itoa(n)}
}

// setPortQueue sets the transmit queue of the machine-side port p.
func (s *State) setPortQueue(ctx context.Context, p FaultPoint, n int) error {
	if err := command(ctx, "ip", portQueueArgs(s.pointNetns(p), p.Dev, n)...); err != nil {
		return fmt.Errorf("setting the queue of %s to %d packets: %w", p, n, err)
	}
	return nil
}

// hostPortPoint is the leaf port facing the host a host/NAME target names:
// its tap on the machine's side (in the lab namespace, or swpN in its
// leaf's namespace).
func (s *State) hostPortPoint(target string) (FaultPoint, error) {
	kind, name, ok := strings.Cut(target, "/")
	if !ok || kind != "host" || name == "" {
		return FaultPoint{}, fmt.Errorf("fault target %q: %w: %s sits on the leaf port facing a host: want host/NAME (e.g. host/%s)",
			target, ErrBadFault, PFCOff, firstVM(s))
	}
	v, err := s.VM(name)
	if err != nil {
		return FaultPoint{}, fmt.Errorf("fault target %q: %w: %w", target, ErrBadFault, err)
	}
	return FaultPoint{Netns: v.Netns, Dev: v.Tap}, nil
}

// PortQueue is what a port's transmit queue was found to be.
type PortQueue struct {
	Point FaultPoint `json:"point"`
	// Len is the queue's depth in packets (txqueuelen).
	Len int `json:"len"`
	// TxPackets and TxDropped are the port's counters: packets sent
	// towards the host and packets the full queue dropped.
	TxPackets uint64 `json:"txPackets"`
	TxDropped uint64 `json:"txDropped"`
}

// Lossless reports whether the queue is the lossless emulation's depth.
func (q PortQueue) Lossless() bool { return q.Len >= LosslessQueueLen }

// HostPortQueue reads the queue and counters of the leaf port facing
// host (where a pfc-off port drops).
func (s *State) HostPortQueue(ctx context.Context, host string) (PortQueue, error) {
	p, err := s.hostPortPoint("host/" + host)
	if err != nil {
		return PortQueue{}, err
	}
	q := PortQueue{Point: p}
	dir := "/sys/class/net/" + p.Dev + "/"
	out, err := outputIn(ctx, s.pointNetns(p), "cat", dir+"tx_queue_len", dir+"statistics/tx_packets", dir+"statistics/tx_dropped")
	if err != nil {
		return q, fmt.Errorf("reading the queue of %s: %w", p, err)
	}
	if q.Len, q.TxPackets, q.TxDropped, err = parsePortQueue(out); err != nil {
		return q, fmt.Errorf("reading the queue of %s: %w", p, err)
	}
	return q, nil
}

// parsePortQueue reads tx_queue_len, tx_packets and tx_dropped, one a line.
func parsePortQueue(out string) (int, uint64, uint64, error) {
	f := strings.Fields(out)
	if len(f) != 3 {
		return 0, 0, 0, fmt.Errorf("want 3 numbers (tx_queue_len, tx_packets, tx_dropped), got %q", out)
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < 0 {
		return 0, 0, 0, fmt.Errorf("tx_queue_len %q is not a count", f[0])
	}
	var c [2]uint64
	for i, v := range f[1:] {
		if c[i], err = strconv.ParseUint(v, 10, 64); err != nil {
			return 0, 0, 0, fmt.Errorf("counter %q is not a count", v)
		}
	}
	return n, c[0], c[1], nil
}

// outputIn runs a program inside namespace ns and returns its output.
func outputIn(ctx context.Context, ns string, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns, name}, args...)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("running %s %s in %s: %w: %s", name, strings.Join(args, " "), ns, err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}
