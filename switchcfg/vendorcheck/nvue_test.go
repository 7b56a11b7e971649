package vendorcheck

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const nvuePlatform = "cumulus-nvue"

// Every `nv set` / `nv unset` line of every Cumulus render resolves in the
// NVUE facts of every release known: the path exists, every key (lists and
// ranges expanded) and every value is accepted. A line the facts cannot
// decide fails.
func TestNVUERendersMatchOpenAPIFacts(t *testing.T) {
	cases, refused, err := Cases(repoRoot(t), nvuePlatform)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cumulus-nvue cases")
	}
	for _, rel := range NVUEReleases {
		tree, err := rel.Tree()
		if err != nil {
			t.Fatal(err)
		}
		lines := 0
		for _, c := range cases {
			cmds, err := ParseNVUE(c.Config.Text)
			if err != nil {
				t.Errorf("%s: %v", c.Name, err)
				continue
			}
			for _, cmd := range cmds {
				lines++
				if err := CheckNVUE(tree, cmd); err != nil {
					t.Errorf("Cumulus Linux %s facts: %s: line %d %q: %v", rel.Release, c.Name, cmd.Line, cmd.Text, err)
				}
			}
		}
		t.Logf("Cumulus Linux %s (%s): %d cases, %d lines checked, %d generated cases refused by the loader",
			rel.Release, rel.Source, len(cases), lines, len(refused))
	}
	for _, r := range refused {
		t.Logf("refused %s: %v", r.Name, r.Err)
	}
}

// The checker refuses what NVUE's schema refuses, and does not pass what it
// cannot decide.
func TestNVUEFactsRefuse(t *testing.T) {
	tree, err := nvue512.Tree()
	if err != nil {
		t.Fatal(err)
	}
	accept := []string{
		"nv set qos egress-scheduler default-global traffic-class 1-2,4-5,7 bw-percent 0",
		"nv set qos egress-scheduler default-global traffic-class 3 bw-percent 100",
		"nv set qos mapping default-global dscp 0-25,27,29,31-47,49-63 switch-priority 0",
		"nv set qos roce mode lossless",
		"nv set interface swp1-4,swp49 qos pfc-watchdog",
		"nv set interface swp1s0 link mtu 552",
		"nv unset qos traffic-pool default-lossless",
		"nv unset interface swp1 qos pfc-watchdog",
		"nv set qos traffic-pool default-lossless switch-priority 3-4",
	}
	for _, l := range accept {
		if err := check(t, tree, l); err != nil {
			t.Errorf("%q refused: %v", l, err)
		}
	}
	refuse := []string{
		"nv set qos egress-scheduler default-global traffic-class 3 bw-percent 101",
		"nv set qos egress-scheduler default-global traffic-class 3 bw-percent -1",
		"nv set qos egress-scheduler default-global traffic-class 3 mode wrr",
		"nv set interface swp1 link mtu 9217",
		"nv set interface swp1 link mtu 551",
		"nv set qos mapping default-global trust l4",
		"nv set qos traffic-pool lossless memory-percent 50",
		"nv set qos traffic-pool default-lossless memory-percent 0",
		"nv set qos pfc default-global switch-priority x",
		"nv set qos pfc default-global switch-priority 3-",
		"nv set qos pfc default-global cable-lenght 5",
		"nv set qos pfc default-global cable-length",
		"nv set qos pfc default-global cable-length 5 6",
		"nv unset qos pfc default-global cable-length 5",
		"nv set qos pfc-watchdog polling-interval 99",
		"nv set qos pfc-watchdog robustness 1001",
		"nv set qos egress-queue-mapping myprofile switch-priority 3 traffic-class 3",
		"nv set qos congestion-control default-global traffic-class 3 probability 101",
		"nv set qos congestion-control default-global traffic-class 3 min-threshold 0",
		"nv set interface swp1 qos pfc-watchdog state on",
		"nv set interface bond1 link mtu 9000",
		"nv set system hostname leaf",
	}
	for _, l := range refuse {
		if err := check(t, tree, l); err == nil {
			t.Errorf("%q accepted", l)
		} else if errors.Is(err, ErrNVUEUndecided) {
			t.Errorf("%q undecided, want refused: %v", l, err)
		}
	}
	// A profile name other than default-global has the format
	// "profile-name", which the document does not spell out.
	if err := check(t, tree, "nv set qos congestion-control MYPROFILE traffic-class 3 ecn enable"); !errors.Is(err, ErrNVUEUndecided) {
		t.Errorf("a custom profile name: got %v, want undecided", err)
	}
}

func check(t *testing.T, tree NVUENode, line string) error {
	t.Helper()
	cmds, err := ParseNVUE(line)
	if err != nil || len(cmds) != 1 {
		t.Fatalf("parsing %q: %v", line, err)
	}
	return CheckNVUE(tree, cmds[0])
}

