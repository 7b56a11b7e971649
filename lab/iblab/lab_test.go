package iblab

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// needLab skips when the lab's packages are absent, except under CI=true,
// where `make test` has installed them and their absence is a failure.
func needLab(t *testing.T) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %v", err)
		}
		t.Skip(err)
	}
}

// up starts the demo lab in a test directory and stops it at the end.
func up(t *testing.T, partitions []byte) *Lab {
	t.Helper()
	needLab(t)
	ctx := context.Background()
	l, err := Up(ctx, Options{Dir: t.TempDir(), Topology: Demo(), Partitions: partitions}, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Down(context.Background()); err != nil {
			t.Error(err)
		}
		if l.Running() {
			t.Errorf("lab %s still running after Down", l.Dir)
		}
	})
	return l
}

type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// tenants is the demo's intent: lab-h1 and lab-h2 full members of
// tenant-a, lab-h3 a full and lab-h4 a limited member of tenant-b.
func tenants() fabric.SubnetManagerIntent {
	return fabric.SubnetManagerIntent{Name: "sm-01", Kind: "opensm", Partitions: []fabric.PartitionIntent{
		{Name: "tenant-a", PKey: 0x0001, ServiceLevel: -1, Members: []fabric.PartitionMember{
			{Host: "lab-h1", Membership: "full"}, {Host: "lab-h2", Membership: "full"}}},
		{Name: "tenant-b", PKey: 0x0002, ServiceLevel: -1, DefaultMembership: "limited", Members: []fabric.PartitionMember{
			{Host: "lab-h3", Membership: "full"}, {Host: "lab-h4"}}},
	}}
}

// tables reads every CA port's memberships, by node name, as
// "0x0001=full 0x7fff=limited".
func tables(t *testing.T, l *Lab) map[string]string {
	t.Helper()
	r := l.Pusher().Fabric
	o, err := r.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Unparsed) > 0 {
		t.Errorf("ibnetdiscover lines not understood: %v", o.Unparsed)
	}
	out := map[string]string{}
	for _, p := range o.Ports {
		if p.Type != "CA" {
			continue
		}
		var keys []string
		for k, m := range o.Tables[p.GUID] {
			keys = append(keys, fmt.Sprintf("0x%04x=%s", k, m))
		}
		slices.Sort(keys)
		out[p.Node] = strings.Join(keys, " ")
	}
	return out
}

var isolated = map[string]string{
	"lab-h1": "0x0001=full 0x7fff=limited",
	"lab-h2": "0x0001=full 0x7fff=limited",
	"lab-h3": "0x0002=full 0x7fff=limited",
	"lab-h4": "0x0002=limited 0x7fff=limited",
	"sm-01":  "0x7fff=full",
}

var fallback = map[string]string{
	"lab-h1": "0x7fff=full", "lab-h2": "0x7fff=full", "lab-h3": "0x7fff=full", "lab-h4": "0x7fff=full", "sm-01": "0x7fff=full",
}

func sameTables(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: %s has [%s], want [%s]", what, n, got[n], w)
		}
	}
}

// pathPKey asks OpenSM's SA for a PathRecord from a to b (saquery -p
// --src-to-dst, one record: fits in one MAD) and returns the P_Key it
// hands out, or "no-path": isolation as a workload meets it.
func pathPKey(t *testing.T, l *Lab, lids map[string]int, a, b string) string {
	t.Helper()
	out, err := l.Diag(context.Background(), "", "saquery", "-p", "--src-to-dst", fmt.Sprintf("%d:%d", lids[a], lids[b]))
	if m := pkeyLine.FindSubmatch(out); err == nil && m != nil {
		return strings.ToLower(string(m[1]))
	}
	return "no-path"
}

var pkeyLine = regexp.MustCompile(`(?m)^\s*pkey\.*(0x[0-9A-Fa-f]+)`)

func lidsOf(t *testing.T, l *Lab) map[string]int {
	t.Helper()
	out, err := l.Diag(context.Background(), "", "ibnetdiscover", "-p")
	if err != nil {
		t.Fatal(err)
	}
	ports, bad := opensm.ParseNetDiscoverPorts(string(out))
	if len(bad) > 0 {
		t.Fatalf("not understood: %v", bad)
	}
	lids := map[string]int{}
	for _, p := range ports {
		if p.Type == "CA" {
			lids[p.Node] = p.LID
		}
	}
	return lids
}

// TestIBLabPartitionsProvenByPKeys: a push of the rendered partitions.conf
// to the real OpenSM is verified by every port's P_Key table, and the SA
// hands out paths inside a tenant and none across tenants, where before
// the push (no partitions.conf: OpenSM's Default ALL=full) every pair had
// one.
func TestIBLabPartitionsProvenByPKeys(t *testing.T) {
	l := up(t, nil)
	ctx := context.Background()
	lids := lidsOf(t, l)
	if got := pathPKey(t, l, lids, "lab-h1", "lab-h3"); got == "no-path" {
		t.Errorf("before the push: lab-h1 → lab-h3 has no path, want one in the default partition")
	}
	sameTables(t, "before the push", tables(t, l), fallback)

	p := l.Pusher()
	sm := tenants()
	guids := Demo().PortGUIDs()
	res, err := p.Push(ctx, sm, guids)
	if err != nil || !res.Changed || res.RolledBack {
		t.Fatalf("push: %+v, %v", res, err)
	}
	sameTables(t, "after the push", tables(t, l), isolated)
	for _, c := range []struct{ a, b, want string }{
		{"lab-h1", "lab-h2", "0x8001"}, {"lab-h3", "lab-h4", "0x8002"}, {"lab-h4", "lab-h3", "0x2"},
		{"lab-h1", "lab-h3", "no-path"}, {"lab-h3", "lab-h1", "no-path"}, {"lab-h2", "lab-h4", "no-path"},
		{"lab-h1", "sm-01", "0x7fff"},
	} {
		if got := pathPKey(t, l, lids, c.a, c.b); !strings.EqualFold(strings.TrimPrefix(got, "0x"), strings.TrimPrefix(c.want, "0x")) && !(got == c.want) {
			t.Errorf("after the push: path %s → %s: %s, want %s", c.a, c.b, got, c.want)
		}
	}
	// Drift: none. A second push changes nothing.
	target := &opensm.Target{Intent: sm, Pusher: p, GUIDs: guids}
	if ch, err := target.Plan(ctx); err != nil || len(ch) != 0 {
		t.Errorf("plan after the push: %v, %v", ch, err)
	}
	if res, err := p.Push(ctx, sm, guids); err != nil || res.Changed {
		t.Errorf("second push: %+v, %v", res, err)
	}
}

func fabricGUID(g string) fabric.PartitionMember {
	return fabric.PartitionMember{GUID: g, Membership: "full"}
}

func fabricHost(h string) fabric.PartitionMember {
	return fabric.PartitionMember{Host: h, Membership: "full"}
}

// tenantsFile is the partitions.conf of tenants() for the demo topology.
func tenantsFile(t *testing.T) string {
	t.Helper()
	good, err := opensm.Render(tenants(), Demo().PortGUIDs())
	if err != nil {
		t.Fatal(err)
	}
	return good
}
