package captured

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/analyze"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// fixture copies in-repo parser fixtures into a capture tree of two hosts.
func fixture(t *testing.T) fstest.MapFS {
	t.Helper()
	read := func(p string) *fstest.MapFile {
		b, err := os.ReadFile(filepath.Join("..", p))
		if err != nil {
			t.Fatal(err)
		}
		return &fstest.MapFile{Data: b}
	}
	return fstest.MapFS{
		"gpu-01/ibv_devinfo.txt":      read("hostparse/testdata/devinfo/roce_active_and_ib_down.txt"),
		"gpu-01/ibstat.txt":           read("hostparse/testdata/ibstat/roce_and_ib.txt"),
		"gpu-01/show_gids.txt":        read("hostparse/testdata/showgids/roce_v2_ipv4_and_shared_ip.txt"),
		"gpu-01/lspci-vvv.txt":        read("hostparse/testdata/lspci/nic_ok_and_gpu_downgraded.txt"),
		"gpu-01/nvidia-smi-topo.txt":  read("hostparse/testdata/topo/four_gpus_two_nics_legend.txt"),
		"gpu-02/ib_write_bw.txt":      read("perftest/testdata/text/write_bw_client_roce_2qp_gbits.txt"),
		"gpu-02/ib_read_bw-rtr.txt":   read("perftest/testdata/text/err_qp_rtr_zero_gid_client.txt"),
		"gpu-02/perftest_mlx5_3.json": read("perftest/testdata/json/write_bw.json"),
		"gpu-02/notes.md":             &fstest.MapFile{Data: []byte("not a capture")},
	}
}

// TestEvaluateYardstick: a fabric's floor turns the figures into verdicts,
// each way.
func TestEvaluateYardstick(t *testing.T) {
	for _, c := range []struct {
		floor float64
		want  checks.Status
	}{{90, checks.StatusPass}, {98.5, checks.StatusFail}} {
		res, err := Evaluate(fixture(t), Options{Analyze: analyze.Options{Expect: analyze.Expect{BW: c.floor}}})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]checks.Status{}
		for _, r := range res {
			if r.ID == "captured/perftest/result" {
				got[r.Target] = r.Status
			}
		}
		// 97.61 and 98.21 Gb/s measured.
		want := checks.StatusPass
		if c.floor > 98.21 {
			want = checks.StatusFail
		}
		if got["gpu-02/ib_write_bw.txt"] != c.want || got["gpu-02/perftest_mlx5_3.json"] != want {
			t.Errorf("floor %g: %v", c.floor, got)
		}
	}
}

func TestEvaluateGolden(t *testing.T) {
	res, err := Evaluate(fixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	testutil.Golden(t, "fixture.golden", append(b, '\n'))
	// What users rely on, checked by hand against the fixtures:
	want := map[string]checks.Status{}
	for _, r := range res {
		if r.Status != checks.StatusPass {
			want[r.ID+" "+r.Target] = r.Status
		}
	}
	mustHave := func(idPrefix, target string, st checks.Status) {
		t.Helper()
		for _, r := range res {
			if strings.HasPrefix(r.ID, idPrefix) && strings.HasPrefix(r.Target, target) && r.Status == st {
				return
			}
		}
		t.Errorf("no %s result for %s with status %s", idPrefix, target, st)
	}
	mustHave("captured/ibv_devinfo", "gpu-01/", checks.StatusFail) // the IB port is down
	mustHave("captured/ibv_devinfo", "gpu-01/", checks.StatusPass) // the RoCE port is active
	mustHave("captured/lspci", "gpu-01/", checks.StatusFail)       // the downgraded GPU link
	// Without a yardstick a bandwidth is reported, not passed.
	mustHave("captured/perftest", "gpu-02/ib_write_bw.txt", checks.StatusSkip)
	mustHave("captured/perftest", "gpu-02/ib_read_bw-rtr.txt", checks.StatusFail)
	// An --out_json file is accepted, its unit known: 98.21 Gb/s, not MB/s.
	mustHave("captured/perftest/result", "gpu-02/perftest_mlx5_3.json", checks.StatusSkip)
	for _, r := range res {
		if r.Target == "gpu-02/perftest_mlx5_3.json" {
			if m, ok := r.Measurement("bw_average"); !ok || m.Value < 98.2 || m.Value > 98.3 || m.Unit != checks.UnitGbps {
				t.Errorf("--out_json bandwidth %+v", r)
			}
		}
	}
	for _, r := range res {
		if r.Target == "gpu-02/notes.md" {
			t.Errorf("an unrecognised file was evaluated")
		}
		if r.ID == "captured/perftest" && r.Target == "gpu-02/ib_read_bw-rtr.txt" && r.Class != checks.QPBringUp {
			t.Errorf("the zero-GID RTR failure is classed %s, want %s", r.Class, checks.QPBringUp)
		}
	}
}

func TestEmptyDirIsAnError(t *testing.T) {
	if _, err := Evaluate(fstest.MapFS{"x.md": {}}, Options{}); err == nil || !strings.Contains(err.Error(), "no capture found") {
		t.Fatalf("want a clear error, got %v", err)
	}
}

// TestCorpus feeds the real captures of ../shared/corpus/validation (one
// directory per tool, so each directory plays a host): nothing may panic and
// every file must give results, with the known-bad captures failing.
func TestCorpus(t *testing.T) {
	root := testutil.CorpusDir(t, "validation")
	res, err := Evaluate(os.DirFS(root), Options{})
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]bool{}
	for _, r := range res {
		if r.Status == checks.StatusFail {
			failed[r.Target] = true
		}
	}
	for _, sub := range []string{"perftest/p07_err_couldnt_connect_unable_init_socket.txt", "perftest/p10_err_modify_qp_rtr_grh_required.txt"} {
		if !failed[sub] {
			t.Errorf("%s should fail", sub)
		}
	}
	if len(res) < 50 {
		t.Errorf("only %d results from the corpus", len(res))
	}
}
