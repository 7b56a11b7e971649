package view

import (
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
)

// TestWritePrometheusGauges: one up gauge and one count per target, one
// gauge per actionable drifted setting (sorted, label values escaped),
// unsupported changes not counted, and the run's timestamp.
func TestWritePrometheusGauges(t *testing.T) {
	p := &fabric.Plan{Targets: []fabric.TargetPlan{
		{Target: "sw\"1", Tier: fabric.TierSwitch, Changes: []fabric.Change{
			{Component: "classes[roce]", Setting: "ecn.minBytes"}, {Setting: "mtu"},
			{Setting: "trust", Unsupported: true}}},
		{Target: "h1", Tier: fabric.TierHost, Error: "unreachable"},
	}}
	var b strings.Builder
	WritePrometheus(&b, p, time.Unix(1700000000, 0))
	for _, want := range []string{
		`fabricctl_target_up{target="sw\"1",tier="switch"} 1`,
		`fabricctl_target_up{target="h1",tier="host"} 0`,
		`fabricctl_drift_settings{target="sw\"1",tier="switch"} 2`,
		"fabricctl_drift{target=\"sw\\\"1\",component=\"\",setting=\"mtu\"} 1\nfabricctl_drift{target=\"sw\\\"1\",component=\"classes[roce]\",setting=\"ecn.minBytes\"} 1\n",
		"fabricctl_drift_last_run_timestamp_seconds 1700000000\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), `setting="trust"`) {
		t.Errorf("an unsupported change is not drift:\n%s", b.String())
	}
}
