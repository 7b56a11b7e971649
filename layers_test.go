package fabricctl_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is this repository's module path.
const module = "github.com/fabricctl/fabricctl"

// floors are DESIGN.md §1's: a package imports only from its own floor or
// below. A package's floor is its first path element.
var floors = map[string]int{
	"internal":  1,
	"fabric":    2,
	"hostcfg":   3,
	"switchcfg": 3,
	"agent":     4,
	"checks":    5,
	"action":    6,
	"cmd":       7,
	"lab":       7,
	"bench":     7,
}

// testkit holds simulated fleets and generators: on no floor, it may import
// every floor below cmd, and only tests, lab, bench and testkit import it.
const testkit = "testkit"

// owners says which folders may import a third-party module (a prefix of
// its import path); a module not listed here is free to every floor.
var owners = []struct {
	prefix string
	dirs   []string
}{
	{"github.com/spf13/", []string{"cmd"}},
	{"k8s.io/", []string{"action/launch/k8s"}},
	{"sigs.k8s.io/", []string{"action/launch/k8s"}},
	{"github.com/scrapli/", []string{"switchcfg"}},
	{"github.com/vishvananda/", []string{"hostcfg"}},
	{"github.com/Mellanox/", []string{"hostcfg"}},
	{"github.com/safchain/", []string{"hostcfg"}},
}

// fabricDeps are the only imports, beyond the standard library and the
// module's own floors, that fabric/ may have: the model does no I/O.
var fabricDeps = []string{"gopkg.in/yaml.v3", "golang.org/x/sync/"}

// pkg is what `go list -json` says of one package.
type pkg struct {
	ImportPath   string
	Dir          string
	Name         string
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// rel is path relative to the module: "" for the root, "" and false for
// a path outside it.
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

func top(r string) string {
	first, _, _ := strings.Cut(r, "/")
	return first
}

func within(r, dir string) bool { return r == dir || strings.HasPrefix(r, dir+"/") }

func describe(r string) string {
	if top(r) == testkit {
		return "testkit/"
	}
	return fmt.Sprintf("floor %d (%s/)", floors[top(r)], top(r))
}

// checkArrow says why from (a package of the module, relative path) must not
// import to (relative path), or returns nil. test is true for an import of
// from's tests.
func checkArrow(from, to string, test bool) error {
	if from == "" || from == to { // the root's tests see everything
		return nil
	}
	ft, tt := top(from), top(to)
	if _, ok := floors[ft]; !ok && ft != testkit {
		return nil // TestLayers names a package on no floor
	}
	if _, ok := floors[tt]; !ok && tt != testkit {
		return fmt.Errorf("%s is on no floor: add its folder to DESIGN.md §1 and to floors", to)
	}
	switch {
	case tt == testkit:
		if test || ft == testkit || ft == "lab" || ft == "bench" {
			return nil
		}
		return fmt.Errorf("testkit/ is for tests, lab and bench, not for %s", describe(from))
	case ft == testkit:
		if floors[tt] >= floors["cmd"] {
			return fmt.Errorf("testkit/ imports %s", describe(to))
		}
		return nil
	case ft == "internal" && !test:
		return errors.New("a package under internal/ imports nothing of the module")
	case floors[tt] > floors[ft]:
		return fmt.Errorf("%s imports %s: an arrow up", describe(from), describe(to))
	}
	return nil
}

// checkThirdParty says why from must not import the third-party path.
func checkThirdParty(from, path string, test bool) error {
	for _, o := range owners {
		if !strings.HasPrefix(path, o.prefix) {
			continue
		}
		if !slices.ContainsFunc(o.dirs, func(d string) bool { return within(from, d) }) {
			return fmt.Errorf("%s belongs to %s", o.prefix, strings.Join(o.dirs, ", "))
		}
	}
	if within(from, "fabric") && !test && !std(path) &&
		!slices.ContainsFunc(fabricDeps, func(p string) bool { return within(path, strings.TrimSuffix(p, "/")) }) {
		return fmt.Errorf("fabric/ imports only the standard library, %s", strings.Join(fabricDeps, ", "))
	}
	return nil
}

// std reports whether path is of the standard library (no dot in its first element).
func std(path string) bool { return !strings.Contains(top(path), ".") }

// violation is one import that breaks the layering.
type violation struct {
	file string // relative to the module root, or the package when no file was found
	from string
	to   string
	why  error
}

func (v violation) String() string {
	return fmt.Sprintf("%s: imports %q: %v", v.file, v.to, v.why)
}

// violations lists every import of pkgs that breaks the layering; files
// says which of a package's files import a path (for the message).
func violations(pkgs []pkg, files func(p pkg, test bool, path string) []string) []violation {
	var out []violation
	for _, p := range pkgs {
		from, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		seen := map[string]bool{}
		check := func(imports []string, test bool) {
			for _, imp := range imports {
				key := fmt.Sprint(test, imp)
				if seen[key] {
					continue
				}
				seen[key] = true
				var why error
				if to, ok := rel(imp); ok {
					why = checkArrow(from, to, test)
				} else if !std(imp) {
					why = checkThirdParty(from, imp, test)
				}
				if why == nil {
					continue
				}
				fs := files(p, test, imp)
				if len(fs) == 0 {
					fs = []string{p.ImportPath}
				}
				for _, f := range fs {
					out = append(out, violation{file: f, from: from, to: imp, why: why})
				}
			}
		}
		check(p.Imports, false)
		check(slices.Concat(p.TestImports, p.XTestImports), true)
	}
	return out
}

func goCommand(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no go command on PATH or in GOROOT: the layering is computed with go list")
	}
	return p
}

