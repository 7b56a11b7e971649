package analyze

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// TestLauncherPrefixedCaptures: a host tool run on many machines at once
// (pdsh, srun -l, kubectl --prefix) prints interleaved, prefixed lines;
// they are taken apart by machine, each judged, and the machine named.
func TestLauncherPrefixedCaptures(t *testing.T) {
	ibstat := func(host, state string) string {
		var b strings.Builder
		for _, l := range []string{"CA 'mlx5_0'", "\tCA type: MT4129", "\tNumber of ports: 1", "\tPort 1:", "\t\tState: " + state, "\t\tPhysical state: LinkUp", "\t\tRate: 400", "\t\tLink layer: InfiniBand"} {
			b.WriteString(host + ": " + l + "\n")
		}
		return b.String()
	}
	f := Analyze("pdsh.txt", []byte(ibstat("gpu-a", "Active")+ibstat("gpu-b", "Down")))
	if f.Kind != KindIBStat || f.Worst() != checks.StatusFail {
		t.Fatalf("kind %s worst %s: %+v", f.Kind, f.Worst(), f.Findings)
	}
	got := map[string]checks.Status{}
	for _, x := range f.Findings {
		if x.ID == "ibstat/port-state" {
			got[x.Subject] = x.Status
		}
	}
	if got["gpu-a/mlx5_0/1"] != checks.StatusPass || got["gpu-b/mlx5_0/1"] != checks.StatusFail {
		t.Errorf("per machine: %v", got)
	}

	// One machine, srun -l's task prefix: read as if unprefixed.
	one := "0: hca_id:\tmlx5_0\n0: \ttransport:\t\t\tInfiniBand (0)\n0: \t\tport:\t1\n0: \t\t\tstate:\t\t\tPORT_ACTIVE (4)\n0: \t\t\tmax_mtu:\t\t4096 (5)\n0: \t\t\tactive_mtu:\t\t4096 (5)\n0: \t\t\tlink_layer:\t\tInfiniBand\n"
	if f := Analyze("srun.txt", []byte(one)); f.Kind != KindDevInfo || f.Worst() == checks.StatusFail || f.Worst() == checks.StatusError {
		t.Errorf("srun: kind %s worst %s: %+v", f.Kind, f.Worst(), f.Findings)
	}

	// Output a kind is told in is never taken apart, whatever its colons say.
	nhc := Analyze("nhc.log", []byte("ERROR:  nhc:  Health check failed:  check_x\nERROR:  nhc:  Health check failed:  check_y\n"))
	if nhc.Kind != KindHealth || nhc.Worst() != checks.StatusFail || len(nhc.Findings) != 2 || nhc.Findings[0].Subject != "" {
		t.Errorf("NHC: %+v", nhc)
	}
}
