package opensm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// The inputs in testdata/diags were captured from the real infiniband-diags
// 44.0 against the InfiniBand lab (ibsim 0.10, OpenSM 3.3.23, the Demo
// topology, lab/iblab): `go test ./lab/iblab` reproduces them.
func readDiag(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "diags", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseNetDiscoverPortsGolden(t *testing.T) {
	for _, name := range []string{"ibnetdiscover-p.txt", "ibnetdiscover-p-h1-unplugged.txt"} {
		t.Run(name, func(t *testing.T) {
			ports, bad := ParseNetDiscoverPorts(readDiag(t, name))
			if len(bad) > 0 {
				t.Errorf("not understood: %v", bad)
			}
			testutil.Golden(t, "diags/"+strings.TrimSuffix(name, ".txt")+".golden", testutil.JSON(t, ports))
		})
	}
	// Written before running: 29 lines, 3 switches × 8 ports + 5 CAs; with
	// lab-h1 unplugged 28 lines and leaf-01 port 1 without a peer.
	ports, _ := ParseNetDiscoverPorts(readDiag(t, "ibnetdiscover-p.txt"))
	cas := map[string]int{}
	for _, p := range ports {
		if p.Type == "CA" {
			cas[p.Node] = p.LID
		}
	}
	if len(ports) != 29 || len(cas) != 5 || cas["lab-h1"] != 4 || cas["sm-01"] != 1 {
		t.Errorf("%d ports, CAs %v", len(ports), cas)
	}
	ports, _ = ParseNetDiscoverPorts(readDiag(t, "ibnetdiscover-p-h1-unplugged.txt"))
	for _, p := range ports {
		if p.Node == "leaf-01" && p.Num == 1 && !p.Unlinked {
			t.Errorf("leaf-01 port 1 has a peer after lab-h1 was unplugged: %+v", p)
		}
		if p.Node == "lab-h1" {
			t.Errorf("unplugged lab-h1 listed: %+v", p)
		}
	}
}

func TestParseNetDiscoverPortsReportsWhatItCannotRead(t *testing.T) {
	text := "CA 4 1 0x0002c90300001001 4x EDR - SW 3 1 0x0008f10400000201 ( 'lab-h1' - 'leaf-01' )\n" +
		"ibwarn: [1234] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,7)\n" +
		"CA x 1 0x0002c90300001001 4x EDR\n" +
		"CA 4 1 0002c90300001001 4x EDR 'h'\n" +
		"CA 4 1 0x0002c90300001001 4x EDR - SW 3 1 0x0008f10400000201 ( 'lab-h1' - 'leaf-01'\n"
	ports, bad := ParseNetDiscoverPorts(text)
	if len(ports) != 1 || len(bad) != 4 || bad[0].Line != 2 || bad[3].Line != 5 {
		t.Errorf("ports %+v, not understood %v", ports, bad)
	}
}

func TestParseSMInfo(t *testing.T) {
	s, err := ParseSMInfo(readDiag(t, "sminfo.txt"))
	if err != nil || s.LID != 1 || s.GUID != 0x2c9030000f001 || s.State != "SMINFO_MASTER" {
		t.Errorf("%+v %v", s, err)
	}
	for _, bad := range []string{"", "sminfo: iberror: failed: query", "sminfo: sm lid 1 sm guid 0xzz, activity"} {
		if _, err := ParseSMInfo(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParsePKeysGolden(t *testing.T) {
	// Written before running: lab-h4 (lid 7) limited in 0x7fff and 0x0002;
	// leaf-01 port 1 (facing lab-h1) limited 0x7fff, full 0x0001; sm-01
	// full in 0x7fff (0xffff).
	for name, want := range map[string]map[uint16]string{
		"smpquery-pkeys-ca.txt":          {0x7fff: "limited", 0x0002: "limited"},
		"smpquery-pkeys-switch-port.txt": {0x7fff: "limited", 0x0001: "full"},
		"smpquery-pkeys-sm.txt":          {0x7fff: "full"},
	} {
		tab, err := ParsePKeys(readDiag(t, name))
		if err != nil || tab.Capacity != 64 {
			t.Fatalf("%s: %+v %v", name, tab, err)
		}
		got := tab.Memberships()
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
		for k, m := range want {
			if got[k] != m {
				t.Errorf("%s: pkey 0x%04x %q, want %q", name, k, got[k], m)
			}
		}
	}
	both, _ := ParsePKeys("   0: 0x8002 0x0002 0x8000 0x0000\n")
	if m := both.Memberships(); len(m) != 1 || m[2] != "both" {
		t.Errorf("0x8002 and 0x0002: %v", m)
	}
	for _, bad := range []string{"", "smpquery: iberror: failed: operation pkeys: pkey table query failed", "   0: 0x7fff 7fff\n", "   x: 0x7fff\n"} {
		if _, err := ParsePKeys(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestScanLog(t *testing.T) {
	// OpenSM 3.3.23's own lines (the lab's opensm.log after a bad file).
	log := "Dec 05 12:01:02 123456 [3B4966C0] 0x02 -> osm_vendor_bind: Mgmt class 0x81 binding to port GUID 0x2c9030000f001\n" +
		"Dec 05 12:01:02 123457 [3B4966C0] 0x01 -> parse_part_conf: PARSE ERROR: line 4: bad PortGUID\n" +
		"Dec 05 12:01:02 123458 [3B4966C0] 0x04 -> osm_prtn_make_partitions: Partition configuration was not fully processed\n" +
		"Dec 05 12:01:02 123459 [3B4966C0] 0x01 -> osm_prtn_make_partitions: Partition configuration in error; retrying with default config\n" +
		"Dec 05 12:01:02 123460 [3B4966C0] 0x02 -> SUBNET UP\n"
	bad, up := scanLog([]byte(log))
	if !up || len(bad) != 2 || bad[0] != "parse_part_conf: PARSE ERROR: line 4: bad PortGUID" {
		t.Errorf("bad %q, up %v", bad, up)
	}
	if bad, up := scanLog([]byte("x 0x02 -> SUBNET UP\n")); len(bad) != 0 || !up {
		t.Errorf("clean sweep: %q %v", bad, up)
	}
	if _, up := scanLog([]byte("x 0x02 -> Entering MASTER state\n")); up {
		t.Error("no sweep read as one")
	}
}

// TestExpectedTables: OpenSM's rules on the lab's inventory, written
// before running: without a 0x7fff rule every CA limited in it and the SM
// full; a later GUID entry overrides ALL; SELF is the master SM's port.
func TestExpectedTables(t *testing.T) {
	ports, _ := ParseNetDiscoverPorts(readDiag(t, "ibnetdiscover-p.txt"))
	o := &Observed{Ports: ports, SM: SMInfo{GUID: 0x0002c9030000f001}}
	parts := []fabric.PartitionIntent{
		{Name: "a", PKey: 1, Members: []fabric.PartitionMember{{Special: "ALL", Membership: "limited"}, {GUID: "0x0002c90300001001", Membership: "full"}}},
		{Name: "b", PKey: 2, Members: []fabric.PartitionMember{{Special: "SELF", Membership: "both"}, {GUID: "0x0002c90300009001", Membership: "full"}}},
	}
	want := ExpectedTables(parts, o)
	for g, w := range map[uint64]map[uint16]string{
		0x0002c90300001001: {0x7fff: "limited", 1: "full"},
		0x0002c90300002001: {0x7fff: "limited", 1: "limited"},
		0x0002c9030000f001: {0x7fff: "full", 1: "limited", 2: "full"},
	} {
		if len(want[g]) != len(w) {
			t.Errorf("0x%016x: %v, want %v", g, want[g], w)
		}
		for k, m := range w {
			if want[g][k] != m {
				t.Errorf("0x%016x pkey 0x%04x: %q, want %q", g, k, want[g][k], m)
			}
		}
	}
	if u := UnknownMembers(parts, o); len(u) != 1 || !strings.Contains(u[0], "0x0002c90300009001") {
		t.Errorf("unknown members %v", u)
	}
	o.Tables = want
	if d := ComparePorts(parts, o); len(d) != 0 {
		t.Errorf("tables as expected still differ: %v", d)
	}
	o.Tables = map[uint64]map[uint16]string{0x0002c90300001001: {0x7fff: "full"}}
	d := ComparePorts(parts, o)
	// lab-h1: 0x7fff full (want limited), 0x0001 absent (want full); every
	// other CA has an empty table: 2+2+2+2+3 = 11 differences.
	if len(d) != 11 || d[0].Node != "lab-h1" || d[0].PKey != 1 || d[0].Got != "absent" {
		t.Errorf("%d differences: %v", len(d), d)
	}
}

// fakeDiags answers infiniband-diags commands with fixed outputs.
type fakeDiags map[string]string

func (f fakeDiags) Run(_ context.Context, argv []string, _ []byte) ([]byte, error) {
	return []byte(f[argv[0]]), nil
}

// TestObserveRefusesWhatItCannotRead: an ibnetdiscover line not understood
// may be a port whose P_Key table would go unchecked, so the reading fails
// instead of vouching for the partitions.
func TestObserveRefusesWhatItCannotRead(t *testing.T) {
	good := readDiag(t, "ibnetdiscover-p.txt")
	r := &FabricReader{Diag: fakeDiags{"ibnetdiscover": good, "sminfo": readDiag(t, "sminfo.txt"), "smpquery": readDiag(t, "smpquery-pkeys-ca.txt")}}
	if _, err := r.Observe(context.Background()); err != nil {
		t.Fatalf("healthy subnet: %v", err)
	}
	r.Diag = fakeDiags{"ibnetdiscover": good + "CA  9 1 0x0002c9030000a001 4x EDR - SW 3 4 0x0008f10400000201 ( 'lab-h9' - 'leaf-01'\n",
		"sminfo": readDiag(t, "sminfo.txt"), "smpquery": readDiag(t, "smpquery-pkeys-ca.txt")}
	if _, err := r.Observe(context.Background()); err == nil || !strings.Contains(err.Error(), "not understood") {
		t.Errorf("a port line not understood: %v", err)
	}
}
