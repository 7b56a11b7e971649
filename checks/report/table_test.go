package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// TestTableAt120Columns: the lab's healthy check (every virtio host warns of the same
// unsupported settings) at 120 columns: no line is wider or ends in a space, each reason is
// written once, as a footnote; -o wide keeps SUITE and every evidence line.
func TestTableAt120Columns(t *testing.T) {
	r := labReport(t, "lab-healthy")
	for _, c := range []struct {
		golden string
		term   output.Term
	}{
		{"lab-healthy.table-120.golden", output.Term{Width: 120}},
		{"lab-healthy.table-wide.golden", output.Term{Width: 120, Wide: true}},
	} {
		var b bytes.Buffer
		if err := WriteTable(&output.Terminal{Writer: &b, Term: c.term}, r); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		testutil.Golden(t, c.golden, b.Bytes())
		for i, l := range strings.Split(got, "\n") {
			if strings.HasSuffix(l, " ") {
				t.Errorf("%s: line %d ends in a space: %q", c.golden, i+1, l)
			}
			if !c.term.Wide && output.Width(l) > c.term.Width {
				t.Errorf("%s: line %d is %d columns wide: %q", c.golden, i+1, output.Width(l), l)
			}
		}
		dcb := "has no DCB netlink ops"
		switch n := strings.Count(got, dcb); {
		case !c.term.Wide && n != 2: // once alone, once with the trust setting's other reasons
			t.Errorf("%s: the DCB reason %d times, want 2 (footnotes):\n%s", c.golden, n, got)
		case c.term.Wide && (n < 8 || !strings.Contains(got, "SUITE")):
			t.Errorf("%s: -o wide shows the DCB reason %d times, want every line, and SUITE", c.golden, n)
		}
	}
}

// TestFaultTableAt120Columns: the lab's fault check at 120 columns: summaries and the
// failures' evidence wrap, every evidence line is kept, no line is wider than 120.
func TestFaultTableAt120Columns(t *testing.T) {
	r := labReport(t, "lab-fault")
	var b bytes.Buffer
	if err := WriteTable(&output.Terminal{Writer: &b, Term: output.Term{Width: 120}}, r); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "lab-fault.table-120.golden", b.Bytes())
	for i, l := range strings.Split(b.String(), "\n") {
		if strings.HasSuffix(l, " ") || output.Width(l) > 120 {
			t.Errorf("line %d is %d columns wide or ends in a space: %q", i+1, output.Width(l), l)
		}
	}
}

// TestTableColour: the status words are coloured when the Term says so, and only then.
func TestTableColour(t *testing.T) {
	var plain, colour bytes.Buffer
	if err := WriteTable(&plain, fixture()); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&output.Terminal{Writer: &colour, Term: output.Term{Color: true}}, fixture()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Error("a table without colour has escape sequences")
	}
	for _, want := range []string{"\x1b[31mERROR\x1b[0m  ", "\x1b[31mFAIL\x1b[0m   ", "\x1b[33mWARN\x1b[0m   ", "\x1b[32mPASS\x1b[0m   ", "RESULT: \x1b[31mERROR\x1b[0m, "} {
		if !strings.Contains(colour.String(), want) {
			t.Errorf("coloured table lacks %q", want)
		}
	}
}

// TestTableFoldsSamePasses: the default view writes a pass or skip that several targets share
// once ("lab-h1 and 3 more"), never a warning or a failure; -o wide writes every line.
func TestTableFoldsSamePasses(t *testing.T) {
	r := labReport(t, "lab-healthy")
	var def, wide bytes.Buffer
	WriteTable(&output.Terminal{Writer: &def, Term: output.Term{Width: 120}}, r)
	WriteTable(&output.Terminal{Writer: &wide, Term: output.Term{Width: 120, Wide: true}}, r)
	rowsOf := func(s, status string) (n int) {
		for _, l := range strings.Split(s, "\n") {
			if l == "" {
				break
			}
			if strings.HasPrefix(l, status+" ") {
				n++
			}
		}
		return n
	}
	if d, w := rowsOf(def.String(), "SKIP"), rowsOf(wide.String(), "SKIP"); d >= w || !strings.Contains(def.String(), "lab-h1 and 3 more") {
		t.Errorf("SKIP lines: %d by default, %d wide; want fewer by default, folded as \"lab-h1 and 3 more\":\n%s", d, w, def.String())
	}
	if d, w := rowsOf(def.String(), "WARN"), rowsOf(wide.String(), "WARN"); d != w || d == 0 {
		t.Errorf("WARN lines: %d by default, %d wide; want every warning in both", d, w)
	}
}

// TestTableKeepsEqualMeasurements: two loopback tests that measured the same are two lines.
func TestTableKeepsEqualMeasurements(t *testing.T) {
	r := labReport(t, "lab-healthy")
	first, n := -1, 0
	for i := range r.Results {
		if !strings.HasPrefix(r.Results[i].ID, "loopback/") {
			continue
		}
		n++
		if first < 0 {
			first = i
			continue
		}
		r.Results[i].Measurements, r.Results[i].Summary = r.Results[first].Measurements, r.Results[first].Summary
	}
	if n < 2 {
		t.Fatalf("fixture has %d loopback results", n)
	}
	var b bytes.Buffer
	WriteTable(&output.Terminal{Writer: &b, Term: output.Term{Width: 120}}, r)
	if got := strings.Count(b.String(), "\nPASS    loopback/"); got != n {
		t.Errorf("%d loopback lines for %d tests that measured the same, want one each:\n%s", got, n, b.String())
	}
}
