package main

import (
	"os"
	"strings"
	"testing"
)

// offline are the commands the README's quick start shows that need no
// device: the test runs them as written.
var offline = map[string]bool{"init": true, "validate": true, "render": true, "schema": true}

// quickStart is the README's "Your fabric in ten minutes" section.
func quickStart(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, s, ok := strings.Cut(string(data), "\n## Your fabric in ten minutes\n")
	if !ok {
		t.Fatal(`README.md has no section "Your fabric in ten minutes"`)
	}
	s, _, _ = strings.Cut(s, "\n## ")
	return s
}

// block is one fenced code block: its language and lines.
type block struct {
	lang  string
	lines []string
}

func blocks(s string) []block {
	var out []block
	var cur *block
	for _, l := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(l, "```") && cur == nil:
			cur = &block{lang: strings.TrimPrefix(l, "```")}
		case strings.HasPrefix(l, "```"):
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	return out
}

// args are a command line's words without the comment, "" when the line
// does not run fabricctl.
func args(line string) []string {
	line, _, _ = strings.Cut(line, " #")
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "fabricctl" {
		return nil
	}
	return f[1:]
}

// The quick start works as written: its offline commands (init, validate,
// render) run in order in an empty directory and succeed, the output it
// shows is what they print, and its other command lines (plan, apply,
// check, drift) name flags that exist.
func TestReadmeQuickStart(t *testing.T) {
	section := quickStart(t)
	t.Chdir(t.TempDir())
	ran, parsed := 0, 0
	for _, b := range blocks(section) {
		switch b.lang {
		case "sh":
			for _, l := range b.lines {
				a := args(l)
				if a == nil {
					continue
				}
				if offline[a[0]] {
					ran++
					if code, out, errs := runCLI(t, a...); code != 0 {
						t.Errorf("%s: exit %d\n%.500s%s", l, code, out, errs)
					}
					continue
				}
				parsed++
				if code, _, errs := runCLI(t, append(a, "--help")...); code != 0 {
					t.Errorf("%s: its flags do not parse: %s", l, errs)
				}
			}
		case "console":
			// "$ fabricctl ..." then the lines it prints, in order.
			var cmd []string
			var want []string
			flush := func() {
				if cmd == nil {
					return
				}
				ran++
				code, out, errs := runCLI(t, cmd...)
				if code != 0 {
					t.Errorf("fabricctl %s: exit %d: %s", strings.Join(cmd, " "), code, errs)
				}
				rest := out
				for _, w := range want {
					i := strings.Index(rest, w+"\n")
					if i < 0 {
						t.Errorf("fabricctl %s printed\n%s\nwithout the README's line %q (in order)", strings.Join(cmd, " "), out, w)
						break
					}
					rest = rest[i+len(w):]
				}
			}
			for _, l := range b.lines {
				if c, ok := strings.CutPrefix(l, "$ "); ok {
					flush()
					cmd, want = args(c), nil
					continue
				}
				want = append(want, l)
			}
			flush()
		}
	}
	if ran < 4 || parsed < 5 {
		t.Errorf("ran %d offline commands and parsed %d others: the README's quick start lost its commands", ran, parsed)
	}
}
