package analyze

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// fixtureKinds are the repository's own fixtures (and short real samples
// kept where their licence allows) with the kind each must be detected as.
var fixtureKinds = map[string]Kind{
	"../hostparse/testdata/devinfo/roce_active_and_ib_down.txt":      KindDevInfo,
	"../hostparse/testdata/devinfo/verbose_rxe_gids.txt":             KindDevInfo,
	"../hostparse/testdata/ibstat/roce_and_ib.txt":                   KindIBStat,
	"../hostparse/testdata/showgids/roce_v2_ipv4_and_shared_ip.txt":  KindShowGIDs,
	"../hostparse/testdata/ibdev2netdev/plain.txt":                   KindIBDev2Netdev,
	"../hostparse/testdata/ibdev2netdev/verbose.txt":                 KindIBDev2Netdev,
	"../hostparse/testdata/topo/four_gpus_two_nics_legend.txt":       KindTopo,
	"../hostparse/testdata/topo/ansi_underlined_header.txt":          KindTopo,
	"../hostparse/testdata/topo/truncated_rows.txt":                  KindTopo,
	"../hostparse/testdata/lspci/nic_ok_and_gpu_downgraded.txt":      KindLSPCI,
	"../hostparse/testdata/real/lspci_vvv_h100_hgx_gpud_extract.txt": KindLSPCI,
	"../perftest/testdata/text/write_bw_client_roce_2qp_gbits.txt":   KindPerftest,
	"../perftest/testdata/text/err_qp_rtr_zero_gid_client.txt":       KindPerftest,
	"../perftest/testdata/text/row_more_numbers_than_header.txt":     KindPerftest,
	"../perftest/testdata/text/write_bw_mib_perftest24.txt":          KindPerftest,
	"../perftest/testdata/json/write_bw.json":                        KindPerftestJSON,
	"../perftest/testdata/json/send_lat_old_unquoted.json":           KindPerftestJSON,
	"../nccl/testdata/two_hosts_roce_clean.log":                      KindNCCL,
	"../nccl/testdata/srun_all_reduce_perf_wrong.log":                KindNCCLTests,
	"../nccl/testdata/shaped/pdsh_two_hosts_socket_fallback.log":     KindNCCL,
	"../nccl/testdata/shaped/ray_vllm_nested_prefixes.log":           KindNCCL,
	"../nccl/testdata/shaped/pytorch_watchdog_timeouts.log":          KindNCCL,
	"../nccl/testdata/shaped/ras_report_mismatch.txt":                KindNCCL,
	"../nccl/testdata/shaped/k8s_prefix_timestamps.log":              KindNCCL,
	"../nccl/testdata/shaped/python_logging_timestamps.log":          KindNCCL,
	"../nccl/testdata/shaped/completion_errors_every_era.log":        KindNCCL,
	"../nccl/testdata/shaped/old_2_3_net_ib_format.log":              KindNCCL,
	"testdata/nccl_lib_locations.txt":                                KindUnknown,
	"../hostparse/testdata/p2pbw/h200_pair_nvlink.txt":               KindP2P,
	"../hostparse/testdata/p2pbw/pcie_four_gpus_partial_access.txt":  KindP2P,
	"../hostparse/testdata/p2pbw/acs_p2p_slower_than_staged.txt":     KindP2P,
	"../hostparse/testdata/p2pbw/v100_cut_in_matrix.txt":             KindP2P,
	"../hostparse/testdata/p2pbw/h200_single_gpu_real.txt":           KindP2P,
	"../hostparse/testdata/p2pbw/real_a100_sxm4_8gpu_nvswitch.txt":   KindP2P,
	"../hostparse/testdata/p2pbw/real_rtx5090_pair_no_peer.txt":      KindP2P,
	"../collective/testdata/h200/nccl-tests/output":                  KindNCCLTests,
	"../collective/testdata/h200/all_reduce_perf-direct.txt":         KindNCCLTests,
	"../collective/testdata/h200/torch/nccl-vm-894.log":              KindNCCL,
}

// TestDetectByContent: every fixture is told by what it holds; a file whose
// name says "nccl" but which holds a library listing is not an NCCL log.
func TestDetectByContent(t *testing.T) {
	for path, want := range fixtureKinds {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := Detect(b); got != want {
			t.Errorf("%s: detected %s, want %s", path, got, want)
		}
	}
}

