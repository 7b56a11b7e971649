package journal_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
)

func fixture(t *testing.T) (*hostcfgtest.Fixture, fabric.HostIntent) {
	t.Helper()
	return hostcfgtest.Load(t, filepath.Join("..", "testdata", "hosts", "mlx5-ofed")),
		hostcfgtest.Desired(t, filepath.Join("..", "testdata", "desired", "mlx5-ofed.json"))
}

// values flattens an observation to "interface setting" → value.
func values(t *testing.T, f *hostcfgtest.Fixture, d fabric.HostIntent) map[string]string {
	t.Helper()
	obs, err := f.Host.Observe(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, i := range obs.Interfaces {
		for _, s := range i.Settings {
			m[i.Name+" "+s.Setting] = s.Value + s.Unsupported + s.Error
		}
	}
	return m
}

func differ(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k+": "+v+" → "+b[k])
		}
	}
	return out
}

func plan(t *testing.T, f *hostcfgtest.Fixture, d fabric.HostIntent) hostcfg.Plan {
	t.Helper()
	obs, err := f.Host.Observe(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return hostcfg.Diff(d, obs)
}

// killer is a Recorder that journals through the Txn and then "kills the
// process" (panics) before write number at: the journal holds at entries,
// the host has at-1 of them written.
type killer struct {
	txn *journal.Txn
	at  int
	n   int
}

type killed struct{}

func (k *killer) Writing(c hostcfg.Change, pre string) error {
	if err := k.txn.Writing(c, pre); err != nil {
		return err
	}
	if k.n++; k.n == k.at {
		panic(killed{})
	}
	return nil
}

// applyKilled applies p journaled and dies before write at; the lock goes
// as the kernel releases a dead process's flock.
func applyKilled(t *testing.T, dir *journal.Dir, f *hostcfgtest.Fixture, p hostcfg.Plan, at int) {
	t.Helper()
	txn, err := dir.Begin(f.Host.Name, "")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r != (killed{}) {
			t.Fatalf("the apply was not killed: %v", r)
		}
		txn.Close()
	}()
	_, _ = f.Host.ApplyRecorded(context.Background(), p, &killer{txn: txn, at: at})
}

// TestRecoverAKilledApply: an apply killed after some writes, on both
// interfaces, leaves the host half-changed and its journal behind; Recover
// restores every written setting and removes the journal.
func TestRecoverAKilledApply(t *testing.T) {
	ctx := context.Background()
	f, d := fixture(t)
	dir, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	before := values(t, f, d)
	p := plan(t, f, d)
	if len(p.Changes) < 6 || p.Changes[0].Interface == p.Changes[len(p.Changes)-1].Interface {
		t.Fatalf("the fixture's plan must change both interfaces: %+v", p.Changes)
	}
	at := len(p.Changes) - 2 // well into the second interface
	applyKilled(t, dir, f, p, at)
	if half := differ(before, values(t, f, d)); len(half) == 0 {
		t.Fatal("the killed apply changed nothing; the test proves nothing")
	}
	st, err := dir.Status(f.Host.Name)
	if err != nil || !st.Pending || st.InProgress || st.Record.State != journal.StateApplying || len(st.Record.Written) != at {
		t.Fatalf("status after the kill: %+v %v", st, err)
	}
	if _, err := dir.Begin(f.Host.Name, ""); !errors.Is(err, journal.ErrInterrupted) {
		t.Fatalf("a new apply over an interrupted one: %v", err)
	}
	rec, err := dir.Recover(ctx, f.Host.Name, f.Host)
	if err != nil || !rec.Found || len(rec.Result.Applied) != at-1 || len(rec.Result.Unchanged) != 1 {
		t.Fatalf("recover: %+v %v", rec.Result, err)
	}
	if d := differ(before, values(t, f, d)); len(d) != 0 {
		t.Fatalf("recovery did not restore the pre-image: %v", d)
	}
	if st, _ := dir.Status(f.Host.Name); st.Pending {
		t.Fatal("the journal stayed after a complete recovery")
	}
	if rec, err := dir.Recover(ctx, f.Host.Name, f.Host); err != nil || rec.Found {
		t.Fatalf("a second recovery must find nothing: %+v %v", rec, err)
	}
}

