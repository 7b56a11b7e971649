package nxos

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

// TestCongestionValues: PFC frames per COS and per port, a QoS group's
// unicast and multicast counters, the port's ingress drops (not the
// slice's); what is no count or no known line is unread.
func TestCongestionValues(t *testing.T) {
	r := congestionSample(t, New(), "own-n9k-incast.txt")
	want := map[string]uint64{
		"Ethernet1/1 PFC COS 3 TxCount": 15010, "Ethernet1/1 TxPPP": 15010, "Ethernet1/49 PFC COS 5 RxCount": 412,
		"Ethernet1/49 PFC COS 3 RxCount": 37, "Ethernet1/49 RxPPP": 449,
		"Ethernet1/49 QOS GROUP 3 WRED/AFD & Tail Drop Pkts": 4100, "Ethernet1/1 QOS GROUP 3 Tx Pkts": 1204331,
		"Ethernet1/1 QOS GROUP 3 Multicast Tx Pkts": 0, "Ethernet1/49 Ingress Overflow Drop Pkts": 19490,
		"Ethernet1/1 CONTROL QOS GROUP Tx Pkts": 6060, "Ethernet1/1 Pause Flush Drop Pkts": 0,
	}
	for k, v := range want {
		port, name, _ := strings.Cut(k, " ")
		if got, ok := r.Of(port)[name]; !ok || got != v {
			t.Errorf("%s = %d (read %v), want %d", k, got, ok, v)
		}
	}
	if v, ok := r.Of("Ethernet1/49")["QOS GROUP 3 WD & Tail Drop Pkts"]; ok {
		t.Errorf("4x read as %d", v)
	}
	if len(r.Unread) != 2 || !strings.Contains(r.Unread[0].Reason, `"4x"`) || !strings.Contains(r.Unread[1].Text, "watchdog state") {
		t.Errorf("unread %+v, want 4x and the unknown line", r.Unread)
	}
}

// TestCongestionErrors: output that is not the command's is an error
// naming the command.
func TestCongestionErrors(t *testing.T) {
	congestionErrors(t, New(), "own-quiet.txt", CmdQueuing, ErrCongestion, map[string]string{
		"% Invalid command at '^' marker.\n": "no Egress or Ingress Queuing for line",
		"":                                   "no Egress or Ingress Queuing for line",
	})
}

// FuzzParseCongestion: any output parses or fails with ErrCongestion,
// without panicking.
func FuzzParseCongestion(f *testing.F) {
	congestionFuzz(f, New(), nil, ErrCongestion)
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