// corpusKind is the kind each corpus file must be detected as, from the
// tool its curators named in its INDEX entry (by file-name prefix).
func corpusKind(name string) Kind {
	for prefix, k := range map[string]Kind{
		"h01": KindDevInfo, "h02": KindDevInfo, "h03": KindDevInfo, "h04": KindDevInfo, "h05": KindDevInfo, "h06": KindDevInfo,
		"h07": KindIBStat, "h08": KindIBStat, "h09": KindIBStat, "h10": KindIBStat, "h11": KindIBStat, "h12": KindIBStat, "h13": KindIBStat,
		"h14": KindIBDev2Netdev, "h15": KindShowGIDs, "h16": KindShowGIDs, "h17": KindShowGIDs, "h18": KindShowGIDs, "h19": KindShowGIDs, "h20": KindShowGIDs,
		"h21": KindTopo, "h22": KindTopo, "h23": KindTopo, "h24": KindTopo, "h25": KindTopo, "h26": KindTopo, "h27": KindTopo, "h28": KindTopo,
		"h30": KindLSPCI, "h31": KindLSPCI, "h32": KindLSPCI, "h33": KindLSPCI, "h34": KindLSPCI,
		"h35": KindNVLink, "h36": KindNVLink, "h37": KindNVLink, "h38": KindIBLinkInfo,
		"n": KindNCCL, "t": KindNCCLTests, "z": KindHealth, "p17": KindPerftestJSON, "p": KindPerftest,
	} {
		if strings.HasPrefix(name, prefix) && (len(prefix) > 1 || !strings.HasPrefix(name, "p17")) {
			return k
		}
	}
	return KindUnknown
}

// corpusFailures are the corpus files whose captures show a real failure
// (a port down, a downgraded link, a socket fallback, an error the tool
// printed, an NHC error): exactly these may hold failing findings. n03's
// socket transport over lo is a warning: its log shows one host and no
// channel through the network, so nothing says the job spans nodes. h14's
// plain ibdev2netdev shows two Ethernet (RoCE) netdevs Down: a RoCE port
// cannot be active without its netdev.
var corpusFailures = []string{
	"h01", "h06b", "h07", "h09", "h14", "h17", "h30a", "h31", "h32", "h33",
	"n02", "n04", "n13", "t05",
	"p07", "p08", "p09", "p10", "p18",
	"z01", "z04", "z05",
}

// TestCorpusNoRefusalsNoInventedFailures runs Analyze over every real
// sample held: the shared corpus and this repository's real captures. Every
// file must be recognised as its tool, parse without error, and fail only
// where the capture shows a real failure. It reports the counts.
func TestCorpusNoRefusalsNoInventedFailures(t *testing.T) {
	var files []testutil.File
	for _, sub := range []string{"host", "nccl", "nccl-tests", "perftest", "health"} {
		files = append(files, testutil.CorpusFiles(t, "validation/"+sub, "*.txt")...)
	}
	counts := map[checks.Status]int{}
	refused, invented := 0, 0
	for _, f := range files {
		res := Analyze(f.Name, f.Body)
		if want := corpusKind(f.Name); res.Kind != want {
			t.Errorf("%s: detected %s, want %s", f.Name, res.Kind, want)
			refused++
		}
		for _, x := range res.Findings {
			if x.Status == checks.StatusError {
				t.Errorf("%s: %s: %s", f.Name, x.ID, x.Summary)
				refused++
			}
		}
		w := res.Worst()
		counts[w]++
		mayFail := slices.ContainsFunc(corpusFailures, func(p string) bool { return strings.HasPrefix(f.Name, p+"_") })
		if (w == checks.StatusFail) != mayFail {
			t.Errorf("%s: worst %s, expected a failure: %v; findings %+v", f.Name, w, mayFail, res.Findings)
			if !mayFail {
				invented++
			}
		}
	}
	t.Logf("corpus: %d files: %d pass, %d warn, %d skip, %d fail, %d error; %d refused, %d invented failures",
		len(files), counts[checks.StatusPass], counts[checks.StatusWarn], counts[checks.StatusSkip], counts[checks.StatusFail], counts[checks.StatusError], refused, invented)
}