// TestRecoveryFailureKeepsTheJournal: a setting that cannot be restored
// keeps the journal (marked recovery-failed), the others are restored and
// stay restored; the next recovery finishes.
func TestRecoveryFailureKeepsTheJournal(t *testing.T) {
	ctx := context.Background()
	f, d := fixture(t)
	dir, _ := journal.Open(t.TempDir())
	before := values(t, f, d)
	p := plan(t, f, d)
	applyKilled(t, dir, f, p, len(p.Changes))
	f.Kernel.FailNext("ens1f0np0", dcbnl.AttrIEEEPFC, syscall.EIO)
	rec, err := dir.Recover(ctx, f.Host.Name, f.Host)
	if !errors.Is(err, syscall.EIO) || len(rec.Result.Applied) == 0 {
		t.Fatalf("recover with a failing restore: %+v %v", rec.Result, err)
	}
	st, _ := dir.Status(f.Host.Name)
	if !st.Pending || st.Record.State != journal.StateRecoveryFailed || !strings.Contains(st.Record.Error, "input/output error") {
		t.Fatalf("journal after a failed recovery: %+v", st)
	}
	if left := differ(before, values(t, f, d)); len(left) == 0 || len(left) > 2 {
		t.Fatalf("a failed restore must leave only its own setting changed (PFC), not undo the others: %v", left)
	}
	if _, err := dir.Recover(ctx, f.Host.Name, f.Host); err != nil {
		t.Fatalf("second recovery: %v", err)
	}
	if d := differ(before, values(t, f, d)); len(d) != 0 {
		t.Fatalf("not restored: %v", d)
	}
}

// TestJournalLifecycle: Begin takes the lock (a second apply is busy, a
// look sees it in progress), Finish keeps a journal with writes until
// Settle, and removes one without writes.
func TestJournalLifecycle(t *testing.T) {
	ctx := context.Background()
	dir, _ := journal.Open(t.TempDir())
	txn, err := dir.Begin("gpu-01", "abc")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dir.Begin("gpu-01", ""); !errors.Is(err, journal.ErrBusy) {
		t.Fatalf("second Begin: %v", err)
	}
	if st, _ := dir.Status("gpu-01"); !st.InProgress || !st.Pending || st.Record.ID != "abc" {
		t.Fatalf("status during the apply: %+v", st)
	}
	if _, err := dir.Begin("gpu-02", ""); err != nil {
		t.Fatalf("another host's journal is independent: %v", err)
	}
	txn.Writing(hostcfg.Change{Interface: "eth0", Setting: "mtu", Backend: "netlink", Old: "1500", New: "9000"}, "1500")
	rec, err := txn.Finish()
	if err != nil || rec.State != journal.StateApplied {
		t.Fatalf("finish: %+v %v", rec, err)
	}
	if u := rec.Undo(); len(u.Changes) != 1 || u.Changes[0].Old != "9000" || u.Changes[0].New != "1500" {
		t.Fatalf("undo %+v", u)
	}
	if err := dir.Settle(ctx, "gpu-01", "other"); !errors.Is(err, journal.ErrOtherJournal) {
		t.Fatalf("settling another id: %v", err)
	}
	if err := dir.Settle(ctx, "gpu-01", "abc"); err != nil {
		t.Fatal(err)
	}
	if st, _ := dir.Status("gpu-01"); st.Pending || st.InProgress {
		t.Fatalf("after settle: %+v", st)
	}
	empty, _ := dir.Begin("gpu-03", "")
	if _, err := empty.Finish(); err != nil {
		t.Fatal(err)
	}
	if hosts, _ := dir.Hosts(); len(hosts) != 1 || hosts[0] != "gpu-02" {
		t.Fatalf("pending hosts %v: an apply without writes leaves no journal", hosts)
	}
	entries, _ := os.ReadDir(dir.Path())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".journal-") {
			t.Errorf("a temporary file stayed: %s", e.Name())
		}
	}
}

