package analyze

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/output"
)

// huge is a figure no float64 or int64 holds (it reads as +Inf or overflows).
var huge = "1" + strings.Repeat("0", 400)

// ncclTestsTable is a clean nccl-tests table with its footer.
const ncclTestsTable = "#       size         count    type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
	"     1048576        262144   float     sum      -1    307.5    3.41    6.39      0    225.1    4.66    8.74      0\n" +
	"     2097152        524288   float     sum      -1    407.5    5.15    9.65      0    405.1    5.18    9.71      0\n" +
	"# Out of bounds values : 0 OK\n" +
	"# Avg bus bandwidth    : 8.6225\n"

// hostileNumbers are captures whose one figure is no number (too large for
// its type, NaN, infinite, negative where a count or rate cannot be), each
// with the line or field a finding must name.
func hostileNumbers(t *testing.T) []struct{ name, data, where string } {
	read := func(path string) string { return string(mustRead(t, path)) }
	perf := read("../perftest/testdata/text/write_bw_client_roce_2qp_gbits.txt")
	perfJSON := read("../perftest/testdata/json/write_bw.json")
	nvlink := read("../hostparse/testdata/nvlink/errors_two_gpus_one_crc.txt")
	smiQ := read("../hostparse/testdata/nvsmi/h200_one_gpu.txt")
	smi := read("../hostparse/testdata/nvsmi-table/ecc_uncorrectable_550.txt")
	ibstat := read("../hostparse/testdata/ibstat/roce_and_ib.txt")
	iblink := read("../hostparse/testdata/iblinkinfo/ca_and_switch_one_down.txt")
	p2p := read("../hostparse/testdata/p2pbw/pcie_four_gpus_partial_access.txt")
	kernel := read("../hostparse/testdata/kernel/dmesg_h100_fell_off_and_app_faults.txt")
	ncclLog := read("../nccl/testdata/two_hosts_roce_clean.log")
	one := func(s, old, new string) string {
		t.Helper()
		if !strings.Contains(s, old) {
			t.Fatalf("fixture lacks %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	return []struct{ name, data, where string }{
		{"perftest message size 1e23", one(perf, "1048576    5000", "1e23    5000"), "line 30"},
		{"perftest iterations 1e23", one(perf, "1048576    5000", "1048576    1e23"), "line 30"},
		{"perftest JSON 1e999", one(perfJSON, `"BW_average": 98.213761`, `"BW_average": 1e999`), "BW_average"},
		{"perftest JSON size 1e23", one(perfJSON, `"MsgSize": 65536`, `"MsgSize": 1e23`), "MsgSize"},
		{"perftest JSON string figure", one(perfJSON, `"BW_average": 98.213761`, `"BW_average": "fast"`), "BW_average"},
		{"nvlink counter 1e23", one(nvlink, "CRC Errors: 17", "CRC Errors: 100000000000000000000000"), "line 8"},
		{"nvlink counter negative", one(nvlink, "Recovery Errors: 2", "Recovery Errors: -2"), "line 7"},
		{"nvidia-smi -q replays 1e23", one(smiQ, "Replays Since Reset               : 3", "Replays Since Reset               : 100000000000000000000000"), "line 32"},
		{"nvidia-smi -q width", one(smiQ, "Current                   : 16x", "Current                   : 99999999999999999999x"), "line 28"},
		{"nvidia-smi ECC 1e23", one(smi, "|                    2 |", "| 100000000000000000000 |"), "line 8"},
		{"ibstat rate NaN", one(ibstat, "Rate: 400", "Rate: NaN"), "line 11"},
		{"ibstat rate infinite", one(ibstat, "Rate: 400", "Rate: Infinity"), "line 11"},
		{"ibstat rate negative", one(ibstat, "Rate: 400", "Rate: -400"), "line 11"},
		{"iblinkinfo lane speed", one(iblink, "53.125 Gbps", huge+" Gbps"), "line 2"},
		{"p2p NaN bandwidth", one(p2p, "903.15", "nan"), "line 30"},
		{"p2p infinite bandwidth", one(p2p, "903.15", huge), "line 30"},
		{"kernel Xid 1e23", one(kernel, "Xid (PCI:0000:3b:00): 13,", "Xid (PCI:0000:3b:00): 100000000000000000000000,"), "line 6"},
		{"nccl GRAPH bandwidth", ncclLog + "gpu-01:20511:20602 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 16, bw " + huge + "/40.000000, type NVL/PIX, sameChannels 1\n", "two_hosts:27"},
		{"nccl rank 1e23", ncclLog + "gpu-01:20511:20602 [0] NCCL INFO comm 0x55d0c8a3e0a0 rank 100000000000000000000000 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0\n", "two_hosts:27"},
		{"nccl nNodes 1e23", ncclLog + "gpu-01:20511:20602 [0] NCCL INFO comm 0x55d0c8a3e0a0 rank 0 nRanks 4 nNodes 100000000000000000000000 localRanks 2 localRank 0 MNNVL 0\n", "two_hosts:27"},
		{"nccl-tests average 1e400", one(ncclTestsTable, "8.6225", huge), "tests:5"},
		{"nccl-tests size 1e23", one(ncclTestsTable, "     2097152        524288", "     100000000000000000000000        524288"), "tests:3"},
		{"nccl-tests out of bounds 1e23", one(ncclTestsTable, "values : 0 OK", "values : 100000000000000000000000 OK"), "tests:4"},
	}
}

// TestHostileNumbers: a figure that is no number (too large for its type,
// NaN, infinite, negative) is an error finding naming its line or field,
// never a pass, never read as zero; and a report of all of them encodes as
// JSON and YAML (a NaN or infinity reaching a measurement or fact would make
// the whole report fail to encode).
func TestHostileNumbers(t *testing.T) {
	rep := &Report{APIVersion: "v", Kind: ReportKind}
	for _, c := range hostileNumbers(t) {
		name := strings.Fields(c.where)[0]
		if strings.Contains(c.where, ":") {
			name = strings.Split(c.where, ":")[0]
		}
		f := Options{Expect: Expect{BW: 1, BusBW: 1}}.Analyze(name, []byte(c.data))
		rep.Files = append(rep.Files, f)
		if f.Worst() != checks.StatusError {
			t.Errorf("%s: worst %s, want error: %+v", c.name, f.Worst(), f.Findings)
			continue
		}
		named := false
		for _, x := range f.Findings {
			if x.Status == checks.StatusError && (strings.Contains(x.Summary, c.where) || strings.Contains(strings.Join(x.Evidence, "\n"), c.where)) {
				named = true
			}
		}
		if !named {
			t.Errorf("%s: no error finding names %q: %+v", c.name, c.where, f.Findings)
		}
	}
	for _, format := range []string{output.JSON, output.YAML} {
		var b bytes.Buffer
		if err := output.Write(&b, format, rep, nil); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
}
