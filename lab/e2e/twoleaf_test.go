//go:build lab

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/fabric/lldp"
)

const (
	twoLeafFile = "profiles/lab/two-leaf.yaml"
	twoLeafVMs  = "lab-h1,lab-h2,lab-h3,lab-h4"
)

// twoLeafCheck runs the pairwise suite of the two-leaf fabric: the JSON
// report on stdout, decoded, and the HTML report written beside it.
func (h *harness) twoLeafCheck(ctx context.Context, name string) (result, checkReport, string) {
	return h.twoLeafCheckOf(ctx, twoLeafFile, name)
}

// twoLeafCheckOf is twoLeafCheck over another fabric file of the same lab.
func (h *harness) twoLeafCheckOf(ctx context.Context, file, name string) (result, checkReport, string) {
	h.t.Helper()
	html := filepath.Join(h.t.TempDir(), name+".html")
	r := h.fabricctl(ctx, "check", "-f", file, "--target", twoLeafVMs, "--suite", "pairwise", "-o", "json", "--report", html)
	var rep checkReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		h.t.Fatalf("%s: check -o json: %v\n%v", name, err, r)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	return r, rep, string(b)
}

// hostNeighbors waits until host's own lldpd (in the VM, on eth0) lists
// exactly one neighbour, the one ok accepts, and returns what it lists then
// (the last answer when the deadline passes; lldpcli failing until then
// fails the test). The leaves' lldpd sends every 5 s and a neighbour that
// went away unannounced (a recabled tap) expires with its TTL, 20 s: the
// wait is bounded by 45 s.
func (h *harness) hostNeighbors(ctx context.Context, host string, ok func(fabric.Neighbor) bool) ([]fabric.Neighbor, string) {
	h.t.Helper()
	var ns []fabric.Neighbor
	var out string
	for deadline := time.Now().Add(45 * time.Second); ; {
		var err error
		out, err = h.vm(ctx, host, "lldpcli -f json show neighbors details")
		if err == nil {
			if ns, err = lldp.Parse([]byte(out)); err != nil {
				h.t.Fatalf("%s: parsing lldpcli's JSON: %v\n%s", host, err, out)
			}
			if len(ns) == 1 && ok(ns[0]) {
				return ns, out
			}
		}
		if time.Now().After(deadline) {
			if err != nil {
				h.t.Fatal(err) // lldpd not running in the VM
			}
			return ns, out
		}
		time.Sleep(time.Second) // the next LLDPDU or the old neighbour's TTL
	}
}

// cablingCheck runs the preflight suite of the two-leaf fabric, which
// compares the hosts' and the leaves' LLDP neighbours with the declared
// cabling, and returns the report. Every host must have answered its lldp
// op: a host left out would make an agreement vacuous.
func (h *harness) cablingCheck(ctx context.Context, name string) *report.Report {
	h.t.Helper()
	r := h.fabricctl(ctx, "check", "-f", twoLeafFile, "--target", twoLeafVMs, "--suite", "preflight", "-o", "json")
	full, err := report.ReadJSON(strings.NewReader(r.stdout))
	if err != nil {
		h.t.Fatalf("%s: check --suite preflight -o json: %v\n%v", name, err, r)
	}
	if strings.Contains(r.stderr, "left out of the cabling comparison") {
		h.t.Errorf("%s: a device's LLDP could not be read:\n%s", name, r.stderr)
	}
	return full
}

