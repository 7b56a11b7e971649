package output_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// table writes a plan-like table: a cuttable CHANGE column, a free-text NOTE
// that is short, long, empty and wider than the whole width, and a second
// table after an empty row.
func table(term output.Term) string {
	var b bytes.Buffer
	t := output.NewTableFor(&b, term)
	t.CutToFit(2)
	t.Row("TARGET", "SETTING", "CHANGE", "NOTE")
	t.Row("leaf-01", "pfc.priorities", "(missing) → 3", "DISRUPTIVE PFC reprograms port buffers")
	t.Row("lab-h1", "eth0 mtu", "1500 → 9000", "DISRUPTIVE changing the MTU resets the queues (the link may flap) and drops packets larger than the new MTU")
	t.Row("lab-h1", "eth0 ets", "- → prio-tc=0,0,0,3,0,0,6,0 tsa=ets,ets,ets,ets,ets,ets,strict,ets bw=50,0,0,50,0,0,0,0", "UNSUPPORTED [1]")
	t.Row("lab-h2", "eth0 roce.tos", "0 → 106", "")
	t.Row("gpu-02", "-", "ERROR", "dialing 10.0.0.2:22: "+strings.Repeat("x", 130)+" (no route)")
	t.Row()
	t.Row("STATUS", "MESSAGE")
	t.Row("WARN", "grüße → ünïcödé, one column each: "+strings.Repeat("→", 110))
	t.Flush()
	return b.String()
}

// TestTableGolden: at 120 columns the last column wraps under itself, the
// cuttable column is cut in the middle, a word wider than the width is
// split; -o wide and an unlimited width keep every row whole.
func TestTableGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		term   output.Term
	}{
		{"table-120.golden", output.Term{Width: 120}},
		{"table-wide.golden", output.Term{Width: 120, Wide: true}},
		{"table-unlimited.golden", output.Term{}},
	} {
		got := table(c.term)
		testutil.Golden(t, c.golden, []byte(got))
		for i, l := range strings.Split(got, "\n") {
			if strings.HasSuffix(l, " ") {
				t.Errorf("%s: line %d ends in a space: %q", c.golden, i+1, l)
			}
			if c.term.Width > 0 && !c.term.Wide && output.Width(l) > c.term.Width {
				t.Errorf("%s: line %d is %d columns wide, over %d: %q", c.golden, i+1, output.Width(l), c.term.Width, l)
			}
		}
	}
}

// TestTableWrapsUnderTheLastColumn: every continuation line starts at the
// last column's position, and the words of the cell all come back.
func TestTableWrapsUnderTheLastColumn(t *testing.T) {
	got := table(output.Term{Width: 120})
	lines := strings.Split(got, "\n")
	head := lines[0]
	at := strings.Index(head, "NOTE")
	var cont int
	for _, l := range lines[1:] {
		if l == "" {
			break
		}
		if strings.HasPrefix(l, " ") {
			cont++
			if len(l)-len(strings.TrimLeft(l, " ")) != at {
				t.Errorf("continuation line not under NOTE (column %d): %q", at, l)
			}
		}
	}
	if cont == 0 {
		t.Errorf("nothing wrapped:\n%s", got)
	}
}