// TestRecoverWaitsForTheApplyInProgress: a recovery asked while the apply
// still runs (its reply was lost, the process goes on) waits for it.
func TestRecoverWaitsForTheApplyInProgress(t *testing.T) {
	f, _ := fixture(t)
	dir, _ := journal.Open(t.TempDir())
	txn, _ := dir.Begin(f.Host.Name, "")
	done := make(chan journal.Recovered)
	go func() {
		rec, _ := dir.Recover(context.Background(), f.Host.Name, f.Host)
		done <- rec
	}()
	txn.Writing(hostcfg.Change{Interface: "ens1f0np0", Setting: "mtu", Old: "1500", New: "1500"}, "1500")
	if _, err := txn.Finish(); err != nil {
		t.Fatal(err)
	}
	if rec := <-done; !rec.Found || len(rec.Record.Written) != 1 {
		t.Fatalf("the recovery did not see the finished apply's journal: %+v", rec)
	}
	ctx, cancel := context.WithCancel(context.Background())
	txn, _ = dir.Begin(f.Host.Name, "")
	defer txn.Close()
	cancel()
	if _, err := dir.Recover(ctx, f.Host.Name, f.Host); !errors.Is(err, journal.ErrBusy) {
		t.Fatalf("a cancelled wait: %v", err)
	}
}

func TestFileNames(t *testing.T) {
	dir, _ := journal.Open(t.TempDir())
	for _, host := range []string{"..", "a/b", "", "gpu-01.lab"} {
		txn, err := dir.Begin(host, "")
		if err != nil {
			t.Fatalf("%q: %v", host, err)
		}
		txn.Writing(hostcfg.Change{Interface: "eth0", Setting: "mtu"}, "1500")
		txn.Finish()
	}
	entries, _ := os.ReadDir(dir.Path())
	for _, e := range entries {
		if e.IsDir() || strings.Contains(e.Name(), "/") {
			t.Errorf("bad journal file %q", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir.Path()), "b.journal")); err == nil {
		t.Error("a host name escaped the state directory")
	}
}

// FuzzJournalFile: whatever a journal file holds (torn, edited, hostile),
// reading, listing, beginning over and recovering it never panics, and a
// recovery never removes a journal it could not act on.
func FuzzJournalFile(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"fabricctl.io/v1alpha1","kind":"ApplyJournal","id":"1","host":"h","state":"applying",` +
		`"written":[{"interface":"eth0","setting":"mtu","backend":"netlink","pre":"1500","new":"9000"}]}`))
	f.Add([]byte(`{"host":"h","written":[{"interface":"","setting":"nonsense"}]}`))
	f.Add([]byte(`{"host":"h","written":null}`))
	f.Add([]byte("{\"host\":"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		dir, _ := journal.Open(t.TempDir())
		if err := os.WriteFile(filepath.Join(dir.Path(), "h.journal"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		st, _ := dir.Status("h")
		if !st.Pending {
			t.Fatal("a journal file that exists is not pending")
		}
		_, _ = dir.Hosts()
		if txn, err := dir.Begin("h", ""); err == nil {
			txn.Close()
			t.Fatal("an apply began over an existing journal")
		}
		got, err := dir.Recover(context.Background(), "h", &hostcfg.Host{Name: "h"})
		if err == nil && got.Found && len(got.Record.Written) > 0 {
			t.Fatalf("a host without backends restored %d setting(s)", len(got.Record.Written))
		}
		if st, _ := dir.Status("h"); err != nil && !st.Pending {
			t.Fatal("a failed recovery removed the journal")
		}
	})
}

// BenchmarkApply compares an apply of the mlx5 fixture's plan (both
// interfaces) with and without the journal (an fsynced file replace before
// each write), restoring the host after each round.
func BenchmarkApply(b *testing.B) {
	for _, journaled := range []bool{false, true} {
		name := "plain"
		if journaled {
			name = "journaled"
		}
		b.Run(name, func(b *testing.B) {
			f := hostcfgtest.Load(b, filepath.Join("..", "testdata", "hosts", "mlx5-ofed"))
			d := hostcfgtest.Desired(b, filepath.Join("..", "testdata", "desired", "mlx5-ofed.json"))
			dir, _ := journal.Open(b.TempDir())
			ctx := context.Background()
			obs, _ := f.Host.Observe(ctx, d)
			p := hostcfg.Diff(d, obs)
			b.ResetTimer()
			for range b.N {
				var res hostcfg.Result
				var err error
				if journaled {
					txn, terr := dir.Begin("h", "")
					if terr != nil {
						b.Fatal(terr)
					}
					res, err = f.Host.ApplyRecorded(ctx, p, txn)
					rec, _ := txn.Finish()
					dir.Settle(ctx, "h", rec.ID)
				} else {
					res, err = f.Host.Apply(ctx, p)
				}
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if _, err := f.Host.Apply(ctx, res.Undo); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(len(p.Changes)), "writes/op")
		})
	}
}
