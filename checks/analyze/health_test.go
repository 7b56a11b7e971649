package analyze

import (
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// TestNHCByItsOwnTexts: NHC's console, log, syslog and debug output are
// told and judged by NHC's own texts, whatever the spacing; a failure is
// reported once per host and reason; a run without one passes only where
// the capture shows it ended well.
func TestNHCByItsOwnTexts(t *testing.T) {
	for name, c := range map[string]struct {
		text string
		want checks.Status
		n    int
	}{
		"console, two spaces":  {"ERROR:  nhc:  Health check failed:  check_hw_ib:  No IB port mlx5_0:1 is ACTIVE\n", checks.StatusFail, 1},
		"log, repeated":        {"Node Health Check failed.  Check check_xid_errors returned 1\nERROR:  nhc:  Health check failed:  Check check_xid_errors returned 1\nNode Health Check failed.  Check check_xid_errors returned 1\n", checks.StatusFail, 1},
		"syslog":               {"2025-06-11T19:12:23.050922+00:00 node7 nhc[1013622]: Health check failed:  Script timed out.\n", checks.StatusFail, 1},
		"mark offline":         {"20160704 14:18:00 /usr/libexec/nhc/node-mark-offline node7. check_fs_mount:  /scratch not mounted\n", checks.StatusFail, 1},
		"distributed":          {"n1 | Healthy\nn2 | ERROR: nhc: Health check failed: check_gpu_xid: GPU Xid errors detected\n", checks.StatusFail, 2},
		"debug run, exit 0":    {"[root@n1 ~]# nhc -ad\nDEBUG:  Debugging activated via -d option.\n[root@n1 ~]# echo $?\n0\n", checks.StatusPass, 1},
		"debug run, no ending": {"[root@n1 ~]# nhc -ad\nDEBUG:  Debugging activated via -d option.\n", checks.StatusSkip, 1},
		"aznhc success lines":  {"SUCCESS:  nhc:  Health check passed:  check_gpu_ecc: ECC checks passed\nSUCCESS:  nhc:  Health check passed:  \n", checks.StatusPass, 1},
	} {
		if k := Detect([]byte(c.text)); k != KindHealth {
			t.Errorf("%s: detected %s", name, k)
			continue
		}
		f := Analyze(name, []byte(c.text))
		if f.Worst() != c.want || len(f.Findings) != c.n {
			t.Errorf("%s: worst %s with %d findings, want %s with %d: %+v", name, f.Worst(), len(f.Findings), c.want, c.n, f.Findings)
		}
	}
}
