package fabric

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/infile"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// writeInvalidCase stores one case as files under testdata/invalid/<name>/
// (the document Load is given, the file it includes, and want.txt with one
// expected message per line) so the CLI test can run `fabricctl validate` on
// each of them.
func writeInvalidCase(t *testing.T, name, file string, files map[string]string, want []string) {
	dir := filepath.Join("testdata", "invalid", strings.ReplaceAll(name, " ", "-"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for n, content := range files {
		os.WriteFile(filepath.Join(dir, n), []byte(content), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "want.txt"), []byte("file: "+file+"\n"+strings.Join(want, "\n")+"\n"), 0o644)
}

// goodProfile is a valid profile the invalid cases edit.
const goodProfile = `apiVersion: fabricctl.io/v1alpha1
kind: Profile
metadata:
  name: p
spec:
  ethernet:
    mtu: 9000
    classes:
      - name: roce
        priority: 3
        dscp: [26]
        lossless: true
        ets: {bandwidthPercent: 50}
        ecn: {minThreshold: 150KB, maxThreshold: 1500KB}
      - name: cnp
        priority: 6
        dscp: [48]
        ets: {strict: true}
      - name: default
        priority: 0
        dscp: rest
        ets: {bandwidthPercent: 50}
    roce: {class: roce, cnpClass: cnp}
`

const goodFabric = `apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata:
  name: f
spec:
  include: [p.yaml]
  hosts:
    - name: h1
      address: 10.0.0.1
      profile: p
      labels: {role: gpu}
    - name: h2
      address: 10.0.0.2
      profile: p
  switches:
    - name: s1
      platform: sonic
      address: 10.0.1.1
      profile: p
      ports: [Ethernet0]
`

// memFS serves files from a map for Load.
func memFS(files map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if strings.HasSuffix(p, "/dir") || p == "dir" {
			return nil, infile.ErrIsDir
		}
		s, ok := files[p]
		if !ok {
			return nil, fs.ErrNotExist
		}
		return []byte(s), nil
	}
}

// testPlatforms stands in for switchcfg's registry (which fabric cannot
// import): the platform and subnet-manager names of DESIGN.md, every port
// name accepted. cmd/fabricctl's validate test runs the same cases through
// the real registry.
type testPlatforms struct{}

func (testPlatforms) Names() []string {
	return []string{"arista-eos", "cisco-nxos", "cumulus-nvue", "junos", "sonic"}
}
func (testPlatforms) CheckPort(string, string) error { return nil }
func (testPlatforms) SubnetManagerKinds() []string   { return []string{"opensm", "ufm"} }
func (testPlatforms) PartitionsFileProblem(k string) string {
	if k == "ufm" {
		return "UFM manages partitions through its REST API; partitionsFile is for opensm"
	}
	return ""
}

// ibPartition is an infiniband section with one partition of key pkey.
func ibPartition(pkey string) string {
	return "  infiniband: {partitions: [{name: a, pkey: " + pkey + `, members: [{guid: "0x0002c903000e0b72"}]}]}` + "\n"
}

// editFn is one edit of a document; apply chains another after it.
type editFn func(string) string

func (f editFn) apply(g editFn) editFn { return func(s string) string { return g(f(s)) } }

// edit replaces old with new in s exactly once (the test fails otherwise).
func edit(t *testing.T, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("edit: %q occurs %d times", old, strings.Count(s, old))
	}
	return strings.Replace(s, old, new, 1)
}

func TestValidBaseline(t *testing.T) {
	for _, file := range []string{"f.yaml", "p.yaml"} {
		_, err := Load(file, Options{Platforms: testPlatforms{}, ReadFile: memFS(map[string]string{"f.yaml": goodFabric, "p.yaml": goodProfile})})
		if err != nil {
			t.Fatalf("%s: baseline must be valid: %v", file, err)
		}
	}
}

