package lab

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRerunFailed runs lab/scripts/rerun-failed.sh (what `make lab-test` runs the lab tests
// through) on a throwaway module: a test that fails once and then passes is rerun and CI passes;
// a test that fails twice fails CI; a timeout or a build error is never rerun; only the failed
// tests run again.
func TestRerunFailed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a throwaway module")
	}
	script, err := filepath.Abs(filepath.Join("scripts", "rerun-failed.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// make lab-test needs both; a missing one is a failure here, not a skip
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is not in PATH (make lab-test runs go test through the script): %v", err)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatalf("bash is not in PATH (make lab-test runs the script with it): %v", err)
	}
	for _, tc := range []struct {
		name, test string
		wantRC     int
		wantRuns   string // the marker file's content: one letter per run of each test
		wantOut    []string
	}{
		{"flaky once", `
func TestFlaky(t *testing.T) { mark(t, "f"); if runs("f") == 1 { t.Fatal("first run fails") } }
func TestSteady(t *testing.T) { mark(t, "s") }`,
			0, "fsf", []string{"FLAKE? m/p: TestFlaky failed", "passed on the rerun"}},
		{"fails twice", `
func TestBroken(t *testing.T) { mark(t, "b"); t.Fatal("always") }`,
			1, "bb", []string{"failed again"}},
		{"timeout", `
func TestBroken(t *testing.T) { mark(t, "b"); t.Error("fails") }
func TestSlow(t *testing.T) { mark(t, "w"); select {} }`,
			1, "bw", []string{"not rerun", "build error, timeout or panic"}},
		{"build error", `
func TestX(t *testing.T) { undefined() }`,
			1, "", []string{"not rerun"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			marks := filepath.Join(dir, "marks")
			files := map[string]string{
				"go.mod": "module m\n\ngo 1.21\n",
				"p/p_test.go": `package p

import (
	"os"
	"strings"
	"testing"
)

func mark(t *testing.T, s string) {
	f, err := os.OpenFile(` + "`" + marks + "`" + `, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(s)
	f.Close()
}

func runs(s string) int {
	b, _ := os.ReadFile(` + "`" + marks + "`" + `)
	return strings.Count(string(b), s)
}
` + tc.test + "\n",
			}
			for name, body := range files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("bash", script, "^Test", "-count=1", "-v", "-timeout", "3s", "--", "./p")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GO="+goBin, "GOFLAGS=-mod=mod", "GOWORK=off")
			out, err := cmd.CombinedOutput()
			rc := 0
			if ee, ok := err.(*exec.ExitError); ok {
				rc = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if (rc == 0) != (tc.wantRC == 0) {
				t.Errorf("exit %d, want %d\n%s", rc, tc.wantRC, out)
			}
			got, _ := os.ReadFile(marks)
			if string(got) != tc.wantRuns {
				t.Errorf("tests ran %q, want %q (one letter per run)\n%s", got, tc.wantRuns, out)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