// TestReadFilesOneUnreadable: an unreadable file is one error entry; the
// files beside it are analysed.
func TestReadFilesOneUnreadable(t *testing.T) {
	rep, err := ReadFiles(context.Background(), strings.NewReader("No IB devices found\n"),
		[]string{"testdata/does-not-exist.txt", "-", "../hostparse/testdata/ibstat/roce_and_ib.txt"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 3 || rep.Files[0].Worst() != checks.StatusError || rep.Files[1].Kind != KindDevInfo ||
		rep.Files[1].Findings[0].ID != "ibv_devinfo/no-device" || rep.Files[1].Findings[0].Class != checks.NoDevice || rep.Files[2].Kind != KindIBStat {
		t.Errorf("%+v", rep.Files)
	}
}

// TestGolden pins the whole analysis of the fixtures: kind, findings, facts.
func TestGolden(t *testing.T) {
	for path := range fixtureKinds {
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f := Analyze(filepath.Base(path), b)
			f.Facts = nil // the parsers' own goldens pin those
			testutil.Golden(t, "golden/"+name+".golden", testutil.JSON(t, f))
		})
	}
}

// TestTruncatedTopologyIsUnknown: cells the capture cut off give "skip", never
// a failure or a guessed NIC.
func TestTruncatedTopologyIsUnknown(t *testing.T) {
	b, _ := os.ReadFile("../hostparse/testdata/topo/truncated_rows.txt")
	f := Analyze("truncated_rows.txt", b)
	got := map[string]checks.Status{}
	for _, x := range f.Findings {
		got[x.Subject] = x.Status
	}
	if got["GPU0"] != checks.StatusPass || got["GPU2"] != checks.StatusSkip || got["GPU3"] != checks.StatusSkip || f.Worst() == checks.StatusFail {
		t.Errorf("%+v", f.Findings)
	}
}

// TestACSOnTheGPUNICPath reads a real lspci -vvv of an 8-GPU H100 server
// (an extract of leptonai/gpud's testdata): ACS is off on the switch ports
// between GPU 19:00.0 and ConnectX-7 1a:00.0 (pass), and on on a storage
// switch elsewhere (82:00.0), which must not count. Setting ReqRedir on the
// GPU's switch port fails the path.
func TestACSOnTheGPUNICPath(t *testing.T) {
	b, err := os.ReadFile("../hostparse/testdata/real/lspci_vvv_h100_hgx_gpud_extract.txt")
	if err != nil {
		t.Fatal(err)
	}
	f := Analyze("lspci", b)
	status := func(f File, id string) checks.Status {
		for _, x := range f.Findings {
			if x.ID == id {
				return x.Status
			}
		}
		return ""
	}
	if status(f, "lspci/acs") != checks.StatusPass || status(f, "lspci/max-read-request") != checks.StatusPass {
		t.Errorf("%+v", f.Findings)
	}
	// Turn ACS redirection on at 17:01.0, the GPU's downstream port.
	i := bytes.Index(b, []byte("17:01.0 PCI bridge"))
	j := i + bytes.Index(b[i:], []byte("ACSCtl:"))
	k := j + bytes.IndexByte(b[j:], '\n')
	mod := slices.Concat(b[:j], []byte("ACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"), b[k:])
	g := Analyze("lspci", mod)
	if status(g, "lspci/acs") != checks.StatusFail {
		t.Errorf("ReqRedir+ on the path: %+v", g.Findings)
	}
}

func FuzzAnalyze(f *testing.F) {
	for path := range fixtureKinds {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res := Analyze("fuzz", data)
		if len(res.Findings) == 0 {
			t.Fatal("no finding")
		}
		for _, x := range res.Findings {
			if !x.Status.Valid() || x.ID == "" {
				t.Fatalf("finding %+v", x)
			}
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("the file's analysis does not encode (a NaN or infinity?): %v", err)
		}
	})
}

// repoSamples are the real captures this repository keeps (the H200 server's
// and the gpud lspci extract), with their kind and whether they show a real
// failure.
var repoSamples = []struct {
	path string
	kind Kind
	fail bool
}{
	{"../testdata/h200/nvidia-smi.txt", KindSMI, false},
	{"../testdata/h200/nvidia-smi-q.txt", KindSMIQuery, false},
	{"../testdata/h200/topo-m.txt", KindTopo, false},
	{"../testdata/h200/topo-m-term-dumb.txt", KindTopo, false},
	{"../testdata/h200/topo-m-no-term.txt", KindTopo, false},
	{"../testdata/h200/topo-mp.txt", KindTopo, false},
	{"../testdata/h200/nccl-1rank.log", KindNCCL, false},
	// Two ranks NCCL took for two hosts really ran over NET/Socket, and the
	// watchdog run really timed a collective out.
	{"../testdata/h200/nccl-2host-socket-torchrun.log", KindNCCL, true},
	{"../testdata/h200/nccl-2host-watchdog-timeout.log", KindNCCL, true},
	{"../hostparse/testdata/real/lspci_vvv_h100_hgx_gpud_extract.txt", KindLSPCI, false},
	// Published p2pBandwidthLatencyTest outputs (hostparse/testdata/p2pbw/README.md):
	// a healthy NVSwitch A100 node, and two GeForce cards without peer access.
	{"../hostparse/testdata/p2pbw/real_a100_sxm4_8gpu_nvswitch.txt", KindP2P, false},
	{"../hostparse/testdata/p2pbw/real_rtx5090_pair_no_peer.txt", KindP2P, false},
}

