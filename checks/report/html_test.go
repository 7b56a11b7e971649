package report

import (
	"encoding/json"
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// svgCell is a heatmap cell as the page carries it.
type svgCell struct {
	Class    string `xml:"class,attr"`
	A        string `xml:"data-a,attr"`
	B        string `xml:"data-b,attr"`
	Test     string `xml:"data-test,attr"`
	Status   string `xml:"data-status,attr"`
	Gbps     string `xml:"data-gbps,attr"`
	Usec     string `xml:"data-usec,attr"`
	Loopback string `xml:"data-loopback,attr"`
	Title    string `xml:"title"`
	Rect     []struct {
		Fill string `xml:"fill,attr"`
	} `xml:"rect"`
}

type svgHeatmap struct {
	Test  string    `xml:"data-test,attr"`
	Cells []svgCell `xml:"g"`
}

var svgRE = regexp.MustCompile(`(?s)<svg class="heatmap".*?</svg>`)

// parseHeatmaps reads every heatmap SVG of page; the SVG that WriteHTML
// writes is well-formed XML, so a strict XML decoder reads it.
func parseHeatmaps(t *testing.T, page []byte) map[string][]svgCell {
	t.Helper()
	out := map[string][]svgCell{}
	for _, frag := range svgRE.FindAll(page, -1) {
		var hm svgHeatmap
		if err := xml.Unmarshal(frag, &hm); err != nil {
			t.Fatalf("heatmap SVG is not well-formed: %v", err)
		}
		var cells []svgCell
		for _, g := range hm.Cells {
			if strings.HasPrefix(g.Class, "cell") {
				cells = append(cells, g)
			}
		}
		out[hm.Test] = cells
	}
	return out
}

// jsonReport is the JSON report as a consumer reads it, without this package's types.
type jsonReport struct {
	Results []struct {
		ID           string `json:"id"`
		Target       string `json:"target"`
		Status       string `json:"status"`
		Measurements []struct {
			Value float64 `json:"value"`
			Unit  string  `json:"unit"`
		} `json:"measurements"`
	} `json:"results"`
	Pairs []struct {
		A, B, Test, Unit, Status string
		Value                    *float64
	} `json:"pairs"`
}

// TestHeatmapCellsMatchJSON reads the page's heatmap cells and checks each
// one against the JSON report of the same run: every tested cell names a
// pair (or a loopback result) of the JSON and carries its exact value and
// status, failed cells are marked, every pair appears in both of its cells,
// and every host × host cell exists.
func TestHeatmapCellsMatchJSON(t *testing.T) {
	r := fixture()
	var js jsonReport
	if err := json.Unmarshal(render(t, WriteJSON, r), &js); err != nil {
		t.Fatal(err)
	}
	maps := parseHeatmaps(t, render(t, WriteHTML, r))
	if len(maps) != 2 || len(maps["write_bw"]) != 16 || len(maps["write_lat"]) != 16 {
		t.Fatalf("want two 4×4 heatmaps (write_bw, write_lat), got %d maps: bw %d cells, lat %d cells",
			len(maps), len(maps["write_bw"]), len(maps["write_lat"]))
	}
	seen := map[int]int{} // JSON pair index → cells showing it
	for test, cells := range maps {
		for _, c := range cells {
			if c.Test != test {
				t.Errorf("cell %s/%s in the %s map says data-test=%q", c.A, c.B, test, c.Test)
			}
			value := c.Gbps
			if test == "write_lat" {
				value = c.Usec
			}
			marked := strings.Contains(c.Class, "marked")
			if wantMark := c.Status == "fail" || c.Status == "error"; marked != wantMark {
				t.Errorf("cell %s %s→%s status %q marked=%v", test, c.A, c.B, c.Status, marked)
			}
			if c.Loopback == "true" {
				if c.A != c.B {
					t.Errorf("loopback cell %s→%s off the diagonal", c.A, c.B)
				}
				found := false
				for _, res := range js.Results {
					if res.ID != "loopback/"+test || HostOf(res.Target) != c.A {
						continue
					}
					found = true
					if len(res.Measurements) == 0 || value != strconv.FormatFloat(res.Measurements[0].Value, 'f', -1, 64) || res.Status != c.Status {
						t.Errorf("loopback cell %s: value %q status %q, JSON %+v", c.A, value, c.Status, res)
					}
				}
				if !found && c.Status != "" {
					t.Errorf("loopback cell %s has status %q but no loopback result in the JSON", c.A, c.Status)
				}
				continue
			}
			if c.Status == "" { // not tested: no JSON pair between these hosts
				for _, p := range js.Pairs {
					if p.Test == test && (p.A == c.A && p.B == c.B || p.A == c.B && p.B == c.A) {
						t.Errorf("cell %s %s→%s says not tested, JSON has %+v", test, c.A, c.B, p)
					}
				}
				continue
			}
			match := -1
			for i, p := range js.Pairs {
				if p.Test == test && p.A == c.A && p.B == c.B {
					match = i
				}
			}
			if match < 0 {
				t.Errorf("cell %s %s→%s matches no JSON pair", test, c.A, c.B)
				continue
			}
			p := js.Pairs[match]
			seen[match]++
			want := ""
			if p.Value != nil {
				want = strconv.FormatFloat(*p.Value, 'f', -1, 64)
				if got, err := strconv.ParseFloat(value, 64); err != nil || got != *p.Value {
					t.Errorf("cell %s %s→%s value %q, JSON %v", test, c.A, c.B, value, *p.Value)
				}
				if !strings.Contains(c.Title, want+" "+p.Unit) {
					t.Errorf("cell %s %s→%s tooltip %q lacks the exact value %s %s", test, c.A, c.B, c.Title, want, p.Unit)
				}
			}
			if value != want || c.Status != p.Status {
				t.Errorf("cell %s %s→%s: value %q status %q, JSON value %q status %q", test, c.A, c.B, value, c.Status, want, p.Status)
			}
		}
	}
	for i, p := range js.Pairs {
		if seen[i] != 2 {
			t.Errorf("JSON pair %s %s→%s shown in %d cells, want 2 (row×column and column×row)", p.Test, p.A, p.B, seen[i])
		}
	}
}

// TestHTMLSelfContained: the page references nothing outside itself.
func TestHTMLSelfContained(t *testing.T) {
	page := string(render(t, WriteHTML, fixture()))
	lower := strings.ToLower(page)
	for _, bad := range []string{"http://", "https://", "src=", "@import", "<link", "<script", "<iframe", "<object", "<embed", "<img", "//fonts", "xlink:href"} {
		if strings.Contains(lower, bad) {
			t.Errorf("page contains %q: it must not reference anything external", bad)
		}
	}
	for _, m := range regexp.MustCompile(`(?i)(href\s*=\s*"[^"]*"|url\([^)]*\))`).FindAllString(page, -1) {
		if !strings.Contains(m, `"#`) && !strings.Contains(m, "(#") {
			t.Errorf("page references %s: only in-page (#…) references are allowed", m)
		}
	}
}

// TestHTMLEscapes: text from hosts and tools is shown, never interpreted.
func TestHTMLEscapes(t *testing.T) {
	r := New(`lab"><script>alert(1)</script>`, fixture().Started)
	evil := `<img src=x onerror=alert(2)>`
	r.Add(checks.Result{ID: "preflight/x<y", Target: `gpu-01"&<u>`, Status: checks.StatusFail, Summary: evil,
		Evidence: []string{`</pre><script>alert(3)</script>`}})
	r.AddPairs(Pair{A: `a"<`, B: `b'>`, Test: `write_bw"><svg onload=alert(4)>`, Value: gbps(1), Unit: checks.UnitGbps,
		Status: checks.StatusFail, Summary: evil})
	page := string(render(t, WriteHTML, r))
	for _, bad := range []string{"<script>", "<img", "<u>", `"><svg`, "<svg onload"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains unescaped %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)", "&lt;img src=x onerror=alert(2)&gt;", "&lt;/pre&gt;&lt;script&gt;alert(3)"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks the escaped text %q", want)
		}
	}
	if maps := parseHeatmaps(t, []byte(page)); len(maps) != 1 {
		t.Errorf("hostile names broke the heatmap: %d maps parsed", len(maps))
	}
}
