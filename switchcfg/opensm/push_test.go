package opensm

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
)

// fakeRemote is an in-memory subnet manager host: files, and one OpenSM
// process that counts SIGHUPs and can be made to die or to rewrite its file.
type fakeRemote struct {
	files   map[string][]byte
	running bool
	hups    int
	onHUP   func(f *fakeRemote)
	log     []string
}

func newFake(files map[string]string) *fakeRemote {
	f := &fakeRemote{files: map[string][]byte{}, running: true}
	for k, v := range files {
		f.files[k] = []byte(v)
	}
	return f
}

func (f *fakeRemote) ReadFile(_ context.Context, p string) ([]byte, error) {
	b, ok := f.files[p]
	if !ok {
		return nil, fmt.Errorf("reading %s: %w", p, fs.ErrNotExist)
	}
	return append([]byte(nil), b...), nil
}

func (f *fakeRemote) WriteFileAtomic(_ context.Context, p string, data []byte, backup string) error {
	f.log = append(f.log, "write "+p)
	if old, ok := f.files[p]; ok && backup != "" {
		f.files[backup] = old
		f.log = append(f.log, "backup "+backup)
	}
	f.files[p] = append([]byte(nil), data...)
	return nil
}

func (f *fakeRemote) Remove(_ context.Context, p string) error {
	f.log = append(f.log, "remove "+p)
	delete(f.files, p)
	return nil
}

func (f *fakeRemote) Signal(_ context.Context, proc Process, sig Signal) error {
	f.log = append(f.log, "signal "+string(sig))
	if !f.running {
		return fmt.Errorf("finding %s: %w", proc.Name, ErrNotRunning)
	}
	if sig == SIGHUP {
		f.hups++
		if f.onHUP != nil {
			f.onHUP(f)
		}
	}
	return nil
}

const live = "/etc/opensm/partitions.conf"

func newPusher(f *fakeRemote) *Pusher {
	return &Pusher{Remote: f, Settle: time.Millisecond}
}

