// Command hostile runs fabricctl on a corpus of hostile documents (issue 13)
// that it generates, and prints per document and command the exit code,
// the first error line, the wall time and peak RSS of the process, with
// their ratios to the targets (1 s, 300 MB). It exits 1 when a document is
// not refused with exit 1 and a located first error, or misses a target.
// The time judged is the process's CPU time (user + system): on a loaded
// machine (2 CPUs shared by many) wall time measures the others, and CPU
// time bounds the wall time the run takes on an idle machine (it is larger
// where fabricctl parses on both CPUs). Wall time is printed beside it.
//
//	go run ./bench/hostile -bin bin/fabricctl
//
// Nothing huge is committed: the documents are written to a temporary
// directory and removed afterwards.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

const profile = `apiVersion: fabricctl.io/v1alpha1
kind: Profile
metadata: {name: p}
spec:
  ethernet:
    mtu: 9000
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: {bandwidthPercent: 50}, ecn: {minThreshold: 150KB, maxThreshold: 1500KB}}
      - {name: cnp, priority: 6, dscp: [48], ets: {strict: true}}
      - {name: other, priority: 0, dscp: rest, ets: {bandwidthPercent: 50}}
    roce: {class: roce, cnpClass: cnp}
`

const fabricHead = "apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: f}\nspec:\n  include: [p.yaml]\n"

type doc struct {
	name    string
	files   map[string]func() string // name → its content, made when written
	fifos   []string
	main    string   // the -f file, relative (or absolute)
	cmds    []string // commands to run (default validate)
	limit   bool     // at the budget's limit: reported, not judged on time
	located *regexp.Regexp
}

func main() {
	bin := flag.String("bin", "bin/fabricctl", "the fabricctl binary")
	write := flag.String("write", "", "only write the corpus under this directory (the runner does so in a child, so that its own memory never grows: a child's peak RSS counts its parent's)")
	maxWall := flag.Duration("max-time", time.Second, "CPU time target per run")
	maxMB := flag.Int64("max-mb", 300, "peak RSS target per run, MB")
	flag.Parse()
	docs := corpus()
	if *write != "" {
		writeCorpus(*write, docs)
		return
	}
	dir, err := os.MkdirTemp("", "fabricctl-hostile-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	gen := exec.Command(os.Args[0], "-write", dir)
	gen.Stdout, gen.Stderr = os.Stdout, os.Stderr
	if err := gen.Run(); err != nil {
		fail(err)
	}
	bad := 0
	fmt.Printf("%-22s %-8s %4s %8s %8s %6s %8s %6s  %s\n", "DOCUMENT", "COMMAND", "EXIT", "WALL", "CPU", "CPU/1s", "PEAK MB", "/300", "FIRST ERROR (stderr bytes)")
	for _, d := range docs {
		ddir := filepath.Join(dir, d.name)
		main := d.main
		if !filepath.IsAbs(main) {
			main = filepath.Join(ddir, main)
		}
		cmds := d.cmds
		if len(cmds) == 0 {
			cmds = []string{"validate"}
		}
		for _, c := range cmds {
			args := []string{c, "-f", main}
			if c == "render" {
				args = append(args, "--out", filepath.Join(ddir, "out"))
			}
			cmd := exec.Command(*bin, args...)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = nil, &stderr
			start := time.Now()
			err := cmd.Run()
			wall := time.Since(start)
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				fail(err)
			}
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			peakMB := ru.Maxrss / 1024
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			first, _, _ := strings.Cut(stderr.String(), "\n")
			first = strings.ReplaceAll(first, dir+"/", "")
			re := d.located
			if re == nil {
				re = regexp.MustCompile(`^\S+:\d+:\d+: `)
			}
			var why []string
			if code != 1 {
				why = append(why, "exit not 1")
			}
			if !re.MatchString(first) {
				why = append(why, "first error not located")
			}
			if peakMB > *maxMB {
				why = append(why, "over the memory target")
			}
			if cpu > *maxWall && !d.limit {
				why = append(why, "over the time target")
			}
			if _, err := os.Stat(filepath.Join(ddir, "out")); err == nil {
				why = append(why, "render wrote output")
			}
			mark := ""
			if len(why) > 0 {
				bad++
				mark = "  FAIL: " + strings.Join(why, ", ")
			}
			if d.limit {
				mark += "  (at the budgets' limits: time reported, not judged)"
			}
			if len(first) > 110 {
				first = first[:110] + "…"
			}
			fmt.Printf("%-22s %-8s %4d %6.0fms %6.0fms %6.2f %8d %6.2f  %s (%d B)%s\n", d.name, c, code, float64(wall)/1e6, float64(cpu)/1e6,
				cpu.Seconds()/maxWall.Seconds(), peakMB, float64(peakMB)/float64(*maxMB), first, stderr.Len(), mark)
		}
	}
	fmt.Printf("%d documents, %d run(s) failed their targets\n", len(docs), bad)
	if bad > 0 {
		os.Exit(1)
	}
}

