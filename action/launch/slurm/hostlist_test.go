package slurm

import (
	"slices"
	"strings"
	"testing"
)

func TestExpandHostlist(t *testing.T) {
	for in, want := range map[string][]string{
		"lab-h[1-4]":              {"lab-h1", "lab-h2", "lab-h3", "lab-h4"},
		"gpu[001-003,007],login1": {"gpu001", "gpu002", "gpu003", "gpu007", "login1"},
		"a,b":                     {"a", "b"},
		"n[8-11]-ib":              {"n8-ib", "n9-ib", "n10-ib", "n11-ib"},
		"rack[09-10]":             {"rack09", "rack10"},
		"":                        nil,
		"single":                  {"single"},
		"x[1,3],y[2]":             {"x1", "x3", "y2"},
		"gpu[1-2],gpu[1-2]":       {"gpu1", "gpu2", "gpu1", "gpu2"},
	} {
		got, err := ExpandHostlist(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ExpandHostlist(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"a[1-", "a]", "a[3-1]", "a[x]", "a[1][2]", "a[[1]]", "a[1-99999999]", "a[-]"} {
		if _, err := ExpandHostlist(bad); err == nil {
			t.Errorf("ExpandHostlist(%q) = nil error", bad)
		}
	}
}

func TestCompressHostlist(t *testing.T) {
	for want, in := range map[string][]string{
		"lab-h[1-4]":              {"lab-h3", "lab-h1", "lab-h4", "lab-h2", "lab-h1"},
		"gpu[001-003,007],login1": {"gpu001", "gpu002", "gpu003", "gpu007", "login1"},
		"n[1-2,10]":               {"n1", "n10", "n2"},
		"n01,n[1-2]":              {"n1", "n01", "n2"},
		"alpha,beta":              {"beta", "alpha"},
		"x9":                      {"x9"},
	} {
		if got := CompressHostlist(in); got != want {
			t.Errorf("CompressHostlist(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzHostlistRoundTrip(f *testing.F) {
	for _, s := range []string{"lab-h1,lab-h2", "n01,n1,n001,n10", "gpu7,a,b9c", "x0,x00,x000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names := strings.Split(s, ",")
		var clean []string
		for _, n := range names {
			// node names as Sweep and step let them through: CheckNodeName's (a name with white
			// space, "\n", is no node name and comes back trimmed away), no ranges
			if CheckNodeName(n) == nil && !strings.Contains(n, "-") && len(n) < 40 {
				clean = append(clean, n)
			}
		}
		got, err := ExpandHostlist(CompressHostlist(clean))
		if err != nil {
			t.Fatalf("expanding the compression of %q: %v", clean, err)
		}
		slices.Sort(got)
		want := slices.Compact(slices.Sorted(slices.Values(clean)))
		if !slices.Equal(got, want) {
			t.Fatalf("round trip of %q: %q, want %q (compressed %q)", clean, got, want, CompressHostlist(clean))
		}
	})
}

// TestExpandHostlistSlurmDocs: the hostlist examples of Slurm's own manual pages (source in
// testdata/README.md): scontrol(1) hostlist/hostnames and slurm.conf(5) NodeName, where "one or
// more pairs of square brackets" may appear in a name.
func TestExpandHostlistSlurmDocs(t *testing.T) {
	for in, want := range map[string][]string{
		"tux[1-3]":             {"tux1", "tux2", "tux3"},                                                                         // scontrol(1) hostnames
		"tux[2,1-2]":           {"tux2", "tux1", "tux2"},                                                                         // scontrol(1) hostlist: not sorted, not unique
		"tux[1-2,2]":           {"tux1", "tux2", "tux2"},                                                                         // scontrol(1) hostlistsorted
		"lx[15,18,32-33]":      {"lx15", "lx18", "lx32", "lx33"},                                                                 // slurm.conf(5)
		"linux[0000-0002]":     {"linux0000", "linux0001", "linux0002"},                                                          // slurm.conf(5): leading zeros fix the width
		"rack[0-1]_blade[0-2]": {"rack0_blade0", "rack0_blade1", "rack0_blade2", "rack1_blade0", "rack1_blade1", "rack1_blade2"}, // slurm.conf(5)
		"dev[0-1],edev[0-1]":   {"dev0", "dev1", "edev0", "edev1"},
	} {
		got, err := ExpandHostlist(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ExpandHostlist(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got, err := ExpandHostlist("linux[0-64,128]"); err != nil || len(got) != 66 || got[65] != "linux128" {
		t.Errorf("ExpandHostlist(linux[0-64,128]) = %d names, %v", len(got), err)
	}
}

// FuzzExpandHostlist: any input is refused with an error or expands to at most maxExpand names;
// nothing panics.
func FuzzExpandHostlist(f *testing.F) {
	for _, s := range []string{"rack[0-1]_blade[0-2]", "tux[2,1-2]", "a[1][2]", "n[001-010]-ib,x", "a[[1]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names, err := ExpandHostlist(s)
		if err == nil && len(names) > maxExpand {
			t.Fatalf("%q: %d names", s, len(names))
		}
	})
}
