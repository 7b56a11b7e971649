package switchcfg_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestNativeDiffGolden: what plan --native shows for a switch whose ECN
// threshold, ETS weights and watchdog detection time drifted, and for one
// without QoS (nothing of the reading renders: every line is added), on
// two platforms. go test ./switchcfg/ -update rewrites the files.
func TestNativeDiffGolden(t *testing.T) {
	r := all.Registry()
	for _, platform := range []string{"cumulus-nvue", "arista-eos", "junos"} {
		d, err := r.Driver(platform)
		if err != nil {
			t.Fatal(err)
		}
		want := drivertest.LabIntent(d.Info())
		drifted := want
		drifted.Classes = append([]fabric.SwitchClass(nil), want.Classes...)
		drifted.Classes[0].BandwidthPercent, drifted.Classes[1].BandwidthPercent = 40, 60
		ecn := *drifted.Classes[1].ECN
		ecn.MinBytes = 300000
		drifted.Classes[1].ECN = &ecn
		wd := *want.PFC.Watchdog
		wd.DetectionTimeMs = 400
		drifted.PFC.Watchdog = &wd
		drifted.Name, drifted.Address, drifted.Profile = "", "", "" // a reading carries no identity

		var b strings.Builder
		for _, c := range []struct {
			name string
			got  fabric.SwitchIntent
		}{
			{"drifted", drifted},
			{"no QoS", fabric.SwitchIntent{Ports: want.Ports}},
			{"as desired", want},
		} {
			nd := switchcfg.NativeDiff(d, want, c.got)
			fmt.Fprintf(&b, "== %s (%s, %s)\n", c.name, nd.Platform, nd.Format)
			for _, n := range nd.Notes {
				fmt.Fprintf(&b, "note: %s\n", n)
			}
			b.WriteString(nd.Diff)
			if c.name == "as desired" && nd.Diff != "" {
				t.Errorf("%s: a reading equal to the intent diffs:\n%s", platform, nd.Diff)
			}
			if c.name != "as desired" && nd.Diff == "" {
				t.Errorf("%s %s: no diff", platform, c.name)
			}
		}
		testutil.Golden(t, "native-"+platform+".golden", []byte(b.String()))
	}
}

// TestUnifiedDiffHunks: distant edits make separate hunks with three
// lines of context, near ones one hunk; equal texts give "".
func TestUnifiedDiffHunks(t *testing.T) {
	var a []string
	for i := 1; i <= 20; i++ {
		a = append(a, fmt.Sprintf("l%d", i))
	}
	b := append([]string(nil), a...)
	b[1] = "L2"
	b[3] = "L4"
	b[17] = "L18"
	got := switchcfg.UnifiedDiff("a", "b", strings.Join(a, "\n")+"\n", strings.Join(b, "\n")+"\n")
	want := `--- a
+++ b
@@ -1,7 +1,7 @@
 l1
-l2
+L2
 l3
-l4
+L4
 l5
 l6
 l7
@@ -15,6 +15,6 @@
 l15
 l16
 l17
-l18
+L18
 l19
 l20
`
	if got != want {
		t.Errorf("diff\n%s\nwant\n%s", got, want)
	}
	if d := switchcfg.UnifiedDiff("a", "b", "x\n", "x\n"); d != "" {
		t.Errorf("equal texts diff: %q", d)
	}
	if d := switchcfg.UnifiedDiff("a", "b", "", "x\ny\n"); d != "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n" {
		t.Errorf("from nothing: %q", d)
	}
}
