package junos

import (
	"runtime"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// nested returns depth blocks "a {" one per line around one statement.
func nested(depth int) string {
	return strings.Repeat("a {\n", depth) + "b;\n" + strings.Repeat("}\n", depth)
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestParseDeepNesting (issue 28): 10,000 nested blocks in 60 KB cost
// 1.67 GB when every block cloned the path to it. Nesting deeper than any
// Junos hierarchy is refused at the block that goes too deep, at once; up
// to that, memory grows with the depth, not its square.
func TestParseDeepNesting(t *testing.T) {
	text := "class-of-service {\n" + nested(10_000) + "}\n"
	var err error
	bytes := allocated(func() {
		_, err = New().Parse(switchcfg.Readback{"show configuration": []byte(text)})
	})
	if err == nil || !strings.Contains(err.Error(), "line 65: nesting deeper than 64 levels") {
		t.Errorf("10,000 nested blocks: %v", err)
	}
	if bytes > 4<<20 {
		t.Errorf("refusing 10,000 nested blocks (%d KB) allocated %d MB", len(text)>>10, bytes>>20)
	}

	// 64 levels are read, the statement at the bottom with its whole path.
	var got []string
	err = eachStatement(nested(64), nil, func(st statement) error {
		got = append(got, strings.Join(st.words, " "))
		return nil
	})
	if want := strings.Repeat("a ", 64) + "b"; err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("64 levels: %v %q", err, got)
	}
	// Twice the depth, at most about twice the memory (not four times).
	walk := func(depth int) func() {
		text := strings.Repeat(nested(depth), 200)
		return func() {
			if err := eachStatement(text, nil, func(statement) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a, b := allocated(walk(32)), allocated(walk(64)); b > 3*a {
		t.Errorf("32 levels allocate %d KB, 64 levels %d KB", a>>10, b>>10)
	}
}

// BenchmarkParseDeepNesting reads blocks nested 64 deep (the most that is
// read) and refuses 10,000 nested blocks.
func BenchmarkParseDeepNesting(b *testing.B) {
	for _, tc := range []struct {
		name  string
		depth int
	}{{"64", 64}, {"10000", 10_000}} {
		rb := switchcfg.Readback{"show configuration": []byte("class-of-service {\n" + nested(tc.depth) + "}\n")}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = New().Parse(rb)
			}
		})
	}
}

// TestParseRefusesBadNumbers (issue 28): a number out of its range —
// negative, zero where it means nothing, past int — is refused naming the
// line and the statement, never read or wrapped. A member-range ending past
// int looped for ever, filling memory.
func TestParseRefusesBadNumbers(t *testing.T) {
	for _, tc := range []struct{ stmt, want string }{
		{"interfaces interface-range r member-range et-0/0/99999999999999999999 to et-0/0/99999999999999999999", "is not a range"},
		{"interfaces et-0/0/1 mtu -9216", `"-9216" is not a number`},
		{"interfaces et-0/0/1 mtu 99999999999999999999", "is not a number"},
		{"class-of-service forwarding-classes class fc queue-num -1", `"-1" is not a number`},
		{"class-of-service forwarding-classes class fc no-loss pfc-priority 8", `"8" is not a number`},
		{"class-of-service schedulers s transmit-rate percent 101", `"101" is not a number`},
		{"class-of-service congestion-notification-profile p pfc-watchdog poll-interval 0", `"0" is not a number`},
		{"class-of-service drop-profiles d interpolate fill-level [ 5 1e23 ]", `"1e23" is not a number`},
	} {
		text := "set class-of-service interfaces r scheduler-map x\nset " + tc.stmt + "\n"
		_, err := New().Parse(switchcfg.Readback{"show configuration": []byte(text)})
		if err == nil || !strings.Contains(err.Error(), "line 2: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.stmt, err)
		}
	}
}