func TestParseNVUE(t *testing.T) {
	cmds, err := ParseNVUE("nv unset qos roce\n\nnv set qos roce mode lossy\n")
	if err != nil || len(cmds) != 2 || !cmds[0].Unset || cmds[1].Line != 3 || strings.Join(cmds[1].Words, " ") != "qos roce mode lossy" {
		t.Fatalf("got %+v, %v", cmds, err)
	}
	for _, bad := range []string{"nv config apply", "sudo nv set qos roce mode lossy", "nv set"} {
		if _, err := ParseNVUE(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestExpandNVUEList(t *testing.T) {
	for in, want := range map[string]string{
		"3":            "3",
		"1-2,4-5,7":    "1 2 4 5 7",
		"swp1-4,swp49": "swp1 swp2 swp3 swp4 swp49",
		"swp1s0":       "swp1s0",
		// Breakouts as the driver compresses them.
		"swp1s0-3,swp9": "swp1s0 swp1s1 swp1s2 swp1s3 swp9",
		"0,6":           "0 6",
	} {
		got, err := ExpandNVUEList(in)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("%q: got %q, %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"5-3", "1,,2", ""} {
		if _, err := ExpandNVUEList(bad); err == nil {
			t.Errorf("%q expanded", bad)
		}
	}
}

// miniSpec is a small document written for this test in the shape of NVUE's
// openapi.json: PATCH / request body, x-defs joined by $ref, allOf and
// anyOf, keyed collections as additionalProperties with x-propertyNames,
// nullable enums.
const miniSpec = `{
  "info": {"title": "mini", "version": "0.1"},
  "paths": {"/": {"patch": {"requestBody": {"$ref": "#/x-defs/body"}}}},
  "x-defs": {
    "body": {"content": {"application/json": {"schema": {"$ref": "#/x-defs/root"}}}},
    "root": {"type": "object", "allOf": [{"$ref": "#/x-defs/root-children"}]},
    "root-children": {"properties": {"qos": {"$ref": "#/x-defs/qos"}}},
    "qos": {"type": "object", "allOf": [{"properties": {"sched": {"$ref": "#/x-defs/profiles"}}}]},
    "profiles": {"type": "object", "allOf": [{"$ref": "#/x-defs/profiles-mapping"}]},
    "profiles-mapping": {"x-propertyNames": {"$ref": "#/x-defs/profile-id"}, "additionalProperties": {"$ref": "#/x-defs/profile"}},
    "profile-id": {"type": "string", "anyOf": [{"$ref": "#/x-defs/default-name"}, {"type": "string", "format": "profile-name"}]},
    "default-name": {"type": "string", "enum": ["default-global", null], "nullable": true},
    "profile": {"type": "object", "allOf": [{"$ref": "#/x-defs/profile-config"}, {"properties": {"tc": {"allOf": [{"$ref": "#/x-defs/tc-mapping"}]}}}]},
    "profile-config": {"properties": {"mode": {"type": "string", "enum": ["dwrr", "strict", null], "nullable": true}}},
    "tc-mapping": {"x-propertyNames": {"anyOf": [{"type": "string", "format": "integer"}]}, "additionalProperties": {"allOf": [{"$ref": "#/x-defs/tc-config"}]}},
    "tc-config": {"properties": {"bw": {"type": "integer", "minimum": 0, "maximum": 100, "nullable": true},
                                 "size": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 9}, {"type": "string", "enum": ["auto", null]}]}}}
  }
}`

func loadMini(t *testing.T) *NVUESpec {
	t.Helper()
	p := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(p, []byte(miniSpec), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadNVUESpec(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The document walker follows $ref, allOf, anyOf and keyed collections, and
// reads values the way the facts table holds them.
func TestNVUESpecWalker(t *testing.T) {
	s := loadMini(t)
	root := s.Root()
	for _, l := range []string{
		"nv set qos sched default-global tc 0,3-4 bw 0",
		"nv set qos sched default-global mode strict",
		"nv set qos sched default-global tc 2 size auto",
		"nv set qos sched default-global tc 2 size 9",
		"nv unset qos sched default-global",
	} {
		if err := check(t, root, l); err != nil {
			t.Errorf("%q refused: %v", l, err)
		}
	}
	for _, l := range []string{
		"nv set qos sched default-global tc 3 bw 101",
		"nv set qos sched default-global tc x bw 1",
		"nv set qos sched default-global mode wrr",
		"nv set qos sched default-global tc 2 size 10",
		"nv set qos sched default-global tc 2 size manual",
		"nv set qos sched default-global tc 2 bw",
		"nv set qos shaper default-global",
	} {
		if err := check(t, root, l); err == nil || errors.Is(err, ErrNVUEUndecided) {
			t.Errorf("%q: got %v, want refused", l, err)
		}
	}
	want := NVUEFacts{
		Keys: map[string]NVUEKey{
			"profile": {From: "openapi", Value: NVUEValue{{Type: "string", Enum: []string{"default-global"}}, {Type: "string", Format: "profile-name"}}},
			"tc":      {From: "openapi", Value: NVUEValue{{Type: "string", Format: "integer"}}},
		},
		Facts: []NVUEFact{
			{Path: "qos sched {profile} mode", Value: enum("dwrr", "strict")},
			{Path: "qos sched {profile} tc {tc} bw", Value: integer(0, 100)},
			{Path: "qos sched {profile} tc {tc} size", Value: append(integer(1, 9), NVUEScalar{Type: "string", Enum: []string{"auto"}})},
		},
	}
	got, err := ExtractNVUEFacts(s, want)
	if err != nil {
		t.Fatal(err)
	}
	compareFacts(t, want, got)
	if _, err := ExtractNVUEFacts(s, NVUEFacts{Facts: []NVUEFact{{Path: "qos sched {profile} tc {tc} bw"}}}); err == nil {
		t.Error("a leaf extracted as an object")
	}
}

// compareFacts requires got (read from a document) to equal want (the
// table) for every fact and every key read from the document.
func compareFacts(t *testing.T, want, got NVUEFacts) {
	t.Helper()
	for i, f := range want.Facts {
		if i >= len(got.Facts) {
			t.Errorf("%s: not extracted", f.Path)
			continue
		}
		if w, g := normalize(f.Value), got.Facts[i].Value; !reflect.DeepEqual(w, g) {
			t.Errorf("%s: table says %s, the document %s", f.Path, w, g)
		}
	}
	for name, k := range want.Keys {
		g, ok := got.Keys[name]
		switch {
		case !ok:
			t.Errorf("key {%s}: not reached", name)
		case k.From != "openapi":
			t.Logf("key {%s} (%s, from %s, %s in the table): the document says %s", name, k.Def, k.From, k.Value, g.Value)
		case !reflect.DeepEqual(normalize(k.Value), g.Value):
			t.Errorf("key {%s}: table says %s, the document %s", name, normalize(k.Value), g.Value)
		}
	}
}

// nvueSpecPath finds a release's openapi.json outside the repository:
// $FABRICCTL_NVUE_OPENAPI (one file, for the newest release) or
// ../output-corpus/nvue/<release>/openapi.json beside the repository.
func nvueSpecPath(t *testing.T, rel NVUEFacts, newest bool) string {
	if p := os.Getenv("FABRICCTL_NVUE_OPENAPI"); p != "" && newest {
		return p
	}
	short := rel.Release
	if parts := strings.Split(short, "."); len(parts) >= 2 {
		short = parts[0] + "." + parts[1]
	}
	for _, dir := range []string{rel.Release, short} {
		p := filepath.Join(repoRoot(t), "..", "output-corpus", "nvue", dir, "openapi.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// With NVIDIA's openapi.json at hand (never in the repository), the facts
// table is what the document says, and every render resolves in the whole
// document too.
func TestNVUEFactsMatchOpenAPI(t *testing.T) {
	cases, _, err := Cases(repoRoot(t), nvuePlatform)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for i, rel := range NVUEReleases {
		path := nvueSpecPath(t, rel, i == 0)
		if path == "" {
			t.Logf("Cumulus Linux %s: no openapi.json (set FABRICCTL_NVUE_OPENAPI or put it in ../output-corpus/nvue/%s/)", rel.Release, rel.Release)
			continue
		}
		found++
		t.Run(rel.Release, func(t *testing.T) {
			spec, err := LoadNVUESpec(path)
			if err != nil {
				t.Fatal(err)
			}
			if spec.Title != rel.Title || spec.Version != rel.APIVersion {
				t.Errorf("%s is %q %s, the facts are of %q %s", path, spec.Title, spec.Version, rel.Title, rel.APIVersion)
			}
			got, err := ExtractNVUEFacts(spec, rel)
			if err != nil {
				t.Fatal(err)
			}
			compareFacts(t, rel, got)
			root := spec.Root()
			lines := 0
			for _, c := range cases {
				cmds, err := ParseNVUE(c.Config.Text)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				for _, cmd := range cmds {
					lines++
					if err := CheckNVUE(root, cmd); err != nil {
						t.Errorf("%s: line %d %q: %v", c.Name, cmd.Line, cmd.Text, err)
					}
				}
			}
			t.Logf("%s: %d cases, %d lines checked against the whole document", path, len(cases), lines)
		})
	}
	if found == 0 {
		t.Skip("no NVUE openapi.json outside the repository")
	}
}
