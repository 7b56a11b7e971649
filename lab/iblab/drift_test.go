package iblab

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// TestIBLabPreviewAcceptedByOpenSM (issue 25): the render of a fabric whose
// hosts' GUIDs are not all known — a partition whose only member is such a
// host, followed by others — is read by the real OpenSM as the intent
// without the unknown hosts: no parse error, no fallback, and the empty
// partition does not swallow the next one. Before the fix, OpenSM logged
// "PARSE ERROR: bad PortGUID" and made every port a full member of 0x7fff.
func TestIBLabPreviewAcceptedByOpenSM(t *testing.T) {
	l := up(t, nil)
	ctx := context.Background()
	sm := tenants()
	// tenant-a (0x0001) has only hosts whose GUIDs are not known yet, and
	// tenant-b follows it.
	guids := Demo().PortGUIDs()
	delete(guids, "lab-h1")
	delete(guids, "lab-h2")
	text, err := opensm.RenderPreview(sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	r := l.Pusher().Fabric
	from := l.LogSize()
	if err := os.WriteFile(l.PartitionsFile(), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.HUP(); err != nil {
		t.Fatal(err)
	}
	if err := r.WaitSweep(ctx, from); err != nil {
		t.Fatalf("the real OpenSM on the preview: %v\n%s", err, text)
	}
	want := maps.Clone(isolated)
	want["lab-h1"], want["lab-h2"] = "0x7fff=limited", "0x7fff=limited"
	sameTables(t, "preview", tables(t, l), want)
}

// TestIBLabDriftBehindOpenSMsBack: a second subnet manager rewrites the
// P_Key tables (ALL=full) and goes away; OpenSM's file and its own view
// are unchanged and it does not heal them on SIGHUP. Plan (what drift
// runs) reports every port that lost its isolation, and apply refuses to
// call the fabric converged.
func TestIBLabDriftBehindOpenSMsBack(t *testing.T) {
	good := tenantsFile(t)
	l := up(t, []byte(good))
	ctx := context.Background()
	target := &opensm.Target{Intent: tenants(), Pusher: l.Pusher(), GUIDs: Demo().PortGUIDs()}
	if ch, err := target.Plan(ctx); err != nil || len(ch) != 0 {
		t.Fatalf("plan before the intruder: %v, %v", ch, err)
	}
	intruder(t, l)
	ch, err := target.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ports []string
	for _, c := range ch {
		if strings.HasPrefix(c.Component, "port ") {
			ports = append(ports, c.Component+" "+c.Setting+" "+c.Old+"→"+c.New)
		}
	}
	// lab-h1..h4 each lost their tenant pkey and became full in 0x7fff.
	if len(ports) != 8 {
		t.Errorf("drift after the intruder: %d port changes, want 8:\n%s", len(ports), strings.Join(ports, "\n"))
	}
	_, err = target.Apply(ctx, ch)
	if err == nil || !strings.Contains(err.Error(), "restart OpenSM") {
		t.Errorf("apply over drifted ports: %v", err)
	}
	if errors.Is(err, opensm.ErrVerify) {
		t.Errorf("the file is right: nothing to roll back, got %v", err)
	}
}

// intruder runs a second OpenSM at sm-01 with no partitions file (so ALL
// full) until it has swept once, then stops it.
func intruder(t *testing.T, l *Lab) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "opensm2.log")
	cmd := exec.Command("opensm", "-d2", "-P", "/nonexistent", "-f", log, "-F", "/dev/null")
	cmd.Dir = filepath.Join(l.Dir, "clients")
	cmd.Env = append(os.Environ(), append(l.clientEnv(""), "OSM_CACHE_DIR="+dir, "OSM_TMP_DIR="+dir)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	err := poll(context.Background(), 30*time.Second, func() (bool, error) {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "SUBNET UP"), nil
	})
	if err != nil {
		t.Fatalf("intruder OpenSM: %v", err)
	}
	time.Sleep(time.Second)
}

// TestIBLabSideBySide: two labs at once, each with its own ibsim socket: a
// cable pulled in one leaves the other whole, and Down stops only its own.
func TestIBLabSideBySide(t *testing.T) {
	a, b := up(t, nil), up(t, nil)
	ctx := context.Background()
	if a.Sock == b.Sock {
		t.Fatalf("one socket name for two labs: %s", a.Sock)
	}
	if _, err := a.Sim(ctx, `Unlink "lab-h1"[1]`); err != nil {
		t.Fatal(err)
	}
	if err := poll(ctx, 20*time.Second, func() (bool, error) { return len(lidsOf(t, a)) == 4, nil }); err != nil {
		t.Errorf("lab a after unplugging lab-h1: %v CAs %v", err, lidsOf(t, a))
	}
	if n := len(lidsOf(t, b)); n != 5 {
		t.Errorf("lab b sees %d CAs after a cable was pulled in lab a, want 5", n)
	}
	if err := a.Down(ctx); err != nil {
		t.Fatal(err)
	}
	if a.Running() || !b.Running() {
		t.Errorf("after a.Down: a running %v, b running %v", a.Running(), b.Running())
	}
	if _, err := a.Diag(ctx, "", "ibstat"); err == nil {
		t.Errorf("a diag on a stopped lab succeeded")
	}
}
