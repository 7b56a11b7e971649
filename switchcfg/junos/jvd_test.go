package junos

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/google/go-cmp/cmp"
)

// TestParseJVDLossless reads Juniper's own RoCEv2 lossless snippet for the
// QFX5240 AI leaves (testdata/jvd, Apache-2.0) as a careful engineer reads
// it (issue 14: its opening multi-line comment swallowed the stanza, and
// CNP read as priority 3, colliding with the lossless class): DSCP trust on
// et-*, NO-LOSS (DSCP 26) lossless with pfc-priority 3 on queue 4 and ECN
// from 55 % to 90 % of the QFX5240's queue buffer, CNP (DSCP 48) strict
// with 5 % on queue 3 and priority 6, the watchdog on with Junos's defaults.
func TestParseJVDLossless(t *testing.T) {
	text, err := os.ReadFile("testdata/jvd/rdma-rocev2-lossless.conf")
	if err != nil {
		t.Fatal(err)
	}
	want := fabric.SwitchIntent{Model: "qfx5240-64od", Ports: []string{"et-0/0/0", "et-0/0/1"}}
	rb := switchcfg.Readback{
		"show configuration":            text,
		"show configuration interfaces": []byte("interfaces { et-0/0/0 { mtu 9216; } et-0/0/1 { mtu 9216; } }\n"),
	}
	got, err := New().ParseIntent(rb, want)
	if err != nil {
		t.Fatal(err)
	}
	wantClasses := []fabric.SwitchClass{
		{Name: "NO-LOSS", Priority: 3, TrafficClass: 3, Queue: 4, DSCP: []int{26}, Lossless: true,
			ECN: &fabric.SwitchECN{MinBytes: 55 * 165 * mb / 100, MaxBytes: 90 * 165 * mb / 100, MaxMarkProbability: 100}},
		{Name: "CNP", Priority: 6, TrafficClass: 6, Queue: 3, DSCP: []int{48}, Strict: true, BandwidthPercent: 5},
	}
	if diff := cmp.Diff(wantClasses, got.Classes); diff != "" {
		t.Errorf("classes (-want +got):\n%s", diff)
	}
	if got.Trust != "dscp" || !slices.Equal(got.PFC.Priorities, []int{3}) || got.MTU != 9216 ||
		got.PFC.Watchdog == nil || !got.PFC.Watchdog.Enabled {
		t.Errorf("trust %q PFC %+v MTU %d", got.Trust, got.PFC, got.MTU)
	}
	// Rendered for the same switch, the thresholds come back as 55/90.
	got.Model, got.Ports = want.Model, want.Ports
	cfg, err := New().Render(got)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cfg.Text, "interpolate fill-level [ 55 90 ]\n") ||
		!strings.Contains(cfg.Text, "shared-buffer ingress buffer-partition lossless-headroom percent 24\n") {
		t.Errorf("rendering:\n%s", cfg.Text)
	}
}

// TestParseJVDDropProfiles: the compute leaves' drop profiles (QFX5120)
// mark from 1 % to 2 % of the queue buffer; a comment-only start does not
// hide them.
func TestParseJVDDropProfiles(t *testing.T) {
	text, err := os.ReadFile("testdata/jvd/rocev2-dcqcn-drop-profiles.conf")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = eachStatement(string(text), []string{"class-of-service"}, func(st statement) error {
		got = append(got, strings.Join(st.words, " "))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, "class-of-service drop-profiles dp1 interpolate fill-level [ 1 2 ]") || len(got) != 4 {
		t.Errorf("statements %q", got)
	}
	c := &cosConfig{fill: map[string][]int64{"dp1": {1 * nanoPerPercent, 2 * nanoPerPercent}}, prob: map[string][]int{"dp1": {0, 100}}}
	if e := c.ecn("dp1", queueBuffer(fabric.SwitchIntent{Model: "qfx5120-48ym"})); e == nil || e.MinBytes != 320_000 || e.MaxBytes != 640_000 {
		t.Errorf("dp1 on a QFX5120: %+v", e)
	}
}

// TestParseInterfaceLevelClassifier: Junos EVO binds classifiers to the
// interface itself (no unit); that classifies the port too.
func TestParseInterfaceLevelClassifier(t *testing.T) {
	cos := `set class-of-service classifiers dscp C forwarding-class F loss-priority low code-points 011010
set class-of-service forwarding-classes class F queue-num 3
set class-of-service interfaces et-0/0/5 classifiers dscp C
`
	got, err := New().Parse(switchcfg.Readback{ReadbackClassOfService: []byte(cos)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Trust != "dscp" || !slices.Equal(got.Ports, []string{"et-0/0/5"}) || len(got.Classes) != 1 || got.Classes[0].DSCP[0] != 26 {
		t.Errorf("intent %+v", got)
	}
}
