package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// run is one command on one input and what it must do.
type run struct {
	name   string
	args   []string // "$D" is the work directory
	stdin  string   // a file fed as stdin, under $D
	exit   []int    // the allowed exit codes
	want   string   // in stderr or stdout (empty: anything)
	maxCPU time.Duration
}

func main() {
	bin := flag.String("bin", "bin/fabricctl", "the fabricctl binary")
	maxMB := flag.Int64("max-mb", 300, "peak RSS target per run, MB")
	only := flag.String("only", "", "run only the cases whose name contains this")
	flag.Parse()
	repo, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	dir, err := os.MkdirTemp("", "fabricctl-surfaces-")
	if err != nil {
		fail(err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	defer cleanup()
	runs := generate(dir, repo)
	bad := 0
	fmt.Printf("%-34s %4s %8s %8s %8s %5s  %s\n", "RUN", "EXIT", "WALL", "CPU", "PEAK MB", "/300", "FIRST LINE OF STDERR")
	for _, r := range runs {
		if *only != "" && !strings.Contains(r.name, *only) {
			continue
		}
		args := make([]string, len(r.args))
		for i, a := range r.args {
			args[i] = strings.ReplaceAll(a, "$D", dir)
		}
		cmd := exec.Command(*bin, args...)
		cmd.Dir = dir // 50,000 log names fit in the arguments only relative
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &limitedBuffer{b: &stdout}, &limitedBuffer{b: &stderr}
		if r.stdin != "" {
			f, err := os.Open(filepath.Join(dir, r.stdin))
			if err != nil {
				fail(err)
			}
			cmd.Stdin = f
			defer f.Close()
		}
		start := time.Now()
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			fail(err)
		}
		go func() { done <- cmd.Wait() }()
		var werr error
		killed := false
		select {
		case werr = <-done:
		case <-time.After(2 * time.Minute): // a hang guard
			cmd.Process.Kill()
			werr = <-done
			killed = true
		}
		wall := time.Since(start)
		code := 0
		if ee, ok := werr.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		peakMB := ru.Maxrss / 1024
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		first, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		first = strings.ReplaceAll(first, dir+"/", "")
		var why []string
		if killed {
			why = append(why, "hung (killed after 2 min)")
		}
		ok := false
		for _, e := range r.exit {
			ok = ok || e == code
		}
		if !ok {
			why = append(why, fmt.Sprintf("exit not %v", r.exit))
		}
		if r.want != "" && !strings.Contains(stderr.String()+stdout.String(), strings.ReplaceAll(r.want, "$D", dir)) {
			why = append(why, fmt.Sprintf("no %q", r.want))
		}
		if peakMB > *maxMB {
			why = append(why, "over the memory target")
		}
		maxCPU := r.maxCPU
		if maxCPU == 0 {
			maxCPU = 10 * time.Second
		}
		if cpu > maxCPU {
			why = append(why, fmt.Sprintf("over %v of CPU", maxCPU))
		}
		mark := ""
		if len(why) > 0 {
			bad++
			mark = "  FAIL: " + strings.Join(why, ", ")
		}
		if len(first) > 100 {
			first = first[:100] + "…"
		}
		fmt.Printf("%-34s %4d %7.0fms %7.0fms %8d %5.2f  %s%s\n", r.name, code, float64(wall)/1e6, float64(cpu)/1e6,
			peakMB, float64(peakMB)/float64(*maxMB), first, mark)
	}
	fmt.Printf("%d runs, %d failed their targets\n", len(runs), bad)
	if bad > 0 {
		os.Exit(1)
	}
}

// limitedBuffer keeps the first 1 MiB written to it.
type limitedBuffer struct{ b *bytes.Buffer }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 1<<20 - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// cleanup removes the work directory (also when failing).
var cleanup = func() {}

func fail(err error) {
	cleanup()
	fmt.Fprintln(os.Stderr, "surfaces:", err)
	os.Exit(1)
}

// write writes the file name under dir, its content made by fill.
func write(dir, name string, fill func(w *bufio.Writer)) {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		fail(err)
	}
	f, err := os.Create(p)
	if err != nil {
		fail(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fill(w)
	if err := w.Flush(); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

// upTo repeats line(i) until size bytes are written.
func upTo(size int, line func(i int) string) func(*bufio.Writer) {
	return func(w *bufio.Writer) {
		for i, n := 0, 0; n < size; i++ {
			s := line(i)
			w.WriteString(s)
			n += len(s)
		}
	}
}

const mib = 1 << 20

// ncclLine is a host's NCCL_DEBUG=INFO log, one line of it per i.
func ncclLine(host string) func(i int) string {
	lines := []string{
		"%s:2051:2051 [0] NCCL INFO Bootstrap : Using ens1f0np0:10.0.1.11<0>\n",
		"%s:2051:2060 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB ens1f0np0:10.0.1.11<0>\n",
		"%s:2051:2060 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA\n",
		"%s:2051:2060 [0] NCCL INFO comm 0x55d0c8a3e0a0 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0 - Init COMPLETE\n",
	}
	return func(i int) string { return fmt.Sprintf(lines[i%len(lines)], host) }
}

func generate(d, repo string) []run {
	var runs []run
	add := func(r run) { runs = append(runs, r) }
	must := func(err error) {
		if err != nil {
			fail(err)
		}
	}
	must(syscall.Mkfifo(filepath.Join(d, "fifo"), 0o600))
	if _, err := os.Stat(filepath.Join(repo, "profiles/lab/fabric.yaml")); err != nil {
		fail(fmt.Errorf("run from the repository's root: %w", err))
	}

	// Special files, everywhere a file is named.
	for _, c := range []struct{ name, what, want string }{{"fifo", "$D/fifo", "named pipe"}, {"dev-zero", "/dev/zero", "character device"}} {
		add(run{name: "analyze " + c.name, args: []string{"analyze", c.what}, exit: []int{1}, want: c.want})
		add(run{name: "nccl-analyze " + c.name, args: []string{"nccl", "analyze", "--timeout", "2s", c.what}, exit: []int{1}, want: c.want})
		add(run{name: "switch-parse " + c.name, args: []string{"switch", "parse", "--platform", "cumulus-nvue", c.what}, exit: []int{1}, want: c.want})
		add(run{name: "host-show-desired " + c.name, args: []string{"host", "show", "--desired", c.what}, exit: []int{1}, want: c.want})
	}

	// 100 MiB of each format: streamed, or refused by the budget.
	write(d, "nccl-100MiB.log", upTo(100*mib, ncclLine("gpu-01")))
	add(run{name: "analyze nccl 100MiB", args: []string{"analyze", "$D/nccl-100MiB.log"}, exit: []int{1}, want: "larger than the 64 MiB budget"})
	add(run{name: "nccl-analyze 100MiB", args: []string{"nccl", "analyze", "$D/nccl-100MiB.log"}, exit: []int{0, 2}, maxCPU: 60 * time.Second})
	write(d, "nccl-60MiB.log", upTo(60*mib, ncclLine("gpu-01")))
	add(run{name: "analyze nccl 60MiB (budget)", args: []string{"analyze", "$D/nccl-60MiB.log"}, exit: []int{0, 2}, maxCPU: 60 * time.Second})

	nvue := func(i int) string {
		return fmt.Sprintf("      swp%d:\n        link:\n          mtu: 9216\n        type: swp\n", i)
	}
	head := "- header:\n    model: SN4700\n    version: Cumulus Linux 5.9.1\n- set:\n    interface:\n"
	write(d, "nvue-100MiB.yaml", func(w *bufio.Writer) { w.WriteString(head); upTo(100*mib, nvue)(w) })
	write(d, "nvue-30MiB.yaml", func(w *bufio.Writer) { w.WriteString(head); upTo(30*mib, nvue)(w) })
	add(run{name: "switch-parse nvue 100MiB", args: []string{"switch", "parse", "--platform", "cumulus-nvue", "$D/nvue-100MiB.yaml"}, exit: []int{1}, want: "larger than the 32 MiB budget"})
	add(run{name: "switch-parse nvue 30MiB (budget)", args: []string{"switch", "parse", "--platform", "cumulus-nvue", "$D/nvue-30MiB.yaml"}, exit: []int{0, 1}, maxCPU: 60 * time.Second})
	sonicLine := func(size int) func(*bufio.Writer) {
		return func(w *bufio.Writer) {
			w.WriteString(`{"PORT": {`)
			for i, n := 0, 0; n < size; i++ {
				s := fmt.Sprintf(`"Ethernet%d": {"mtu": "9100", "admin_status": "up", "speed": "400000"}, `, i)
				w.WriteString(s)
				n += len(s)
			}
			w.WriteString(`"Ethernet-1": {"mtu": "9100"}}}`)
		}
	}
	write(d, "sonic-100MiB.json", sonicLine(100*mib))
	write(d, "sonic-30MiB.json", sonicLine(30*mib))
	add(run{name: "switch-parse sonic 100MiB line", args: []string{"switch", "parse", "--platform", "sonic", "$D/sonic-100MiB.json"}, exit: []int{1}, want: "larger than the 32 MiB budget"})
	add(run{name: "switch-parse sonic 30MiB line", args: []string{"switch", "parse", "--platform", "sonic", "$D/sonic-30MiB.json"}, exit: []int{0, 1}, maxCPU: 60 * time.Second})
	write(d, "junos-nested.conf", func(w *bufio.Writer) {
		w.WriteString(strings.Repeat("a {\n", 10000))
		w.WriteString(strings.Repeat("}\n", 10000))
	})
	add(run{name: "switch-parse junos 10000 nested", args: []string{"switch", "parse", "--platform", "junos", "$D/junos-nested.conf"}, exit: []int{0, 1}, maxCPU: 5 * time.Second})
	random := make([]byte, 64<<10)
	rand.Read(random)
	must(os.WriteFile(filepath.Join(d, "random.bin"), random, 0o600))
	for _, p := range []string{"arista-eos", "cisco-nxos", "cumulus-nvue", "sonic", "junos"} {
		add(run{name: "switch-parse random as " + p, args: []string{"switch", "parse", "--platform", p, "$D/random.bin"}, exit: []int{1}})
	}

	// Desired host state: 100 MiB refused by the budget.
	write(d, "desired-100MiB.json", func(w *bufio.Writer) {
		w.WriteString(`{"apiVersion": "fabricctl.io/v1alpha1", "host": "`)
		upTo(100*mib, func(int) string { return "hhhhhhhhhhhhhhhh" })(w)
		w.WriteString(`"}`)
	})
	add(run{name: "host-show-desired 100MiB", args: []string{"host", "show", "--desired", "$D/desired-100MiB.json"}, exit: []int{1}, want: "larger than the 16 MiB budget"})

	// A --from-dir tree: special files and links out beside real captures,
	// and large NCCL logs read one at a time.
	tree := filepath.Join(d, "tree")
	must(os.MkdirAll(filepath.Join(tree, "gpu-01"), 0o755))
	must(syscall.Mkfifo(filepath.Join(tree, "gpu-01", "fifo.txt"), 0o600))
	must(os.Symlink("/dev/zero", filepath.Join(tree, "gpu-01", "zero.txt")))
	must(os.Symlink("/etc/passwd", filepath.Join(tree, "gpu-01", "passwd.txt")))
	for i := 0; i < 12; i++ {
		host := fmt.Sprintf("gpu-%02d", i+2)
		write(tree, host+"/nccl.log", upTo(15*mib, ncclLine(host)))
	}
	add(run{name: "check --from-dir hostile tree", args: []string{"check", "--from-dir", "$D/tree", "-o", "json"}, exit: []int{1}, want: "which leads outside the directory", maxCPU: 60 * time.Second})
	add(run{name: "drift --from-dir MISSING", args: []string{"drift", "-f", filepath.Join(repo, "profiles/lab/fabric.yaml"), "--from-dir", "$D/MISSING"}, exit: []int{1}, want: "no such directory"})

	// nccl analyze of 50,000 hosts, one small log each.
	var logs []string
	for i := 0; i < 50000; i++ {
		host := fmt.Sprintf("node%05d", i)
		p := filepath.Join("h", host)
		write(d, p, upTo(600, ncclLine(host)))
		logs = append(logs, p)
	}
	add(run{name: "nccl-analyze 50000 hosts", args: append([]string{"nccl", "analyze", "-o", "json"}, logs...), exit: []int{0, 2}, maxCPU: 120 * time.Second})

	// nvidia-smi topo -m of 1,500 devices.
	write(d, "topo-1500.txt", func(w *bufio.Writer) {
		n := 1500
		w.WriteString("\t")
		for j := 0; j < n; j++ {
			fmt.Fprintf(w, "GPU%d\t", j)
		}
		w.WriteString("CPU Affinity\tNUMA Affinity\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, "GPU%d\t", i)
			for j := 0; j < n; j++ {
				if i == j {
					w.WriteString(" X \t")
				} else {
					w.WriteString("NV18\t")
				}
			}
			w.WriteString("0-55\t0\n")
		}
		w.WriteString("\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n")
	})
	add(run{name: "analyze topo 1500 devices", args: []string{"analyze", "$D/topo-1500.txt"}, exit: []int{0, 2}, maxCPU: 5 * time.Second})

	// The agent: a 100 MiB request on stdin.
	write(d, "agent-100MiB.jsonl", func(w *bufio.Writer) {
		w.WriteString(`{"apiVersion": "fabricctl.io/v1alpha1", "protocol": 1, "op": "hello", "id": "`)
		upTo(100*mib, func(int) string { return "iiiiiiiiiiiiiiii" })(w)
		w.WriteString("\"}\n")
	})
	add(run{name: "agent 100MiB request", args: []string{"agent"}, stdin: "agent-100MiB.jsonl", exit: []int{0, 1}})
	return runs
}
