package agentclient

import "testing"

// TestSelfSHA256MatchesTheDeployer: the hash an agent reports for itself is the one the
// controller's Deployer computes for the same binary, so an agent of the same build is reused.
func TestSelfSHA256MatchesTheDeployer(t *testing.T) {
	want, err := Self().Hash()
	if err != nil {
		t.Fatal(err)
	}
	if got := SelfSHA256(); got != want || len(got) != 64 {
		t.Errorf("SelfSHA256() = %q, Deployer hash %q", got, want)
	}
	if SelfRevision() == "" {
		t.Error("empty revision")
	}
}
