package iblab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// PartitionCase is one partitions.conf render that the vendor check pushes
// to the real OpenSM of a CasesTopology lab (lab/iblab's
// TestIBLabVendorCheckPartitions): OpenSM must read it without a partition
// error or warning, and every port's P_Key table must then hold exactly
// what Intent says.
type PartitionCase struct {
	// Name says where the case comes from: "example profiles/lab/ib.yaml",
	// "generated memberships", "direct default-with-all".
	Name string
	// Intent is the subnet manager's resolved intent; GUIDs maps its hosts
	// to their port GUIDs in CasesTopology.
	Intent fabric.SubnetManagerIntent
	GUIDs  map[string][]string
	// Want, set for the example files, is every CA's memberships by node
	// name ("0x0001=full 0x7fff=limited"), written out by hand; otherwise
	// the check derives them from Intent.
	Want map[string]string
	// Exceeds: the intent asks more pkeys of a port than its P_Key table
	// holds (64 in ibsim). No file can give it; a push must not claim it.
	Exceeds bool
	// Refuse, when set, is what opensm.Render's error must say: an intent
	// OpenSM cannot be given.
	Refuse string
}

// RefusedCase is a generated profile the fabric loader refuses: an option
// the intent model does not carry, so no render of it reaches OpenSM.
type RefusedCase struct {
	Name string
	Err  error
}

// CasesTopology is the fabric the partition cases run on: ib-spine-01 over
// ib-leaf-01 (ib-h1, ib-h2, ib-h3, sm-01) and ib-leaf-02 (ib-h4, ib-h5 and
// both ports of the two-port ib-h6). ib-h5's port GUID is
// 0x0002c903000e0b72, the GUID member of profiles/ib-partitions.yaml.
func CasesTopology() Topology {
	t := Topology{SMNode: "sm-01", Nodes: []Node{
		{Name: "ib-spine-01", Switch: true, Ports: 8, GUID: 0x0008f10400010000},
		{Name: "ib-leaf-01", Switch: true, Ports: 8, GUID: 0x0008f10400020001},
		{Name: "ib-leaf-02", Switch: true, Ports: 8, GUID: 0x0008f10400020002},
		{Name: "ib-h1", Ports: 1, GUID: 0x0002c90300001000},
		{Name: "ib-h2", Ports: 1, GUID: 0x0002c90300002000},
		{Name: "ib-h3", Ports: 1, GUID: 0x0002c90300003000},
		{Name: "ib-h4", Ports: 1, GUID: 0x0002c90300004000},
		{Name: "ib-h5", Ports: 1, GUID: 0x0002c903000e0b71},
		{Name: "ib-h6", Ports: 2, GUID: 0x0002c90300006000},
		{Name: "sm-01", Ports: 1, GUID: 0x0002c9030000f000},
	}}
	t.Links = []Link{
		{"ib-leaf-01", 1, "ib-h1", 1}, {"ib-leaf-01", 2, "ib-h2", 1}, {"ib-leaf-01", 3, "ib-h3", 1}, {"ib-leaf-01", 4, "sm-01", 1},
		{"ib-leaf-02", 1, "ib-h4", 1}, {"ib-leaf-02", 2, "ib-h5", 1}, {"ib-leaf-02", 3, "ib-h6", 1}, {"ib-leaf-02", 4, "ib-h6", 2},
		{"ib-leaf-01", 7, "ib-spine-01", 1}, {"ib-leaf-02", 7, "ib-spine-01", 2},
	}
	return t
}

// casesFabric wraps a Profile named p (p.yaml) in a fabric of
// CasesTopology's hosts; their labels are what the generated profiles and
// profiles/ib-partitions.yaml select on.
const casesFabric = `apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata: {name: iblab-cases}
spec:
  include: [p.yaml]
  hosts:
    - {name: ib-h1, address: 10.98.0.11, profile: %[1]s, labels: {role: storage, tenant: a}}
    - {name: ib-h2, address: 10.98.0.12, profile: %[1]s, labels: {role: gpu, tenant: a}}
    - {name: ib-h3, address: 10.98.0.13, profile: %[1]s, labels: {role: gpu, tenant: b}}
    - {name: ib-h4, address: 10.98.0.14, profile: %[1]s, labels: {role: client, tenant: b}}
    - {name: ib-h5, address: 10.98.0.15, profile: %[1]s, labels: {role: head}}
    - {name: ib-h6, address: 10.98.0.16, profile: %[1]s, labels: {role: gpu, tenant: c}}
  subnetManagers:
    - {name: sm-01, kind: opensm, address: 10.98.0.201, profile: %[1]s}
`

