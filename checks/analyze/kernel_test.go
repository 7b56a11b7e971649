package analyze

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

func kernelFixture(name string) string {
	return filepath.Join("..", "hostparse", "testdata", "kernel", name)
}

// TestKernelLogXidsByCatalog: Xids are judged by NVIDIA's immediate action,
// per GPU bus id: fallen off the bus and Xid 154's reboot fail, an
// application's Xid 13 warns, Xid 43 (IGNORE) is no finding, 63 warns
// pending a reset.
func TestKernelLogXidsByCatalog(t *testing.T) {
	checkXidFindings(t, kernelFixture("dmesg_h100_fell_off_and_app_faults.txt"), KindKernelLog, checks.StatusFail, []findingWant{
		{"kernel-log/xid", "0000:3b:00", checks.StatusWarn, []string{"Xid 13 (", "NVIDIA's action RESTART_APP"}},
		{"kernel-log/xid", "0000:5e:00", checks.StatusFail, []string{"Xid 79 (GPU fallen off the bus", "NVIDIA's action RESTART_BM"}},
		{"kernel-log/xid", "0000:5e:00", checks.StatusFail, []string{"Xid 154 (", "NVIDIA's action Node Reboot Required"}},
		{"kernel-log/xid", "0000:86:00", checks.StatusWarn, []string{"Xid 63 (", "pending a GPU reset"}},
	})
	f := analyzeFixture(t, "dmesg_h100_fell_off_and_app_faults.txt")
	for _, x := range f.Findings {
		if strings.Contains(x.Summary, "Xid 43") || strings.Contains(x.Summary, "no Xid line") {
			t.Errorf("ignored or duplicate event reported: %+v", x)
		}
		if x.Subject == "0000:3b:00" && (len(x.Evidence) != 2 || !strings.Contains(x.Evidence[0], "NVRM: Xid (PCI:0000:3b:00): 13") || x.Evidence[1] != "seen 3 times, lines 6-16") {
			t.Errorf("evidence %q", x.Evidence)
		}
	}
}

// TestKernelLogOldDriverEras: the oldest Xid form and the fallen-off-the-bus
// lines that come without an Xid; an Xid the catalog lists as unused on
// current GPUs warns, naming the older GPU or driver.
func TestKernelLogOldDriverEras(t *testing.T) {
	checkXidFindings(t, kernelFixture("dmesg_T_old_drivers_no_xid_fell_off.txt"), KindKernelLog, checks.StatusFail, []findingWant{
		{"kernel-log/xid", "0000:01:00", checks.StatusWarn, []string{"Xid 3 (push buffer", "CONTACT_SUPPORT", "older GPU or driver"}},
		{"kernel-log/xid", "0000:01:00", checks.StatusWarn, []string{"Xid 31 (", "RESTART_APP"}},
		{"kernel-log/xid", "0000:02:00", checks.StatusFail, []string{"fallen off the bus", "RESTART_BM"}},
		{"kernel-log/xid", "0000:03:00", checks.StatusFail, []string{"fallen off the bus", "RESTART_BM"}},
	})
}

// TestKernelLogRecoveryAndNVLink5: Xid 154 counts by its last recovery
// action (reset then cleared: recovered; drain: fails), NVLink5 Xids by the
// driver's Fatal/Nonfatal word, a MIG-attributed line by its GPU.
func TestKernelLogRecoveryAndNVLink5(t *testing.T) {
	checkXidFindings(t, kernelFixture("journalctl_k_mig_nvlink5_recovered.txt"), KindKernelLog, checks.StatusFail, []findingWant{
		{"kernel-log/xid", "0008:01:00", checks.StatusWarn, []string{"Xid 94 (", "RESTART_APP"}},
		{"kernel-log/xid", "0009:01:00", checks.StatusFail, []string{"Xid 149 (", "RESET_GPU", "NETIR_LINK_EVT Fatal"}},
		{"kernel-log/xid", "0018:01:00", checks.StatusFail, []string{"Xid 154 (", "Drain P2P"}},
	})
	for _, x := range analyzeFixture(t, "journalctl_k_mig_nvlink5_recovered.txt").Findings {
		if x.Subject == "0009:01:00" && (strings.Contains(x.Summary, "Xid 154") || strings.Contains(x.Summary, "Xid 145")) {
			t.Errorf("superseded recovery action or non-fatal NVLink5 reported: %+v", x)
		}
	}
}

