package fabricctl_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The files of package fabric are layered: a file may refer to declarations
// of files below it, never to those of a file that refers to it in turn. So
// each file reads with only what is below it in mind, and a change to a file
// concerns only the files above it. A file refers to another when it uses a
// package-level declaration of it (a type, function, variable or constant),
// or a method or struct field declared there. TestFabricFilesLayered finds
// the uses with go/types and fails on every pair of files that refer to each
// other both ways.

// fileRefs says, for each file of a package, which names it uses of each
// other file of the package: fileRefs[from][to] is sorted and has no
// duplicates. Methods are written Type.Method, fields Struct.Field.
type fileRefs map[string]map[string][]string

// referencesOf type-checks the files of package path, parsed with fset,
// and says which file refers to which. Files are named by their base names.
func referencesOf(fset *token.FileSet, path string, files []*ast.File, imp types.Importer) (fileRefs, error) {
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	pkg, err := conf.Check(path, fset, files, info)
	if err != nil {
		return nil, fmt.Errorf("type-checking %s: %w", path, err)
	}
	owners := fieldOwners(pkg)
	uses := map[[2]string]map[string]bool{} // {from, to} → names
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !(obj.Parent() == pkg.Scope() || isMethod(obj) || isField(obj)) {
			continue // another package's, a local one, or an import's name
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if from == to {
			continue
		}
		if uses[[2]string{from, to}] == nil {
			uses[[2]string{from, to}] = map[string]bool{}
		}
		uses[[2]string{from, to}][qualifiedName(obj, owners)] = true
	}
	refs := fileRefs{}
	for ft, names := range uses {
		if refs[ft[0]] == nil {
			refs[ft[0]] = map[string][]string{}
		}
		refs[ft[0]][ft[1]] = slices.Sorted(maps.Keys(names))
	}
	return refs, nil
}

func isMethod(obj types.Object) bool {
	f, ok := obj.(*types.Func)
	return ok && f.Signature().Recv() != nil
}

func isField(obj types.Object) bool {
	v, ok := obj.(*types.Var)
	return ok && v.IsField()
}

// fieldOwners maps the fields of pkg's package-level struct types to their
// types' names (a field does not know its struct).
func fieldOwners(pkg *types.Package) map[*types.Var]string {
	out := map[*types.Var]string{}
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		if s, ok := tn.Type().Underlying().(*types.Struct); ok {
			for f := range s.Fields() {
				out[f] = name
			}
		}
	}
	return out
}

// qualifiedName writes a method as Type.Method and a field of a
// package-level struct as Struct.Field; anything else by its name.
func qualifiedName(obj types.Object, owners map[*types.Var]string) string {
	switch {
	case isMethod(obj):
		recv := obj.(*types.Func).Signature().Recv().Type()
		if p, ok := recv.(*types.Pointer); ok {
			recv = p.Elem()
		}
		if n, ok := recv.(*types.Named); ok {
			return n.Obj().Name() + "." + obj.Name()
		}
	case isField(obj):
		if owner, ok := owners[obj.(*types.Var)]; ok {
			return owner + "." + obj.Name()
		}
	}
	return obj.Name()
}

// twoWay describes every pair of files that refer to each other, with the
// names each uses of the other, sorted by file names.
func twoWay(refs fileRefs) []string {
	var out []string
	for a, tos := range refs {
		for b, aUses := range tos {
			bUses, back := refs[b][a]
			if !back || a > b {
				continue // one way, or the pair is reported from b
			}
			out = append(out, fmt.Sprintf("%s <-> %s: %s uses %s; %s uses %s",
				a, b, a, strings.Join(aUses, ", "), b, strings.Join(bUses, ", ")))
		}
	}
	sort.Strings(out)
	return out
}

// listedPackage is what `go list -export -json` says of one package.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string // the compiled export data, for the importer
}

// listWithDeps lists the package at pattern (a directory of the module) and
// every package it depends on, their export data built.
func listWithDeps(t *testing.T, pattern string) (target listedPackage, exports map[string]string) {
	t.Helper()
	exports = map[string]string{}
	for _, p := range goList[listedPackage](t, "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export", pattern) {
		exports[p.ImportPath] = p.Export
		target = p // -deps lists a package after its dependencies: the last is pattern's
	}
	return target, exports
}

// TestFabricFilesLayered fails on every pair of fabric/'s files (tests
// aside) that refer to each other both ways, naming what each uses of the
// other. Move the shared declaration down into the lower file, or into a
// small file of its own, or split a driver from the parts it runs.
func TestFabricFilesLayered(t *testing.T) {
	fabric, exports := listWithDeps(t, "./fabric")
	if fabric.ImportPath != module+"/fabric" {
		t.Fatalf("go list listed %s last, not %s/fabric; run the test from the repository root", fabric.ImportPath, module)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range fabric.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(fabric.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	lookup := func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("go list gave no export data for %s", path)
		}
		return os.Open(exports[path])
	}
	refs, err := referencesOf(fset, fabric.ImportPath, files, importer.ForCompiler(fset, "gc", lookup))
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) < len(files)/2 {
		t.Fatalf("only %d of %d files refer to another: the references were not found", len(refs), len(files))
	}
	for _, pair := range twoWay(refs) {
		t.Error(pair)
	}
}

// TestFabricFilesLayeredCatchesPairs proves the checker fails when it
// should: in a tiny package, a.go and b.go refer to each other (a function
// one way, a type and its field the other), c.go only uses a.go.
func TestFabricFilesLayeredCatchesPairs(t *testing.T) {
	sources := map[string]string{
		"a.go": "package p\n\ntype A struct{ X int }\n\nfunc (a A) M() int { return helper() }\n",
		"b.go": "package p\n\nfunc helper() int { return A{X: 1}.X }\n",
		"c.go": "package p\n\nfunc useA(a A) int { return a.M() }\n",
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range slices.Sorted(maps.Keys(sources)) {
		f, err := parser.ParseFile(fset, name, sources[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	refs, err := referencesOf(fset, "example.com/p", files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := refs["c.go"]["a.go"], []string{"A", "A.M"}; !slices.Equal(got, want) {
		t.Errorf("c.go uses %v of a.go, want %v", got, want)
	}
	got := twoWay(refs)
	want := []string{"a.go <-> b.go: a.go uses helper; b.go uses A, A.X"}
	if !slices.Equal(got, want) {
		t.Errorf("twoWay = %q, want %q", got, want)
	}
}
