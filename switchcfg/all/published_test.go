package all

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// The published corpus (issue 26, item 6) is real configurations and
// read-backs published by others — the NOS projects' tests and sample
// outputs, validated designs, automation examples, network-modelling
// projects' test configs, users' labs. Their text never enters this
// repository: testdata/published/<nos>.yaml holds each file's provenance
// (repository, commit, path, line range, sha256) and the reading an
// engineer took from it before any parser saw it. The files themselves live
// in $FABRICCTL_PUBLISHED_CORPUS (default ../switch-corpus beside the
// repository); -published.fetch downloads the missing ones from GitHub and
// checks their sha256.
var (
	publishedFetch = flag.Bool("published.fetch", false, "download the published corpus files that are missing (network)")
	publishedOnly  = flag.String("published.only", "", "run only the published corpus entries whose id contains this")
)

// publishedEntry is one manifest entry.
type publishedEntry struct {
	ID      string           `yaml:"id"`
	File    string           `yaml:"file"`
	Repo    string           `yaml:"repo"`
	Commit  string           `yaml:"commit"`
	Path    string           `yaml:"path"`
	Lines   string           `yaml:"lines"`
	SHA256  string           `yaml:"sha256"`
	Command string           `yaml:"command"`
	Model   string           `yaml:"model"`
	What    string           `yaml:"what"`
	Expect  publishedReading `yaml:"expect"`
	Notes   string           `yaml:"notes"`
	// Amended says why an expectation was changed after the first run
	// (the first run's counts are in docs/switch-corpus.md).
	Amended string `yaml:"amended"`
}

// publishedReading is what an engineer reads from a file; a nil field is
// one the file does not determine, and goes unchecked.
type publishedReading struct {
	Refused bool `yaml:"refused"`
	// Error: the file is no configuration a switch printed (a template
	// with placeholders): the reader must fail with a located error
	// containing this text.
	Error        *string          `yaml:"error"`
	Trust        *string          `yaml:"trust"`
	MTU          *int             `yaml:"mtu"`
	PFC          *[]int           `yaml:"pfc"`
	LosslessDSCP *[]int           `yaml:"lossless_dscp"`
	ECN          *[]int           `yaml:"ecn"`
	Watchdog     *string          `yaml:"watchdog"`
	Groups       []publishedGroup `yaml:"groups"`
	Unparsed     *[]string        `yaml:"unparsed"`
}

type publishedGroup struct {
	Ports []string `yaml:"ports"`
	PFC   []int    `yaml:"pfc"`
}

// publishedPlatforms maps a manifest's name to the driver's.
var publishedPlatforms = map[string]string{
	"sonic":   "sonic",
	"cumulus": "cumulus-nvue",
	"eos":     "arista-eos",
	"nxos":    "cisco-nxos",
	"junos":   "junos",
}

// Verdicts of one entry, best first.
const (
	verdictRight  = "right"    // every fact as the engineer read it
	verdictHonest = "unparsed" // some fact differs, but the reading lists input it did not understand
	verdictNoise  = "noise"    // right, but lists as not understood input the engineer read as ordinary
	verdictWrong  = "WRONG"    // some fact differs and nothing says so: silently wrong
	verdictError  = "ERROR"    // refused a file of its format, or read one it should refuse
)