// TestLabTwoLeaf is the two-leaf lab end to end: the leaves learn each
// other over LLDP on the inter-leaf link; a healthy lab passes with no
// suspect; an impaired access link (netem on lab-h1's eth0 and on
// leaf-01:swp1) is named as lab-h1's cable, and an impaired inter-leaf
// link (netem on both swp49) as that link, in the JSON, the table and the
// HTML drawing. Then, over a sparse sweep that leaves the impaired access
// link ambiguous, check's adaptive re-tests name lab-h1's cable.
func TestLabTwoLeaf(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 14*time.Minute)
	defer cancel()
	tall := time.Now()
	h := upFabric(t, ctx, twoLeafFile)
	if len(h.s.Leaves) != 2 {
		t.Fatalf("lab up built %d leaves, want 2", len(h.s.Leaves))
	}

	// LLDP between the leaves: each names the other and the port.
	for _, l := range [][2]string{{"leaf-01", "leaf-02"}, {"leaf-02", "leaf-01"}} {
		var out []byte
		for deadline := time.Now().Add(30 * time.Second); ; {
			b, err := h.s.LeafNeighbors(ctx, l[0])
			if err != nil {
				t.Fatal(err)
			}
			out = b
			if strings.Contains(string(b), `"`+l[1]+`"`) || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Second) // lldpd sends every 5 s: wait for the peer's frame
		}
		if !strings.Contains(string(out), `"swp49"`) || !strings.Contains(string(out), `"`+l[1]+`"`) {
			t.Errorf("%s's LLDP neighbours lack %s on swp49:\n%s", l[0], l[1], out)
		}
	}

	// LLDP on the hosts: each VM's own lldpd sees exactly its leaf, on the
	// port the fabric file declares (the leaf's bridge does not forward
	// LLDP, so no other host's frames reach it).
	cabled := map[string]fabric.Endpoint{
		"lab-h1": {Device: "leaf-01", Port: "swp1"}, "lab-h2": {Device: "leaf-01", Port: "swp2"},
		"lab-h3": {Device: "leaf-02", Port: "swp1"}, "lab-h4": {Device: "leaf-02", Port: "swp2"},
	}
	for _, host := range strings.Split(twoLeafVMs, ",") {
		want := cabled[host]
		ns, out := h.hostNeighbors(ctx, host, func(n fabric.Neighbor) bool { return n.SystemName == want.Device })
		if len(ns) != 1 || ns[0].LocalPort != "eth0" || ns[0].SystemName != want.Device || ns[0].PortName() != want.Port {
			t.Errorf("%s's LLDP neighbours: want %s on eth0, got %+v\n%s", host, want, ns, out)
		}
	}
	t0 := time.Now()
	if rep := h.cablingCheck(ctx, "healthy cabling"); len(rep.Cabling) != 0 {
		t.Errorf("healthy two-leaf lab: cabling findings %+v, want none", rep.Cabling)
	}
	phase("check cabling healthy", time.Since(t0))

	t0 = time.Now()
	r, rep, _ := h.twoLeafCheck(ctx, "healthy")
	phase("check healthy", time.Since(t0))
	if r.code != 0 || len(rep.Suspects) != 0 {
		t.Fatalf("healthy two-leaf lab: exit %d, suspects %+v (want 0, none)\n%v", r.code, rep.Suspects, r)
	}
	if rep.Topology == nil || len(rep.Topology.Links) != 5 {
		t.Errorf("report topology %+v, want the 5 declared links", rep.Topology)
	}

	for _, sc := range []struct {
		name, target, component, table string
		crosses                        func(a, b string) bool // whether a pair between hosts a and b crosses the fault
	}{
		{"access", "link/lab-h1", "cable:lab-h1:eth0", "CABLE  cable lab-h1:eth0 <-> leaf-01:swp1", involves("lab-h1")},
		{"inter-leaf", "link/leaf-01~leaf-02", "link:leaf-01:swp49", "UPLINK  uplink leaf-01:swp49 <-> leaf-02:swp49", acrossLeaves},
	} {
		if r := h.fabricctlHost(ctx, "lab", "fault", "add", sc.target, "loss", "5%"); r.code != 0 {
			t.Fatalf("lab fault add %s: %v", sc.target, r)
		}
		t0 := time.Now()
		r, rep, html := h.twoLeafCheck(ctx, sc.name)
		phase("check "+sc.name, time.Since(t0))
		// No re-check: a pair whose path avoids the impaired link must
		// pass. Under emulation such pairs used to end "retries exhausted"
		// (4 of about 12 runs) until the lab's fabric raised perftest's QP
		// timeout (two-leaf.yaml; docs/lab.md, "Off-path failures").
		if bad := offPathFailures(rep, sc.crosses); len(bad) > 0 {
			t.Errorf("%s fault: a pair that does not cross the impaired link failed: %s", sc.name, strings.Join(bad, "; "))
		}
		if r := h.fabricctlHost(ctx, "lab", "fault", "clear"); r.code != 0 {
			t.Fatalf("lab fault clear: %v", r)
		}
		if r.code != 2 || len(rep.Suspects) == 0 {
			t.Errorf("%s fault: exit %d, %d suspects; want 2 and the %s\n%v", sc.name, r.code, len(rep.Suspects), sc.component, r)
			continue
		}
		if got := rep.Suspects[0].Component; got != sc.component || len(rep.Suspects) != 1 {
			t.Errorf("%s fault: suspects %+v, want exactly %s", sc.name, rep.Suspects, sc.component)
		}
		if !regexp.MustCompile(`data-component="[^"]*\b` + regexp.QuoteMeta(sc.component) + `\b[^"]*" data-mark="(suspect|alternative)"`).MatchString(html) {
			t.Errorf("%s fault: the HTML drawing does not highlight %s", sc.name, sc.component)
		}
		// the table of the same report, as -o table prints it
		full, err := report.ReadJSON(strings.NewReader(r.stdout))
		if err != nil {
			t.Fatalf("%s fault: reading the JSON report: %v", sc.name, err)
		}
		var table bytes.Buffer
		if err := report.WriteTable(&table, full); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(table.String(), "\nSUSPECTS\n1. "+sc.table) {
			t.Errorf("%s fault: the table does not name %q first:\n%s", sc.name, sc.table, table.String())
		}
		// All pairs leave the cable from its port (and the link from its
		// one-link uplink groups) ambiguous, but no test can split them:
		// re-tests, if any, probe near misses and change nothing above.
		t.Logf("%s fault: %d re-test round(s), stopped %q", sc.name, len(rep.Retests), rep.RetestStop)
	}

	// A sparse sweep (halves: lab-h1→lab-h3 and lab-h2→lab-h4 only, no
	// confirmation) leaves lab-h1's impaired access link ambiguous with
	// lab-h3's: the localiser's re-tests pair each end with a clean partner
	// and name lab-h1's cable.
	sparse := h.sparseTwoLeaf()
	if r := h.fabricctlHost(ctx, "lab", "fault", "add", "link/lab-h1", "loss", "5%"); r.code != 0 {
		t.Fatalf("lab fault add link/lab-h1: %v", r)
	}
	t0 = time.Now()
	r, rep, html := h.twoLeafCheckOf(ctx, sparse, "access-sparse")
	phase("check access, halves + re-tests", time.Since(t0))
	if bad := offPathFailures(rep, involves("lab-h1")); len(bad) > 0 {
		t.Errorf("sparse access fault: a pair that does not cross the impaired link failed: %s", strings.Join(bad, "; "))
	}
	if r := h.fabricctlHost(ctx, "lab", "fault", "clear"); r.code != 0 {
		t.Fatalf("lab fault clear: %v", r)
	}
	retested := false
	for _, rr := range rep.Retests {
		for _, p := range rr.Pairs {
			if (p.A == "lab-h1" || p.B == "lab-h1") && p.A != "lab-h3" && p.B != "lab-h3" {
				retested = true
			}
		}
	}
	switch {
	case r.code != 2:
		t.Errorf("sparse access fault: exit %d, want 2\n%v", r.code, r)
	case len(rep.Retests) == 0 || !retested:
		t.Errorf("sparse access fault: re-tests %+v (stopped %q), want lab-h1 re-tested with another partner\n%v", rep.Retests, rep.RetestStop, r)
	case len(rep.Suspects) != 1 || rep.Suspects[0].Component != "cable:lab-h1:eth0":
		t.Errorf("sparse access fault: suspects %+v after %d re-test round(s), want exactly cable:lab-h1:eth0\n%v", rep.Suspects, len(rep.Retests), r)
	}
	if !strings.Contains(html, `<tr class="retest" data-round="1"`) {
		t.Errorf("sparse access fault: the HTML report lacks the re-tests")
	}
	if full, err := report.ReadJSON(strings.NewReader(r.stdout)); err == nil {
		var table bytes.Buffer
		report.WriteTable(&table, full)
		if !strings.Contains(table.String(), "\nRE-TESTS (") || !strings.Contains(table.String(), "\nSUSPECTS\n1. CABLE  cable lab-h1:eth0 <-> leaf-01:swp1") {
			t.Errorf("sparse access fault: the table lacks the re-tests or the suspect:\n%s", table.String())
		}
		t.Logf("sparse access fault:\n%s", table.String())
	} else {
		t.Errorf("sparse access fault: reading the JSON report: %v", err)
	}

	// Miscabling: lab-h1's cable moved to leaf-02:swp3 while the fabric
	// file still declares leaf-01:swp1. Once lab-h1's lldpd names leaf-02
	// (and leaf-01's entry has expired), check reports exactly that cable.
	if r := h.fabricctlHost(ctx, "lab", "recable", "lab-h1", "leaf-02:swp3"); r.code != 0 {
		t.Fatalf("lab recable: %v", r)
	}
	moved := fabric.Endpoint{Device: "leaf-02", Port: "swp3"}
	ns, out := h.hostNeighbors(ctx, "lab-h1", func(n fabric.Neighbor) bool { return n.SystemName == moved.Device })
	if len(ns) != 1 || ns[0].SystemName != moved.Device || ns[0].PortName() != moved.Port {
		t.Fatalf("lab-h1 recabled: LLDP neighbours %+v, want only %s\n%s", ns, moved, out)
	}
	t0 = time.Now()
	mis := h.cablingCheck(ctx, "miscabled")
	phase("check cabling miscabled", time.Since(t0))
	nic := fabric.Endpoint{Device: "lab-h1", Port: "eth0"}
	if len(mis.Cabling) != 1 || mis.Cabling[0].Kind != topology.WrongLeaf || mis.Cabling[0].At != nic ||
		mis.Cabling[0].Declared == nil || *mis.Cabling[0].Declared != cabled["lab-h1"] ||
		mis.Cabling[0].Discovered == nil || *mis.Cabling[0].Discovered != moved {
		t.Errorf("miscabled lab-h1: cabling findings %+v, want one wrong-leaf at lab-h1:eth0 declared leaf-01:swp1, discovered leaf-02:swp3", mis.Cabling)
	}
	var table bytes.Buffer
	if err := report.WriteTable(&table, mis); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "\nCABLING\nWRONG-LEAF  lab-h1:eth0 is on leaf-02:swp3") {
		t.Errorf("miscabled lab-h1: the table does not report the cable:\n%s", table.String())
	}
	phase("two-leaf total", time.Since(tall))
}

// sparseTwoLeaf writes the two-leaf fabric with a halves schedule and
// without the sweep's own confirmation (retestOutliers), the includes made
// absolute, and returns its path.
func (h *harness) sparseTwoLeaf() string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.root, twoLeafFile))
	if err != nil {
		h.t.Fatal(err)
	}
	s := string(b)
	for old, new := range map[string]string{
		"include: [../roce-lossless.yaml, ../ib-partitions.yaml]": "include: [" + filepath.Join(h.root, "profiles/roce-lossless.yaml") + ", " + filepath.Join(h.root, "profiles/ib-partitions.yaml") + "]",
		"pairwise: {schedule: all-pairs,":                         "pairwise: {schedule: halves,",
		"retestOutliers: true, partners: 2,":                      "localizeRounds: 3,",
	} {
		if !strings.Contains(s, old) {
			h.t.Fatalf("%s no longer has %q", twoLeafFile, old)
		}
		s = strings.Replace(s, old, new, 1)
	}
	p := filepath.Join(h.t.TempDir(), "two-leaf-halves.yaml")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}
