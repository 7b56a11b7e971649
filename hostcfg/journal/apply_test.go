package journal_test

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
)

// TestApplyFailureRollsBackEveryInterface: a write failing on the second
// interface rolls back the first interface's settings too, from the
// journal, and the journal goes once everything is restored.
func TestApplyFailureRollsBackEveryInterface(t *testing.T) {
	f, d := fixture(t)
	before := values(t, f, d)
	dir, _ := journal.Open(t.TempDir())
	f.Kernel.FailNext("ens1f1np1", dcbnl.AttrIEEEPFC, syscall.EIO)
	got, err := dir.Apply(context.Background(), f.Host, d, plan(t, f, d))
	if err == nil || !strings.Contains(err.Error(), "ens1f1np1") || !got.RolledBack || got.Restored == 0 {
		t.Fatalf("apply: %+v, %v", got, err)
	}
	restoredFirst := false
	for _, c := range got.Result.RolledBack {
		restoredFirst = restoredFirst || c.Interface == "ens1f0np0"
	}
	if !restoredFirst {
		t.Errorf("the first interface is not among the rolled-back settings: %+v", got.Result.RolledBack)
	}
	if d := differ(before, values(t, f, d)); len(d) > 0 {
		t.Fatalf("a failed apply left the host changed: %v", d)
	}
	if st, err := dir.Status(d.Host); err != nil || st.Pending {
		t.Fatalf("journal after a complete roll-back: %+v, %v", st, err)
	}
}

// TestApplySettles: a verified apply leaves no journal and nothing to do.
func TestApplySettles(t *testing.T) {
	f, d := fixture(t)
	state := t.TempDir()
	dir, _ := journal.Open(state)
	got, err := dir.Apply(context.Background(), f.Host, d, plan(t, f, d))
	if err != nil || got.RolledBack || got.Unsettled != nil || len(got.Remaining) != 0 || len(got.Result.Applied) == 0 {
		t.Fatalf("apply: %+v, %v", got, err)
	}
	entries, _ := os.ReadDir(state)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("a settled apply left %s", e.Name())
		}
	}
}

// TestOpenExpandsHome: "~/" is the user's home directory.
func TestOpenExpandsHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir, err := journal.Open("~/.cache/fabricctl/state")
	if err != nil || dir.Path() != home+"/.cache/fabricctl/state" {
		t.Fatalf("got %v, %v", dir, err)
	}
}