func TestInvalidDocuments(t *testing.T) {
	type tc struct {
		name string
		file string // which file Load is given: f.yaml or p.yaml
		prof editFn
		fab  editFn
		want []string // each must be a line of the error, located
	}
	P := func(old, new string) editFn {
		return func(s string) string { return edit(t, s, old, new) }
	}
	cases := []tc{
		{name: "unknown field", file: "p.yaml", prof: P("    mtu: 9000\n", "    mtu: 9000\n    mtus: 1\n"),
			want: []string{`p.yaml:8:5: spec.ethernet.mtus: unknown field (did you mean "mtu"?)`}},
		{name: "duplicate key", file: "p.yaml", prof: P("    mtu: 9000\n", "    mtu: 9000\n    mtu: 4200\n"),
			want: []string{"p.yaml:8:5: spec.ethernet.mtu: duplicate key (first defined at line 7)"}},
		{name: "mtu is a string", file: "p.yaml", prof: P("mtu: 9000", `mtu: "jumbo"`),
			want: []string{`p.yaml:7:10: spec.ethernet.mtu: expected an integer, got the string "jumbo"`}},
		{name: "mtu missing", file: "p.yaml", prof: P("    mtu: 9000\n", ""),
			want: []string{"spec.ethernet.mtu: required: the host netdev MTU"}},
		{name: "mtu too large", file: "p.yaml", prof: P("mtu: 9000", "mtu: 10000"),
			want: []string{"p.yaml:7:10: spec.ethernet.mtu: 10000 is outside 1280..9216"}},
		{name: "host mtu above switch mtu", file: "p.yaml", prof: P("mtu: 9000", "mtu: 9000\n    switchMtu: 4200"),
			want: []string{"spec.ethernet.mtu: host MTU 9000 is larger than the switch MTU 4200"}},
		{name: "bad trust", file: "p.yaml", prof: P("mtu: 9000", "mtu: 9000\n    trust: dcsp"),
			want: []string{`p.yaml:8:12: spec.ethernet.trust: "dcsp" is not one of dscp, pcp (did you mean "dscp"?)`}},
		{name: "priority out of range", file: "p.yaml", prof: P("priority: 3", "priority: 8"),
			want: []string{"p.yaml:10:19: spec.ethernet.classes[0].priority: 8 is outside 0..7"}},
		{name: "priority missing", file: "p.yaml", prof: P("        priority: 3\n", ""),
			want: []string{"spec.ethernet.classes[0].priority: required: the switch priority 0..7"}},
		{name: "priority used twice", file: "p.yaml", prof: P("priority: 6", "priority: 3"),
			want: []string{`p.yaml:16:19: spec.ethernet.classes[1].priority: priority 3 is already used by class "roce"`}},
		{name: "class name twice", file: "p.yaml", prof: P("name: cnp", "name: roce"),
			want: []string{`spec.ethernet.classes[1].name: class "roce" is defined twice`}},
		{name: "dscp out of range", file: "p.yaml", prof: P("dscp: [26]", "dscp: [26, 64]"),
			want: []string{"p.yaml:11:20: spec.ethernet.classes[0].dscp[1]: DSCP 64 is outside 0..63"}},
		{name: "dscp in two classes", file: "p.yaml", prof: P("dscp: [48]", "dscp: [48, 26]"),
			want: []string{`p.yaml:17:20: spec.ethernet.classes[1].dscp[1]: DSCP 26 is already in class "roce"`}},
		{name: "dscp twice in one class", file: "p.yaml", prof: P("dscp: [26]", "dscp: [26, 26]"),
			want: []string{"spec.ethernet.classes[0].dscp[1]: DSCP 26 is listed twice"}},
		{name: "two rest classes", file: "p.yaml", prof: P("dscp: [48]", "dscp: rest"),
			want: []string{`spec.ethernet.classes[2].dscp: only one class may take the rest of the DSCP values`}},
		{name: "dscp word", file: "p.yaml", prof: P("dscp: rest", "dscp: others"),
			want: []string{`p.yaml:21:15: spec.ethernet.classes[2].dscp: expected a list of DSCP values or "rest", got "others"`}},
		{name: "dscp scalar int", file: "p.yaml", prof: P("dscp: [26]", "dscp: 26"),
			want: []string{"spec.ethernet.classes[0].dscp: expected a list of DSCP values; write [26]"}},
		{name: "ets sum not 100", file: "p.yaml", prof: P("ets: {bandwidthPercent: 50}\n        ecn", "ets: {bandwidthPercent: 60}\n        ecn"),
			want: []string{"spec.ethernet.classes: ETS bandwidth of the non-strict classes sums to 110%, not 100%"}},
		{name: "ets strict and bandwidth", file: "p.yaml", prof: P("ets: {strict: true}", "ets: {strict: true, bandwidthPercent: 10}"),
			want: []string{"spec.ethernet.classes[1].ets: strict and bandwidthPercent exclude each other"}},
		{name: "ets missing", file: "p.yaml", prof: P("        ets: {strict: true}\n", ""),
			want: []string{"spec.ethernet.classes[1].ets: required: {bandwidthPercent: N} or {strict: true}"}},
		{name: "lossless without ecn", file: "p.yaml", prof: P("        ecn: {minThreshold: 150KB, maxThreshold: 1500KB}\n", ""),
			want: []string{"spec.ethernet.classes[0].ecn: a lossless class needs ECN thresholds, or an explicit `ecn: off`"}},
		{name: "ecn min above max", file: "p.yaml", prof: P("minThreshold: 150KB, maxThreshold: 1500KB", "minThreshold: 2MB, maxThreshold: 1500KB"),
			want: []string{"spec.ethernet.classes[0].ecn.minThreshold: 2MB is above maxThreshold 1500KB"}},
		{name: "bad size unit", file: "p.yaml", prof: P("minThreshold: 150KB", "minThreshold: 150kb"),
			want: []string{`p.yaml:14:29: spec.ethernet.classes[0].ecn.minThreshold: "150kb" is not a size; use a number with B, KB, KiB, MB, MiB, GB or GiB`}},
		{name: "ecn word", file: "p.yaml", prof: P("ecn: {minThreshold: 150KB, maxThreshold: 1500KB}", "ecn: on"),
			want: []string{`spec.ethernet.classes[0].ecn: expected ECN thresholds or "off", got the string "on"`}},
		{name: "mark probability", file: "p.yaml", prof: P("maxThreshold: 1500KB}", "maxThreshold: 1500KB, maxMarkProbability: 150}"),
			want: []string{"spec.ethernet.classes[0].ecn.maxMarkProbability: 150 is outside 1..100 (percent)"}},
		{name: "roce class missing", file: "p.yaml", prof: P("roce: {class: roce,", "roce: {class: rcoe,"),
			want: []string{`spec.ethernet.roce.class: no class named "rcoe" (did you mean "roce"?)`}},
		{name: "roce class lossy", file: "p.yaml", prof: P("roce: {class: roce,", "roce: {class: default,"),
			want: []string{`spec.ethernet.roce.class: class "default" is not lossless; set lossless: true on it, or roce.allowLossy: true`}},
		{name: "cnp same as roce", file: "p.yaml", prof: P("cnpClass: cnp}", "cnpClass: roce}"),
			want: []string{`spec.ethernet.roce.cnpClass: CNPs must use a different class than RoCE data ("roce")`}},
		{name: "tos disagrees with dscp", file: "p.yaml", prof: P("cnpClass: cnp}", "cnpClass: cnp, tos: 100}"),
			want: []string{`spec.ethernet.roce.tos: ToS 100 carries DSCP 25, which is not in class "roce"`}},
		{name: "tos range", file: "p.yaml", prof: P("cnpClass: cnp}", "cnpClass: cnp, tos: 300}"),
			want: []string{"spec.ethernet.roce.tos: 300 is outside 0..255"}},
		{name: "roce mode", file: "p.yaml", prof: P("roce: {class: roce,", "roce: {mode: v3, class: roce,"),
			want: []string{`spec.ethernet.roce.mode: "v3" is not one of v1, v2`}},
		{name: "dcqcn unknown param", file: "p.yaml", prof: P("cnpClass: cnp}", "cnpClass: cnp, dcqcn: {rp: {rpg_ai_rat: 5}}}"),
			want: []string{`spec.ethernet.roce.dcqcn.rp.rpg_ai_rat: unknown parameter (did you mean "rpg_ai_rate"?)`}},
		{name: "global pause with pfc", file: "p.yaml", prof: P("mtu: 9000", "mtu: 9000\n    globalPause: true"),
			want: []string{"spec.ethernet.globalPause: 802.3x global pause must be off where PFC is on"}},
		{name: "watchdog without times", file: "p.yaml", prof: P("    roce:", "    pfc: {watchdog: {enabled: true}}\n    roce:"),
			want: []string{"spec.ethernet.pfc.watchdog.pollInterval: required when the watchdog is enabled"}},
		{name: "duration without unit", file: "p.yaml", prof: P("    roce:", "    pfc: {watchdog: {enabled: true, pollInterval: 100, detectionTime: 200ms, restorationTime: 400ms}}\n    roce:"),
			want: []string{"spec.ethernet.pfc.watchdog.pollInterval: duration 100 has no unit"}},
		{name: "cable length unit", file: "p.yaml", prof: P("    roce:", "    pfc: {cableLength: 5ft}\n    roce:"),
			want: []string{`spec.ethernet.pfc.cableLength: "5ft" is not a length`}},
		{name: "boolean where string", file: "p.yaml", prof: P("name: cnp", "name: true"),
			want: []string{"spec.ethernet.classes[1].name: expected a string, got a boolean"}},
		{name: "wrong apiVersion", file: "p.yaml", prof: P("fabricctl.io/v1alpha1", "fabricctl.io/v1"),
			want: []string{`p.yaml:1:13: apiVersion: "fabricctl.io/v1" is not supported; use fabricctl.io/v1alpha1`}},
		{name: "wrong kind", file: "p.yaml", prof: P("kind: Profile", "kind: Profil"),
			want: []string{`p.yaml:2:7: kind: "Profil" is not a document kind; use Fabric or Profile (did you mean "Profile"?)`}},
		{name: "profile without name", file: "p.yaml", prof: P("  name: p\n", "  description: x\n"),
			want: []string{"p.yaml:4:3: metadata.name: required: every profile needs a name"}},
		{name: "yaml syntax", file: "p.yaml", prof: P("dscp: [26]", "dscp: [26"),
			want: []string{"p.yaml:"}},
		{name: "empty profile", file: "p.yaml", prof: P("  ethernet:", "  ethernett:"),
			want: []string{`spec.ethernett: unknown field (did you mean "ethernet"?)`}},
		// Fabric documents.
		{name: "missing include", file: "f.yaml", fab: P("[p.yaml]", "[p.yaml, q.yaml]"),
			want: []string{"f.yaml:6:21: spec.include[1]: included file q.yaml does not exist"}},
		{name: "include directory", file: "f.yaml", fab: P("[p.yaml]", "[p.yaml, dir]"),
			want: []string{"spec.include[1]: included path dir is a directory"}},
		{name: "include itself", file: "f.yaml", fab: P("[p.yaml]", "[p.yaml, f.yaml]"),
			want: []string{"f.yaml:6:21: spec.include[1]: include cycle: f.yaml includes itself"}},
		{name: "include twice", file: "f.yaml", fab: P("[p.yaml]", "[p.yaml, ./p.yaml]"),
			want: []string{"spec.include[1]: ./p.yaml is included twice"}},
		{name: "unknown profile", file: "f.yaml", fab: P("      profile: p\n      labels", "      profile: roce\n      labels"),
			want: []string{`f.yaml:10:16: spec.hosts[0].profile: no profile named "roce"`}},
		{name: "bad address", file: "f.yaml", fab: P("10.0.0.1", "10.0.0.256"),
			want: []string{`f.yaml:9:16: spec.hosts[0].address: "10.0.0.256" is not an IP address or host name`}},
		{name: "duplicate address", file: "f.yaml", fab: P("10.0.0.2", "10.0.0.1"),
			want: []string{"spec.hosts[1].address: address 10.0.0.1 port 22 is already used by host h1"}},
		{name: "duplicate name", file: "f.yaml", fab: P("name: h2", "name: h1"),
			want: []string{`spec.hosts[1].name: name "h1" is already used by host h1`}},
		{name: "switch named like host", file: "f.yaml", fab: P("name: s1", "name: h2"),
			want: []string{`spec.switches[0].name: name "h2" is already used by host h2`}},
		{name: "unknown platform", file: "f.yaml", fab: P("platform: sonic", "platform: arista"),
			want: []string{`f.yaml:17:17: spec.switches[0].platform: unknown platform "arista" (did you mean "arista-eos"?); valid: arista-eos, cisco-nxos, cumulus-nvue, junos, sonic`}},
		{name: "bad interface name", file: "f.yaml", fab: P("      labels: {role: gpu}", "      interfaces: [ens1f0np0/x]\n      labels: {role: gpu}"),
			want: []string{`spec.hosts[0].interfaces[0]: "ens1f0np0/x" is not a Linux interface name`}},
		{name: "backwards port range", file: "f.yaml", fab: P("[Ethernet0]", "[Ethernet8-4]"),
			want: []string{`spec.switches[0].ports[0]: port range "Ethernet8-4" runs backwards or is not numeric`}},
		{name: "duplicate port", file: "f.yaml", fab: P("[Ethernet0]", "[Ethernet0-4, Ethernet2]"),
			want: []string{"spec.switches[0].ports[1]: port Ethernet2 is listed twice"}},
		{name: "password in yaml", file: "f.yaml", fab: P("      ports: [Ethernet0]\n", "      ports: [Ethernet0]\n      ssh: {password: hunter2}\n"),
			want: []string{`spec.switches[0].ssh.password: unknown field (did you mean "passwordEnv"?)`}},
		{name: "password env name", file: "f.yaml", fab: P("      ports: [Ethernet0]\n", "      ports: [Ethernet0]\n      ssh: {passwordEnv: hunter 2}\n"),
			want: []string{`spec.switches[0].ssh.passwordEnv: "hunter 2" is not an environment variable name`}},
		{name: "ssh port", file: "f.yaml", fab: P("      ports: [Ethernet0]\n", "      ports: [Ethernet0]\n      ssh: {port: 70000}\n"),
			want: []string{"spec.switches[0].ssh.port: 70000 is not a TCP port"}},
		{name: "no targets", file: "f.yaml", fab: func(s string) string { return s[:strings.Index(s, "  hosts:")] },
			want: []string{"spec: a fabric needs at least one host, switch or subnet manager"}},
		{name: "pairwise needs two hosts", file: "f.yaml", fab: P("  switches:", "  checks:\n    pairwise: {schedule: cross-leaf}\n  switches:"),
			want: []string{"spec.hosts[0].labels: schedule cross-leaf needs a leaf label on every host; h1 has none"}},
		{name: "bad schedule", file: "f.yaml", fab: P("  switches:", "  checks:\n    pairwise: {schedule: all}\n  switches:"),
			want: []string{`spec.checks.pairwise.schedule: "all" is not one of all-pairs, ring, halves, cross-leaf`}},
		{name: "nccl tool", file: "f.yaml", fab: P("  switches:", "  checks:\n    nccl: {tool: mpi}\n  switches:"),
			want: []string{`spec.checks.nccl.tool: "mpi" is not one of auto, nccl-tests, torch`}},
		{name: "nccl check out of range", file: "f.yaml", fab: P("  switches:", "  checks:\n    nccl: {minBytes: 2GiB, maxBytes: 1GiB, port: 70000, env: {IB_HCA: mlx5_0}}\n  switches:"),
			want: []string{"spec.checks.nccl.minBytes: 2GiB is larger than maxBytes 1GiB",
				"spec.checks.nccl.port: 70000 is outside 1..65535", "spec.checks.nccl.env.IB_HCA: not an NCCL variable"}},
		{name: "two fabrics in a file", file: "f.yaml", fab: func(s string) string { return s + "---\n" + s },
			want: []string{"kind: a second Fabric document in one file"}},
		{name: "host hosts are a mapping", file: "f.yaml", fab: P("  hosts:\n", "  hosts: {}\n  hostz:\n"),
			want: []string{"spec.hosts: expected a list, got a mapping"}},
		// Partition keys: a hint never suggests a refused key (issue 13).
		{name: "pkey full member of default", file: "p.yaml", prof: P("spec:\n", "spec:\n"+ibPartition("0xffff")),
			want: []string{"spec.infiniband.partitions[0].pkey: 0xffff has the full-member bit set, and its low 15 bits 0x7fff are the default partition; pick a key in 0x0001..0x7ffe and use membership: full"}},
		{name: "pkey full member bit only", file: "p.yaml", prof: P("spec:\n", "spec:\n"+ibPartition("0x8000")),
			want: []string{"spec.infiniband.partitions[0].pkey: 0x8000 has the full-member bit set, and its low 15 bits 0x0000 are no partition key; pick a key in 0x0001..0x7ffe and use membership: full"}},
		{name: "pkey full member", file: "p.yaml", prof: P("spec:\n", "spec:\n"+ibPartition("0x8002")),
			want: []string{"spec.infiniband.partitions[0].pkey: 0x8002 has the full-member bit set; write 0x0002 and use membership: full"}},
		// OpenSM applies mtu, rate and sl to the IPoIB broadcast group only (issue 14).
		{name: "partition mtu without ipoib", file: "p.yaml", prof: P("spec:\n", "spec:\n"+strings.Replace(ibPartition("0x0002"), "pkey: 0x0002,", "pkey: 0x0002, mtu: 4096, serviceLevel: 1,", 1)),
			want: []string{"spec.infiniband.partitions[0].mtu: acts only on the partition's IPoIB broadcast group (OpenSM partition-config.txt); set ipoib: true or remove it",
				"spec.infiniband.partitions[0].serviceLevel: acts only on the partition's IPoIB broadcast group (OpenSM partition-config.txt); set ipoib: true or remove it"}},
		// Address identity (issue 13): one address written two ways is one target.
		{name: "same IPv6 address written twice", file: "f.yaml", fab: P("10.0.0.1", "fd00::1").apply(P("10.0.0.2", "fd00:0:0:0::1")),
			want: []string{`spec.hosts[1].address: address fd00:0:0:0::1 (fd00::1 port 22) is already used by host h1`}},
		{name: "IPv4-mapped address", file: "f.yaml", fab: P("10.0.0.2", "::ffff:10.0.0.1"),
			want: []string{`spec.hosts[1].address: address ::ffff:10.0.0.1 (10.0.0.1 port 22) is already used by host h1`}},
		{name: "host name case and trailing dot", file: "f.yaml", fab: P("10.0.0.1", "node1.lab").apply(P("10.0.0.2", "NODE1.lab.")),
			want: []string{`spec.hosts[1].address: address NODE1.lab. (node1.lab port 22) is already used by host h1`}},
		{name: "same address and explicit default port", file: "f.yaml", fab: P("10.0.1.1", "10.0.0.1").apply(P("      ports: [Ethernet0]\n", "      ports: [Ethernet0]\n      ssh: {port: 22}\n")),
			want: []string{`spec.switches[0].address: address 10.0.0.1 port 22 is already used by host h1`}},
		{name: "interface dot", file: "f.yaml", fab: P("      labels: {role: gpu}", "      interfaces: [\".\", \"..\", \"eth0:1\"]\n      labels: {role: gpu}"),
			want: []string{`spec.hosts[0].interfaces[0]: "." is not a Linux interface name`, `spec.hosts[0].interfaces[1]: ".." is not a Linux interface name`,
				`spec.hosts[0].interfaces[2]: "eth0:1" is not a Linux interface name`}},
		// Look-alike names side by side (issue 13).
		{name: "homoglyph class name", file: "p.yaml", prof: P("name: cnp", "name: r\u043ece"),
			want: []string{`spec.ethernet.classes[1].name: "r\u043ece" mixes scripts (Latin, Cyrillic)`}},
		{name: "confusable class names", file: "p.yaml", prof: P("name: cnp", "name: cope").apply(P("cnpClass: cnp}", "cnpClass: cope}")).apply(P("name: default", "name: \u0441\u043e\u0440\u0435")),
			want: []string{`spec.ethernet.classes[2].name: class "\u0441\u043e\u0440\u0435" looks like class "cope" (classes[1]) but is another name`}},
		{name: "look-alike label values", file: "f.yaml", fab: P("      profile: p\n  switches", "      profile: p\n      labels: {role: \"g\u0440u\"}\n  switches"),
			want: []string{`spec.hosts[1].labels.role: label value "g\u0440u" mixes scripts (Latin, Cyrillic)`}},
		{name: "invisible character in a name", file: "p.yaml", prof: P("name: cnp", "name: \"ro\\u200bce\""),
			want: []string{`spec.ethernet.classes[1].name: "ro\u200bce" holds an invisible character (U+200B)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"f.yaml": goodFabric, "p.yaml": goodProfile}
			if c.prof != nil {
				files["p.yaml"] = c.prof(goodProfile)
			}
			if c.fab != nil {
				files["f.yaml"] = c.fab(goodFabric)
			}
			if *testutil.Update {
				writeInvalidCase(t, c.name, c.file, files, c.want)
			}
			_, err := Load(c.file, Options{Platforms: testPlatforms{}, ReadFile: memFS(files)})
			if err == nil {
				t.Fatalf("want an error, got none")
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error is %T, want Errors: %v", err, err)
			}
			for _, w := range c.want {
				found := false
				for _, e := range errs {
					found = found || strings.Contains(e.Error(), w)
				}
				if !found {
					t.Errorf("no error contains %q; got:\n%v", w, err)
				}
			}
			for _, e := range errs {
				if e.Pos.File == "" {
					t.Errorf("error without a file: %v", e)
				}
			}
		})
	}
	if len(cases) < 40 {
		t.Fatalf("only %d invalid cases; the issue asks for at least 40", len(cases))
	}
}

// Identity is address and SSH port: two switches behind one address on
// different ports are two targets (issue 13).
func TestSameAddressOtherPortAccepted(t *testing.T) {
	fab := edit(t, goodFabric, "      ports: [Ethernet0]\n",
		"      ports: [Ethernet0]\n      ssh: {port: 2201}\n    - {name: s2, platform: sonic, address: 10.0.1.1, profile: p, ports: [Ethernet0], ssh: {port: 2202}}\n")
	if _, err := Load("f.yaml", Options{ReadFile: memFS(map[string]string{"f.yaml": fab, "p.yaml": goodProfile})}); err != nil {
		t.Fatalf("two switches on one address with their own ports: %v", err)
	}
}