// GeneratedPartitions are the generated profiles (their spec.infiniband
// block): together with the examples they reach every partition option
// of the model — several partitions; full, limited and both per member and
// as defaultMembership; hosts by labels and by names, a two-port host,
// GUID members (upper case too, and a switch's); ALL, ALL_CAS,
// ALL_SWITCHES, ALL_ROUTERS and SELF, a specific member overriding a
// keyword; ipoib with every MTU, every IBTA rate and service levels 0..15,
// and without; the lowest and highest pkey, names at the model's limits,
// (PartitionCases adds as many partitions as a port's P_Key table holds,
// and one more).
var GeneratedPartitions = []struct{ Name, Spec string }{
	{"memberships", `
      - name: per-member
        pkey: 0x0001
        members:
          - hosts: {labels: {tenant: a}}
          - {hosts: {names: [ib-h3]}, membership: limited}
          - {hosts: {names: [ib-h6]}, membership: both}
          - {guid: "0x0002C90300004001", membership: limited}
      - name: default-limited
        pkey: 0x0002
        defaultMembership: limited
        members:
          - hosts: {labels: {role: gpu}}
          - {hosts: {names: [ib-h1]}, membership: full}
      - name: default-both
        pkey: 0x0003
        defaultMembership: both
        members:
          - hosts: {labels: {tenant: b}}
          - guid: "0x0002c903000e0b72"
          - {hosts: {names: [ib-h2]}, membership: limited}
      - name: default-full
        pkey: 0x0004
        defaultMembership: full
        members:
          - hosts: {names: [ib-h5, ib-h6]}
          - {special: SELF, membership: limited}
`},
	{"specials", `
      - name: everyone
        pkey: 0x0010
        members:
          - {special: ALL, membership: full}
          - {hosts: {names: [ib-h4]}, membership: limited}
      - name: cas
        pkey: 0x0011
        members:
          - {special: ALL_CAS, membership: limited}
          - {hosts: {labels: {role: storage}}, membership: full}
      - name: switches
        pkey: 0x0012
        members:
          - {special: ALL_SWITCHES, membership: full}
          - {guid: "0x0002c90300002001", membership: limited}
      - name: routers
        pkey: 0x0013
        members:
          - {special: ALL_ROUTERS, membership: full}
          - {hosts: {names: [ib-h3]}, membership: full}
      - name: self
        pkey: 0x0014
        members:
          - {special: SELF, membership: full}
          - {hosts: {names: [ib-h5]}, membership: limited}
      - name: everyone-limited
        pkey: 0x0015
        defaultMembership: limited
        members:
          - special: ALL
          - {special: SELF, membership: full}
          - {guid: "0x0008f10400020001", membership: full}
`},
	{"ipoib-mtus", ipoibSpec(0x0020, []int{256, 512, 1024, 2048, 4096, 0, 4096}, []float64{2.5, 10, 30, 5, 20, 0, 40}, []int{0, 1, 2, 3, 4, -1, 15}) + `
      - name: no-ipoib
        pkey: 0x0030
        serviceLevel: 0
        members:
          - hosts: {names: [ib-h2, ib-h3]}
`},
	{"ipoib-rates", ipoibSpec(0x0040, []int{2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048}, []float64{60, 80, 120, 14, 56, 112, 168, 25, 100}, []int{5, 6, 7, 8, 9, 10, 11, 12, 13})},
	{"ipoib-rates-2", ipoibSpec(0x0050, []int{4096, 4096, 4096, 4096, 4096, 4096}, []float64{200, 300, 28, 50, 400, 600}, []int{14, 0, 1, 2, 3, 4})},
	// NDR and XDR rates: OpenSM knows them from 3.3.24 on ("Support NDR
	// devices"); 3.3.23 refuses their IPoIB groups (ERR 1B26).
	{"ipoib-ndr-rates", ipoibSpec(0x0058, []int{4096, 4096}, []float64{800, 1200}, []int{5, 6})},
	{"pkey-bounds-and-names", `
      - name: lowest
        pkey: 0x0001
        members:
          - hosts: {names: [ib-h1]}
      - name: highest
        pkey: 0x7ffe
        members:
          - hosts: {names: [ib-h1, ib-h4]}
      - name: ` + strings.Repeat("n", 30) + `.` + strings.Repeat("_", 16) + `-` + strings.Repeat("9", 16) + `
        pkey: 0x0100
        members:
          - hosts: {names: [ib-h2]}
      - name: 9lives
        pkey: 0x0101
        members:
          - hosts: {names: [ib-h3]}
      - name: ALL
        pkey: 0x0102
        members:
          - hosts: {names: [ib-h4]}
      - name: NONE
        pkey: 0x0103
        members:
          - hosts: {names: [ib-h5]}
      - name: mgid
        pkey: 0x0104
        members:
          - hosts: {names: [ib-h6]}
      - name: Default
        pkey: 0x0105
        members:
          - hosts: {names: [ib-h2]}
`},
}

