package perftest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// goldenView is what the golden files pin: the report and what Cause and
// Hints derive from it.
type goldenView struct {
	Report *Report  `json:"report"`
	Cause  *Failure `json:"cause,omitempty"`
	Hints  []string `json:"hints,omitempty"`
}

func view(r *Report) goldenView {
	v := goldenView{Report: r}
	if f, ok := Cause(r); ok {
		v.Cause = &f
	}
	if r.ServerBanner {
		v.Hints = Hints(r, nil)
	} else {
		v.Hints = Hints(nil, r)
	}
	return v
}

func fixtures(t *testing.T, glob string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", glob))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures match %s: %v", glob, err)
	}
	return paths
}

func TestParseGolden(t *testing.T) {
	for _, path := range fixtures(t, "text/*.txt") {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := Parse(f)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			testutil.Golden(t, "text/"+name+".golden", testutil.JSON(t, view(r)))
		})
	}
}

func TestParseJSONGolden(t *testing.T) {
	for _, path := range fixtures(t, "json/*.json") {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := ParseJSON(data)
			if err != nil {
				t.Fatalf("ParseJSON: %v", err)
			}
			testutil.Golden(t, "json/"+name+".golden", testutil.JSON(t, r))
		})
	}
}

// TestParseFacts pins, independently of the golden files, the facts a check
// relies on.
func TestParseFacts(t *testing.T) {
	parse := func(name string) *Report {
		t.Helper()
		f, err := os.Open(filepath.Join("testdata/text", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := Parse(f)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := parse("write_bw_client_roce_2qp_gbits.txt")
	final, ok := r.Final()
	if !ok || final.Bytes != 1048576 || final.BWAverage != 97.61 || r.BWUnit != checks.UnitGbps {
		t.Errorf("final row %+v unit %q", final, r.BWUnit)
	}
	if len(r.Local) != 2 || len(r.Remote) != 2 || r.Remote[1].GID != "::ffff:10.0.1.12" || r.Header.QPs != 2 {
		t.Errorf("endpoints %+v %+v", r.Local, r.Remote)
	}
	if r.Header.GIDIndex == nil || *r.Header.GIDIndex != 3 || r.Test != WriteBW {
		t.Errorf("header %+v test %v", r.Header, r.Test)
	}

	r = parse("write_bw_server_ib_duration_mbsec.txt")
	final, _ = r.Final()
	if !r.ServerBanner || r.BWUnit != checks.UnitMBps || final.BWAverage != 11967.93 {
		t.Errorf("server report %+v", r)
	}
	if got := ToGbps(final.BWAverage, r.BWUnit); got < 100.39 || got > 100.40 {
		t.Errorf("11967.93 MB/s = %v Gb/s, want 100.39…", got)
	}

	r = parse("write_lat_client_roce.txt")
	if len(r.Lat) != 2 || r.Lat[1].TTypical != 2.76 || r.Lat[1].P999 != 6.02 || r.LatUnit != checks.UnitUsec {
		t.Errorf("latency rows %+v", r.Lat)
	}
	r = parse("send_lat_duration.txt")
	if len(r.Lat) != 1 || r.Lat[0].TAvg != 1.77 || r.Lat[0].TPS != 564431.22 {
		t.Errorf("duration latency rows %+v", r.Lat)
	}
	r = parse("atomic_lat_cycles.txt")
	if r.LatUnit != checks.UnitCycles || r.Test != AtomicLat {
		t.Errorf("cycles report %+v", r)
	}
	r = parse("send_bw_bidir_rdma_cm_cpu_util.txt")
	if !r.Bidirectional || r.BW[0].Extra["CPU_Util"] != 98.71 || r.Header.Extra["TOS"] != "106" || r.Header.DataExMethod != "rdma_cm" {
		t.Errorf("bidirectional report %+v", r)
	}
	r = parse("output_bandwidth_only.txt")
	if len(r.Bare) != 1 || r.Bare[0] != 92.417301 {
		t.Errorf("bare output %+v", r.Bare)
	}

	for file, want := range map[string]checks.FailureClass{
		"err_oob_connect_client.txt":      checks.OOBConnect,
		"err_qp_rtr_zero_gid_client.txt":  checks.QPBringUp,
		"err_completion_retry_client.txt": checks.CompletionError,
		"err_argument_lat.txt":            checks.ArgumentError,
		"err_clock_calibration.txt":       checks.ClockCalibration,
		"err_no_device.txt":               checks.NoDevice,
		"err_port_down.txt":               checks.PortDown,
		"err_missing_tool.txt":            checks.MissingTool,
	} {
		f, ok := Cause(parse(file))
		if !ok || f.Class != want {
			t.Errorf("%s: cause %+v, want %s", file, f, want)
		}
	}
	f, _ := Cause(parse("err_completion_retry_client.txt"))
	if f.Class != checks.CompletionError {
		t.Errorf("completion cause %+v", f)
	}
	rep := parse("err_completion_retry_client.txt")
	if d := rep.Failures[1].Detail; d != "status 12 RETRY_EXC_ERR, vendor syndrome 0x81" {
		t.Errorf("completion detail %q", d)
	}
}

func TestParseRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":        "",
		"blank":        "\n\n   \n",
		"not perftest": "hello world\nPING 10.0.0.1 (10.0.0.1) 56(84) bytes of data.\n",
		"shell noise":  "$ ls\nfoo bar\n",
	} {
		if _, err := Parse(strings.NewReader(in)); !errors.Is(err, ErrNoOutput) {
			t.Errorf("%s: got %v, want ErrNoOutput", name, err)
		}
	}
	long := "RDMA_Write BW Test\n" + strings.Repeat("x", maxLine+1) + "\n"
	_, err := Parse(strings.NewReader(long))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("over-long line: got %v, want an error naming line 2", err)
	}
}

func TestParseJSONRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":         "",
		"not object":    "[1, 2]",
		"no sections":   `{"foo": 1}`,
		"unclosed":      `{"test_info": {"test": "RDMA_Write_BW_Test"`,
		"missing colon": "{test_info {}}",
		"trailing":      `{"results": {}} x`,
		"bad results":   `{"results": 3}`,
		"cut after key": `{""`,
		"deep":          strings.Repeat("[", 100) + strings.Repeat("]", 100),
	} {
		_, err := ParseJSON([]byte(in))
		if !errors.Is(err, ErrBadJSON) {
			t.Errorf("%s: got %v, want ErrBadJSON", name, err)
		}
	}
	_, err := ParseJSON([]byte("{\n\"test_info\": {\n\"test\" \"x\"\n}}"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("located error: got %v", err)
	}
}

func TestCauseAcrossSides(t *testing.T) {
	server, err := Parse(strings.NewReader("ethernet_read_keys: Couldn't read remote address\nUnable to read to socket/rdma_cm\nFailed to exchange data between server and clients\n"))
	if err != nil {
		t.Fatal(err)
	}
	client, err := Parse(strings.NewReader("Failed to modify QP to RTS\n Unable to Connect the HCA's through the link\n"))
	if err != nil {
		t.Fatal(err)
	}
	f, ok := Cause(server, client)
	if !ok || f.Class != checks.QPBringUp || f.Detail != "RTS" {
		t.Errorf("Cause(server, client) = %+v, want the client's QP bring-up at RTS", f)
	}
	if f, ok := Cause(server, nil); !ok || f.Class != checks.OOBConnect {
		t.Errorf("server alone: %+v", f)
	}
	if _, ok := Cause(&Report{}, nil); ok {
		t.Error("a clean report has a cause")
	}
}

// TestCauseKeepsTheCompletionStatus: a completion error names its side and the status perftest
// prints on the next line (perftest_resources.h NOTIFY_COMP_ERROR_SEND/RECV print "Completion
// with error at client|server", then "Failed status N: wr_id … syndrom 0x…"); a status line alone
// is the cause itself, and a status that is not the next line is not merged.
func TestCauseKeepsTheCompletionStatus(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{" Completion with error at client\n Failed status 12: wr_id 0 syndrom 0x81\nscnt=128, ccnt=0\n", "client: status 12 RETRY_EXC_ERR, vendor syndrome 0x81"},
		{" Completion with error at server\n Failed status 10: wr_id 3 syndrom 0x88\n", "server: status 10 REM_ACCESS_ERR, vendor syndrome 0x88"},
		{" Failed status 5: wr_id 0 syndrom 0x0\n", "status 5 WR_FLUSH_ERR, vendor syndrome 0x0"},
		{" Completion with error at client\nscnt=1\n Failed status 12: wr_id 0 syndrom 0x81\n", "client"},
		{" Completion with error at client\n", "client"},
	} {
		r, err := Parse(strings.NewReader(c.out))
		if err != nil {
			t.Fatal(err)
		}
		f, ok := Cause(nil, r)
		if !ok || f.Class != checks.CompletionError || f.Detail != c.want {
			t.Errorf("%q: %+v, want completion-error %q", c.out, f, c.want)
		}
	}
}

func TestHints(t *testing.T) {
	idx := 3
	server := &Report{Header: Header{Device: "mlx5_0", LinkType: "Ethernet", MTU: 4096, GIDIndex: &idx},
		Local: []Endpoint{{GID: "::ffff:10.0.0.1"}}}
	client := &Report{Header: Header{Device: "mlx5_1", LinkType: "Ethernet", MTU: 1024},
		Local: []Endpoint{{GID: "fe80::1"}}}
	got := strings.Join(Hints(server, client), "\n")
	for _, want := range []string{
		"client mlx5_1: RoCE link without an explicit GID index",
		"different MTUs: 1024 on client mlx5_1, 4096 on server mlx5_0",
		"GIDs of different kinds: IPv4-mapped on server mlx5_0, link-local on client mlx5_1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("hints lack %q:\n%s", want, got)
		}
	}
	if h := Hints(server, nil); len(h) != 0 {
		t.Errorf("a healthy server alone has hints: %v", h)
	}
}

func TestTestNames(t *testing.T) {
	for _, s := range []string{"write_bw", "ib_write_bw", " ib_atomic_lat "} {
		if _, err := ParseTest(s); err != nil {
			t.Errorf("ParseTest(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "write", "ib_write_foo", "rdma_bw", "write_bw_x"} {
		if _, err := ParseTest(s); !errors.Is(err, ErrUnknownTest) {
			t.Errorf("ParseTest(%q) = %v, want ErrUnknownTest", s, err)
		}
	}
	if SendLat.Binary() != "ib_send_lat" || ReadBW.String() != "read_bw" {
		t.Error("names")
	}
	var tt Test
	if err := json.Unmarshal([]byte(`"ib_read_lat"`), &tt); err != nil || tt != ReadLat {
		t.Errorf("unmarshal: %v %v", tt, err)
	}
}