func TestWidthWrapCut(t *testing.T) {
	for s, want := range map[string]int{"": 0, "abc": 3, "→": 1, "- → 3": 5, "grüße": 5, "e\u0301": 1, "日本": 4} {
		if got := output.Width(s); got != want {
			t.Errorf("Width(%q) = %d, want %d", s, got, want)
		}
	}
	if got := output.Wrap("aa bb cc", 5); strings.Join(got, "|") != "aa bb|cc" {
		t.Errorf("Wrap = %q", got)
	}
	if got := output.Wrap("→→→→→→→", 3); strings.Join(got, "|") != "→→→|→→→|→" {
		t.Errorf("Wrap of a word wider than the width = %q", got)
	}
	if got := output.Wrap("one line", 0); len(got) != 1 {
		t.Errorf("Wrap at width 0 = %q", got)
	}
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{{"abcdefghij", 5, "ab…ij"}, {"abc", 5, "abc"}, {"a→b→c→d", 4, "a→…d"}, {"abcdef", 1, "…"}} {
		if got := output.Cut(c.s, c.w); got != c.want || output.Width(got) > max(c.w, output.Width(c.s)) {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

func TestDetectTermAndPaint(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	var buf bytes.Buffer
	for _, c := range []struct {
		color string
		env   func(string) string
		want  output.Term
	}{
		{output.ColorAuto, env("COLUMNS", "80"), output.Term{}}, // not a terminal: unlimited, no colour
		{output.ColorAlways, env("NO_COLOR", "1"), output.Term{Color: true}},
		{output.ColorNever, env(), output.Term{}},
	} {
		got, err := output.DetectTerm(&buf, c.color, c.env)
		if err != nil || got != c.want {
			t.Errorf("DetectTerm(buffer, %s) = %+v, %v; want %+v", c.color, got, err, c.want)
		}
	}
	if _, err := output.DetectTerm(&buf, "sometimes", env()); err == nil {
		t.Error("DetectTerm accepted --color sometimes")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, _ := output.DetectTerm(f, output.ColorAuto, env("COLUMNS", "80")); got != (output.Term{}) {
		t.Errorf("a file is no terminal: %+v", got)
	}

	on := output.Term{Color: true}
	for in, want := range map[string]string{
		"FAIL":              "\x1b[31mFAIL\x1b[0m",
		"UNSUPPORTED [1-4]": "\x1b[33mUNSUPPORTED\x1b[0m [1-4]",
		"PASS":              "\x1b[32mPASS\x1b[0m",
		"RESULT: ERROR":     "RESULT: ERROR",
		"lab-h1":            "lab-h1",
	} {
		if got := on.Paint(in); got != want {
			t.Errorf("Paint(%q) = %q, want %q", in, got, want)
		}
		if got := (output.Term{}).Paint(in); got != in {
			t.Errorf("Paint without colour changed %q to %q", in, got)
		}
	}
	var b bytes.Buffer
	tw := output.NewTableFor(&b, output.Term{Color: true})
	tw.Row("STATUS", "CHECK", "SUMMARY")
	tw.Row("FAIL", "x", "y")
	tw.Row("PASS", "longer", "z")
	tw.Flush()
	want := "STATUS  CHECK   SUMMARY\n\x1b[31mFAIL\x1b[0m    x       y\n\x1b[32mPASS\x1b[0m    longer  z\n"
	if b.String() != want {
		t.Errorf("coloured table:\n%q\nwant\n%q", b.String(), want)
	}
}

// TestWriteWide: -o wide is a table format whose Term is Wide; TermOf reads a Terminal's.
func TestWriteWide(t *testing.T) {
	if err := output.Check(output.Wide); err != nil {
		t.Error(err)
	}
	var b bytes.Buffer
	w := &output.Terminal{Writer: &b, Term: output.Term{Width: 40}}
	var seen output.Term
	if err := output.Write(w, output.Wide, nil, func(t *output.TableWriter) { seen = t.Term(); t.Row("a", "b") }); err != nil {
		t.Fatal(err)
	}
	if seen != (output.Term{Width: 40, Wide: true}) || b.String() != "a  b\n" {
		t.Errorf("wide: term %+v, output %q", seen, b.String())
	}
}

func TestRefsAndNames(t *testing.T) {
	for want, in := range map[string][]int{"[1]": {1}, "[3-6]": {6, 4, 3, 5, 3}, "[1,3,5-6]": {5, 1, 6, 3}} {
		if got := output.Refs(in); got != want {
			t.Errorf("Refs(%v) = %s, want %s", in, got, want)
		}
	}
	if got := output.Names([]string{"a", "b"}); got != "a, b" {
		t.Errorf("Names: %q", got)
	}
	if got := output.Names([]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}); got != "1, 2, 3, 4, 5, 6, 7, 8 and 2 more" {
		t.Errorf("Names of 10: %q", got)
	}
}
