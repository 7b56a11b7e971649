package image

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// Sentinel errors of the fetch step.
var (
	// ErrNotServed: the mirror no longer serves a pinned version (or the package at all).
	ErrNotServed = errors.New("package version not served by apt")
	// ErrNoSpace: the cache filesystem has too little free space.
	ErrNoSpace = errors.New("not enough free disk space")
	// ErrMissingTool: a host program (apt-get, dpkg-deb, qemu) is not installed.
	ErrMissingTool = errors.New("host tool not installed")
)

// MinFreeBytes is the free space the cache needs before a fetch or build starts: ~80 MB of .debs,
// ~250 MB unpacked while building, ~15 MB per image.
const MinFreeBytes = 600 << 20

// Fetcher downloads pinned packages with `apt-get download` into a cache directory. A package
// already in the cache (by name and version) is never fetched again. Safe for one caller at a time
// per cache directory.
type Fetcher struct {
	Dir    string // cache directory of .deb files
	AptGet string // apt-get binary; "" means "apt-get" from PATH
}

// Fetch makes sure every package is in the cache and returns each one's .deb path, keyed by name.
// Missing packages are fetched in one apt-get call; when apt refuses, the error names every
// package it could not serve and the version the mirror offers now.
func (f Fetcher) Fetch(ctx context.Context, pkgs []Package) (map[string]string, error) {
	paths := make(map[string]string, len(pkgs))
	var missing []Package
	for _, p := range pkgs {
		path := filepath.Join(f.Dir, p.FileName())
		paths[p.Name] = path
		if st, err := os.Stat(path); err == nil && st.Size() > 0 {
			continue
		}
		missing = append(missing, p)
	}
	if len(missing) == 0 {
		return paths, nil
	}
	apt := f.AptGet
	if apt == "" {
		apt = "apt-get"
	}
	if _, err := exec.LookPath(apt); err != nil {
		return nil, fmt.Errorf("fetching packages: %s: %w (run lab/scripts/install-deps.sh on a Debian host)", apt, ErrMissingTool)
	}
	if err := os.MkdirAll(f.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating package cache: %w", err)
	}
	if err := CheckFreeSpace(f.Dir, MinFreeBytes); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(f.Dir, "download-")
	if err != nil {
		return nil, fmt.Errorf("creating download dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	args := []string{"download", "-q"}
	for _, p := range missing {
		args = append(args, p.String())
	}
	cmd := exec.CommandContext(ctx, apt, args...)
	cmd.Dir = tmp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("fetching packages: %w", ctx.Err())
		}
		return nil, describeAptFailure(ctx, missing, stderr.String(), err)
	}
	// apt-get download names files NAME_VERSION_ARCH.deb (epoch ':' as %3a); move them into place
	// under our own name so the cache is keyed by exactly what the lock says.
	got, _ := filepath.Glob(filepath.Join(tmp, "*.deb"))
	byName := map[string]string{}
	for _, g := range got {
		base := filepath.Base(g)
		name, _, _ := strings.Cut(base, "_")
		byName[name] = g
	}
	for _, p := range missing {
		src, ok := byName[p.Name]
		if !ok {
			return nil, fmt.Errorf("fetching %s: apt-get reported success but wrote no .deb: %w", p, ErrNotServed)
		}
		if err := os.Rename(src, paths[p.Name]); err != nil {
			return nil, fmt.Errorf("caching %s: %w", p, err)
		}
	}
	return paths, nil
}

var aptErrPkg = regexp.MustCompile(`(?:Version '[^']*' for '([^']+)' was not found|Unable to locate package ([^\s]+)|Can't select (?:candidate )?version[^']*'([^']+)')`)

// describeAptFailure turns apt-get's stderr into an error naming each package it refused, with
// the version the mirror offers now (apt-cache policy), so the lock can be updated.
func describeAptFailure(ctx context.Context, pkgs []Package, stderr string, runErr error) error {
	var bad []string
	for _, m := range aptErrPkg.FindAllStringSubmatch(stderr, -1) {
		for _, g := range m[1:] {
			if g != "" {
				bad = append(bad, strings.SplitN(g, "=", 2)[0])
			}
		}
	}
	sort.Strings(bad)
	if len(bad) == 0 {
		return fmt.Errorf("fetching packages with apt-get download: %w: %s", runErr, lastLines(stderr, 6))
	}
	want := map[string]string{}
	for _, p := range pkgs {
		want[p.Name] = p.Version
	}
	var errs []error
	for _, name := range bad {
		hint := " (the mirror offers no version; run apt-get update or check sources.list)"
		if cand := candidate(ctx, name); cand != "" && cand != "(none)" {
			hint = fmt.Sprintf(" (the mirror offers %s; update lab/image/packages.lock)", cand)
		}
		errs = append(errs, fmt.Errorf("fetching %s=%s: %w%s", name, want[name], ErrNotServed, hint))
	}
	return errors.Join(errs...)
}

func candidate(ctx context.Context, name string) string {
	out, err := exec.CommandContext(ctx, "apt-cache", "policy", name).Output()
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "Candidate:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}

// CheckFreeSpace fails with ErrNoSpace when the filesystem holding dir has less than need bytes
// free (for the unprivileged user).
func CheckFreeSpace(dir string, need uint64) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fmt.Errorf("checking free space of %s: %w", dir, err)
	}
	free := st.Bavail * uint64(st.Bsize)
	if free < need {
		return fmt.Errorf("checking free space of %s: %d MiB free, need %d MiB: %w", dir, free>>20, need>>20, ErrNoSpace)
	}
	return nil
}
