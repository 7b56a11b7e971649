package ibfabric

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/ibdiag"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

func demo(t *testing.T) *Declared {
	t.Helper()
	f, err := fabric.Load("testdata/demo.yaml", fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Declare(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func capture(t *testing.T, name string) string {
	t.Helper()
	// this package's captures, else the ibdiag lab captures
	p := filepath.Join("testdata", name)
	if _, err := os.Stat(p); err != nil {
		p = filepath.Join("..", "ibdiag", "testdata", "lab", name)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// reading parses one capture set (prefix healthy- or faulty-).
func reading(t *testing.T, ports, links, queryerrors string) *Reading {
	t.Helper()
	r := &Reading{Vantage: "sm-01"}
	var err error
	if r.Ports, err = ibdiag.ParseIBNetDiscover(ports); err != nil {
		t.Fatal(err)
	}
	if r.Links, err = ibdiag.ParseIBLinkInfo(links); err != nil {
		t.Fatal(err)
	}
	sm, err := ibdiag.ParseSMInfo(capture(t, "healthy-sminfo.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r.SMInfo = []*ibdiag.SMInfo{sm, sm}
	r.SMRecords = []SMRecord{{LID: 1, GUID: 0x0002c9030000f001, State: 3}}
	if r.Errors, err = ibdiag.ParseIBQueryErrors(queryerrors); err != nil {
		t.Fatal(err)
	}
	pl, _ := opensm.ParseNetDiscoverPorts(ports)
	r.PKeys = &opensm.Observed{Ports: pl, SM: opensm.SMInfo{LID: 1, GUID: 0x0002c9030000f001}, Tables: map[uint64]map[uint16]string{}}
	for _, p := range pl {
		if p.Type != "CA" {
			continue
		}
		t := map[uint16]string{0x7fff: "limited"}
		switch p.Node {
		case "lab-h1", "lab-h2":
			t[0x0001] = "full"
		case "sm-01":
			t[0x7fff] = "full"
		}
		r.PKeys.Tables[p.GUID] = t
	}
	return r
}

func healthy(t *testing.T) *Reading {
	return reading(t, capture(t, "healthy-ibnetdiscover-p.txt"), capture(t, "healthy-iblinkinfo.txt"), capture(t, "healthy-ibqueryerrors.txt"))
}

// findings are the results worse than pass and skip, as "ID TARGET: SUMMARY".
func findings(out Outcome) []string {
	var s []string
	for _, r := range out.Results {
		if r.Status == checks.StatusPass || r.Status == checks.StatusSkip {
			continue
		}
		s = append(s, r.ID+" "+r.Target+" ["+string(r.Status)+"]: "+r.Summary)
	}
	return s
}

func expect(t *testing.T, out Outcome, want ...string) {
	t.Helper()
	got := findings(out)
	if len(got) != len(want) {
		t.Fatalf("%d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("finding %d:\n  %s\nwant it to contain\n  %s", i, got[i], w)
		}
	}
}

func TestHealthy(t *testing.T) {
	out := Judge(demo(t), healthy(t))
	expect(t, out)
	ids := map[string]int{}
	for _, r := range out.Results {
		ids[r.ID]++
		if r.Status != checks.StatusPass {
			t.Errorf("%s %s: %s %s", r.ID, r.Target, r.Status, r.Summary)
		}
	}
	if ids[IDLink] != 7 || ids[IDSubnetManager] != 1 || ids[IDCabling] != 1 || ids[IDCounters] != 1 || ids[IDPKeys] != 1 {
		t.Errorf("results per check: %v", ids)
	}
	if len(out.Topology.Links) != 7 || len(out.Cabling) != 0 {
		t.Errorf("topology %d links, cabling %v", len(out.Topology.Links), out.Cabling)
	}
}

// TestFaulty: the lab's faulty captures hold three faults (see
// ../ibdiag/testdata/lab/README.md): one finding each.
func TestFaulty(t *testing.T) {
	r := reading(t, capture(t, "faulty-ibnetdiscover-p.txt"), capture(t, "faulty-iblinkinfo.txt"), capture(t, "faulty-ibqueryerrors.txt"))
	out := Judge(demo(t), r)
	expect(t, out,
		"ib/counters lab-h3:1 <-> leaf-02:1 [fail]: leaf-02:1: ExcessiveBufferOverrunErrors 2, LinkDownedCounter 3, LinkErrorRecoveryCounter 255 (saturated), PortRcvErrors 65535 (saturated), PortXmitDiscards 12, PortXmitWait 4294967295 (saturated), SymbolErrorCounter 57, VL15Dropped 9 (one reading",
		"ib/link lab-h3:1 <-> leaf-02:1 [fail]: link down: leaf-02:1 is Down/Polling",
		"ib/link leaf-01:7 <-> spine-01:1 [fail]: degraded: leaf-01:7 trained 1X EDR, spine-01:1 trained 1X EDR, declared 4X EDR")
	if len(out.Cabling) != 0 {
		t.Errorf("a pulled cable is a link finding, not also a cabling one: %v", out.Cabling)
	}
}

func TestMADLoss(t *testing.T) {
	r := healthy(t)
	var err error
	if r.Ports, err = ibdiag.ParseIBNetDiscover(capture(t, "madloss-ibnetdiscover-p.txt")); err != nil {
		t.Fatal(err)
	}
	if r.Links, err = ibdiag.ParseIBLinkInfo(capture(t, "madloss-iblinkinfo.txt")); err != nil {
		t.Fatal(err)
	}
	out := Judge(demo(t), r)
	expect(t, out, "ib/link lab-h4:1 <-> leaf-02:2 [fail]: management packets lost: leaf-02:2 is Active/LinkUp but lab-h4 behind it answers no management packet")
	for _, res := range out.Results {
		if res.ID == IDLink && res.Class == checks.Timeout && (len(res.Evidence) == 0 || !strings.Contains(res.Evidence[0], "0,1,7,2,2")) {
			t.Errorf("evidence %v: want the timed-out directed route", res.Evidence)
		}
	}
}

func TestSecondSM(t *testing.T) {
	r := healthy(t)
	var err error
	if r.SMRecords, err = ParseSMIR(capture(t, "two-sms-saquery-smir.txt")); err != nil {
		t.Fatal(err)
	}
	// the second SM won the election: sminfo names it
	sm, err := ibdiag.ParseSMInfo("sminfo: sm lid 6 sm guid 0x2c90300003001, activity count 120 priority 0 state 3 SMINFO_MASTER\n")
	if err != nil {
		t.Fatal(err)
	}
	r.SMInfo[1] = sm
	expect(t, Judge(demo(t), r),
		"ib/subnet-manager sm-01 [fail]: the master moved from sm-01 to lab-h3 between sminfo readings 1 and 2 (flapping); a second SM runs on lab-h3 (master, lid 6, priority 0)")
}

func TestCableMoved(t *testing.T) {
	p := capture(t, "healthy-ibnetdiscover-p.txt")
	p = strings.Replace(p, "SW     3  1 0x0008f10400000201 4x EDR - CA     4  1", "SW     3  5 0x0008f10400000201 4x EDR - CA     4  1", 1)
	p = strings.Replace(p, "- SW     3  1 0x0008f10400000201 ( 'lab-h1'", "- SW     3  5 0x0008f10400000201 ( 'lab-h1'", 1)
	out := Judge(demo(t), reading(t, p, capture(t, "healthy-iblinkinfo.txt"), capture(t, "healthy-ibqueryerrors.txt")))
	expect(t, out, "ib/cabling lab-h1:1 [fail]: wrong-port: lab-h1:1 is on leaf-01:5, declared leaf-01:1 (same switch, another port)")
}

func TestPKeys(t *testing.T) {
	r := healthy(t)
	for _, p := range r.PKeys.Ports {
		if p.Node == "lab-h3" {
			r.PKeys.Tables[p.GUID][0x0001] = "full"
		}
	}
	expect(t, Judge(demo(t), r), "ib/pkeys lab-h3 [fail]: pkey 0x0001: want absent, got full")
}

func TestToolsFailed(t *testing.T) {
	out := Judge(demo(t), &Reading{SMInfoErr: os.ErrDeadlineExceeded, PortsErr: os.ErrDeadlineExceeded})
	for _, r := range out.Results {
		if r.Status != checks.StatusError && r.Status != checks.StatusSkip {
			t.Errorf("%s %s: %s, want error: nothing was read", r.ID, r.Target, r.Status)
		}
	}
	if len(out.Results) != 5 {
		t.Errorf("%d results, want one error per check", len(out.Results))
	}
}

func TestParseSMIR(t *testing.T) {
	recs, err := ParseSMIR(capture(t, "two-sms-saquery-smir.txt"))
	if err != nil || len(recs) != 2 || recs[0] != (SMRecord{LID: 6, GUID: 0x0002c90300003001, State: 3}) || recs[1].State != 2 {
		t.Fatalf("%+v %v", recs, err)
	}
	for _, bad := range []string{"LID...1\n", "SMInfoRecord dump:\n\t\tLID...................1\n", "SMInfoRecord dump:\n\t\tFoo...1\n", "SMInfoRecord dump:\n\t\tLID.....x\n"} {
		if _, err := ParseSMIR(bad); err == nil {
			t.Errorf("ParseSMIR(%q) accepted", bad)
		}
	}
}

// TestSpeedDegraded: a link trained at SDR where EDR is declared (both
// ends' lines edited from the healthy capture).
func TestSpeedDegraded(t *testing.T) {
	links := capture(t, "healthy-iblinkinfo.txt")
	lines := strings.Split(links, "\n")
	for i, l := range lines {
		if strings.Contains(l, `"lab-h2"`) || strings.Contains(l, "0x0002c90300002001") {
			lines[i] = strings.Replace(l, "25.78125 Gbps", "2.5 Gbps", 1)
		}
	}
	r := reading(t, capture(t, "healthy-ibnetdiscover-p.txt"), strings.Join(lines, "\n"), capture(t, "healthy-ibqueryerrors.txt"))
	expect(t, Judge(demo(t), r), "ib/link lab-h2:1 <-> leaf-01:2 [fail]: degraded: lab-h2:1 trained 4X SDR, leaf-01:2 trained 4X SDR, declared 4X EDR")
}

// TestCountersBeforeAndAfter: read before and after other suites, a port
// over its threshold whose counters did not move is a warning (old
// errors), one whose counters grew a failure naming the growth.
func TestCountersBeforeAndAfter(t *testing.T) {
	after := capture(t, "faulty-ibqueryerrors.txt")
	r := healthy(t)
	var err error
	if r.Errors, err = ibdiag.ParseIBQueryErrors(after); err != nil {
		t.Fatal(err)
	}
	if r.ErrorsBefore, err = ibdiag.ParseIBQueryErrors(after); err != nil {
		t.Fatal(err)
	}
	expect(t, Judge(demo(t), r), "ib/counters lab-h3:1 <-> leaf-02:1 [warn]: leaf-02:1: ExcessiveBufferOverrunErrors 2")
	if got := findings(Judge(demo(t), r))[0]; !strings.Contains(got, "read before and after the other suites") || !strings.Contains(got, "none moved during the run") {
		t.Errorf("unchanged counters: %s", got)
	}
	if r.ErrorsBefore, err = ibdiag.ParseIBQueryErrors(strings.ReplaceAll(after, "[SymbolErrorCounter == 57]", "[SymbolErrorCounter == 50]")); err != nil {
		t.Fatal(err)
	}
	expect(t, Judge(demo(t), r), "ib/counters lab-h3:1 <-> leaf-02:1 [fail]: leaf-02:1: ")
	if got := findings(Judge(demo(t), r))[0]; !strings.HasSuffix(got, "; during the run: SymbolErrorCounter +7") {
		t.Errorf("grown counters: %s", got)
	}
}

// TestReplacedSwitch: a switch described as leaf-01 with another GUID than
// the declared one is not taken for leaf-01: its cables are on a device the
// fabric does not know.
func TestReplacedSwitch(t *testing.T) {
	p := strings.ReplaceAll(capture(t, "healthy-ibnetdiscover-p.txt"), "0x0008f10400000201", "0x0008f104000002ff")
	out := Judge(demo(t), reading(t, p, capture(t, "healthy-iblinkinfo.txt"), capture(t, "healthy-ibqueryerrors.txt")))
	got := strings.Join(findings(out), "\n")
	if !strings.Contains(got, "lab-h1:1 is on leaf-01 (GUID 0x0008f104000002ff):1 (a device the fabric does not know), declared leaf-01:1") {
		t.Errorf("findings:\n%s", got)
	}
}

// TestUnconfirmedIsNeverPass: what the diagnostics could not read or did not
// say is a warning naming it, never a pass: nodes ibqueryerrors could not
// query, lines of ibnetdiscover not understood, a second sminfo that
// failed, an SA whose records do not list the master.
func TestUnconfirmedIsNeverPass(t *testing.T) {
	r := reading(t, capture(t, "healthy-ibnetdiscover-p.txt"), capture(t, "healthy-iblinkinfo.txt"),
		capture(t, "healthy-ibqueryerrors.txt")+"ibwarn: [1234] query_indicator: PerfMgt query failed for lid 9\n")
	expect(t, Judge(demo(t), r), "ib/counters fabric [warn]: no error counter over its threshold among the ports read, but")

	r = healthy(t)
	r.Ports.Unparsed = append(r.Ports.Unparsed, ibdiag.Unparsed{Line: 99, Text: "a line from a newer ibnetdiscover"})
	out := Judge(demo(t), r)
	expect(t, out, "ib/parse fabric [warn]: 1 line(s) of the diagnostics not understood")

	r = healthy(t)
	r.SMInfo, r.SMInfoAgainErr = r.SMInfo[:1], errors.New("sminfo: timed out")
	expect(t, Judge(demo(t), r), "ib/subnet-manager sm-01 [warn]: one master SM, on sm-01, steady over 1 sminfo readings")

	r = healthy(t)
	r.SMRecords = []SMRecord{}
	expect(t, Judge(demo(t), r), "do not list the master sminfo found as master")
}