// TestRealSamplesNoRefusalsNoInventedFailures is the corpus test over the
// repository's own real captures; it always runs.
func TestRealSamplesNoRefusalsNoInventedFailures(t *testing.T) {
	counts := map[checks.Status]int{}
	for _, s := range repoSamples {
		b, err := os.ReadFile(s.path)
		if err != nil {
			t.Fatal(err)
		}
		res := Analyze(filepath.Base(s.path), b)
		if res.Kind != s.kind {
			t.Errorf("%s: detected %s, want %s", s.path, res.Kind, s.kind)
		}
		w := res.Worst()
		counts[w]++
		if w == checks.StatusError || (w == checks.StatusFail) != s.fail {
			t.Errorf("%s: worst %s, failure expected: %v: %+v", s.path, w, s.fail, res.Findings)
		}
	}
	t.Logf("repository samples: %d files: %d pass, %d warn, %d skip, %d fail, %d error",
		len(repoSamples), counts[checks.StatusPass], counts[checks.StatusWarn], counts[checks.StatusSkip], counts[checks.StatusFail], counts[checks.StatusError])
}

// TestP2PVerdicts: p2pBandwidthLatencyTest captures are judged by what they
// show: NVLinked pairs pass, pairs without peer access warn, peer copies
// slower than staged ones warn (ACS), a cut capture skips what it lacks.
func TestP2PVerdicts(t *testing.T) {
	worst := func(path string) (File, map[string]checks.Status) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f := Analyze(filepath.Base(path), b)
		st := map[string]checks.Status{}
		for _, x := range f.Findings {
			st[x.ID+"/"+x.Subject] = x.Status
		}
		return f, st
	}
	dir := "../hostparse/testdata/p2pbw/"
	if f, st := worst(dir + "h200_pair_nvlink.txt"); f.Worst() != checks.StatusPass || st["p2p/bandwidth/bidirectional"] != checks.StatusPass {
		t.Errorf("%+v", f.Findings)
	}
	if f, st := worst(dir + "pcie_four_gpus_partial_access.txt"); st["p2p/access/"] != checks.StatusWarn || st["p2p/bandwidth/unidirectional"] != checks.StatusPass || f.Worst() == checks.StatusFail {
		t.Errorf("%+v", f.Findings)
	}
	if f, st := worst(dir + "acs_p2p_slower_than_staged.txt"); st["p2p/bandwidth/unidirectional"] != checks.StatusWarn || st["p2p/bandwidth/bidirectional"] != checks.StatusWarn {
		t.Errorf("%+v", f.Findings)
	}
	// Real published outputs: 8 A100s on NVSwitch (every pair 265-276 GB/s
	// one way against 10-21 GB/s staged) pass; two RTX 5090s without peer
	// access warn for access only, not also for "P2P slower than staged"
	// (their P2P=Enabled matrix is a staged copy too).
	if f, st := worst(dir + "real_a100_sxm4_8gpu_nvswitch.txt"); f.Worst() != checks.StatusPass || st["p2p/access/"] != checks.StatusPass ||
		st["p2p/bandwidth/unidirectional"] != checks.StatusPass || st["p2p/bandwidth/bidirectional"] != checks.StatusPass {
		t.Errorf("%+v", f.Findings)
	}
	if f, st := worst(dir + "real_rtx5090_pair_no_peer.txt"); f.Worst() != checks.StatusWarn || st["p2p/access/"] != checks.StatusWarn ||
		st["p2p/bandwidth/unidirectional"] == checks.StatusWarn || st["p2p/bandwidth/bidirectional"] == checks.StatusWarn {
		t.Errorf("%+v", f.Findings)
	}
	if f, st := worst(dir + "v100_cut_in_matrix.txt"); st["p2p/capture/"] != checks.StatusSkip || st["p2p/bandwidth/bidirectional"] != checks.StatusPass {
		t.Errorf("%+v", f.Findings)
	}
}
