package sonic

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

// TestCongestionValues: pause lands on its port, direction and priority,
// drops and ECN marks on their queue; thousands separators read; N/A,
// backplane ports and cells that are no count are absent, the latter
// listed as unread with their line.
func TestCongestionValues(t *testing.T) {
	r := congestionSample(t, New(), "own-incast-leaf.txt")
	want := map[string]uint64{
		"Ethernet0 Tx PFC3": 15010, "Ethernet4 Rx PFC3": 37, "Ethernet8 Tx PFC5": 412, "Ethernet0 Rx PFC3": 0,
		"Ethernet4 UC3 Drop/pkts": 4100, "Ethernet0 UC3 Counter/pkts": 1204331, "Ethernet0 UC3 EcnMarked/pkts": 52118,
		"Ethernet4 UC3 WredDrp/pkts": 0, "Ethernet0 MC8 Counter/pkts": 0,
	}
	for k, v := range want {
		port, name, _ := strings.Cut(k, " ")
		if got, ok := r.Of(port)[name]; !ok || got != v {
			t.Errorf("%s = %d (read %v), want %d", k, got, ok, v)
		}
	}
	for _, absent := range []string{"Ethernet8 Tx PFC6", "Ethernet0 MC8 Drop/pkts", "Ethernet8 UC3 Drop/pkts", "Ethernet4 UC3X Drop/pkts"} {
		port, name, _ := strings.Cut(absent, " ")
		if v, ok := r.Of(port)[name]; ok {
			t.Errorf("%s read as %d, want absent", absent, v)
		}
	}
	if got := r.Ports(); strings.Join(got, ",") != "Ethernet0,Ethernet4,Ethernet8" {
		t.Errorf("ports %v, want the three front-panel ports (no Ethernet-BP0)", got)
	}
	var unread []string
	for _, u := range r.Unread {
		unread = append(unread, u.Command+":"+strings.Fields(u.Text)[1])
	}
	if strings.Join(unread, " ") != "show queue counters:UC3X show queue counters:UC3" {
		t.Errorf("unread %+v, want the UC3X row and Ethernet8's 1x", r.Unread)
	}
}

// TestCongestionErrors: output that is none of the tables is an error
// naming the command, never an empty reading.
func TestCongestionErrors(t *testing.T) {
	congestionErrors(t, New(), "own-single-asic-zero.txt", CmdPFCCounters, ErrCongestion, map[string]string{
		"Usage: show [OPTIONS] COMMAND [ARGS]...\nError: No such command \"pfc\".\n": "no table header",
		"":                    "no table header",
		"Port Rx PFC0 PFC1\n": "no table header",
	})
	congestionErrors(t, New(), "own-single-asic-zero.txt", CmdWREDCounters, ErrCongestion, map[string]string{
		"     Port    TxQ    WredDrp/pkts\nEthernet0 UC0 0\n": "no table header",
	})
}

// TestPublishedCongestion reads sonic-utilities' own test outputs of the
// three commands ($FABRICCTL_OUTPUT_CORPUS/switch-congestion/sonic,
// provenance.yaml beside them), pinned by sha256; it skips when they are
// absent.
func TestPublishedCongestion(t *testing.T) {
	dir := filepath.Join(testutil.OutputCorpus(t), "switch-congestion", "sonic")
	cases := []struct {
		file, sha string
		parse     func(*switchcfg.CongestionParse, string) error
		want      map[string]uint64
		ports     string
	}{
		{"pfcstat-show-pfc-counters.txt", "99ff9c81b0d469de59c2fcfe6d8cc144241f8771ff5e98494fb3a9ed41604593", parsePFCCounters,
			map[string]uint64{"Ethernet0 Rx PFC0": 1200, "Ethernet4 Rx PFC3": 403, "Ethernet8 Tx PFC7": 817, "Ethernet0 Tx PFC0": 1210}, "Ethernet0,Ethernet4,Ethernet8"},
		{"pfcstat-show-pfc-counters-all-asics.txt", "527ebda7dbad7ea9c3b099ed833d99a0113ae1de4da4eddf5a67f0f9ba05c4ff", parsePFCCounters,
			map[string]uint64{"Ethernet4 Tx PFC3": 413, "Ethernet0 Rx PFC0": 1200}, "Ethernet0,Ethernet4"},
		{"queuestat-show-queue-counters.txt", "f1ee9846a3a0159e34d3cc4530db2cd5c0991ce15ede3214955aac88e6bca27b", parseQueueCounters,
			map[string]uint64{"Ethernet0 UC3 Drop/pkts": 19, "Ethernet4 UC3 Counter/pkts": 60, "Ethernet8 MC10 Drop/pkts": 76}, "Ethernet0,Ethernet4,Ethernet8"},
		{"queuestat-show-queue-wredcounters.txt", "dbc3d35fc347cad8938a587aa217cd22fbb169c495bf7f6b0d51622c92af03cf", parseQueueCounters,
			map[string]uint64{"Ethernet0 UC3 EcnMarked/pkts": 19, "Ethernet4 UC3 WredDrp/pkts": 60, "Ethernet8 UC1 EcnMarked/pkts": 68}, "Ethernet0,Ethernet4,Ethernet8"},
	}
	read := 0
	for _, c := range cases {
		data, ok, err := testutil.ReadPinned(filepath.Join(dir, c.file), c.sha)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if !ok {
			continue
		}
		read++
		p := switchcfg.CongestionParse{Command: c.file}
		if err := c.parse(&p, string(data)); err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		r := p.Done()
		if len(r.Unread) > 0 {
			t.Errorf("%s: unread %+v", c.file, r.Unread)
		}
		for k, v := range c.want {
			port, name, _ := strings.Cut(k, " ")
			if got, ok := r.Of(port)[name]; !ok || got != v {
				t.Errorf("%s: %s = %d (read %v), want %d", c.file, k, got, ok, v)
			}
		}
		if got := strings.Join(r.Ports(), ","); got != c.ports {
			t.Errorf("%s: ports %s, want %s", c.file, got, c.ports)
		}
		if _, ok := r.Of("Ethernet0")["ALL20 Counter/pkts"]; ok {
			t.Errorf("%s: ALL20's N/A read as a count", c.file)
		}
	}
	if read == 0 {
		t.Skipf("no published SONiC output in %s (set FABRICCTL_OUTPUT_CORPUS)", dir)
	}
	t.Logf("%d published SONiC outputs read", read)
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
