package analyze

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

func TestParseExpect(t *testing.T) {
	for in, want := range map[string]Expect{
		"busbw=120":                 {BusBW: 120},
		"busbw=120GB/s, bw=350Gb/s": {BusBW: 120, BW: 350},
		"bw=25000Mb/s,lat=2.5us":    {BW: 25, Lat: 2.5},
		"lat=1ms":                   {Lat: 1000},
		"BW=100Gbps":                {BW: 100},
	} {
		got, err := ParseExpect(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"busbw", "speed=3", "bw=-1", "bw=fast", "busbw=3Gb/s", "lat=0"} {
		if _, err := ParseExpect(bad); !errors.Is(err, ErrExpect) {
			t.Errorf("%q: %v, want ErrExpect", bad, err)
		}
	}
}

// TestNoPassWithoutYardstick: the same nccl-tests and perftest figures are
// a skip without a floor, a pass above it and a fail below it.
func TestNoPassWithoutYardstick(t *testing.T) {
	for _, c := range []struct {
		file string
		exp  Expect
		want checks.Status
	}{
		{"../nccl/testdata/srun_all_reduce_perf_wrong.log", Expect{}, checks.StatusSkip},
		{"../nccl/testdata/srun_all_reduce_perf_wrong.log", Expect{BusBW: 10}, checks.StatusPass},
		{"../nccl/testdata/srun_all_reduce_perf_wrong.log", Expect{BusBW: 120}, checks.StatusFail},
		{"../perftest/testdata/text/write_bw_client_roce_2qp_gbits.txt", Expect{}, checks.StatusSkip},
		{"../perftest/testdata/text/write_bw_client_roce_2qp_gbits.txt", Expect{BW: 90}, checks.StatusPass},
		{"../perftest/testdata/text/write_bw_client_roce_2qp_gbits.txt", Expect{BW: 99}, checks.StatusFail},
		{"../perftest/testdata/text/write_lat_client_roce.txt", Expect{}, checks.StatusSkip},
		{"../perftest/testdata/text/write_lat_client_roce.txt", Expect{Lat: 3}, checks.StatusPass},
		{"../perftest/testdata/text/write_lat_client_roce.txt", Expect{Lat: 2.5}, checks.StatusFail},
		// --out_json does not say whether latencies are µs or cycles (-C): never judged.
		{"../perftest/testdata/json/send_lat_old_unquoted.json", Expect{Lat: 20}, checks.StatusSkip},
		{"../perftest/testdata/text/atomic_lat_cycles.txt", Expect{Lat: 20}, checks.StatusSkip},
	} {
		f := Options{Expect: c.exp}.Analyze(c.file, mustRead(t, c.file))
		var got []checks.Status
		for _, x := range f.Findings {
			if x.ID == "nccl/busbw" || x.ID == "perftest/result" {
				got = append(got, x.Status)
			}
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s with %+v: %v, want %s", c.file, c.exp, got, c.want)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNCCLHostNeedsSomethingToJudge: a log cut before any channel or
// communicator completed is a skip; Init COMPLETE or connected channels
// make it a pass.
func TestNCCLHostNeedsSomethingToJudge(t *testing.T) {
	head := "n1:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\nn1:1:1 [0] NCCL INFO Using network IB\n"
	for tail, want := range map[string]checks.Status{
		"": checks.StatusSkip,
		"n1:1:1 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 18000 commId 0x2 - Init COMPLETE\n": checks.StatusPass,
		"n1:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n":                                                            checks.StatusPass,
	} {
		f := Analyze("x.log", []byte(head+tail))
		var st []checks.Status
		for _, x := range f.Findings {
			if x.ID == "nccl/host" {
				st = append(st, x.Status)
			}
		}
		if len(st) != 1 || st[0] != want {
			t.Errorf("tail %q: %v, want %s", tail, st, want)
		}
	}
}

// TestPerftestOwnWarnings: what perftest warns about its run is a warning
// finding; libibverbs' notes about providers it could not load are not.
func TestPerftestOwnWarnings(t *testing.T) {
	base := mustRead(t, "../perftest/testdata/text/write_bw_client_roce_2qp_gbits.txt")
	for extra, want := range map[string]checks.Status{
		"Conflicting CPU frequency values detected: 1200.000000 != 3500.000000. CPU Frequency is not max.\n": checks.StatusWarn,
		"libibverbs: Warning: couldn't load driver 'libvmw_pvrdma-rdmav34.so'\n":                             checks.StatusSkip,
	} {
		f := Analyze("p.txt", append([]byte(extra), base...))
		if f.Worst() != want {
			t.Errorf("%q: worst %s, want %s: %+v", extra, f.Worst(), want, f.Findings)
		}
	}
}

// FuzzParseExpect: any flag value is an expectation or ErrExpect.
func FuzzParseExpect(f *testing.F) {
	for _, s := range []string{"busbw=120", "bw=350Gb/s,lat=2us", "lat=1e3ms", "bw=", "=", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExpect(s)
		if err != nil && !errors.Is(err, ErrExpect) {
			t.Errorf("%q: %v", s, err)
		}
		if err == nil && (e.BusBW < 0 || e.BW < 0 || e.Lat < 0) {
			t.Errorf("%q: %+v", s, e)
		}
	})
}

// TestNumbersThatAreNotMeasurements: NaN, infinities and negative figures
// are an error finding naming the figure, never a pass, with or without a
// yardstick, and the report still encodes as JSON.
func TestNumbersThatAreNotMeasurements(t *testing.T) {
	perf := string(mustRead(t, "../perftest/testdata/text/write_bw_client_roce_2qp_gbits.txt"))
	var tests string
	for name, text := range map[string]string{
		"perftest nan":      strings.Replace(perf, "97.61", "nan", 1),
		"perftest inf":      strings.Replace(perf, "97.61", "Infinity", 1),
		"perftest negative": strings.Replace(perf, "97.61", "-97.61", 1),
	} {
		for _, exp := range []Expect{{}, {BW: 1}} {
			f := Options{Expect: exp}.Analyze(name, []byte(text))
			if f.Worst() != checks.StatusError {
				t.Errorf("%s with %+v: worst %s: %+v", name, exp, f.Worst(), f.Findings)
			}
			if _, err := json.Marshal(f); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	tests = "#       size         count    type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
		"     1048576        262144   float     sum      -1    307.5    3.41     nan      0    225.1    4.66    8.74      0\n"
	f := Options{Expect: Expect{BusBW: 1}}.Analyze("t.log", []byte(tests))
	if f.Worst() != checks.StatusError {
		t.Errorf("nccl-tests nan: worst %s: %+v", f.Worst(), f.Findings)
	}
	if _, err := json.Marshal(f); err != nil {
		t.Error(err)
	}
}
