//go:build lab

package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/lab/image"
)

// incastArgs are the incast suite's perftest: ib_write_bw, 64 KiB messages,
// 2 QPs, 10 s (issue 33), one server per sender on its own port.
var incastArgs = []string{"ib_write_bw", "-D", "10", "-s", "65536", "-q", "2", "--report_gbits"}

// incastRun is what one incast moved: the receiver's leaf port and every
// host's rxe hw_counters (deltas), and each sender's perftest.
type incastRun struct {
	port     PortQueue // after the run
	dropped  uint64    // tx_dropped delta of the receiver's port
	sent     uint64    // tx_packets delta of the receiver's port
	counters map[string]map[string]int64
	clients  map[string]*PerftestSide
}

func (r incastRun) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "port %s (queue %d): tx_packets +%d tx_dropped +%d", r.port.Point, r.port.Len, r.sent, r.dropped)
	for _, h := range slices.Sorted(maps.Keys(r.counters)) {
		c := r.counters[h]
		fmt.Fprintf(&b, "\n  %s: out_of_seq_request %d rcvd_seq_err %d duplicate_request %d completer_retry_err %d retry_exceeded_err %d",
			h, c["out_of_seq_request"], c["rcvd_seq_err"], c["duplicate_request"], c["completer_retry_err"], c["retry_exceeded_err"])
	}
	for _, h := range slices.Sorted(maps.Keys(r.clients)) {
		p := r.clients[h]
		bw := "-"
		if p.Result != nil {
			bw = fmt.Sprint(p.Result.BWAvg)
		}
		fmt.Fprintf(&b, "\n  %s client: rc %d bw %s Gb/s attempts %d %s", h, p.RC, bw, p.Attempts, strings.ReplaceAll(p.Error, "\n", " "))
	}
	return b.String()
}

// sum adds a counter over the given hosts.
func (r incastRun) sum(name string, hosts ...string) int64 {
	var n int64
	for _, h := range hosts {
		n += r.counters[h][name]
	}
	return n
}

func rxeCounters(ctx context.Context, s *State, host string) (map[string]int64, error) {
	out, err := s.Output(ctx, host, "lab-counters rxe0")
	if err != nil {
		return nil, fmt.Errorf("reading rxe0's counters on %s: %w", host, err)
	}
	var c map[string]int64
	if err := json.Unmarshal(out, &c); err != nil {
		return nil, fmt.Errorf("decoding rxe0's counters on %s: %w", host, err)
	}
	return c, nil
}

// incast runs one ib_write_bw per sender into recv at once and reads what
// it moved.
func incast(ctx context.Context, t *testing.T, s *State, label string, recv VM, senders []VM) incastRun {
	t.Helper()
	hosts := []string{recv.Name}
	for _, v := range senders {
		hosts = append(hosts, v.Name)
	}
	read := func() (PortQueue, map[string]map[string]int64) {
		q, err := s.HostPortQueue(ctx, recv.Name)
		if err != nil {
			t.Fatal(err)
		}
		c := map[string]map[string]int64{}
		for _, h := range hosts {
			if c[h], err = rxeCounters(ctx, s, h); err != nil {
				t.Fatal(err)
			}
		}
		return q, c
	}
	q0, c0 := read()
	var wg sync.WaitGroup
	for i, v := range senders {
		port := fmt.Sprint(18600 + i + 1)
		args := append(append([]string{}, incastArgs...), "-p", port)
		name := fmt.Sprintf("incast-%s-%s", label, v.Name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = s.Output(ctx, recv.Name, shellJoin(append([]string{"lab-pt", "server", name, "60", "rxe0", "-"}, args...)...))
		}()
		if _, err := s.Output(ctx, recv.Name, shellJoin("lab-wait-listen", "tcp", port, "30")); err != nil {
			t.Logf("%s: server on %s not seen listening (the client retries): %v", label, port, err)
		}
	}
	r := incastRun{clients: map[string]*PerftestSide{}}
	var mu sync.Mutex
	for i, v := range senders {
		args := append(append([]string{}, incastArgs...), "-p", fmt.Sprint(18600+i+1))
		name := fmt.Sprintf("incast-%s-%s", label, v.Name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := s.Output(ctx, v.Name, shellJoin(append([]string{"lab-pt", "client", name, "50", "rxe0", recv.Address.String()}, args...)...))
			side, derr := decodeSide(out)
			if derr != nil {
				side = &PerftestSide{RC: -1, Error: fmt.Sprint(err, derr)}
			}
			mu.Lock()
			r.clients[v.Name] = side
			mu.Unlock()
		}()
	}
	wg.Wait()
	q1, c1 := read()
	r.port, r.dropped, r.sent = q1, q1.TxDropped-q0.TxDropped, q1.TxPackets-q0.TxPackets
	r.counters = map[string]map[string]int64{}
	for _, h := range hosts {
		r.counters[h] = map[string]int64{}
		for k, v := range c1[h] {
			r.counters[h][k] = v - c0[h][k]
		}
	}
	return r
}

