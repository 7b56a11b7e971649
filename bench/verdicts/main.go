package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: verdicts judge REPORT.json | verdicts envelope DIR...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "judge":
		err = judge(os.Args[2])
	case "envelope":
		err = envelope(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "verdicts:", err)
		os.Exit(1)
	}
}

func read(path string) (*report.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := report.ReadJSON(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

func bad(s checks.Status) bool { return s == checks.StatusFail || s == checks.StatusError }

func judge(path string) error {
	r, err := read(path)
	if err != nil {
		return err
	}
	var blamed, failed []string
	for _, res := range r.Results {
		switch {
		case res.ID == rdma.IDHost && res.Status == checks.StatusFail:
			blamed = append(blamed, res.Target)
		case bad(res.Status) && report.SuiteOf(res.ID) != report.SuitePreflight:
			failed = append(failed, res.Target)
		}
	}
	for _, p := range r.Pairs {
		if bad(p.Status) {
			failed = append(failed, p.Target())
		}
	}
	slices.Sort(blamed)
	slices.Sort(failed)
	fmt.Printf("blamed=%s bad=%s\n", strings.Join(blamed, ","), strings.Join(failed, ","))
	t, err := os.Create(strings.TrimSuffix(path, ".json") + ".txt")
	if err != nil {
		return err
	}
	if err := report.WriteTable(t, r); err != nil {
		t.Close()
		return err
	}
	return t.Close()
}

// span is the range of a set of numbers.
type span struct {
	n        int
	min, max float64
	vals     []float64
}

func (s *span) add(v float64) {
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
	s.vals = append(s.vals, v)
}

func (s span) String() string {
	if s.n == 0 {
		return "none"
	}
	v := slices.Clone(s.vals)
	slices.Sort(v)
	return fmt.Sprintf("%.4g..%.4g (median %.4g, n=%d)", s.min, s.max, v[len(v)/2], s.n)
}

// counterOf splits a counter measurement "NAME@host/dev".
func counterOf(m checks.Measurement) (name, host string, ok bool) {
	name, side, ok := strings.Cut(m.Name, "@")
	if !ok || m.Unit != checks.UnitCount {
		return "", "", false
	}
	host, _, _ = strings.Cut(side, "/")
	return name, host, true
}

func envelope(dirs []string) error {
	var pairBW, loopBW, ratio, attempts span
	healthyCounters := map[string]*span{} // counter → per-side movement in healthy tests
	faultySeq := map[string]*span{}       // loss → the faulty host's pairs' largest sequence counter
	var runs, faulty, pairs, estimated int
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			base := filepath.Base(f)
			r, err := read(f)
			if err != nil {
				return err
			}
			switch {
			case strings.HasPrefix(base, "healthy-"):
				runs++
				best := 0.0
				for _, p := range r.Pairs {
					if p.Value != nil {
						best = max(best, *p.Value)
					}
				}
				for _, p := range r.Pairs {
					pairs++
					if slices.ContainsFunc(p.Evidence, func(e string) bool { return strings.Contains(e, "could not calibrate its CPU clock") }) {
						estimated++
					}
					if p.Value != nil {
						pairBW.add(*p.Value)
						if best > 0 {
							ratio.add(*p.Value / best)
						}
					}
					for _, m := range p.Measurements {
						if name, _, ok := counterOf(m); ok {
							if healthyCounters[name] == nil {
								healthyCounters[name] = &span{}
							}
							healthyCounters[name].add(m.Value)
						}
						if m.Name == rdma.MeasAttempts {
							attempts.add(m.Value)
						}
					}
				}
				for _, res := range r.Results {
					if m, ok := res.Measurement(rdma.MeasBWAverage); ok && report.SuiteOf(res.ID) == report.SuiteLoopback {
						loopBW.add(m.Value)
					}
				}
			case strings.HasPrefix(base, "faulty-"):
				faulty++
				meta, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".meta")
				if err != nil {
					return fmt.Errorf("%s: %w", base, err)
				}
				host, loss, _ := strings.Cut(strings.TrimSpace(string(meta)), " ")
				for _, p := range r.Pairs {
					if p.A != host && p.B != host {
						continue
					}
					most := 0.0
					for _, m := range p.Measurements {
						if name, _, ok := counterOf(m); ok && (name == "out_of_seq_request" || name == "rcvd_seq_err" ||
							name == "out_of_sequence" || name == "packet_seq_err") {
							most = max(most, m.Value)
						}
					}
					if faultySeq[loss] == nil {
						faultySeq[loss] = &span{}
					}
					faultySeq[loss].add(most)
				}
			}
		}
	}
	fmt.Printf("envelope over %d healthy and %d faulty check runs:\n", runs, faulty)
	fmt.Printf("  healthy pair bandwidth, Gb/s (both ways):   %s\n", pairBW)
	fmt.Printf("  healthy pair / best pair of its run:        %s\n", ratio)
	fmt.Printf("  healthy loopback bandwidth, Gb/s:           %s\n", loopBW)
	fmt.Printf("  attempts of pairs that needed more than one: %s\n", attempts)
	fmt.Printf("  healthy pairs whose perftest could not calibrate its clock (rate from the iteration count): %d of %d\n", estimated, pairs)
	names := make([]string, 0, len(healthyCounters))
	for n := range healthyCounters {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Printf("  healthy %-22s per side and test (sides that moved): %s\n", n, healthyCounters[n])
	}
	losses := make([]string, 0, len(faultySeq))
	for l := range faultySeq {
		losses = append(losses, l)
	}
	slices.Sort(losses)
	for _, l := range losses {
		fmt.Printf("  %s loss: the faulty host's pairs' largest sequence counter per test: %s\n", l, faultySeq[l])
	}
	return nil
}
