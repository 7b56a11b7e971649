package congestion

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// publishedReading is one published counter reading and the engineer's
// verdicts, written before Evaluate ran on it.
type publishedReading struct {
	ID     string `yaml:"id"`
	File   string `yaml:"file"`
	Source string `yaml:"source"`
	SHA256 string `yaml:"sha256"`
	System string `yaml:"system"`
	Date   string `yaml:"date"`
	What   string `yaml:"what"`
	Expect struct {
		Verdicts map[string]checks.Status `yaml:"verdicts"`
		Because  string                   `yaml:"because"`
		// Mentions are words the result of a check must hold: the
		// verdict is right for the right reason.
		Mentions map[string][]string `yaml:"mentions"`
	} `yaml:"expect"`
	Notes   string `yaml:"notes"`
	Revised string `yaml:"revised"`
}

// TestPublishedReadings judges real mlx5 counter readings published by
// users ($FABRICCTL_OUTPUT_CORPUS/congestion, default ../output-corpus
// beside the repository; pinned by sha256 in testdata/published/*.yaml).
// A published reading counts from the driver's load, so it is judged as a
// round from zero against the default RoCE intent (priority 3 lossless,
// ECN on). It skips when the files are absent.
func TestPublishedReadings(t *testing.T) {
	dir := testutil.OutputCorpus(t)
	manifests := testutil.PublishedManifests(t)
	total, right, revised := 0, 0, 0
	for _, m := range manifests {
		raw, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		var entries []publishedReading
		if err := yaml.Unmarshal(raw, &entries); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		for _, e := range entries {
			if e.SHA256 == "" || e.Source == "" || e.System == "" || e.Date == "" || len(e.Expect.Verdicts) == 0 {
				t.Errorf("%s: %s: an entry needs a sha256, a source, a system, a date and verdicts", m, e.ID)
				continue
			}
			data, ok, err := testutil.ReadPinned(filepath.Join(dir, filepath.FromSlash(e.File)), e.SHA256)
			if err != nil {
				t.Errorf("%s: %s: %v", m, e.ID, err)
				continue
			}
			if !ok {
				continue
			}
			total++
			if e.Revised != "" {
				revised++
			}
			after, _ := ParseText(data)
			before := evaluate.Counters{}
			for k := range after {
				before[k] = 0
			}
			got := Evaluate(Intent{Lossless: []int{3}, ECN: true}, []Port{{Target: e.ID, Port: "port", Before: before, After: after}})
			var diffs []string
			for id, want := range e.Expect.Verdicts {
				i := slices.IndexFunc(got, func(r checks.Result) bool { return r.ID == id })
				if i < 0 {
					diffs = append(diffs, id+": no result")
					continue
				}
				r := got[i]
				if r.Status != want {
					diffs = append(diffs, string(r.Status)+" "+id+", want "+string(want)+": "+r.Summary)
					continue
				}
				text := strings.ToLower(r.Summary + " " + strings.Join(r.Evidence, " "))
				for _, w := range e.Expect.Mentions[id] {
					if !strings.Contains(text, strings.ToLower(w)) {
						diffs = append(diffs, id+" does not mention "+w+": "+r.Summary)
					}
				}
			}
			if len(diffs) > 0 {
				t.Errorf("wrong %s (%s):\n    %s\n    engineer: %s", e.ID, e.File, strings.Join(diffs, "\n    "), e.Expect.Because)
				continue
			}
			right++
			if testing.Verbose() {
				for _, r := range got {
					t.Logf("%s %s %s: %s", e.ID, r.Status, r.ID, r.Summary)
				}
			}
		}
	}
	if total == 0 {
		t.Skipf("no published reading in %s (set FABRICCTL_OUTPUT_CORPUS)", dir)
	}
	t.Logf("published readings: %d judged, %d as the engineer judged them, %d wrong; %d expectations revised after the first run", total, right, total-right, revised)
}
