package analyze

import (
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// TestIBDev2NetdevPlainStates: without -v ibdev2netdev shows the netdev's
// state only. A RoCE (any non-IPoIB) netdev Down fails — the port cannot be
// up without it; an IPoIB netdev Down warns — it says nothing certain about
// the InfiniBand port.
func TestIBDev2NetdevPlainStates(t *testing.T) {
	f, st := hostFixture(t, "ibdev2netdev/plain_ipoib_and_pod_netdev_down.txt")
	want := map[string]checks.Status{
		"ibdev2netdev/netdev-state mlx5_0/1": checks.StatusWarn,
		"ibdev2netdev/netdev-state mlx5_1/1": checks.StatusWarn,
		"ibdev2netdev/netdev-state mlx5_2/1": checks.StatusFail,
		"ibdev2netdev/mapping mlx5_3/1":      checks.StatusPass,
	}
	for k, s := range want {
		if st[k] != s {
			t.Errorf("%s: %s, want %s", k, st[k], s)
		}
	}
	if !hostMentions(f, checks.StatusFail, "net1") || len(f.Findings) != len(want) {
		t.Errorf("%+v", f.Findings)
	}
}
