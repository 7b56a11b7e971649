package textdiff

import "testing"

func TestUnified(t *testing.T) {
	if got := Unified("a", "b", "x\ny\n", "x\ny\n"); got != "" {
		t.Errorf("equal texts: %q, want \"\"", got)
	}
	from := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	to := "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n"
	want := "--- run\n+++ want\n" +
		"@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n" +
		"@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+13\n"
	if got := Unified("run", "want", from, to); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got, want := Unified("a", "b", "", "x\n"), "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n"; got != want {
		t.Errorf("from nothing: %q, want %q", got, want)
	}
}
