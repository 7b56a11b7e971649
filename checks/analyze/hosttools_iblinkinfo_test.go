package analyze

import (
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// TestIBLinkInfoLinks: a switch port without a peer is not cabled (pass); a
// CA port without one is a host port down (fail); a link to a peer must be
// Active/LinkUp and at what iblinkinfo says it "could be".
func TestIBLinkInfoLinks(t *testing.T) {
	f, st := hostFixture(t, "iblinkinfo/switch_unconnected_and_degraded.txt")
	want := map[string]checks.Status{
		"spine-01/1":     checks.StatusPass,
		"spine-01/2":     checks.StatusFail,
		"spine-01/3":     checks.StatusFail,
		"spine-01/4":     checks.StatusPass,
		"spine-01/5":     checks.StatusFail,
		"gpu-15 HCA-1/1": checks.StatusFail,
	}
	for subject, s := range want {
		if got := st["iblinkinfo/link-state "+subject]; got != s {
			t.Errorf("%s: %s, want %s", subject, got, s)
		}
	}
	if !hostMentions(f, checks.StatusFail, "could be 4X") || !hostMentions(f, checks.StatusFail, "could be 53.125 Gbps") {
		t.Errorf("%+v", f.Findings)
	}
}
