package image

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func FuzzParseLock(f *testing.F) {
	f.Add(DefaultLock())
	f.Add([]byte("a=1\na=2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pkgs, err := ParseLock(bytes.NewReader(b))
		if err == nil && len(pkgs) == 0 {
			t.Fatal("no error and no packages")
		}
		for _, p := range pkgs {
			if p.Name == "" || p.Version == "" || strings.Contains(p.FileName(), "/") {
				t.Fatalf("bad package %+v", p)
			}
		}
	})
}

func FuzzParseModulesDep(f *testing.F) {
	seed, _ := os.ReadFile("testdata/modules.dep")
	f.Add(seed, "rdma_rxe")
	f.Fuzz(func(t *testing.T, b []byte, want string) {
		deps, err := ParseModulesDep(bytes.NewReader(b))
		if err != nil {
			return
		}
		order, err := deps.LoadOrder([]string{want})
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, m := range order {
			for _, d := range deps[m] {
				if !seen[d] {
					t.Fatalf("%s before its dependency %s", m, d)
				}
			}
			seen[m] = true
		}
	})
}

func FuzzParseLdList(f *testing.F) {
	for _, n := range []string{"testdata/ldlist-sshd.txt", "testdata/ldlist-notfound.txt"} {
		b, _ := os.ReadFile(n)
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, s string) {
		libs, err := ParseLdList(s)
		if err != nil {
			return
		}
		for _, l := range libs {
			if !strings.HasPrefix(l, "/") {
				t.Fatalf("relative library %q", l)
			}
		}
	})
}
