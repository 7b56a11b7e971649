package cumulus

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// TestCongestionGolden: every sample under testdata/congestion reads into
// its golden counters and unread lines.
func TestCongestionGolden(t *testing.T) { congestionGolden(t, New(), 2) }

// TestCongestionCommands: one command per front-panel port, none for
// other interfaces.
func TestCongestionCommands(t *testing.T) {
	got := New().CongestionCommands([]string{"swp2", "eth0", "swp1s0", "bond0", "swp2"})
	want := "nv show interface swp1s0 counters qos -o json|nv show interface swp2 counters qos -o json"
	if strings.Join(got, "|") != want {
		t.Errorf("commands %q, want %q", got, want)
	}
}

// TestCongestionValues: each port's counters come from its own command,
// by group, index and field; "n/a" is absent; an index or a value that is
// not one is unread; without ecn-marked-frames per class the port's ECN
// marks are still read, under port-stats.
func TestCongestionValues(t *testing.T) {
	r := congestionSample(t, New(), "own-sn5600-incast.txt")
	want := map[string]uint64{
		"swp1 pfc-stats 3 tx-pause-frames": 15010, "swp1 pfc-stats 3 tx-pause-duration": 812000,
		"swp1 egress-queue-stats 3 ecn-marked-frames": 52118, "swp7 pfc-stats 3 rx-pause-frames": 37,
		"swp7 pfc-stats 5 tx-pause-frames": 412, "swp7 egress-queue-stats 3 tx-uc-buffer-discards": 76993,
		"swp7 egress-queue-stats 3 wred-discards": 12, "swp1 port-stats tx-stats ecn-marked-packets": 52118,
	}
	for k, v := range want {
		port, name, _ := strings.Cut(k, " ")
		if got, ok := r.Of(port)[name]; !ok || got != v {
			t.Errorf("%s = %d (read %v), want %d", k, got, ok, v)
		}
	}
	if v, ok := r.Of("swp1")["pfc-stats 5 tx-pause-duration"]; ok {
		t.Errorf("n/a read as %d", v)
	}
	if len(r.Unread) != 2 || r.Unread[0].Text != "pfc-stats.x" || r.Unread[1].Text != "port-stats.tx-stats.ecn-marked-packets" {
		t.Errorf("unread %+v, want pfc-stats.x and the port's ecn count", r.Unread)
	}
	old := congestionSample(t, New(), "own-spectrum2-no-tc-ecn.txt").Of("swp49")
	if _, ok := old["egress-queue-stats 3 ecn-marked-frames"]; ok || old["port-stats tx-stats ecn-marked-packets"] != 9 {
		t.Errorf("spectrum-2: %v, want no per-class ECN and 9 on the port", old)
	}
}

// TestCongestionErrors: output that is not the command's JSON is an error
// naming the command.
func TestCongestionErrors(t *testing.T) {
	congestionErrorsOf(t, New(), "own-spectrum2-no-tc-ecn.txt", CongestionCommand("swp49"), ErrCongestion, map[string]string{
		"Error: The requested item does not exist.\n": "line 1",
		"[1, 2]":          "not an object",
		`{"link": {}}`:    "none of pfc-stats",
		`{"pfc-stats": 3`: "line 1",
	}, false)
}

// FuzzParseCongestion: any output parses or fails with ErrCongestion,
// without panicking.
func FuzzParseCongestion(f *testing.F) {
	congestionFuzz(f, New(), []string{"swp1", "swp2"}, ErrCongestion)
}

// congestionSample reads testdata/congestion/<file> (commands after
// "=== <command>" lines) through cr.
func congestionSample(t *testing.T, cr switchcfg.CongestionReader, file string) switchcfg.CongestionReading {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "congestion", file))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := switchcfg.SplitReadback(b)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	r, err := cr.ParseCongestion(rb)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return r
}