// TestKernelLogUnknownIgnoredLegacy: an Xid the catalog does not know warns
// as unclassified, quoting its line; IGNORE (92) is no finding; 45 warns
// alone and follows the 48 beside it; a row without an immediate action
// warns; an unreadable Xid number warns.
func TestKernelLogUnknownIgnoredLegacy(t *testing.T) {
	checkXidFindings(t, kernelFixture("messages_iso_ignored_unknown_and_legacy.txt"), KindKernelLog, checks.StatusFail, []findingWant{
		{"kernel-log/xid", "0000:31:00", checks.StatusWarn, []string{"Xid 45 (", "no other Xid"}},
		{"kernel-log/xid", "0000:b1:00", checks.StatusFail, []string{"Xid 48 (", "WORKFLOW_XID_48"}},
		{"kernel-log/xid", "0000:ca:00", checks.StatusWarn, []string{"unclassified Xid 201"}},
		{"kernel-log/xid", "0000:ca:00", checks.StatusWarn, []string{"Xid 9 (", "older GPU or driver"}},
		{"kernel-log/xid", "0000:ca:00", checks.StatusWarn, []string{"Xid 162 (", "no immediate action"}},
		{"kernel-log/xid", "", checks.StatusWarn, []string{"1 Xid line", "not read"}},
	})
	for _, x := range analyzeFixture(t, "messages_iso_ignored_unknown_and_legacy.txt").Findings {
		if x.Subject == "0000:17:00" || (x.Subject == "0000:b1:00" && strings.Contains(x.Summary, "Xid 45")) {
			t.Errorf("information reported as a finding: %+v", x)
		}
		if strings.Contains(x.Summary, "unclassified") && !strings.Contains(x.Evidence[0], "201, pid=1, name=init") {
			t.Errorf("unclassified Xid without its line: %q", x.Evidence)
		}
	}
}

// TestKernelLogClean: a log where the driver loaded and reported no Xid
// passes, naming the driver.
func TestKernelLogClean(t *testing.T) {
	checkXidFindings(t, kernelFixture("dmesg_driver_loaded_no_xid.txt"), KindKernelLog, checks.StatusPass, []findingWant{
		{"kernel-log/xid", "", checks.StatusPass, []string{"no Xid", "580.159.04"}},
	})
}

// TestKernelLogDetect: every kernel-log fixture is told by content; an NHC
// line quoting a kernel Xid stays an NHC log.
func TestKernelLogDetect(t *testing.T) {
	paths, _ := filepath.Glob(kernelFixture("*.txt"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if k := Detect(b); k != KindKernelLog {
			t.Errorf("%s: %s", p, k)
		}
	}
	nhc := "node-7 | ERROR: nhc: Health check failed: check_gpu_xid: GPU Xid errors detected: [ 12.5] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n" +
		"node-8 | Healthy\n"
	if k := Detect([]byte(nhc)); k != KindHealth {
		t.Errorf("NHC line quoting an Xid: %s", k)
	}
}

// checkXidFindings is checkFindings for files with several findings per
// subject: each want must match one finding holding all its words.
func checkXidFindings(t *testing.T, path string, kind Kind, worst checks.Status, finds []findingWant) {
	t.Helper()
	f := analyzeFixture(t, filepath.Base(path))
	if f.Kind != kind || f.Worst() != worst {
		t.Errorf("kind %s worst %s, want %s %s: %+v", f.Kind, f.Worst(), kind, worst, f.Findings)
	}
	for _, w := range finds {
		if !slices.ContainsFunc(f.Findings, func(x Finding) bool {
			return x.ID == w.id && x.Subject == w.subject && x.Status == w.status &&
				!slices.ContainsFunc(w.words, func(word string) bool { return !strings.Contains(x.Summary, word) })
		}) {
			t.Errorf("no %s finding %s for %q with %q: %+v", w.status, w.id, w.subject, w.words, f.Findings)
		}
	}
}

func analyzeFixture(t *testing.T, name string) File {
	t.Helper()
	b, err := os.ReadFile(kernelFixture(name))
	if err != nil {
		t.Fatal(err)
	}
	return Analyze(name, b)
}
