package iblab

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// gapRemote stands for a partitions.conf that fabricctl's own parser reads
// as the intent while OpenSM reads it otherwise (a gap between the two
// grammars): it writes corrupt(data) to the real file and, reading it back,
// returns what was meant. Only the fabric can then tell: OpenSM's log and
// the ports' P_Key tables.
type gapRemote struct {
	opensm.Remote
	corrupt func(string) string
	path    string
	meant   map[string][]byte
}

func (g *gapRemote) WriteFileAtomic(ctx context.Context, path string, data []byte, backup string) error {
	if path == g.path && g.meant == nil {
		g.meant = map[string][]byte{}
		bad := []byte(g.corrupt(string(data)))
		g.meant[string(bad)] = data
		return g.Remote.WriteFileAtomic(ctx, path, bad, backup)
	}
	return g.Remote.WriteFileAtomic(ctx, path, data, backup)
}

func (g *gapRemote) ReadFile(ctx context.Context, path string) ([]byte, error) {
	b, err := g.Remote.ReadFile(ctx, path)
	if m, ok := g.meant[string(b)]; ok && err == nil {
		return m, nil
	}
	return b, err
}

var firstGUID = regexp.MustCompile(`0x[0-9a-f]{16}`)

// TestIBLabBrokenFilesRolledBack: each way a partitions.conf can be read
// differently by OpenSM, pushed for real: the push fails with OpenSM's own
// line or the port that differs, is rolled back, and leaves the fabric on
// the previous partitions, never on OpenSM's default fallback.
func TestIBLabBrokenFilesRolledBack(t *testing.T) {
	good := tenantsFile(t)
	l := up(t, []byte(good))
	ctx := context.Background()
	sameTables(t, "at start", tables(t, l), isolated)
	// The next intent moves lab-h2 to tenant-b: a push that must not land.
	next := tenants()
	next.Partitions[0].Members = next.Partitions[0].Members[:1]
	next.Partitions[1].Members = append(next.Partitions[1].Members, next.Partitions[0].Members[0])
	next.Partitions[1].Members[2].Host = "lab-h2"
	for _, c := range []struct {
		name    string
		corrupt func(string) string
		want    string // in the error
	}{
		{"syntax error", func(s string) string {
			return strings.Replace(s, "tenant-b=0x0002, defmember=limited :", "tenant-b=0x0002, defmember=limited", 1)
		}, "PARSE ERROR"},
		{"GUID typo", func(s string) string {
			g := firstGUID.FindString(s)
			return strings.Replace(s, g, g[:len(g)-1]+"g", 1)
		}, "bad PortGUID"},
		{"unknown GUID (a typo that is still hex: OpenSM drops the member in silence)", func(s string) string {
			g := firstGUID.FindString(s)
			return strings.Replace(s, g, g[:len(g)-4]+"9999", 1)
		}, "want full, got absent"},
		{"CRLF", func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }, "PARSE ERROR"},
		{"misspelt membership", func(s string) string { return strings.Replace(s, "=full", "=fulll", 1) }, "want full, got limited"},
		{"unresolved host commented after its members (the issue-25 rendering)", func(s string) string {
			return strings.Replace(s, "tenant-a=0x0001 : 0x", "tenant-a=0x0001 :\n\t# lab-h9=full: the host's port GUIDs are discovered at plan time ;\n\t#0x", 1)
		}, "PARSE ERROR"},
	} {
		t.Run(strings.Fields(c.name)[0], func(t *testing.T) {
			p := l.Pusher()
			g := &gapRemote{Remote: p.Remote, corrupt: c.corrupt, path: l.PartitionsFile()}
			p.Remote = g
			res, err := p.Push(ctx, next, Demo().PortGUIDs())
			if err == nil {
				t.Fatalf("%s: push succeeded: %+v", c.name, res)
			}
			if !res.RolledBack || !errors.Is(err, opensm.ErrVerify) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: rolled back %v, error %v; want ErrVerify naming %q", c.name, res.RolledBack, err, c.want)
			}
			t.Logf("%s: %v", c.name, err)
			if b, _ := os.ReadFile(l.PartitionsFile()); string(b) != good {
				t.Errorf("%s: partitions.conf not restored:\n%s", c.name, b)
			}
			sameTables(t, c.name+": after the rollback", tables(t, l), isolated)
		})
	}
}

// TestIBLabRefusedBeforePush: what the intent itself gets wrong never
// reaches OpenSM: the push fails before writing and the file is unchanged.
func TestIBLabRefusedBeforePush(t *testing.T) {
	good := tenantsFile(t)
	l := up(t, []byte(good))
	ctx := context.Background()
	typo := tenants()
	typo.Partitions[0].Members = append(typo.Partitions[0].Members, fabricGUID("0x0002c9030000200g"))
	unresolved := tenants()
	unresolved.Partitions[0].Members = append(unresolved.Partitions[0].Members, fabricHost("lab-h9"))
	for name, sm := range map[string]func() error{
		"GUID typo":       func() error { _, err := l.Pusher().Push(ctx, typo, Demo().PortGUIDs()); return err },
		"unresolved host": func() error { _, err := l.Pusher().Push(ctx, unresolved, Demo().PortGUIDs()); return err },
	} {
		if err := sm(); err == nil {
			t.Errorf("%s: pushed", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
		if b, _ := os.ReadFile(l.PartitionsFile()); string(b) != good {
			t.Errorf("%s: partitions.conf changed", name)
		}
	}
	sameTables(t, "after the refusals", tables(t, l), isolated)
}