// congestionGolden compares every sample's reading with its golden file
// (-update rewrites them); at least min samples must exist.
func congestionGolden(t *testing.T, cr switchcfg.CongestionReader, min int) {
	files, _ := filepath.Glob(filepath.Join("testdata", "congestion", "*.txt"))
	if len(files) < min {
		t.Fatalf("%d congestion samples, want at least %d", len(files), min)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := congestionSample(t, cr, filepath.Base(f))
			testutil.Golden(t, filepath.Join("congestion", filepath.Base(f)+".golden"), []byte(r.Format()))
		})
	}
}

// congestionFuzz fuzzes cr's parser: the fuzzed output replaces one of
// its commands' outputs (for ports) in the first sample's read-back,
// seeded with every section of every sample. It parses or fails with
// sentinel, never panics; counters name their port and counter, come
// sorted and once; unread lines say which command and why.
func congestionFuzz(f *testing.F, cr switchcfg.CongestionReader, ports []string, sentinel error) {
	files, _ := filepath.Glob(filepath.Join("testdata", "congestion", "*.txt"))
	base := switchcfg.Readback{}
	cmds := cr.CongestionCommands(ports)
	for k, p := range files {
		b, _ := os.ReadFile(p)
		rb, _ := switchcfg.SplitReadback(b)
		for i, c := range cmds {
			if out, ok := rb[c]; ok {
				f.Add(uint8(i), string(out))
				if k == 0 {
					base[c] = out
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, in string) {
		rb := switchcfg.Readback{}
		for _, c := range cmds {
			rb[c] = base[c]
		}
		if len(cmds) > 0 {
			rb[cmds[int(which)%len(cmds)]] = []byte(in)
		}
		r, err := cr.ParseCongestion(rb)
		if err != nil {
			if !errors.Is(err, sentinel) {
				t.Fatalf("error %v does not wrap %v", err, sentinel)
			}
			return
		}
		for i, c := range r.Counters {
			if c.Port == "" || c.Name == "" || c.From == "" {
				t.Fatalf("counter %d incomplete: %+v", i, c)
			}
			if i > 0 && (r.Counters[i-1].Port > c.Port || r.Counters[i-1].Port == c.Port && r.Counters[i-1].Name >= c.Name) {
				t.Fatalf("counters %d and %d out of order or repeated: %+v %+v", i-1, i, r.Counters[i-1], c)
			}
		}
		for _, u := range r.Unread {
			if u.Command == "" || u.Reason == "" {
				t.Fatalf("unread line without command or reason: %+v", u)
			}
		}
	})
}

// congestionErrors checks that every bad output (mapped to a part of the
// error) given to command cmd, the other commands' outputs taken from the
// sample file, is an error wrapping sentinel and naming cmd; and that a
// read-back without cmd's output is an error naming it.
func congestionErrors(t *testing.T, cr switchcfg.CongestionReader, file, cmd string, sentinel error, bad map[string]string) {
	congestionErrorsOf(t, cr, file, cmd, sentinel, bad, true)
}

// congestionErrorsOf is congestionErrors; needed says whether a missing
// output of cmd is an error.
func congestionErrorsOf(t *testing.T, cr switchcfg.CongestionReader, file, cmd string, sentinel error, bad map[string]string, needed bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "congestion", file))
	if err != nil {
		t.Fatal(err)
	}
	for in, where := range bad {
		rb, _ := switchcfg.SplitReadback(b)
		rb[cmd] = []byte(in)
		_, err := cr.ParseCongestion(rb)
		if !errors.Is(err, sentinel) || !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), cmd) {
			t.Errorf("%q: error %v, want %v naming %q and %q", in, err, sentinel, cmd, where)
		}
	}
	rb, _ := switchcfg.SplitReadback(b)
	delete(rb, cmd)
	if _, err := cr.ParseCongestion(rb); needed && (err == nil || !strings.Contains(err.Error(), cmd)) {
		t.Errorf("no output of %q: error %v, want one naming it", cmd, err)
	}
}