// goList runs `go list -json=… args` and decodes the stream of packages it prints.
func goList[P any](t *testing.T, args ...string) []P {
	t.Helper()
	cmd := exec.Command(goCommand(t), append([]string{"list"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []P
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p P
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decoding go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// listPackages runs go list over the whole module, lab-tagged files included.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	pkgs := goList[pkg](t, "-e", "-tags", "lab",
		"-json=ImportPath,Dir,Name,GoFiles,TestGoFiles,XTestGoFiles,Imports,TestImports,XTestImports", "./...")
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; run the test from the repository root", len(pkgs))
	}
	return pkgs
}

// importingFiles names p's files (relative to the module root) that import path.
func importingFiles(root string) func(p pkg, test bool, path string) []string {
	return func(p pkg, test bool, path string) []string {
		names := p.GoFiles
		if test {
			names = slices.Concat(p.TestGoFiles, p.XTestGoFiles)
		}
		var out []string
		for _, n := range names {
			full := filepath.Join(p.Dir, n)
			f, err := parser.ParseFile(token.NewFileSet(), full, nil, parser.ImportsOnly)
			if err != nil {
				continue
			}
			for _, is := range f.Imports {
				if v, err := strconv.Unquote(is.Path.Value); err == nil && v == path {
					r, err := filepath.Rel(root, full)
					if err != nil {
						r = full
					}
					out = append(out, filepath.ToSlash(r))
				}
			}
		}
		return out
	}
}

// TestLayers fails on every import that runs up a floor of DESIGN.md §1,
// naming the file, the import and the floors.
func TestLayers(t *testing.T) {
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	pkgs := listPackages(t)
	for _, p := range pkgs {
		r, _ := rel(p.ImportPath)
		if _, ok := floors[top(r)]; !ok && r != "" && top(r) != testkit {
			t.Errorf("%s is on no floor: add its folder to DESIGN.md §1 and to floors", p.ImportPath)
		}
	}
	for _, v := range violations(pkgs, importingFiles(root)) {
		t.Error(v)
	}
}

// TestDocFiles: every package has a doc.go whose package comment starts
// "Package <name>" (DESIGN.md §1: it reads like a short tutorial).
func TestDocFiles(t *testing.T) {
	for _, p := range listPackages(t) {
		if len(p.GoFiles) == 0 {
			continue
		}
		path := filepath.Join(p.Dir, "doc.go")
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Errorf("%s: no doc.go: %v", p.ImportPath, err)
			continue
		}
		want := "Package " + p.Name
		if p.Name == "main" {
			want = "Command " + filepath.Base(p.Dir)
		}
		if f.Doc == nil || !strings.HasPrefix(f.Doc.Text(), want) {
			t.Errorf("%s: doc.go has no package comment starting %q", p.ImportPath, want)
		}
	}
}

// TestLayersCatchesUpwardImports proves the checker fails when it should:
// each case is an arrow the layering forbids, or one it allows.
func TestLayersCatchesUpwardImports(t *testing.T) {
	cases := []struct {
		from, to string
		test     bool
		bad      bool
	}{
		{"fabric", "hostcfg", false, true},
		{"switchcfg/cumulus", "checks/lldp", false, true},
		{"action/fleet", "cmd/fabricctl", false, true},
		{"agent", "checks/rdma", false, true},
		{"internal/remote", "internal/knownhosts", false, true},
		{"checks/rdma", "testkit/agentsim", false, true},
		{"testkit/agentsim", "cmd/fabricctl", false, true},
		{"fabric", "hostcfg", true, true},
		{"checks/rdma", "testkit/agentsim", true, false},
		{"internal/remote", "internal/sshdtest", true, false},
		{"action/check", "checks/rdma", false, false},
		{"hostcfg", "switchcfg", false, false}, // one floor
		{"switchcfg/cumulus", "fabric/lldp", false, false},
		{"lab", "testkit/slurmsim", false, false},
		{"bench/scale", "action/fleet", false, false},
		{"tools/x", "fabric", false, false}, // an unknown importer is reported by TestLayers
		{"fabric", "tools/x", false, true},
	}
	for _, c := range cases {
		err := checkArrow(c.from, c.to, c.test)
		if (err != nil) != c.bad {
			t.Errorf("checkArrow(%s → %s, test %v) = %v, want bad %v", c.from, c.to, c.test, err, c.bad)
		}
	}
	third := []struct {
		from, path string
		bad        bool
	}{
		{"fabric", "github.com/spf13/cobra", true},
		{"cmd/fabricctl", "github.com/spf13/cobra", false},
		{"action/launch/slurm", "k8s.io/api/core/v1", true},
		{"action/launch/k8s", "k8s.io/api/core/v1", false},
		{"fabric", "golang.org/x/crypto/ssh", true},
		{"fabric", "golang.org/x/sync/errgroup", false},
		{"fabric", "gopkg.in/yaml.v3", false},
		{"checks/rdma", "github.com/vishvananda/netlink", true},
	}
	for _, c := range third {
		err := checkThirdParty(c.from, c.path, false)
		if (err != nil) != c.bad {
			t.Errorf("checkThirdParty(%s → %s) = %v, want bad %v", c.from, c.path, err, c.bad)
		}
	}
	// Through the whole pipeline: one package with an upward import gives
	// one violation that names the file, the import and both floors.
	pkgs := []pkg{{ImportPath: module + "/fabric", Imports: []string{module + "/checks/lldp", "strings"}}}
	got := violations(pkgs, func(pkg, bool, string) []string { return []string{"fabric/lldp.go"} })
	if len(got) != 1 || got[0].String() != `fabric/lldp.go: imports "`+module+`/checks/lldp": floor 2 (fabric/) imports floor 5 (checks/): an arrow up` {
		t.Errorf("violations = %v", got)
	}
}
