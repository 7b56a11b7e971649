package vendorcheck

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/all"
)

func repoRoot(t testing.TB) string {
	t.Helper()
	r, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Every platform has cases from every generated variant on every model, and
// the standard profile loads everywhere: a variant that no platform accepts
// would check nothing.
func TestCasesReachEveryModelAndVariant(t *testing.T) {
	accepted := map[string]int{}
	for _, p := range all.Registry().Names() {
		cases, refused, err := Cases(repoRoot(t), p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(cases) == 0 {
			t.Fatalf("%s: no cases", p)
		}
		for _, r := range refused {
			t.Logf("%s: refused %s: %v", p, r.Name, r.Err)
		}
		// The standard RoCE profile renders on every model of every
		// platform: a refusal there would silently shrink what is checked.
		for _, r := range refused {
			if strings.HasPrefix(r.Name, "generated standard/") {
				t.Errorf("%s: the standard profile is refused on %s: %v", p, r.Name, r.Err)
			}
		}
		for _, c := range cases {
			for _, v := range Variants {
				if c.Name == "generated "+v.Name+"/"+modelOf(c) {
					accepted[v.Name]++
				}
			}
			if c.Config.Text == "" {
				t.Errorf("%s %s: empty render", p, c.Name)
			}
		}
	}
	for _, v := range Variants {
		if accepted[v.Name] == 0 {
			t.Errorf("variant %s: no platform accepted it", v.Name)
		}
	}
}

func modelOf(c Case) string {
	if c.Intent.Model == "" {
		return "default"
	}
	return c.Intent.Model
}