// TestPublishedCorpus reads every file of the published corpus and holds
// the reading against the engineer's. A reading passes when every fact is
// the engineer's, or when the reader lists what it did not understand (drift
// then exits 1, unknown, instead of judging); a silently different fact, an
// error on a real config and a foreign file read as a switch fail.
func TestPublishedCorpus(t *testing.T) {
	dir := os.Getenv("FABRICCTL_PUBLISHED_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "switch-corpus")
	}
	manifests, err := filepath.Glob(filepath.Join("testdata", "published", "*.yaml"))
	if err != nil || len(manifests) == 0 {
		t.Fatalf("no manifest in testdata/published (%v)", err)
	}
	counts := map[string]int{}
	total := 0
	for _, m := range manifests {
		nos := strings.TrimSuffix(filepath.Base(m), ".yaml")
		platform, ok := publishedPlatforms[nos]
		if !ok {
			t.Fatalf("%s: no platform for %q", m, nos)
		}
		entries := readManifest(t, m)
		for _, e := range entries {
			if *publishedOnly != "" && !strings.Contains(e.ID, *publishedOnly) {
				continue
			}
			data, ok := publishedFile(t, dir, m, e)
			if !ok {
				continue
			}
			total++
			v, why := judgePublished(platform, data, e)
			counts[v]++
			line := fmt.Sprintf("%-8s %-7s %-52s %s", v, nos, e.ID, why)
			switch v {
			case verdictWrong, verdictError:
				t.Error(line)
			case verdictNoise:
				t.Log(line) // right, and says more than the engineer thought needed
			default:
				if testing.Verbose() {
					t.Log(line)
				}
			}
		}
	}
	if total == 0 {
		t.Skipf("no published corpus file in %s (set FABRICCTL_PUBLISHED_CORPUS, or run with -published.fetch where GitHub is reachable)", dir)
	}
	t.Logf("published corpus: %d files: %d right, %d list what they did not understand, %d list ordinary input as not understood, %d silently wrong, %d errors",
		total, counts[verdictRight], counts[verdictHonest], counts[verdictNoise], counts[verdictWrong], counts[verdictError])
}

func readManifest(t *testing.T, path string) []publishedEntry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []publishedEntry
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&entries); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("%s: %v", path, err)
	}
	seen := map[string]bool{}
	for i, e := range entries {
		if e.ID == "" || e.File == "" || e.Repo == "" || len(e.Commit) != 40 || e.Path == "" || len(e.SHA256) != 64 {
			t.Errorf("%s: entry %d (%q): id, file, repo, a 40-hex commit, path and sha256 are required", path, i+1, e.ID)
		}
		if seen[e.ID] {
			t.Errorf("%s: id %q twice", path, e.ID)
		}
		seen[e.ID] = true
	}
	return entries
}

// publishedFile returns the entry's file, fetching it when asked; false
// when it is absent (the run skips it).
func publishedFile(t *testing.T, dir, manifest string, e publishedEntry) ([]byte, bool) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(e.File))
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && *publishedFetch {
		data, err = fetchPublished(e)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(path), 0o755)
		}
		if err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: %s: %v", manifest, e.ID, err)
		return nil, false
	}
	data, ok, err := testutil.ReadPinned(path, e.SHA256)
	if err != nil {
		t.Errorf("%s: %s: %v", manifest, e.ID, err)
		return nil, false
	}
	if !ok {
		return nil, false
	}
	return data, true
}

// fetchPublished downloads an entry's file from GitHub at its commit and
// cuts its line range.
func fetchPublished(e publishedEntry) ([]byte, error) {
	url := "https://raw.githubusercontent.com/" + e.Repo + "/" + e.Commit + "/" + e.Path
	resp, err := http.Get(url)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil || e.Lines == "" {
		return data, err
	}
	from, to, ok := strings.Cut(e.Lines, "-")
	a, err1 := strconv.Atoi(from)
	b, err2 := strconv.Atoi(to)
	lines := strings.SplitAfter(string(data), "\n")
	if !ok || err1 != nil || err2 != nil || a < 1 || b < a || b > len(lines) {
		return nil, fmt.Errorf("%s: bad line range %q", e.ID, e.Lines)
	}
	return []byte(strings.Join(lines[a-1:b], "")), nil
}

