package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// labReport reads one of the demo's reports (`make demo`, four soft-RoCE
// hosts): lab-healthy is the healthy lab's check (54 host checks, 8 of
// them warnings, 6 pairs), lab-fault the check with 2% loss on lab-h3's
// RoCE traffic (3 failed pairs, lab-h3 blamed by re-tests with known-good
// partners). They were read back from the demo's HTML pages, with the
// lab fabric's criteria and a version added.
func labReport(t *testing.T, name string) *Report {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLabGolden(t *testing.T) {
	for _, name := range []string{"lab-healthy", "lab-fault"} {
		t.Run(name, func(t *testing.T) {
			testutil.Golden(t, name+".html.golden", render(t, WriteHTML, labReport(t, name)))
		})
	}
}

// verdictSection returns the page's verdict section, tags stripped and
// spaces folded, and its opening tag.
func verdictSection(t *testing.T, page string) (text, tag string) {
	t.Helper()
	m := regexp.MustCompile(`(?s)(<section id="verdict"[^>]*>)(.*?)</section>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page has no verdict section")
	}
	if i := strings.Index(page, m[0]); i > strings.Index(page, `<section id="summary"`) {
		t.Errorf("the verdict comes after the summary cards")
	}
	text = regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[2], " ")
	return strings.Join(strings.Fields(unescape(text)), " "), m[1]
}

func unescape(s string) string {
	return strings.NewReplacer("&#39;", "'", "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#34;", `"`, "&quot;", `"`).Replace(s)
}

// TestVerdictNamesTheBlamed (issue 30): the fault report never said which
// host the check blamed before the reader scrolled through the failures;
// its first section now names lab-h3 with the re-tests' reason and how much
// evidence backs it.
func TestVerdictNamesTheBlamed(t *testing.T) {
	page := string(render(t, WriteHTML, labReport(t, "lab-fault")))
	text, tag := verdictSection(t, page)
	if !strings.Contains(tag, `data-status="fail"`) {
		t.Errorf("verdict %s, want data-status fail", tag)
	}
	for _, want := range []string{
		"FAIL lab-h3 is to blame",
		"lab-h3 host lab-h3 fails with known-good partners too (lab-h1, lab-h4): the fault is at lab-h3",
		"5 pieces of evidence · 3 of 3 pairs failed · from re-tests with known-good partners",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("verdict lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(page, `<li class="blame" data-kind="host" data-component="host:lab-h3">`) {
		t.Errorf("no blame entry for host:lab-h3")
	}
}

// TestVerdictOfAHealthyLab (issue 30): the healthy lab showed a WARN badge
// beside "54 · all clear". The badge stays (8 warnings are real), but the
// card counts them and the verdict says what they are.
func TestVerdictOfAHealthyLab(t *testing.T) {
	page := string(render(t, WriteHTML, labReport(t, "lab-healthy")))
	text, tag := verdictSection(t, page)
	if !strings.Contains(tag, `data-status="warn"`) {
		t.Errorf("verdict %s, want data-status warn", tag)
	}
	for _, want := range []string{
		"WARN Nothing failed, with 8 warnings to read",
		"54 host checks: 30 pass, 8 warn, 16 skip · 6 pairs: 6 pass",
		"preflight/lossless on 4 targets (lab-h1, lab-h2, lab-h3, lab-h4): live settings match; 12 desired settings are not supported by the device",
		"preflight/name-resolution on 4 targets",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("verdict lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "To blame") {
		t.Errorf("a report without failures blames someone:\n%s", text)
	}
	if strings.Contains(page, "54 <small>all clear") {
		t.Errorf("a card says all clear beside 8 warnings")
	}
	if !strings.Contains(page, "54 <small>8 warnings</small>") || !strings.Contains(page, "6 <small>all clear</small>") {
		t.Errorf("cards: want 54 · 8 warnings and 6 · all clear")
	}
}

func TestVerdictWords(t *testing.T) {
	pass := func(id, target string) checks.Result {
		return checks.Result{ID: id, Target: target, Status: checks.StatusPass}
	}
	cases := []struct {
		name  string
		r     *Report
		title string
	}{
		{"empty", New("f", fixture().Started), "PASS Nothing was checked"},
		{"all pass", func() *Report {
			r := New("f", fixture().Started)
			r.Add(pass("preflight/mtu", "a/mlx5_0"), pass("preflight/mtu", "b/mlx5_0"))
			return r
		}(), "PASS Everything passed"},
		{"fixture", fixture(), "ERROR 2 components are to blame: gpu-03, gpu-02 ↔ gpu-04; 2 checks could not decide"},
		{"localised", localizationFixture(), "ERROR 3 components are to blame; 2 checks could not decide 16 host checks"},
		{"only errors", func() *Report {
			r := New("f", fixture().Started)
			r.Add(pass("preflight/mtu", "a/mlx5_0"), checks.Result{ID: "preflight/versions", Target: "a", Status: checks.StatusError, Summary: "no perftest"})
			return r
		}(), "ERROR 1 check could not decide: nothing failed, but the verdict is open"},
		{"fleet failure", func() *Report {
			r := New("f", fixture().Started)
			r.Add(checks.Result{ID: "preflight/versions", Target: "fleet/perftest", Status: checks.StatusFail, Summary: "perftest 6.06 on a, 4.5 on b"})
			return r
		}(), "FAIL 1 check failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, _ := verdictSection(t, string(render(t, WriteHTML, c.r)))
			if !strings.HasPrefix(text, c.title) {
				t.Errorf("verdict reads %q, want it to start %q", text, c.title)
			}
		})
	}
}

// TestVerdictBlamesLocalisedSuspects: suspects of the localiser come first,
// with their kind, confidence and the alternatives the evidence cannot split.
func TestVerdictBlamesLocalisedSuspects(t *testing.T) {
	text, _ := verdictSection(t, string(render(t, WriteHTML, localizationFixture())))
	for _, want := range []string{
		"cable gpu-12:ens1f0np0 <-> leaf-01:swp2 cable cable gpu-12:ens1f0np0 <-> leaf-01:swp2: 4 of 4 tests through it were bad (0 slow, 4 lossy) 2 pieces of evidence · confidence 97% · from localisation",
		"or one of: uplink leaf-02:swp32 <-> spine-2:swp2",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("verdict lacks %q:\n%s", want, text)
		}
	}
	// A blamed host cabled in the topology says where.
	r := localizationFixture()
	r.Add(checks.Result{ID: "preflight/port-active", Target: "gpu-21/mlx5_0", Status: checks.StatusFail, Summary: "port DOWN"})
	text, _ = verdictSection(t, string(render(t, WriteHTML, r)))
	if !strings.Contains(text, "gpu-21 host ens1f0np0 → leaf-02:swp1 preflight/port-active gpu-21/mlx5_0: port DOWN") {
		t.Errorf("the blamed gpu-21 does not say where it is cabled:\n%s", text)
	}
}

// TestPageCarriesVersionAndCriteria: the page names the fabricctl that
// wrote it and the thresholds its tests were judged by, and says so when
// the report does not record them.
func TestPageCarriesVersionAndCriteria(t *testing.T) {
	page := string(render(t, WriteHTML, labReport(t, "lab-healthy")))
	for _, want := range []string{
		`<span class="gen" id="generator">fabricctl v0.9.0 (rev d408683e1f2a)</span>`,
		"<footer>Written by fabricctl v0.9.0 (rev d408683e1f2a) · run finished 2026-12-05 14:16:46 UTC",
		"<b>pairwise write_bw</b>",
		"<li>bandwidth ≥ 1% of the declared 0.1 Gb/s port rate, else fail</li>",
		"<li>bandwidth ≥ 2% of the sweep&#39;s best, else an outlier</li>",
		"<li>latency ≤ 2000 µs, else fail</li>",
		"<li>error counters within the healthy baseline &#43; 4σ (≥ 10 events; above 8 in one test is evidence), else fail</li>",
		"Pass criterion: 0.003 Gb/s (2% of the sweep&#39;s best)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	old := string(render(t, WriteHTML, fixture()))
	for _, want := range []string{"fabricctl (version not recorded)", "This report does not record the thresholds",
		"Pass criterion: 90.6 Gb/s (93% of the sweep&#39;s best, the default relative floor). The report does not record the thresholds used."} {
		if !strings.Contains(old, want) {
			t.Errorf("a report without version and criteria: page lacks %q", want)
		}
	}
}

// TestTopologySection: a report with a topology lists every host cable
// with what LLDP found instead and the localiser's marks; one without a
// topology shows no topology at all.
func TestTopologySection(t *testing.T) {
	page := string(render(t, WriteHTML, localizationFixture()))
	for _, want := range []string{
		`<section class="panel" id="topology">`,
		`<tr data-host="gpu-12" data-mark="suspect"><td class="nowrap">gpu-12</td><td class="nowrap"><code>ens1f0np0</code></td><td class="nowrap">leaf-01:swp2 <span class="pill s-fail">suspect</span>`,
		`<td class="nowrap">leaf-02:swp9 (wrong-port)</td>`,
		"Switch links: leaf-01: swp31 → spine-1:swp1, swp32 → spine-2:swp1",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<tr data-host=`); n != 8 {
		t.Errorf("%d host cables listed, want 8", n)
	}
	for _, name := range []string{"lab-healthy", "lab-fault"} {
		if p := string(render(t, WriteHTML, labReport(t, name))); strings.Contains(p, `id="topology"`) {
			t.Errorf("%s: a report without a topology shows one", name)
		}
	}
}

// TestProblemsGrouped: the same warning on four hosts is one entry naming
// the four, its evidence shown once when alike and per host when not.
func TestProblemsGrouped(t *testing.T) {
	page := string(render(t, WriteHTML, labReport(t, "lab-healthy")))
	if n := strings.Count(page, `<article class="problem`); n != 2 {
		t.Errorf("%d problem entries, want 2 (lossless and name-resolution, each on 4 hosts)", n)
	}
	if n := strings.Count(page, "<li>eth0 dcbx: eth0 (driver virtio_net) has no DCB netlink ops"); n != 1 {
		t.Errorf("the lossless evidence shared by 4 hosts is shown %d times, want once", n)
	}
	if !strings.Contains(page, "<li>lab-h2: lab-h1: lookup lab-h1: no such host</li>") {
		t.Errorf("per-host evidence of name-resolution is not prefixed with its host")
	}
}

// TestGeneratorAndCriteriaInJSON: the version and the criteria are part of
// the JSON report, read back strictly, and validated.
func TestGeneratorAndCriteriaInJSON(t *testing.T) {
	r := labReport(t, "lab-fault")
	out := render(t, WriteJSON, r)
	for _, want := range []string{`"generator": {`, `"version": "v0.9.0"`, `"criteria": [`, `"minPercentOfBest": 2`, `"counterMaxHealthyPerTest": 8`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	back, err := ReadJSON(strings.NewReader(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	if again := render(t, WriteJSON, back); string(again) != string(out) {
		t.Errorf("JSON → ReadJSON → JSON differs")
	}
	r.Criteria[0].MinPercentOfBest = -1
	if err := r.Validate(); err == nil || !strings.HasPrefix(err.Error(), "criteria[0] pairwise/write_bw: threshold -1 is not a finite number ≥ 0") {
		t.Errorf("a negative threshold: %v", err)
	}
	r.Criteria[0] = Criterion{Suite: SuitePairwise}
	if err := r.Validate(); err == nil || !strings.HasPrefix(err.Error(), "criteria[0]: a criterion needs a suite and a test") {
		t.Errorf("a criterion without a test: %v", err)
	}
	if s := (Generator{Version: "dev", Revision: "unknown"}).String(); s != "dev" {
		t.Errorf("a build without a revision reads %q", s)
	}
	if s := (Generator{Version: "v1", Revision: "0123456789abcdef", Modified: true}).String(); s != "v1 (rev 0123456789ab, modified)" {
		t.Errorf("a modified build reads %q", s)
	}
}

// A report whose criteria declare no floor for a test is not shaded
// against an invented default floor: the legend says none was declared.
func TestHeatmapWithoutDeclaredFloor(t *testing.T) {
	r := labReport(t, "lab-healthy")
	n := 0
	for i := range r.Criteria {
		if r.Criteria[i].Test == "write_bw" {
			r.Criteria[i].MinPercentOfBest, r.Criteria[i].MinPercentOfPortRate = 0, 0
			n++
		}
	}
	if n == 0 {
		t.Fatal("the fixture has no write_bw criterion")
	}
	page := string(render(t, WriteHTML, r))
	if !strings.Contains(page, "no floor declared for this test") || strings.Contains(page, "the default relative floor") {
		t.Errorf("the legend invents a floor the criteria do not declare")
	}
}
