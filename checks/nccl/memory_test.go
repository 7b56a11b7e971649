package nccl

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hostLog writes the NCCL_DEBUG=INFO log of host h of a job of hosts hosts,
// two ranks each (2h, 2h+1): the banner, bootstrap, NET/IB, four channels
// per rank (P2P inside the node, NET/IB with GPUDirect RDMA around the ring)
// and Init COMPLETE.
func hostLog(h, hosts int) string {
	var b strings.Builder
	name := fmt.Sprintf("gpu-%05d", h)
	addr := fmt.Sprintf("10.%d.%d.%d", h>>16, (h>>8)&255, h&255)
	pid0, pid1 := 20000+h%9000, 30000+h%9000
	r0, r1 := 2*h, 2*h+1
	next, prev := (r1+1)%(2*hosts), (r0+2*hosts-1)%(2*hosts)
	p := func(pid, dev int, format string, a ...any) {
		fmt.Fprintf(&b, "%s:%d:%d [%d] NCCL INFO ", name, pid, pid+91, dev)
		fmt.Fprintf(&b, format, a...)
		b.WriteByte('\n')
	}
	p(pid0, 0, "Bootstrap : Using ens1f0np0:%s<0>", addr)
	p(pid0, 0, "cudaDriverVersion 12040")
	b.WriteString("NCCL version 2.21.5+cuda12.4\n")
	for i, pid := range []int{pid0, pid1} {
		p(pid, i, "NCCL_IB_HCA set to mlx5_0,mlx5_1")
		p(pid, i, "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB ens1f0np0:%s<0>", addr)
		p(pid, i, "Using network IB")
		p(pid, i, "comm 0x55d0c8a3e0a0 rank %d nRanks %d nNodes %d localRanks 2 localRank %d MNNVL 0", r0+i, 2*hosts, hosts, i)
	}
	for c := range 4 {
		p(pid0, 0, "Channel %02d/0 : %d[0] -> %d[1] via P2P/CUMEM", c, r0, r1)
		p(pid1, 1, "Channel %02d/0 : %d[1] -> %d[0] [send] via NET/IB/%d/GDRDMA", c, r1, next, c%2)
		p(pid0, 0, "Channel %02d/0 : %d[1] -> %d[0] [receive] via NET/IB/%d/GDRDMA", c, prev, r0, c%2)
	}
	for i, pid := range []int{pid0, pid1} {
		p(pid, i, "comm 0x55d0c8a3e0a0 rank %d nranks %d cudaDev %d nvmlDev %d busId 18000 commId 0x9a1b2c3d4e5f6071 - Init COMPLETE", r0+i, 2*hosts, i, i)
	}
	return b.String()
}

// lazyLog writes host h's log when first read and lets it go at the end, so
// that only the log being read is in memory.
type lazyLog struct {
	h, hosts int
	r        *strings.Reader
	done     bool
}

func (l *lazyLog) Read(p []byte) (int, error) {
	if l.done {
		return 0, io.EOF
	}
	if l.r == nil {
		l.r = strings.NewReader(hostLog(l.h, l.hosts))
	}
	n, err := l.r.Read(p)
	if err == io.EOF {
		l.r, l.done = nil, true
	}
	return n, err
}

