package image

import (
	"bufio"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// ParseLdList reads the output of `ld.so --library-path … --list BINARY` and returns the absolute
// paths of every library it resolved (the loader itself included), sorted and unique. A library
// the loader could not find ("libfoo.so.1 => not found") is an error naming it.
func ParseLdList(out string) ([]string, error) {
	set := map[string]bool{}
	var notFound []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "linux-vdso") || strings.HasPrefix(line, "statically linked") {
			continue
		}
		lhs, rhs, arrow := strings.Cut(line, "=>")
		if arrow {
			rhs = strings.TrimSpace(rhs)
			if strings.HasPrefix(rhs, "not found") {
				notFound = append(notFound, strings.TrimSpace(lhs))
				continue
			}
			if f := strings.Fields(rhs); len(f) > 0 && strings.HasPrefix(f[0], "/") {
				set[f[0]] = true
			}
			continue
		}
		// the loader line: "/lib64/ld-linux-x86-64.so.2 (0x...)"
		if f := strings.Fields(lhs); len(f) > 0 && strings.HasPrefix(f[0], "/") {
			set[f[0]] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading ld.so --list output: %w", err)
	}
	if len(notFound) > 0 {
		sort.Strings(notFound)
		return nil, fmt.Errorf("resolving shared libraries: not found: %s", strings.Join(notFound, ", "))
	}
	libs := make([]string, 0, len(set))
	for l := range set {
		libs = append(libs, l)
	}
	sort.Strings(libs)
	return libs, nil
}

// StagedPaths maps libraries resolved by the staged loader back to paths inside the stage. A
// library outside the stage (resolved from the build host) is an error: it would be missing in
// the guest. The system loader paths (/lib64/ld-linux-x86-64.so.2) are returned as stage paths,
// since the guest gets the staged loader at the same place.
func StagedPaths(stage string, libs []string) ([]string, error) {
	stage = filepath.Clean(stage) + "/"
	var rel []string
	var outside []string
	for _, l := range libs {
		switch {
		case strings.HasPrefix(l, stage):
			rel = append(rel, strings.TrimPrefix(l, stage))
		case l == "/lib64/ld-linux-x86-64.so.2":
			rel = append(rel, "lib64/ld-linux-x86-64.so.2")
		default:
			outside = append(outside, l)
		}
	}
	if len(outside) > 0 {
		return nil, fmt.Errorf("resolving shared libraries: resolved outside the staged packages (add their packages to packages.lock): %s", strings.Join(outside, ", "))
	}
	return rel, nil
}
