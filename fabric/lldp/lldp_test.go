package lldp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

func samples(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, g := range []string{"*.json", "*.kv"} {
		m, err := filepath.Glob(filepath.Join("testdata", g))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 10 {
		t.Fatalf("only %d samples under testdata", len(out))
	}
	return out
}

// TestGolden parses every sample (real captures and fabricctl's own, see
// testdata/README.md) and compares the neighbours with its golden file.
func TestGolden(t *testing.T) {
	for _, p := range samples(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			ns, err := Parse(data)
			if err != nil {
				t.Fatalf("parsing: %v", err)
			}
			got, err := json.MarshalIndent(ns, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Base(p)+".golden", append(got, '\n'))
		})
	}
}

// TestFacts pins what users rely on, independent of the goldens.
func TestFacts(t *testing.T) {
	read := func(name string) []fabric.Neighbor {
		t.Helper()
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		ns, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return ns
	}
	type fact struct{ local, system, port string }
	check := func(name string, want []fact) {
		t.Helper()
		ns := read(name)
		if len(ns) != len(want) {
			t.Fatalf("%s: %d neighbours, want %d: %+v", name, len(ns), len(want), ns)
		}
		for i, w := range want {
			if got := (fact{ns[i].LocalPort, ns[i].SystemName, ns[i].PortName()}); got != w {
				t.Errorf("%s[%d] = %+v, want %+v", name, i, got, w)
			}
		}
	}
	check("suzieq-cumulus-leaf01-json0.json", []fact{{"swp1", "spine01", "swp1"}, {"swp2", "spine02", "swp1"}})
	check("netbox-agent-qfx.kv", []fact{{"eth0", "sw-filer-f06.dc42", "xe-0/0/1"}, {"eth1", "sw-filer-f05.dc42", "xe-0/0/1"}})
	check("netbox-agent-cumulus.kv", []fact{{"eno1", "toto-chassis.dc42", "swp46"}, {"eno2d1", "", "swp46"}})
	check("lldpd-test-json.json", []fact{{"eth0", "ns-2.example.com", "eth1"}})
	check("lldpd-test-json0.json", []fact{{"eth0", "ns-2.example.com", "eth1"}})
	check("sonic-dbsyncd-interface-only.json", []fact{{"Ethernet0", "", "Ethernet1"}, {"Ethernet100", "switch13", "Ethernet26"}})
	check("sonic-dbsyncd-empty.json", nil)
	check("own-gpu-two-rails.json", []fact{{"eno1", "oob-sw-12", "Ethernet12"},
		{"ens1f0np0", "leaf-r0-03.dc1.example.net", "swp7"}, {"ens2f0np0", "leaf-r1-03", "et-0/0/7:1"}})
	check("own-two-neighbors-vlan-iface.kv", []fact{{"bond0.100", "leaf-07", "Ethernet48"}, {"bond0.100", "lab-sw-tmp", "eth3"}})

	json0, jsn := read("lldpd-test-json0.json"), read("lldpd-test-json.json")
	if b0, b1 := mustJSON(t, json0), mustJSON(t, jsn); b0 != b1 {
		t.Errorf("json0 and json of one neighbour differ:\n%s\n%s", b0, b1)
	}
	cum := read("netbox-agent-cumulus.kv")[0]
	if strings.Join(cum.MgmtAddresses, ",") != "10.160.20.18,fe80::e6f0:4ff:feb6:4732" || cum.TTL != 120 || cum.ChassisID != "e4:f0:04:b6:47:32" {
		t.Errorf("cumulus neighbour: %+v", cum)
	}
	if ttl := read("sonic-dbsyncd-mgmt-only.json")[0].TTL; ttl != 90 {
		t.Errorf("TTL under the chassis: %d, want 90", ttl)
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestErrors(t *testing.T) {
	for in, want := range map[string]string{
		"{\"lldp\": {\"interface\": [\n  {\"eth0\": }\n]}}":            "line 2, column 13",
		`{"lldp": {"interface": [{"eth0": "x"}]}}`:                     `lldp.interface[0]: interface "eth0" is a string, not an object`,
		`{"lldp": {"interface": {"eth0": {"chassis": "leaf"}}}}`:       "lldp.interface[0] eth0: chassis is a string, not an object",
		`{"lldp": {"interface": {"eth0": {"port": {"ttl": "soon"}}}}}`: `TTL "soon" is not a number of seconds`,
		`{"lldp": "none"}`:          "lldp is a string, not an object",
		`{"interfaces": []}`:        `no "lldp" key`,
		`{"lldp": {}} {"lldp": {}}`: "data after the document at line 1, column 14",
		"lldp.eth0.via=LLDP\nlldp.eth0.chassis.name leaf-01\n": "line 2: no '=' in",
		"Interface:    eth0, via: LLDP\n":                      `line 1: no '='`,
		"chassis.name=leaf-01\n":                               `line 1: key "chassis.name" does not start with "lldp."`,
		"lldp.=x\n":                                            "names no interface",
	} {
		_, err := Parse([]byte(in))
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want ErrFormat containing %q", in, err, want)
		}
	}
	for _, empty := range []string{"", "\n\n", "# nothing yet\n", `{"lldp": {}}`, `{"lldp": [{"interface": []}]}`} {
		if ns, err := Parse([]byte(empty)); err != nil || len(ns) != 0 {
			t.Errorf("Parse(%q) = %v, %v; want no neighbours", empty, ns, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range samples(f) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ns, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error without ErrFormat: %v", err)
			}
			return
		}
		again, _ := Parse(data)
		if mustJSON2(ns) != mustJSON2(again) {
			t.Fatal("two parses of one input differ")
		}
		for _, n := range ns {
			if n.LocalPort == "" {
				t.Fatalf("a neighbour without a local port: %+v", n)
			}
			if n.TTL < 0 || n.TTL > 65535 {
				t.Fatalf("TTL %d", n.TTL)
			}
		}
	})
}

func mustJSON2(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