// retained analyses a job of hosts hosts, one log each, and returns the heap
// the Analysis keeps (HeapInuse after GC while it is alive, less the heap
// before) and the peak heap in use while analysing, both in bytes.
func retained(tb testing.TB, hosts int) (kept, peak uint64) {
	tb.Helper()
	srcs := make([]Source, hosts)
	for h := range srcs {
		srcs[h] = Source{Name: fmt.Sprintf("logs/gpu-%05d.log", h), R: &lazyLog{h: h, hosts: hosts}}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	var top atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > top.Load() {
				top.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	a, err := Analyze(Options{}, srcs...)
	close(stop)
	<-sampled
	if err != nil {
		tb.Fatal(err)
	}
	srcs = nil
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(a.Hosts) != hosts || len(a.Errors) != 0 {
		tb.Fatalf("%d hosts, errors %v", len(a.Hosts), a.Errors)
	}
	if h := a.Hosts[hosts/2]; !h.InitComplete || h.GDRDMA != GDRYes || len(h.IBDevices) != 2 || len(h.Ranks) != 2 {
		tb.Fatalf("host %+v", h)
	}
	if len(a.Findings) != 0 {
		tb.Fatalf("findings on a clean job: %+v", a.Findings[:min(3, len(a.Findings))])
	}
	runtime.KeepAlive(a)
	return after.HeapInuse - min(before.HeapInuse, after.HeapInuse), top.Load() - min(before.HeapInuse, top.Load())
}

// TestAnalysisMemoryPerHost: what an analysis keeps of each host is bounded
// (50,000 hosts must fit in 300 MB): 5,000 hosts, two ranks each.
func TestAnalysisMemoryPerHost(t *testing.T) {
	if testing.Short() {
		t.Skip("analyses 5,000 logs")
	}
	const hosts = 5000
	kept, peak := retained(t, hosts)
	t.Logf("%d hosts: %d B kept per host, peak heap %d B per host", hosts, kept/hosts, peak/hosts)
	if kept/hosts > maxKeptPerHost {
		t.Errorf("the analysis keeps %d B per host, want at most %d", kept/hosts, maxKeptPerHost)
	}
}

// maxKeptPerHost is what TestAnalysisMemoryPerHost allows an analysis to
// keep of one host of two ranks (it kept 6,500 B before processes shared
// their machine's state and the Analysis its strings and maps).
const maxKeptPerHost = 2500

// BenchmarkAnalyzeFiftyThousandHosts analyses 50,000 one-host logs and
// reports the heap the Analysis keeps and the peak heap, per host.
func BenchmarkAnalyzeFiftyThousandHosts(b *testing.B) {
	const hosts = 50000
	for b.Loop() {
		kept, peak := retained(b, hosts)
		b.ReportMetric(float64(kept)/hosts, "kept-B/host")
		b.ReportMetric(float64(peak)/hosts, "peak-B/host")
		b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	}
}

// A process repeating one WARN line is one finding with its count, and one
// printing thousands of different ones keeps maxDistinct of them and counts
// the rest, worst status included: memory does not grow with the log.
func TestWarningsBoundedPerProcess(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "gpu-1:100:100 [0] NCCL WARN same thing %d\n", 7)
		fmt.Fprintf(&b, "gpu-2:200:200 [0] NCCL WARN odd thing number %d\n", i)
	}
	b.WriteString("gpu-2:200:200 [0] NCCL WARN Call to ibv_modify_qp failed with error Invalid argument\n")
	a, err := Analyze(Options{}, Source{Name: "job.log", R: strings.NewReader(b.String())})
	if err != nil {
		t.Fatal(err)
	}
	var same, odd, more int
	for _, f := range a.Findings {
		switch {
		case f.Host == "gpu-1" && f.Kind == UnclassifiedWarning:
			same++
			if f.Count != 1000 {
				t.Errorf("repeated line counted %d times, want 1000", f.Count)
			}
		case f.Host == "gpu-2" && f.Kind == UnclassifiedWarning && strings.Contains(f.Message, "not listed"):
			more++
			if !strings.Contains(f.Message, "900 more") || f.Where != "job.log:202" {
				t.Errorf("overflow finding %+v", f)
			}
		case f.Host == "gpu-2" && f.Kind == UnclassifiedWarning:
			odd++
		}
	}
	if same != 1 || odd != maxDistinct || more != 1 {
		t.Errorf("%d repeated, %d distinct, %d overflow findings; want 1, %d, 1", same, odd, more, maxDistinct)
	}
	if !slices.ContainsFunc(a.Findings, func(f Finding) bool { return f.Kind == QPError && f.Host == "gpu-2" }) {
		t.Error("the QP error after the flood is lost")
	}
}
