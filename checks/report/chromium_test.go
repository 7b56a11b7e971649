package report

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// chromium finds Debian's chromium, or skips loudly (fails when
// FABRICCTL_REQUIRE_CHROMIUM=1, which a CI that installed it should set).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium is not installed: the HTML report was NOT checked in a real browser; " +
		"run scripts/install-chromium.sh (apt-get install chromium)"
	if os.Getenv("FABRICCTL_REQUIRE_CHROMIUM") == "1" {
		t.Fatal(msg)
	}
	t.Skip("SKIPPING BROWSER TEST: " + msg)
	return ""
}

// runChromium runs headless chromium on page with extra flags and returns its stdout.
func runChromium(t *testing.T, bin, page string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	if !slices.ContainsFunc(extra, func(f string) bool { return strings.HasPrefix(f, "--window-size=") }) {
		args = append(args, "--window-size=1200,900")
	}
	args = append(args, extra...)
	args = append(args, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("running %s %v: %v\n%s", bin, extra, err, stderr.Bytes())
	}
	t.Logf("chromium %v took %s", extra, time.Since(start).Round(time.Millisecond))
	return stdout.Bytes()
}

// TestChromium opens the HTML report in headless Chromium: the screenshot
// shows the heatmap in the colours the SVG declares, and the DOM Chromium
// built holds every heatmap cell with the same data as the page written.
func TestChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPING BROWSER TEST in -short mode")
	}
	t.Parallel()
	bin := chromium(t)
	html := render(t, WriteHTML, fixture())
	page := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(page, html, 0o644); err != nil {
		t.Fatal(err)
	}
	written := parseHeatmaps(t, html)

	t.Run("screenshot", func(t *testing.T) {
		t.Parallel()
		shot := filepath.Join(t.TempDir(), "report.png")
		// Paint everything before the shot: on a busy machine chromium may
		// otherwise capture a page whose lower tiles are still blank.
		// Tall enough for the heatmaps below the verdict and the cards.
		runChromium(t, bin, page, "--screenshot="+shot, "--hide-scrollbars", "--window-size=1200,1800",
			"--run-all-compositor-stages-before-draw", "--virtual-time-budget=3000")
		f, err := os.Open(shot)
		if err != nil {
			t.Fatalf("no screenshot: %v", err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatalf("decoding screenshot: %v", err)
		}
		if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 1800 {
			t.Errorf("screenshot is %v, want 1200×1800", b)
		}
		if out := os.Getenv("FABRICCTL_SCREENSHOT"); out != "" { // for people: look at it
			data, _ := os.ReadFile(shot)
			_ = os.WriteFile(out, data, 0o644)
		}
		// Every colour the write_bw heatmap's cells declare must be painted
		// (a solid patch of it), and the region they span must not be blank.
		fills := map[[3]uint8]bool{}
		for _, c := range written["write_bw"] {
			if len(c.Rect) > 0 {
				fills[rgb(t, c.Rect[0].Fill)] = true
			}
		}
		region := image.Rectangle{}
		for want := range fills {
			n, box := countNear(img, want, 3)
			if n < 150 {
				t.Errorf("heatmap colour #%02x%02x%02x painted on %d pixels, want a whole cell", want[0], want[1], want[2], n)
				continue
			}
			region = region.Union(box)
		}
		distinct := map[uint32]bool{}
		for y := region.Min.Y; y < region.Max.Y; y++ {
			for x := region.Min.X; x < region.Max.X; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				distinct[r>>8<<16|g>>8<<8|b>>8] = true
			}
		}
		t.Logf("heatmap region %v: %d distinct colours, %d cell fills", region, len(distinct), len(fills))
		if region.Dx() < 200 || region.Dy() < 200 || len(distinct) < len(fills)+2 {
			t.Errorf("heatmap region %v has %d distinct colours: blank or missing heatmap", region, len(distinct))
		}
	})

	t.Run("dump-dom", func(t *testing.T) {
		t.Parallel()
		dom := runChromium(t, bin, page, "--dump-dom")
		rendered := parseHeatmaps(t, dom)
		if len(rendered["write_bw"]) != 16 {
			t.Fatalf("rendered DOM holds %d write_bw cells, want 16\n%.2000s", len(rendered["write_bw"]), dom)
		}
		key := func(m map[string][]svgCell) []string {
			var out []string
			for test, cells := range m {
				for _, c := range cells {
					out = append(out, fmt.Sprintf("%s %s %s %s %s %s %s", test, c.A, c.B, c.Status, c.Gbps, c.Usec, c.Loopback))
				}
			}
			slices.Sort(out)
			return out
		}
		if diff := cmp.Diff(key(written), key(rendered)); diff != "" {
			t.Errorf("cells in the browser's DOM differ from the page written (-written +rendered):\n%s", diff)
		}
	})
}

// countNear counts pixels within tol of want on every channel and returns their bounding box.
func countNear(img image.Image, want [3]uint8, tol int) (int, image.Rectangle) {
	n := 0
	box := image.Rectangle{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if near(r>>8, want[0], tol) && near(g>>8, want[1], tol) && near(bb>>8, want[2], tol) {
				n++
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return n, box
}

func near(v uint32, w uint8, tol int) bool {
	d := int(v) - int(w)
	return -tol <= d && d <= tol
}
