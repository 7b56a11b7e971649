package buildinfo

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

func bi(version string, settings ...string) *debug.BuildInfo {
	b := &debug.BuildInfo{Main: debug.Module{Path: "github.com/fabricctl/fabricctl", Version: version}}
	for i := 0; i+1 < len(settings); i += 2 {
		b.Settings = append(b.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
	}
	return b
}

const rev = "8ddb1ccf908f2b760137ec9d5ca00d57f9773ff2"

func TestFrom(t *testing.T) {
	for _, tc := range []struct {
		name string
		ld   string
		bi   *debug.BuildInfo
		want Info
	}{
		{"make build (ldflags) wins", "v0.3.0-12-g8ddb1cc", bi("(devel)", "vcs.revision", rev),
			Info{Version: "v0.3.0-12-g8ddb1cc", Revision: rev}},
		{"go build in a clone", "dev", bi("(devel)", "vcs.revision", rev, "vcs.time", "2026-12-02T17:14:35Z", "vcs.modified", "false"),
			Info{Version: "8ddb1ccf908f", Revision: rev, Time: "2026-12-02T17:14:35Z"}},
		{"go build with changes", "dev", bi("(devel)", "vcs.revision", rev, "vcs.modified", "true"),
			Info{Version: "8ddb1ccf908f-dirty", Revision: rev, Modified: true}},
		{"go 1.24+ stamps a pseudo-version too", "dev", bi("v0.0.0-20261202171435-8ddb1ccf908f+dirty", "vcs.revision", rev, "vcs.modified", "true"),
			Info{Version: "v0.0.0-20261202171435-8ddb1ccf908f+dirty", Revision: rev, Modified: true}},
		{"go install @tag", "dev", bi("v1.2.0"), Info{Version: "v1.2.0", Revision: Unknown}},
		{"go install @commit", "dev", bi("v0.0.0-20261202171435-8ddb1ccf908f"), Info{Version: "v0.0.0-20261202171435-8ddb1ccf908f", Revision: "8ddb1ccf908f"}},
		{"go install @commit after a tag", "", bi("v1.2.4-0.20261202171435-8ddb1ccf908f"), Info{Version: "v1.2.4-0.20261202171435-8ddb1ccf908f", Revision: "8ddb1ccf908f"}},
		{"nothing recorded", "dev", bi("(devel)"), Info{Version: Dev, Revision: Unknown}},
		{"no build info", "", nil, Info{Version: Dev, Revision: Unknown}},
	} {
		if got := From(tc.ld, tc.bi); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestPlainGoBuildReportsRevision builds fabricctl with plain `go build` in a
// git repository holding this work tree's files (tracked and untracked, as
// they are now) and asks it its version: the revision must be that
// repository's HEAD, not "unknown". A repository of its own is needed
// because Go stamps VCS information only where .git is a directory (a `git
// worktree` has a .git file); -buildvcs=true overrides a
// GOFLAGS=-buildvcs=false of the machine (the default, auto, stamps in a clone).
func TestPlainGoBuildReportsRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fabricctl")
	}
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	root := testutil.RepoRoot(t)
	if err := exec.Command("git", "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skipf("%s is not a git work tree", root)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
		}
		return strings.TrimSpace(string(out))
	}
	files := strings.Split(strings.TrimRight(run(root, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00"), "\x00")
	for _, f := range files {
		src, dst := filepath.Join(root, f), filepath.Join(clone, f)
		fi, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err == nil {
			err = os.MkdirAll(filepath.Dir(dst), 0o755)
		}
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			var to string
			if to, err = os.Readlink(src); err == nil {
				err = os.Symlink(to, dst)
			}
		} else if err == nil {
			var b []byte
			if b, err = os.ReadFile(src); err == nil {
				err = os.WriteFile(dst, b, fi.Mode().Perm())
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	run(clone, "git", "init", "--quiet")
	run(clone, "git", "add", "-A")
	run(clone, "git", "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "--quiet", "-m", "work tree")
	head := run(clone, "git", "rev-parse", "HEAD")
	bin := filepath.Join(t.TempDir(), "fabricctl")
	run(clone, "go", "build", "-buildvcs=true", "-o", bin, "./cmd/fabricctl")
	var v struct{ Version, Revision string }
	if err := json.Unmarshal([]byte(run(clone, bin, "version", "-o", "json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Revision != head || !strings.Contains(v.Version, head[:12]) {
		t.Errorf("version %q revision %q, want revision %s (HEAD of the clone) in both", v.Version, v.Revision, head)
	}
	if text := run(clone, bin, "version"); !strings.Contains(text, head[:12]) || strings.Contains(text, "dev (unknown") {
		t.Errorf("version prints %q", text)
	}
}