// judgePublished reads data as the platform's capture and holds the
// reading against e.Expect.
func judgePublished(platform string, data []byte, e publishedEntry) (verdict, why string) {
	d, err := Registry().Driver(platform)
	if err != nil {
		return verdictError, err.Error()
	}
	got, err := switchcfg.ParseCapture(d, data, fabric.SwitchIntent{Model: e.Model})
	x := e.Expect
	if x.Error != nil {
		if err != nil && strings.Contains(err.Error(), *x.Error) {
			return verdictRight, "error: " + *x.Error
		}
		return verdictError, fmt.Sprintf("want an error with %q, got %v", *x.Error, err)
	}
	if x.Refused {
		if errors.Is(err, switchcfg.ErrNotThisFormat) {
			return verdictRight, "refused"
		}
		if err != nil {
			return verdictError, "refused, but not as another format: " + firstLine(err.Error())
		}
		return verdictError, fmt.Sprintf("read a foreign file as a switch (%d classes)", len(got.Classes))
	}
	if err != nil {
		return verdictError, firstLine(err.Error())
	}
	var diffs []string
	differ := func(what string, want, have any) {
		diffs = append(diffs, fmt.Sprintf("%s %v, engineer read %v", what, have, want))
	}
	if x.Trust != nil && *x.Trust != got.Trust {
		differ("trust", *x.Trust, got.Trust)
	}
	if x.MTU != nil && *x.MTU != got.MTU {
		differ("mtu", *x.MTU, got.MTU)
	}
	pfc := got.PFC.Priorities
	if x.LosslessDSCP != nil {
		var have []int
		for _, c := range got.Classes {
			if slices.Contains(pfc, c.Priority) {
				have = append(have, c.DSCP...)
			}
		}
		if !slices.Equal(norm(*x.LosslessDSCP), norm(have)) {
			differ("lossless dscp", norm(*x.LosslessDSCP), norm(have))
		}
	}
	if x.ECN != nil {
		var have []int
		for _, c := range got.Classes {
			if c.ECN != nil {
				have = append(have, c.Priority)
			}
		}
		if !slices.Equal(norm(*x.ECN), norm(have)) {
			differ("ecn on", *x.ECN, norm(have))
		}
	}
	if x.Watchdog != nil {
		have := "absent"
		if w := got.PFC.Watchdog; w != nil && w.Enabled {
			have = "enabled"
		} else if w != nil {
			have = "disabled"
		}
		if have != *x.Watchdog {
			differ("watchdog", *x.Watchdog, have)
		}
	}
	if x.PFC != nil {
		// Port by port: each port's PFC (its group's, or the switch's)
		// against the engineer's (the port's group, or the majority).
		// Which ports a reading calls the majority is presentation.
		groupPFC := map[string][]int{}
		for _, g := range got.PortGroups {
			for _, p := range g.Ports {
				groupPFC[p] = g.PFC.Priorities
			}
		}
		want := map[string][]int{}
		for _, g := range x.Groups {
			for _, p := range g.Ports {
				want[p] = g.PFC
			}
		}
		var bad []string
		ports := got.Ports
		if len(ports) == 0 && !slices.Equal(norm(*x.PFC), norm(pfc)) {
			differ("pfc", *x.PFC, pfc)
		}
		for _, p := range ports {
			w, ok := want[p]
			if !ok {
				w = *x.PFC
			}
			h, ok := groupPFC[p]
			if !ok {
				h = pfc
			}
			if !slices.Equal(norm(w), norm(h)) {
				bad = append(bad, fmt.Sprintf("%s %v (engineer %v)", p, norm(h), norm(w)))
			}
		}
		if len(bad) > 0 {
			diffs = append(diffs, fmt.Sprintf("pfc differs on %d of %d ports: %s", len(bad), len(ports), strings.Join(bad[:min(len(bad), 3)], ", ")))
		}
	}
	slices.Sort(diffs)
	diffs = slices.Compact(diffs)
	if len(diffs) > 0 {
		if len(got.Unparsed) > 0 {
			return verdictHonest, fmt.Sprintf("%s; lists %d unparsed (%s)", strings.Join(diffs, "; "), len(got.Unparsed), got.Unparsed[0].Text)
		}
		return verdictWrong, strings.Join(diffs, "; ")
	}
	if len(got.Unparsed) > 0 && x.Unparsed != nil && len(*x.Unparsed) == 0 {
		return verdictNoise, fmt.Sprintf("lists %d unparsed, e.g. line %d %q: %s", len(got.Unparsed), got.Unparsed[0].Line, got.Unparsed[0].Text, got.Unparsed[0].Reason)
	}
	return verdictRight, fmt.Sprintf("%d classes, %d port groups, %d unparsed", len(got.Classes), len(got.PortGroups), len(got.Unparsed))
}

func norm(v []int) []int {
	out := slices.Clone(v)
	slices.Sort(out)
	out = slices.Compact(out)
	if out == nil {
		out = []int{}
	}
	return out
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
