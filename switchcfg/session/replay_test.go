package session_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/session"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
	"github.com/fabricctl/fabricctl/switchcfg/sim/simtest"
)

// scripts are short command lists per platform, modes included.
var scripts = map[string][]string{
	"arista-eos":   {"show running-config", "configure session s1", "interface Ethernet1", "mtu 9214", "show session-config diffs", "abort"},
	"cisco-nxos":   {"checkpoint c1", "configure terminal", "interface Ethernet1/1", "mtu 9216", "end", "show diff rollback-patch checkpoint c1 running-config"},
	"junos":        {"configure private", "set interfaces et-0/0/0 mtu 9216", "show | compare", "rollback 0", "exit"},
	"cumulus-nvue": {"nv set interface swp1 link mtu 9216", "nv config diff", "nv config detach", "nv config show -o json"},
	"sonic":        {"sudo config checkpoint c1", "cat > /tmp/p.json <<'EOF'\n[]\nEOF", "sudo config apply-patch --dry-run /tmp/p.json", "show runningconfiguration all"},
}

// TestRecordThenReplay records a scripted session against the simulator and
// plays the transcript back through scrapligo's file transport: every command
// gets the same output, with no network.
func TestRecordThenReplay(t *testing.T) {
	for _, platform := range sim.Platforms() {
		t.Run(platform, func(t *testing.T) {
			sw := simtest.Start(t, sim.Options{Platform: platform})
			rec := &session.Recorder{}
			opt := sw.Options()
			opt.Record = rec
			c := sw.DialWith(t, opt)
			var want []string
			for _, cmd := range scripts[platform] {
				out, err := c.Send(context.Background(), cmd)
				if err != nil {
					t.Fatalf("%q: %v", cmd, err)
				}
				want = append(want, out)
			}
			_ = c.Close()
			path := filepath.Join(t.TempDir(), platform+".transcript")
			if err := rec.WriteFile(path); err != nil {
				t.Fatal(err)
			}

			r, err := session.Replay(context.Background(), platform, sw.Spec, path, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var got []string
			for _, cmd := range scripts[platform] {
				out, err := r.Send(context.Background(), cmd)
				if err != nil {
					t.Fatalf("replaying %q: %v", cmd, err)
				}
				got = append(got, out)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("replayed outputs differ:\n got %q\nwant %q", got, want)
			}
			if !reflect.DeepEqual(r.History(), c.History()) {
				t.Fatalf("history differs: %q vs %q", r.History(), c.History())
			}
		})
	}
}