func TestPushFreshHost(t *testing.T) {
	f := newFake(nil)
	sm, guids := labIntent()
	res, err := newPusher(f).Push(context.Background(), sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Render(sm, guids)
	if string(f.files[live]) != want {
		t.Errorf("file not written as rendered:\n%s", f.files[live])
	}
	if !res.Changed || res.Backup != "" || res.RolledBack || f.hups != 1 {
		t.Errorf("result %+v, hups %d", res, f.hups)
	}
	if len(res.Diffs) != 2 || res.Diffs[0].Field != "partition" || res.Diffs[0].Got != "absent" {
		t.Errorf("want two missing partitions in the plan (no Default rule: OpenSM's own applies), got %v", res.Diffs)
	}
}

func TestPushReplacesAndBacksUp(t *testing.T) {
	old := "Default=0x7fff, ipoib : ALL=full ;\nstorage=0x0002 : 0x0002c903000e0b72=full ;\n# keep\n mgmt=0x20 :\n  mgid=ff12::1\n  SELF=full ;\n"
	f := newFake(map[string]string{live: old})
	sm, guids := labIntent()
	res, err := newPusher(f).Push(context.Background(), sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(f.files[live+BackupSuffix]); got != old {
		t.Errorf("backup holds %q, want the old file", got)
	}
	if res.Backup != live+BackupSuffix || !res.Changed || f.hups != 1 {
		t.Errorf("result %+v, hups %d", res, f.hups)
	}
	if len(res.Extras) != 1 || res.Extras[0].Text != "mgid=ff12::1" {
		t.Errorf("the dropped mgid line is not reported: %+v", res.Extras)
	}
	// A second push finds nothing to do: no write, no SIGHUP.
	f.log = nil
	res, err = newPusher(f).Push(context.Background(), sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || len(res.Diffs) != 0 || len(f.log) != 0 || f.hups != 1 {
		t.Errorf("idempotent push did something: %+v, log %v", res, f.log)
	}
}

// A file that means the desired table in other words is left alone.
func TestPushEquivalentFileUntouched(t *testing.T) {
	sm := fabric.SubnetManagerIntent{Name: "sm", Partitions: []fabric.PartitionIntent{
		{Name: "p", PKey: 5, ServiceLevel: -1, Members: []fabric.PartitionMember{{GUID: "0x0002c903000e0b72", Membership: "full"}}},
	}}
	f := newFake(map[string]string{live: "# hand written\np=0x8005 : 0x2c903000e0b72=f ;\n"})
	res, err := newPusher(f).Push(context.Background(), sm, nil)
	if err != nil || res.Changed || len(f.log) != 0 {
		t.Errorf("err %v, result %+v, log %v", err, res, f.log)
	}
}

// TestPushReplacesUnreadableLiveFile (issue 25): a live file that OpenSM
// reads otherwise than it says ("fulll" is limited to it; a syntax error
// puts the whole fabric on its default fallback) is drift, reported with
// its line and column, and apply replaces it, keeping a backup: refusing
// would leave the fabric on OpenSM's fallback.
func TestPushReplacesUnreadableLiveFile(t *testing.T) {
	const bad = "Default=0x7fff : ALL=fulll ;\n"
	f := newFake(map[string]string{live: bad})
	sm, guids := labIntent()
	diffs, err := newPusher(f).Plan(context.Background(), sm, guids)
	if err != nil || len(diffs) != 1 || diffs[0].Field != "file" || !strings.Contains(diffs[0].Got, "1:22:") {
		t.Fatalf("plan: %v, %v", diffs, err)
	}
	res, err := newPusher(f).Push(context.Background(), sm, guids)
	if err != nil || !res.Changed || res.Backup != live+BackupSuffix {
		t.Fatalf("push: %+v, %v", res, err)
	}
	if got := string(f.files[live+BackupSuffix]); got != bad {
		t.Errorf("backup %q, want the unreadable file", got)
	}
	if want, _ := Render(sm, guids); string(f.files[live]) != want {
		t.Errorf("live file not replaced:\n%s", f.files[live])
	}
}

func TestPushRollsBack(t *testing.T) {
	old := "Default=0x7fff, ipoib : ALL=full ;\n"
	sm, guids := labIntent()
	for _, tc := range []struct {
		name     string
		setup    func(f *fakeRemote)
		wantErr  []error
		wantMsg  string
		wantLast []string
	}{
		{"subnet manager not running", func(f *fakeRemote) { f.running = false },
			[]error{ErrNotRunning}, "reloading opensm: finding opensm: subnet manager process not running",
			[]string{"write " + live, "signal HUP"}},
		{"dies on SIGHUP", func(f *fakeRemote) { f.onHUP = func(f *fakeRemote) { f.running = false } },
			[]error{ErrVerify, ErrNotRunning}, "verification failed: opensm after SIGHUP",
			[]string{"signal 0", "write " + live, "signal HUP"}},
		{"file rewritten by someone else", func(f *fakeRemote) {
			f.onHUP = func(f *fakeRemote) {
				if f.hups == 1 {
					f.files[live] = []byte("# UFM wrote this\n")
				}
			}
		}, []error{ErrVerify}, "verification failed: /etc/opensm/partitions.conf changed under us",
			[]string{"write " + live, "signal HUP"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(map[string]string{live: old})
			tc.setup(f)
			res, err := newPusher(f).Push(context.Background(), sm, guids)
			if err == nil {
				t.Fatal("no error")
			}
			for _, e := range tc.wantErr {
				if !errors.Is(err, e) {
					t.Errorf("error %q does not wrap %v", err, e)
				}
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q lacks %q", err, tc.wantMsg)
			}
			if !res.RolledBack {
				t.Errorf("RolledBack not set: %+v", res)
			}
			if got := string(f.files[live]); got != old {
				t.Errorf("file not restored: %q", got)
			}
			if got := f.log[len(f.log)-len(tc.wantLast):]; strings.Join(got, ",") != strings.Join(tc.wantLast, ",") {
				t.Errorf("last steps %v, want %v (full log %v)", got, tc.wantLast, f.log)
			}
		})
	}
}

// With no file before the push, rolling back removes the new one.
func TestPushRollbackRemovesNewFile(t *testing.T) {
	f := newFake(nil)
	f.running = false
	sm, guids := labIntent()
	res, err := newPusher(f).Push(context.Background(), sm, guids)
	if !errors.Is(err, ErrNotRunning) || !res.RolledBack {
		t.Fatalf("err %v res %+v", err, res)
	}
	if _, ok := f.files[live]; ok {
		t.Error("new file left behind")
	}
	if f.log[len(f.log)-2] != "remove "+live {
		t.Errorf("log %v", f.log)
	}
}

func TestNewPusherPath(t *testing.T) {
	f := newFake(nil)
	sm, guids := labIntent()
	sm.PartitionsFile = "/opt/ufm/files/conf/opensm/partitions.conf"
	p := NewPusher(f, sm)
	p.Settle = time.Millisecond
	if _, err := p.Push(context.Background(), sm, guids); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.files[sm.PartitionsFile]; !ok || len(f.files) != 1 {
		t.Errorf("wrote %v, want only %s", f.log, sm.PartitionsFile)
	}
	if got := NewPusher(f, fabric.SubnetManagerIntent{}).path(); got != DefaultPartitionsFile {
		t.Errorf("default path %s", got)
	}
}

func TestObserveAndPlan(t *testing.T) {
	f := newFake(nil)
	p := newPusher(f)
	got, err := p.Observe(context.Background())
	if err != nil || len(got.Partitions) != 0 {
		t.Fatalf("absent file: %v %+v", err, got)
	}
	f.files[live] = []byte("Default=0x7fff, ipoib : ALL=full ;\nstorage=0x0002 : 0x0002c903000e0b72=full ;\n")
	sm, guids := labIntent()
	diffs, err := p.Plan(context.Background(), sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, d := range diffs {
		fields = append(fields, fmt.Sprintf("%#04x %s", d.PKey, d.Field))
	}
	// The Default rule making every port a full member goes too (issue 14).
	want := "0x7fff partition,0x0002 ipoib,0x0002 mtu,0x0002 rate,0x0002 member 0x0002c903000e0b72,0x0002 member 0x0002c90300a1b210,0x0002 member 0x0002c90300a1b2f0,0x0002 member 0x0002c90300a1b2f1,0x0003 partition"
	if strings.Join(fields, ",") != want {
		t.Errorf("plan\n got %s\nwant %s", strings.Join(fields, ","), want)
	}
	f.files[live] = []byte("broken")
	if _, err := p.Observe(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "parsing /etc/opensm/partitions.conf: 1:1: no ':'") {
		t.Errorf("got %v", err)
	}
}
