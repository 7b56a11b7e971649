package output

import (
	"bytes"
	"strings"
	"testing"
)

// TestPrintable: control characters from input are shown escaped; ordinary
// text, UTF-8 included, is untouched.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"mlx5_0/1 → ens1f0":          "mlx5_0/1 → ens1f0",
		"\x1b]0;owned\x07title":      `\x1b]0;owned\x07title`,
		"\x1b[2Jclear":               `\x1b[2Jclear`,
		"nul\x00byte\ttab\nline\r":   `nul\x00byte\ttab\nline\r`,
		"bad\xffutf8 \u009bcsi \x7f": `bad\xffutf8 \u009bcsi \x7f`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
	if got := PrintableLines("2 errors:\n\tf\x1b]0;x\x07: bad\r"); got != "2 errors:\n\tf\\x1b]0;x\\x07: bad\\r" {
		t.Errorf("PrintableLines = %q", got)
	}
	var b bytes.Buffer
	tw := NewTable(&b)
	tw.Row("FILE", "SUMMARY")
	tw.Row("a\tb.log", "ERROR: \x1b[31mred\x1b[0m")
	tw.Flush()
	if strings.ContainsRune(b.String(), 0x1b) || strings.Count(b.String(), "\n") != 2 || !strings.Contains(b.String(), `a\tb.log`) {
		t.Errorf("table:\n%q", b.String())
	}
}

func FuzzPrintable(f *testing.F) {
	f.Add("\x1b]0;x\x07")
	f.Add("ok → \xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := Printable(s)
		for _, r := range out {
			if r < 0x20 || (r >= 0x7f && r < 0xa0) {
				t.Fatalf("%q → %q keeps a control character", s, out)
			}
		}
		lines := PrintableLines(s)
		for _, r := range lines {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) {
				t.Fatalf("PrintableLines: %q → %q keeps a control character", s, lines)
			}
		}
		if strings.Count(lines, "\n") != strings.Count(s, "\n") {
			t.Fatalf("PrintableLines: %q → %q changes the lines", s, lines)
		}
	})
}
