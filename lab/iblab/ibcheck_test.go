package iblab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/action/ibcheck"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/ibfabric"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// The InfiniBand fabric checks (action/ibcheck) on the lab built from
// profiles/lab/ib.yaml's declared cabling: a healthy lab passes, and each
// injected fault gives exactly its finding, naming the link, and nothing
// else.

const labFabric = "../../profiles/lab/ib.yaml"

// ibLab starts the lab of profiles/lab/ib.yaml with its partitions.
// OpenSM runs at priority 1 so that a second SM (priority 0) stays standby
// and does not reprogram the subnet.
func ibLab(t *testing.T) (*Lab, *fabric.Fabric) {
	t.Helper()
	needLab(t)
	f, err := fabric.Load(labFabric, fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	topo, guids, err := FromFabric(f)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := opensm.Render(f.Resolve().SubnetManagers[0], guids)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Up(context.Background(), Options{Dir: t.TempDir(), Topology: topo, Partitions: []byte(conf), OpenSMArgs: []string{"-p", "1"}}, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Down(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return l, f
}

// check runs the ib suite's checks as `check --local --suite ib` does,
// attached at the SM's node, and returns the findings (results worse than
// pass and skip) as "ID TARGET: SUMMARY".
func check(t *testing.T, l *Lab, f *fabric.Fabric) ([]string, ibfabric.Outcome) {
	t.Helper()
	start := time.Now()
	out, err := ibcheck.Run(context.Background(), f, ibcheck.Options{Env: l.Env(""), Dir: l.ClientsDir(), Vantage: l.SMNode, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ib checks: %d results in %v", len(out.Results), time.Since(start).Round(time.Millisecond))
	var fs []string
	for _, r := range out.Results {
		if r.Status != checks.StatusPass && r.Status != checks.StatusSkip {
			fs = append(fs, r.ID+" "+r.Target+": "+r.Summary)
		}
	}
	return fs, out
}

func want(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("finding:\n  %s\nwant it to contain\n  %s", got[i], w)
		}
	}
}

// sweep runs an ibsim console command and waits for OpenSM's next sweep.
func sweep(t *testing.T, l *Lab, cmds ...string) {
	t.Helper()
	from := l.LogSize()
	for _, c := range cmds {
		if reply, err := l.Sim(context.Background(), c); err != nil || strings.HasPrefix(reply, "#") {
			t.Fatalf("ibsim %s: %q %v", c, reply, err)
		}
	}
	if err := l.WaitSweep(context.Background(), from, 20*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestIBCheckHealthy(t *testing.T) {
	l, f := ibLab(t)
	got, out := check(t, l, f)
	want(t, got)
	n := map[string]int{}
	for _, r := range out.Results {
		n[r.ID]++
		if r.Status != checks.StatusPass {
			t.Errorf("%s %s: %s: %s", r.ID, r.Target, r.Status, r.Summary)
		}
	}
	if n[ibfabric.IDLink] != 7 || n[ibfabric.IDPKeys] != 1 || n[ibfabric.IDSubnetManager] != 1 {
		t.Errorf("results per check: %v", n)
	}
}

func TestIBCheckCablePulled(t *testing.T) {
	l, f := ibLab(t)
	sweep(t, l, `Unlink "ib-h1"[1]`)
	got, _ := check(t, l, f)
	want(t, got, "ib/link ib-h1:1 <-> leaf-01:1: link down: leaf-01:1 is Down/Polling")
}

func TestIBCheckWidthDegraded(t *testing.T) {
	l, f := ibLab(t)
	// ibportstate on both ends (OpenSM's sweeps restore a one-sided
	// width): from sm-01 (on leaf-01's port 3, out of its own port 1),
	// leaf-01 is 0,1 and spine-01 0,1,7; width 1 is 1X
	for _, a := range [][]string{{"-D", "0,1,7", "1", "width", "1"}, {"-D", "0,1", "7", "width", "1"}} {
		if out, err := l.Diag(context.Background(), "", append([]string{"ibportstate"}, a...)...); err != nil {
			t.Fatalf("ibportstate %v: %v\n%s", a, err, out)
		}
	}
	got, _ := check(t, l, f)
	want(t, got, "ib/link leaf-01:7 <-> spine-01:1: degraded: leaf-01:7 trained 1X EDR, spine-01:1 trained 1X EDR, declared 4X EDR")
}

func TestIBCheckSymbolErrors(t *testing.T) {
	l, f := ibLab(t)
	if reply, err := l.Sim(context.Background(), `PerformanceSet "leaf-02"[1] PortCounters.SymbolErrorCounter=57`); err != nil || strings.HasPrefix(reply, "#") {
		t.Fatalf("PerformanceSet: %q %v", reply, err)
	}
	got, _ := check(t, l, f)
	want(t, got, "ib/counters ib-h3:1 <-> leaf-02:1: leaf-02:1: SymbolErrorCounter 57 (one reading of the counters since they were last cleared")
}

// TestIBCheckMADLoss: a port that drops every management packet. What a
// check sees is the diags' directed-route timeouts at the node behind it:
// the link is up at the switch, and nothing answers on the far end.
func TestIBCheckMADLoss(t *testing.T) {
	l, f := ibLab(t)
	if reply, err := l.Sim(context.Background(), `Error "ib-h4"[1] 100`); err != nil || strings.HasPrefix(reply, "#") {
		t.Fatalf("Error: %q %v", reply, err)
	}
	got, out := check(t, l, f)
	want(t, got, "ib/link ib-h4:1 <-> leaf-02:2: management packets lost: leaf-02:2 is Active/LinkUp but ib-h4 behind it answers no management packet")
	for _, r := range out.Results {
		if r.ID == ibfabric.IDLink && r.Status == checks.StatusFail && (len(r.Evidence) == 0 || !strings.Contains(strings.Join(r.Evidence, " "), "timed out")) {
			t.Errorf("evidence %q: want the diags' timeouts", r.Evidence)
		}
	}
}

func TestIBCheckCableMoved(t *testing.T) {
	l, f := ibLab(t)
	sweep(t, l, `Unlink "ib-h1"[1]`, `Link "ib-h1"[1] "leaf-01"[5]`)
	// the moved port comes back ACTIVE after OpenSM configures it
	if err := poll(context.Background(), 20*time.Second, func() (bool, error) {
		out, _ := l.Diag(context.Background(), "", "iblinkinfo")
		return strings.Count(string(out), "LinkUp") >= 14, nil
	}); err != nil {
		t.Fatal(err)
	}
	got, _ := check(t, l, f)
	want(t, got, "ib/cabling ib-h1:1: wrong-port: ib-h1:1 is on leaf-01:5, declared leaf-01:1 (same switch, another port)")
}

// TestIBCheckSecondSM: another OpenSM on ib-h3 (priority 0, so the
// declared sm-01 at priority 1 stays master and the newcomer standby).
func TestIBCheckSecondSM(t *testing.T) {
	l, f := ibLab(t)
	dir := filepath.Join(l.Dir, "sm2")
	for _, d := range []string{dir, filepath.Join(dir, "cache"), filepath.Join(dir, "dump")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := fmt.Sprintf("log_file %s/opensm.log\ndump_files_dir %s/dump\nper_module_logging_file %s/pml.conf\npartition_config_file %s\nforce_log_flush TRUE\n", dir, dir, dir, l.PartitionsFile())
	if err := os.WriteFile(filepath.Join(dir, "opensm.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("opensm", "-F", filepath.Join(dir, "opensm.conf"), "-p", "0")
	if _, err := exec.LookPath("opensm"); err != nil {
		cmd.Path = "/usr/sbin/opensm"
	}
	cmd.Dir = l.ClientsDir()
	cmd.Env = append(os.Environ(), append(l.Env("ib-h3"), "OSM_CACHE_DIR="+filepath.Join(dir, "cache"), "OSM_TMP_DIR="+filepath.Join(dir, "dump"))...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	if err := poll(context.Background(), 20*time.Second, func() (bool, error) {
		b, _ := os.ReadFile(filepath.Join(dir, "opensm.log"))
		return strings.Contains(string(b), "Entering STANDBY state"), nil
	}); err != nil {
		b, _ := os.ReadFile(filepath.Join(dir, "opensm.log"))
		t.Fatalf("second SM: %v\n%s", err, lastLines(string(b), 10))
	}
	got, _ := check(t, l, f)
	// its state is the SA's record of it: discovering or standby
	want(t, got, "ib/subnet-manager sm-01: a second SM runs on ib-h3 (")
	if !strings.Contains(got[0], ", lid 6, priority 0): no subnet manager is declared there") {
		t.Errorf("finding %q: want the second SM's LID and priority", got[0])
	}
}
