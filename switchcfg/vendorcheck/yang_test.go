package vendorcheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validators is the directory of the vendors' models (../shared/validators
// beside the repository, or $FABRICCTL_VALIDATORS). Outside CI a missing
// one skips the test; in CI it fails it.
func validators(t testing.TB, sub string) string {
	t.Helper()
	dir := os.Getenv("FABRICCTL_VALIDATORS")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), "..", "shared", "validators")
	}
	dir = filepath.Join(dir, sub)
	if _, err := os.Stat(dir); err != nil {
		need(t, "the vendors' validators: "+err.Error())
	}
	return dir
}

// need skips outside CI and fails in CI, where scripts/install-deps.sh
// installs every validator and ../shared is present.
func need(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("CI must have %s", what)
	}
	t.Skipf("not available here: %s", what)
}

func yanglint(t testing.TB) Yanglint {
	t.Helper()
	y := Yanglint{}
	if !y.Available() {
		need(t, "yanglint (Debian libyang2-tools)")
	}
	return y
}

func TestParseCompiledYANG(t *testing.T) {
	root, err := parseYANG(`module m { namespace "urn:m"; container m { list L_LIST { key "ab"; leaf a { type string; } leaf b { type uint8 { range "0..7"; } default "1"; } leaf-list c { type string; } choice x { case y { leaf d { type "str" + "ing"; } } } } } }`)
	if err != nil {
		t.Fatal(err)
	}
	top, err := node(root.subs[1], "urn:m")
	if err != nil {
		t.Fatal(err)
	}
	l := top.Child("L_LIST")
	if l == nil || strings.Join(l.Keys, ",") != "a,b" {
		t.Fatalf("packed keys not read back: %+v", l)
	}
	if d := l.Child("d"); d == nil || d.Type != "string" {
		t.Fatalf("leaf inside choice/case: %+v", d)
	}
	if b := l.Child("b"); b == nil || b.Type != "uint8" || !b.HasDefault {
		t.Fatalf("leaf b: %+v", b)
	}
	for _, bad := range []string{`module m {`, `module m { leaf }`, `}`, `"x`} {
		if _, err := parseYANG(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestYanglintReportsLocatedErrors(t *testing.T) {
	y := yanglint(t)
	dir := validators(t, "sonic-yang")
	mods := []string{filepath.Join(dir, "sonic-dscp-tc-map.yang")}
	m, err := y.Compile(context.Background(), dir, "", mods...)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "sonic-dscp-tc-map" || m.NS == "" || len(m.Top) != 1 || m.Top[0].Child("DSCP_TO_TC_MAP") == nil {
		t.Fatalf("compiled module: %+v", m)
	}
	doc := func(tc string) []byte {
		r := &Elem{Name: "sonic-dscp-tc-map", NS: m.NS}
		e := r.Add("DSCP_TO_TC_MAP", "", "").Add("DSCP_TO_TC_MAP_LIST", "", "")
		e.Add("name", "", "AZURE")
		p := e.Add("DSCP_TO_TC_MAP", "", "")
		p.Add("dscp", "", "26")
		p.Add("tc", "", tc)
		return r.XML()
	}
	if d, err := y.Validate(context.Background(), dir, mods, doc("3")); err != nil || len(d) != 0 {
		t.Fatalf("valid map: %v %v", d, err)
	}
	d, err := y.Validate(context.Background(), dir, mods, doc("16"))
	if err != nil || len(d) == 0 {
		t.Fatalf("tc 16 passed: %v %v", d, err)
	}
	if !strings.Contains(d[0].Message, "Invalid Traffic Class") || !strings.Contains(d[0].Path, "DSCP_TO_TC_MAP") {
		t.Errorf("diag: %+v", d[0])
	}
}