// ipoibSpec writes one ipoib partition per entry, pkeys from first on:
// mtu, rate and serviceLevel as given (0, 0, -1: unset); ib-h2 is a full
// member of each, ib-h6 a limited one.
func ipoibSpec(first uint16, mtus []int, rates []float64, sls []int) string {
	var b strings.Builder
	for i := range mtus {
		fmt.Fprintf(&b, "\n      - name: ipoib-%04x\n        pkey: 0x%04x\n        ipoib: true\n", first+uint16(i), first+uint16(i))
		if mtus[i] != 0 {
			fmt.Fprintf(&b, "        mtu: %d\n", mtus[i])
		}
		if rates[i] != 0 {
			fmt.Fprintf(&b, "        rate: %g\n", rates[i])
		}
		if sls[i] >= 0 {
			fmt.Fprintf(&b, "        serviceLevel: %d\n", sls[i])
		}
		b.WriteString("        members:\n          - {hosts: {names: [ib-h2]}, membership: full}\n          - {hosts: {names: [ib-h6]}, membership: limited}\n")
	}
	return b.String()
}

// manySpec writes n partitions (pkeys 0x0200 on) that all hold ib-h1 in
// full, and ib-h4 limited in every other one: with the default partition,
// ib-h1's port needs n+1 P_Key entries.
func manySpec(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\n      - name: many-%d\n        pkey: 0x%04x\n        members:\n          - {hosts: {names: [ib-h1]}, membership: full}\n", i, 0x0200+i)
		if i%2 == 1 {
			b.WriteString("          - {hosts: {names: [ib-h4]}, membership: limited}\n")
		}
	}
	return b.String()
}

// RefusedPartitions are generated profiles with options the model refuses
// (validate's located errors): OpenSM would take most of them, but they
// would not mean what they say.
var RefusedPartitions = []struct{ Name, Spec string }{
	{"default-partition", "\n      - {name: mgmt, pkey: 0x7fff, members: [{special: ALL, membership: full}]}\n"},
	{"name-with-space", "\n      - {name: \"odd name\", pkey: 0x0005, members: [{hosts: {names: [ib-h1]}}]}\n"},
	{"name-with-hash", "\n      - {name: \"odd#name\", pkey: 0x0005, members: [{hosts: {names: [ib-h1]}}]}\n"},
	{"name-too-long", "\n      - {name: " + strings.Repeat("n", 65) + ", pkey: 0x0005, members: [{hosts: {names: [ib-h1]}}]}\n"},
}

// ExamplePartitionFabrics are the example fabrics with a subnet manager;
// ExamplePartitionProfiles the example InfiniBand profiles, each wrapped in
// CasesTopology's fabric.
var (
	ExamplePartitionFabrics  = []string{"profiles/lab/ib.yaml"}
	ExamplePartitionProfiles = []string{"profiles/ib-partitions.yaml"}
)

