package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 9, "timed runs")
	warm := flag.Int("warmup", 1, "untimed runs first")
	label := flag.String("label", "", "name printed before the figures")
	target := flag.Duration("target", 0, "print the median's ratio to this wall-clock target")
	maxMB := flag.Int64("max-mb", 0, "print the peak RSS's ratio to this many MB")
	doSync := flag.Bool("sync", true, "flush dirty pages before each run, so a run does not pay for the previous one's writeback")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: timecmd [-n N] [-warmup N] [-label L] -- command args...")
		os.Exit(2)
	}
	var walls, cpus []time.Duration
	var peakKB int64
	for i := 0; i < *warm+*n; i++ {
		argv := make([]string, len(args))
		for j, a := range args {
			argv[j] = strings.ReplaceAll(a, "%d", fmt.Sprint(i))
		}
		if *doSync {
			syscall.Sync()
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stderr = os.Stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "timecmd: run %d: %s: %v\n", i, strings.Join(argv, " "), err)
			os.Exit(1)
		}
		wall := time.Since(start)
		if i < *warm {
			continue
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		walls, cpus = append(walls, wall), append(cpus, cpu)
		peakKB = max(peakKB, ru.Maxrss)
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/1e6) }
	median := walls[len(walls)/2]
	fmt.Printf("%swall best %s median %s, CPU best %s median %s, peak RSS %d MB (%d runs)\n",
		prefix(*label), ms(walls[0]), ms(median), ms(cpus[0]), ms(cpus[len(cpus)/2]), peakKB/1024, len(walls))
	if *target > 0 {
		fmt.Printf("  target %s: median/target %.2f, best/target %.2f\n", ms(*target),
			float64(median)/float64(*target), float64(walls[0])/float64(*target))
	}
	if *maxMB > 0 {
		fmt.Printf("  memory target %d MB: peak/target %.2f\n", *maxMB, float64(peakKB)/1024/float64(*maxMB))
	}
}

func prefix(label string) string {
	if label == "" {
		return ""
	}
	return label + ": "
}
