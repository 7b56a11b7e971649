package analyze

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

var outputsOnly = flag.String("outputs.only", "", "run only the published outputs whose id contains this")

// outputEntry is one published tool output: where it comes from, its
// sha256, and the engineer's reading written before fabricctl read it.
type outputEntry struct {
	ID     string `yaml:"id"`
	File   string `yaml:"file"`
	Source string `yaml:"source"`
	Repo   string `yaml:"repo"`
	Commit string `yaml:"commit"`
	Path   string `yaml:"path"`
	Lines  string `yaml:"lines"`
	SHA256 string `yaml:"sha256"`
	What   string `yaml:"what"`
	Expect struct {
		Kind    Kind          `yaml:"kind"`
		Verdict checks.Status `yaml:"verdict"`
		// Fatal: the output shows a fatal event; the file must fail (exit 2).
		Fatal   bool   `yaml:"fatal"`
		Because string `yaml:"because"`
		// Mentions are words a finding at the verdict's level must hold:
		// the verdict is right for the right reason.
		Mentions []string `yaml:"mentions"`
	} `yaml:"expect"`
	Notes string `yaml:"notes"`
	// Revised says which expectation was changed after the first run and
	// why (the engineer's second reading); such entries are counted.
	Revised string `yaml:"revised"`
}

// TestPublishedOutputs holds fabricctl's verdicts against the engineer's on
// tool outputs published by others (issue trackers, docs, forums), kept
// outside the repository in $FABRICCTL_OUTPUT_CORPUS (default
// ../output-corpus beside the repository; each file pinned by its sha256 in
// testdata/published/*.yaml, which says where it was published). A verdict
// is right when the kind, the file's worst status and the reason (the
// mentions) are the engineer's; a fatal event must fail.
func TestPublishedOutputs(t *testing.T) {
	dir := testutil.OutputCorpus(t)
	manifests := testutil.PublishedManifests(t)
	total, right, fatal, fatalMissed, revised := 0, 0, 0, 0, 0
	seen := map[string]bool{}
	for _, m := range manifests {
		raw, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		var entries []outputEntry
		if err := yaml.Unmarshal(raw, &entries); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		for _, e := range entries {
			if seen[e.ID] {
				t.Errorf("%s: id %s twice", m, e.ID)
			}
			seen[e.ID] = true
			if e.SHA256 == "" || (e.Source == "" && e.Repo == "") || !e.Expect.Verdict.Valid() {
				t.Errorf("%s: %s: an entry needs a sha256, a source or repo, and a verdict", m, e.ID)
				continue
			}
			if *outputsOnly != "" && !strings.Contains(e.ID, *outputsOnly) {
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
			if e.Expect.Fatal {
				fatal++
			}
			got := Analyze(e.ID, data)
			why := judgeOutput(got, e)
			if e.Expect.Fatal && got.Worst() != checks.StatusFail && got.Worst() != checks.StatusError {
				fatalMissed++
			}
			if why == "" {
				right++
				if testing.Verbose() {
					t.Logf("right %-60s %s %s", e.ID, got.Kind, got.Worst())
				}
				continue
			}
			t.Errorf("wrong %s (%s): %s\n    engineer: %s", e.ID, e.File, why, e.Expect.Because)
		}
	}
	if total == 0 {
		t.Skipf("no published output in %s (set FABRICCTL_OUTPUT_CORPUS)", dir)
	}
	t.Logf("published outputs: %d judged, %d as the engineer judged them, %d wrong; %d show a fatal event, %d of them not failed; %d expectations revised after the first run", total, right, total-right, fatal, fatalMissed, revised)
}

// judgeOutput says how fabricctl's reading differs from the engineer's, ""
// when it does not.
func judgeOutput(got File, e outputEntry) string {
	var diffs []string
	if got.Kind != e.Expect.Kind {
		diffs = append(diffs, fmt.Sprintf("kind %s, want %s", got.Kind, e.Expect.Kind))
	}
	worst := got.Worst()
	if worst != e.Expect.Verdict {
		diffs = append(diffs, fmt.Sprintf("verdict %s, want %s", worst, e.Expect.Verdict))
	}
	if e.Expect.Fatal && worst != checks.StatusFail {
		diffs = append(diffs, "a fatal event that does not fail")
	}
	if len(diffs) == 0 {
		for _, w := range e.Expect.Mentions {
			if !slices.ContainsFunc(got.Findings, func(f Finding) bool {
				return f.Status == worst && strings.Contains(strings.ToLower(f.Subject+" "+f.Summary+" "+strings.Join(f.Evidence, " ")), strings.ToLower(w))
			}) {
				diffs = append(diffs, fmt.Sprintf("no %s finding mentions %q", worst, w))
			}
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	var fs []string
	for _, f := range got.Findings {
		if f.Status == worst || len(fs) < 3 {
			s := fmt.Sprintf("%s %s %s: %s", f.Status, f.ID, f.Subject, f.Summary)
			if len(s) > 200 {
				s = s[:200] + "…"
			}
			fs = append(fs, s)
		}
		if len(fs) >= 4 {
			break
		}
	}
	return strings.Join(diffs, "; ") + "\n    fabricctl: " + strings.Join(fs, "\n               ")
}