// exampleWant is every CA's memberships under each example, written out by
// hand from the files' comments and the fabric model's meaning (a member
// without a membership takes defaultMembership, else full).
var exampleWant = map[string]map[string]string{
	"profiles/lab/ib.yaml": {
		"ib-h1": "0x0001=full 0x7fff=limited", "ib-h2": "0x0001=full 0x7fff=limited",
		"ib-h3": "0x0002=full 0x7fff=limited", "ib-h4": "0x0002=limited 0x7fff=limited",
		"ib-h5": "0x7fff=limited", "ib-h6": "0x7fff=limited", "sm-01": "0x7fff=full",
	},
	"profiles/ib-partitions.yaml": {
		"ib-h1": "0x0002=full 0x7fff=limited", "ib-h2": "0x0002=limited 0x0010=full 0x7fff=limited",
		"ib-h3": "0x0002=limited 0x0010=full 0x7fff=limited", "ib-h4": "0x7fff=limited",
		"ib-h5": "0x0002=limited 0x7fff=limited", "ib-h6": "0x0002=limited 0x0010=full 0x7fff=limited",
		"sm-01": "0x0010=full 0x7fff=full",
	},
}

// PartitionCases returns the partition renders to judge: the example
// fabrics' and profiles' under root (the repository), every
// GeneratedPartitions profile, and DirectPartitionCases; the generated
// profiles the loader refuses come apart. An example that does not load is
// an error.
func PartitionCases(root string) ([]PartitionCase, []RefusedCase, error) {
	guids := CasesTopology().PortGUIDs()
	var cases []PartitionCase
	for _, f := range ExamplePartitionFabrics {
		fab, err := fabric.Load(filepath.Join(root, f), fabric.Options{Platforms: all.Registry()})
		if err != nil {
			return nil, nil, fmt.Errorf("loading example %s: %w", f, err)
		}
		for _, sm := range fab.Resolve().SubnetManagers {
			cases = append(cases, PartitionCase{Name: "example " + f + " " + sm.Name, Intent: sm, GUIDs: guids, Want: exampleWant[f]})
		}
	}
	for _, p := range ExamplePartitionProfiles {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return nil, nil, fmt.Errorf("reading example profile: %w", err)
		}
		sm, err := loadProfile(string(b))
		if err != nil {
			return nil, nil, fmt.Errorf("loading example %s: %w", p, err)
		}
		cases = append(cases, PartitionCase{Name: "example " + p, Intent: sm, GUIDs: guids, Want: exampleWant[p]})
	}
	var refused []RefusedCase
	for _, g := range GeneratedPartitions {
		sm, err := loadProfile(generatedProfile(g.Spec))
		if err != nil {
			return nil, nil, fmt.Errorf("generated %s: %w", g.Name, err)
		}
		cases = append(cases, PartitionCase{Name: "generated " + g.Name, Intent: sm, GUIDs: guids})
	}
	for _, d := range DirectPartitionCases() {
		d.GUIDs = guids
		cases = append(cases, d)
	}
	// Last: a port whose table is full, then one key more. OpenSM leaves
	// the upper block of a switch port's table as it was when a CA's table
	// shrinks below it, so nothing should run after them.
	full, err := loadProfile(generatedProfile(manySpec(63)))
	if err != nil {
		return nil, nil, fmt.Errorf("generated port-table-full: %w", err)
	}
	over, err := loadProfile(generatedProfile(manySpec(64)))
	if err != nil {
		return nil, nil, fmt.Errorf("generated port-table-overflow: %w", err)
	}
	cases = append(cases, PartitionCase{Name: "generated port-table-full", Intent: full, GUIDs: guids},
		PartitionCase{Name: "generated port-table-overflow", Intent: over, GUIDs: guids, Exceeds: true})
	for _, r := range RefusedPartitions {
		if _, err := loadProfile(generatedProfile(r.Spec)); err != nil {
			refused = append(refused, RefusedCase{Name: "generated " + r.Name, Err: err})
		} else {
			return nil, nil, fmt.Errorf("generated %s: the loader took it", r.Name)
		}
	}
	return cases, refused, nil
}

func generatedProfile(spec string) string {
	return "apiVersion: fabricctl.io/v1alpha1\nkind: Profile\nmetadata: {name: p}\nspec:\n  infiniband:\n    partitions:" + spec
}

