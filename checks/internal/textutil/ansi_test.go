package textutil

import "testing"

func TestStripANSI(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[4mGPU0\tNIC0\x1b[0m":       "GPU0\tNIC0",
		"\x1b[1;31mERR\x1b[m x":          "ERR x",
		"plain":                          "plain",
		"\x1b]0;title\x07after":          "after",
		"\x1b(Bline":                     "line",
		"tail\x1b":                       "tail",
		"\x1b[38;5;196mred\x1b[39m done": "red done",
		" [36m(Ray pid=5) [0m x [32m [repeated 2x]": " (Ray pid=5)  x  [repeated 2x]",
		"tags [0] and [12] stay":                    "tags [0] and [12] stay",
		"a[5m word":                                 "a[5m word",
	} {
		if got := StripANSI(in); got != want {
			t.Errorf("StripANSI(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzStripANSI(f *testing.F) {
	f.Add("\x1b[4mGPU0\x1b[0m")
	f.Fuzz(func(t *testing.T, s string) {
		out := StripANSI(s)
		for _, r := range out {
			if r == '\x1b' {
				t.Fatalf("escape left in %q", out)
			}
		}
	})
}