// TestLabIncast proves the lab's lossless emulation and its pfc-off fault
// with the incast suite's traffic (3 senders → 1 receiver, ib_write_bw 64 KiB,
// 2 QPs, 10 s): every host's leaf port has the deep queue after lab up; a
// healthy incast drops nothing at the receiver's port and rxe sees no
// sequence error; with pfc-off on the receiver that port drops and the
// receiver counts out-of-sequence requests; clear restores the deep queue.
func TestLabIncast(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	log := testLog()
	img, err := (&image.Builder{Log: log}).Build(ctx)
	if err != nil {
		t.Fatalf("building the image: %v", err)
	}
	opts := Options{StateDir: "/run/fabricctl-lab-incast", Netns: "fabricctl-labinc"}
	_ = Down(ctx, opts.StateDir, opts.Netns, nil)
	t0 := time.Now()
	s, err := Up(ctx, DefaultTopology(), img, opts, log)
	if err != nil {
		t.Fatalf("lab up: %v", err)
	}
	phaseLog(t, "boot+ssh (4 VMs)", time.Since(t0))
	t.Cleanup(func() {
		if err := s.Down(context.Background(), log); err != nil {
			t.Errorf("lab down: %v", err)
		}
	})
	for _, v := range s.VMs {
		q, err := s.HostPortQueue(ctx, v.Name)
		if err != nil || !q.Lossless() || q.Len != LosslessQueueLen {
			t.Errorf("%s's port after lab up: %+v %v, want a queue of %d", v.Name, q, err, LosslessQueueLen)
		}
	}
	recv, senders := s.VMs[3], s.VMs[:3]
	sendNames := []string{senders[0].Name, senders[1].Name, senders[2].Name}

	t0 = time.Now()
	h := incast(ctx, t, s, "healthy", recv, senders)
	phaseLog(t, "healthy incast", time.Since(t0))
	fmt.Fprintf(os.Stderr, "lab: healthy incast: %v\n", h)
	if h.sent == 0 {
		t.Fatalf("healthy incast: nothing reached %s's port:\n%v", recv.Name, h)
	}
	if h.dropped != 0 {
		t.Errorf("healthy incast: the lossless port dropped %d packets:\n%v", h.dropped, h)
	}
	if n := h.sum("out_of_seq_request", recv.Name) + h.sum("rcvd_seq_err", sendNames...); n != 0 {
		t.Errorf("healthy incast: %d rxe sequence errors:\n%v", n, h)
	}

	f, err := s.AddFault(ctx, "host/"+recv.Name, []string{PFCOff})
	if err != nil {
		t.Fatal(err)
	}
	if q, err := s.HostPortQueue(ctx, recv.Name); err != nil || q.Len != PFCOffQueueLen || q.Point != f.Points[0] {
		t.Fatalf("after pfc-off: %+v %v, want %s with a queue of %d", q, err, f.Points[0], PFCOffQueueLen)
	}
	t0 = time.Now()
	p := incast(ctx, t, s, "pfc-off", recv, senders)
	phaseLog(t, "pfc-off incast", time.Since(t0))
	fmt.Fprintf(os.Stderr, "lab: pfc-off incast: %v\n", p)
	if p.dropped == 0 {
		t.Errorf("pfc-off: %s's port dropped nothing:\n%v", recv.Name, p)
	}
	if p.sum("out_of_seq_request", recv.Name) == 0 || p.sum("rcvd_seq_err", sendNames...) == 0 {
		t.Errorf("pfc-off: rxe saw no sequence error:\n%v", p)
	}

	if _, err := s.ClearFaults(ctx); err != nil {
		t.Fatal(err)
	}
	if q, err := s.HostPortQueue(ctx, recv.Name); err != nil || !q.Lossless() {
		t.Errorf("after clear: %+v %v, want the lossless queue back", q, err)
	}
}
