package fabric

import (
	"errors"
	"strings"
	"testing"
)

// TestPairwiseFlowLabel: spec.checks.pairwise.flowLabel is off or auto,
// and anything else is a located error naming both.
func TestPairwiseFlowLabel(t *testing.T) {
	for _, v := range []string{"auto", "off"} {
		f, err := Load("f.yaml", Options{ReadFile: memFS(map[string]string{"p.yaml": goodProfile, "f.yaml": withChecks("    pairwise: {flowLabel: " + v + "}\n")})})
		if err != nil {
			t.Fatalf("flowLabel %s: %v", v, err)
		}
		if got := f.Spec.Checks.Pairwise.FlowLabel; got != v {
			t.Errorf("flowLabel = %q, want %q", got, v)
		}
	}
	for _, v := range []string{"on", "0x1a2b", "pinned"} {
		_, err := Load("f.yaml", Options{ReadFile: memFS(map[string]string{"p.yaml": goodProfile, "f.yaml": withChecks("    pairwise: {flowLabel: " + v + "}\n")})})
		var errs Errors
		if !errors.As(err, &errs) || !strings.Contains(err.Error(), "spec.checks.pairwise.flowLabel") || !strings.Contains(err.Error(), "off, auto") {
			t.Errorf("flowLabel %s: got %v, want an error naming spec.checks.pairwise.flowLabel and off, auto", v, err)
		}
	}
}