// writeCorpus writes every document's files under dir/NAME.
func writeCorpus(dir string, docs []doc) {
	for _, d := range docs {
		ddir := filepath.Join(dir, d.name)
		os.MkdirAll(ddir, 0o755)
		for n, c := range d.files {
			if err := os.WriteFile(filepath.Join(ddir, n), []byte(c()), 0o644); err != nil {
				fail(err)
			}
		}
		for _, f := range d.fifos {
			if err := syscall.Mkfifo(filepath.Join(ddir, f), 0o600); err != nil {
				fail(err)
			}
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hostile:", err)
	os.Exit(1)
}

func corpus() []doc {
	fab := func(hosts string) string { return fabricHead + "  hosts:\n" + hosts }
	host := "    - {name: h1, address: 10.0.0.1, profile: p}\n"
	text := func(s string) func() string { return func() string { return s } }
	prof := text(profile)
	withIncludes := func(incs string) func() string {
		return text(strings.Replace(fab(host), "[p.yaml]", "[p.yaml, "+incs+"]", 1))
	}
	var docs []doc
	add := func(d doc) { docs = append(docs, d) }

	add(doc{name: "port-range-overflow", main: "f.yaml", cmds: []string{"validate", "render"}, files: map[string]func() string{"p.yaml": prof,
		"f.yaml": text(fab(host) + "  switches:\n    - {name: s1, platform: sonic, address: 10.0.1.1, profile: p, ports: [Ethernet0-9223372036854775807]}\n")}})

	// An anchored host of long invalid values, aliased thousands of times.
	add(doc{name: "aliased-errors-185KB", main: "f.yaml", files: map[string]func() string{"p.yaml": prof, "f.yaml": func() string {
		long := strings.Repeat("X", 30000)
		var b strings.Builder
		fmt.Fprintf(&b, "    - &h {name: %q, address: %q, profile: %q, interfaces: [%q], labels: {k: %q}}\n", long, long, long, long, long)
		for b.Len() < 185<<10 {
			b.WriteString("    - *h\n")
		}
		return fab(b.String())
	}}})

	// Nested aliases: each level refers to the one below ten times.
	add(doc{name: "nested-aliases-163KB", main: "f.yaml", files: map[string]func() string{"p.yaml": prof, "f.yaml": func() string {
		var b strings.Builder
		b.WriteString(fabricHead + "  hosts:\n    - &l0 {name: \"" + strings.Repeat("a", 16000) + "\", address: x}\n")
		for i := 1; i < 12; i++ {
			fmt.Fprintf(&b, "    - &l%d [", i)
			for j := 0; j < 10; j++ {
				fmt.Fprintf(&b, "*l%d, ", i-1)
			}
			b.WriteString("]\n")
		}
		for b.Len() < 163<<10 {
			b.WriteString("    - *l11\n")
		}
		return b.String()
	}}})

	big := func(name string) func() string {
		return func() string {
			return strings.Replace(profile, "name: p}", "name: "+name+"}", 1) + "# " + strings.Repeat("c", 15<<20) + "\n"
		}
	}
	add(doc{name: "three-15MiB-includes", main: "f.yaml", cmds: []string{"validate", "render"}, files: map[string]func() string{
		"f.yaml": withIncludes("a.yaml, b.yaml, c.yaml"), "p.yaml": prof, "a.yaml": big("a"), "b.yaml": big("b"), "c.yaml": big("c")}})

	tiny := func(n int) func() string {
		return func() string { return profile + "    x: [" + strings.Repeat("a,", n) + "a]\n" }
	}
	add(doc{name: "tiny-nodes-15MiB", main: "p.yaml", files: map[string]func() string{"p.yaml": tiny(15 << 19)}, located: regexp.MustCompile(`p\.yaml: file is larger`)})
	add(doc{name: "tiny-nodes-2MiB", main: "p.yaml", files: map[string]func() string{"p.yaml": tiny(1 << 20)}})
	add(doc{name: "block-nodes-4MiB", main: "p.yaml", files: map[string]func() string{"p.yaml": func() string {
		return profile + "    x:\n" + strings.Repeat("      - a\n", 400000)
	}}})
	add(doc{name: "huge-scalar-4MiB", main: "p.yaml", files: map[string]func() string{"p.yaml": func() string {
		return strings.Replace(profile, "mtu: 9000", "mtu: "+strings.Repeat("9", 4<<20-1024), 1)
	}}})
	add(doc{name: "huge-key-2MiB", main: "p.yaml", files: map[string]func() string{"p.yaml": func() string {
		return profile + "    ? " + strings.Repeat("k", 2<<20) + "\n    : 1\n"
	}}})
	add(doc{name: "fifo-as-fabric", main: "fifo.yaml", fifos: []string{"fifo.yaml"}, cmds: []string{"validate", "render"}, located: regexp.MustCompile(`fifo\.yaml: is a named pipe`)})
	add(doc{name: "fifo-as-include", main: "f.yaml", fifos: []string{"q.yaml"}, files: map[string]func() string{"p.yaml": prof, "f.yaml": withIncludes("q.yaml")}})
	add(doc{name: "device-as-fabric", main: "/dev/zero", located: regexp.MustCompile(`^/dev/zero: is a character device`)})
	add(doc{name: "device-as-include", main: "f.yaml", files: map[string]func() string{"p.yaml": prof, "f.yaml": withIncludes("/dev/urandom")}})
	add(doc{name: "directory-as-fabric", main: ".", located: regexp.MustCompile(`: is a directory`)})
	add(doc{name: "deep-nesting", main: "p.yaml", files: map[string]func() string{"p.yaml": text(strings.Replace(profile, "classes:\n",
		"classes: "+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+"\n    x:\n", 1))}})
	add(doc{name: "15000-bad-hosts", main: "f.yaml", files: map[string]func() string{"p.yaml": prof, "f.yaml": func() string {
		var b strings.Builder
		for i := 0; i < 15000; i++ {
			fmt.Fprintf(&b, "    - {name: h%d, address: 10.0.0.1, profile: nope, bad: %q}\n", i, strings.Repeat("v", 200))
		}
		return fab(b.String())
	}}})
	add(doc{name: "billion-laughs", main: "p.yaml", files: map[string]func() string{"p.yaml": func() string {
		var b strings.Builder
		b.WriteString("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
		for i := 'b'; i <= 'i'; i++ {
			fmt.Fprintf(&b, "%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
		}
		return strings.Replace(profile, "    roce:", "    pfc: {"+strings.ReplaceAll(strings.TrimSpace(b.String()), "\n", ", ")+"}\n    roce:", 1)
	}}})
	add(doc{name: "5000-documents", main: "p.yaml", files: map[string]func() string{"p.yaml": text(strings.Repeat(profile+"---\n", 5000))}})
	// The most the budgets admit (about 500,000 nodes, 4 MiB), one error last.
	add(doc{name: "at-the-budgets", main: "f.yaml", files: map[string]func() string{"p.yaml": prof, "f.yaml": func() string {
		var b strings.Builder
		for i := 0; i < 21000; i++ {
			fmt.Fprintf(&b, "    - {name: h%d, address: 10.%d.%d.%d, profile: p, interfaces: [a, b], labels: {rack: r1, leaf: l1, role: gpu}, portGuids: [\"0x0002c90300000000\"]}\n", i, i>>16, (i>>8)&255, i&255)
		}
		b.WriteString("    - {name: last, address: 10.0.0.1, profile: nope}\n")
		return fab(b.String())
	}}})
	return docs
}
