package output

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"a\n b\t\tc\r\n", 10, "a b c"},
		{"abcdefgh", 8, "abcdefgh"},
		{"abcdefghi", 8, "abcde..."},
		{strings.Repeat("é", 10), 8, "éé..."}, // 2+2 bytes, not half of the third
		{"日本語", 6, "日..."},
		{"日本語", 5, "..."},
	} {
		got := OneLine(c.in, c.max)
		if got != c.want || len(got) > c.max || !utf8.ValidString(got) {
			t.Errorf("OneLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