// loadProfile resolves sm-01 of casesFabric with the Profile document doc.
func loadProfile(doc string) (fabric.SubnetManagerIntent, error) {
	name := "p"
	for _, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		if v, ok := strings.CutPrefix(t, "metadata: {name: "); ok {
			name = strings.TrimSuffix(v, "}")
			break
		}
		if v, ok := strings.CutPrefix(t, "name: "); ok && strings.HasPrefix(l, "  name: ") {
			name = strings.TrimSpace(v)
			break
		}
	}
	files := map[string]string{"f.yaml": fmt.Sprintf(casesFabric, name), "p.yaml": doc}
	f, err := fabric.Load("f.yaml", fabric.Options{Platforms: all.Registry(), ReadFile: fabric.FilesIn(files)})
	if err != nil {
		return fabric.SubnetManagerIntent{}, err
	}
	sms := f.Resolve().SubnetManagers
	if len(sms) != 1 {
		return fabric.SubnetManagerIntent{}, fmt.Errorf("resolved %d subnet managers, want 1", len(sms))
	}
	return sms[0], nil
}

// DirectPartitionCases are intents beyond what the fabric model loads that
// opensm.Render still takes (the intent of a partitions.conf read back, or
// a caller of the package): the default partition 0x7fff defined, a
// partition without a pkey, names the model refuses but OpenSM's grammar
// holds (a space, a quote, a tab, UTF-8, 200 bytes, none), and members
// without a membership (the renderer's default, limited); and two it must
// refuse: 0x7fff without ALL, and no partition at all.
func DirectPartitionCases() []PartitionCase {
	host := func(h, m string) fabric.PartitionMember { return fabric.PartitionMember{Host: h, Membership: m} }
	special := func(s, m string) fabric.PartitionMember { return fabric.PartitionMember{Special: s, Membership: m} }
	part := func(name string, pkey uint16, ms ...fabric.PartitionMember) fabric.PartitionIntent {
		return fabric.PartitionIntent{Name: name, PKey: pkey, ServiceLevel: -1, Members: ms}
	}
	sm := func(parts ...fabric.PartitionIntent) fabric.SubnetManagerIntent {
		return fabric.SubnetManagerIntent{Name: "sm-01", Kind: "opensm", Partitions: parts}
	}
	defaultAll := part("Default", 0x7fff, special("ALL", "full"))
	defaultAll.IPoIB, defaultAll.MTU, defaultAll.MTUCode = true, 4096, 5
	return []PartitionCase{
		{Name: "direct default-all-full", Intent: sm(defaultAll, part("tenant", 0x0061, host("ib-h1", "full"), host("ib-h2", "")))},
		{Name: "direct default-all-limited", Intent: sm(part("mgmt", 0x7fff, special("ALL", "limited"), special("SELF", "full"), host("ib-h3", "full")),
			part("tenant", 0x0062, host("ib-h4", "both")))},
		{Name: "direct default-without-all", Intent: sm(part("mgmt", 0x7fff, host("ib-h1", "full")), part("tenant", 0x0063, host("ib-h2", "full"))),
			Refuse: opensm.ErrDefaultWithoutAll},
		{Name: "direct no-pkey", Intent: sm(part("floating", 0, host("ib-h2", "full"), host("ib-h3", "limited")), part("tenant", 0x0064, host("ib-h4", "full")))},
		{Name: "direct odd-names", Intent: sm(
			part("odd name", 0x0071, host("ib-h1", "full")),
			part(`quote"d'`, 0x0072, host("ib-h2", "full")),
			part("tab\tinside", 0x0073, host("ib-h3", "full")),
			part("ünïcødé-名前", 0x0074, host("ib-h4", "full")),
			part(strings.Repeat("long-", 40), 0x0075, host("ib-h5", "full")),
			part("", 0x0076, host("ib-h6", "full")),
			part("brace{}[]()<>!?$%&*+/\\|~^`@", 0x0077, host("ib-h1", "limited")))},
		{Name: "direct no-partitions", Intent: sm(), Refuse: opensm.ErrNoPartitions},
	}
}
