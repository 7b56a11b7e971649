package lab

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestValidateNetem(t *testing.T) {
	for _, ok := range [][]string{{"loss", "2%"}, {"loss", "0.5%"}, {"delay", "10ms", "2ms"}, {"corrupt", "1%"}, {"loss", "3%", "25%"}, {"rate", "100mbit"}} {
		if err := ValidateNetem(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range [][]string{nil, {"2%"}, {"loss", "2%;", "reboot"}, {"loss", "$(id)"}, {"loss", "0%"}, {"loss", "150%"}, {"limit", "10"}, {"loss", "2 %"}, {"delay", "-1ms"}} {
		if err := ValidateNetem(bad); !errors.Is(err, ErrBadFault) {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
}

func TestFaultTargets(t *testing.T) {
	s, err := Plan(DefaultTopology(), Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.faultPoints("host/lab-h2")
	if err != nil || len(pts) != 1 || pts[0] != (FaultPoint{Host: "lab-h2", Dev: "eth0"}) {
		t.Errorf("host/lab-h2: %v %v", pts, err)
	}
	pts, err = s.faultPoints("link/lab-h3")
	if err != nil || len(pts) != 2 || pts[0].Host != "lab-h3" || pts[1].Host != "" || pts[1].Dev != s.VMs[2].Tap {
		t.Errorf("link/lab-h3: %v %v", pts, err)
	}
	for _, bad := range []string{"lab-h1", "host/", "host/lab-h9", "switch/leaf-01", "/lab-h1"} {
		_, err := s.faultPoints(bad)
		if !errors.Is(err, ErrBadFault) || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if got := strings.Join(s.FaultTargets(), " "); !strings.Contains(got, "host/lab-h1") || !strings.Contains(got, "link/lab-h4") {
		t.Errorf("targets %s", got)
	}
}

// TestRoCENetemMatchesTheGuestHelper: the machine-side tc commands build the
// same qdisc tree as lab/image/guest/bin/lab-netem, so a link fault impairs
// both directions alike and only RoCE v2.
func TestRoCENetemMatchesTheGuestHelper(t *testing.T) {
	helper, err := os.ReadFile(filepath.Join("image", "guest", "bin", "lab-netem"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range roceNetem("tap0", []string{"loss", "2%"}) {
		line := strings.Join(cmd, " ")
		guest := strings.NewReplacer("tap0", `"$dev"`, "loss 2%", `"$@"`).Replace(line)
		if !strings.Contains(string(helper), "tc "+guest) {
			t.Errorf("tc %s: the guest helper has no such command", guest)
		}
	}
}

func TestFaultsRecord(t *testing.T) {
	s := &State{StateDir: t.TempDir()}
	if f, err := s.Faults(); err != nil || f != nil {
		t.Fatalf("no faults yet: %v %v", f, err)
	}
	want := []Fault{{Target: "host/lab-h1", Netem: []string{"loss", "2%"}, Added: time.Unix(1, 0).UTC(), Points: []FaultPoint{{Host: "lab-h1", Dev: "eth0"}}}}
	if err := s.saveFaults(want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Faults()
	if err != nil || len(got) != 1 || got[0].Target != "host/lab-h1" || got[0].Points[0].Dev != "eth0" {
		t.Fatalf("read back %+v %v", got, err)
	}
	if err := s.saveFaults(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.StateDir, FaultsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no faults left, but %s remains: %v", FaultsFile, err)
	}
}

// TestBridgeLossOnlyLoss: where the machine's kernel has no netem, a leaf
// port or tap takes "loss P%" through nftables only; anything else is
// refused before a command runs, naming the port.
func TestBridgeLossOnlyLoss(t *testing.T) {
	s := &State{}
	for _, netem := range [][]string{{"delay", "5ms"}, {"loss", "2%", "25%"}, {"corrupt", "1%"}} {
		err := s.setBridgeLoss(t.Context(), "no-such-netns", "swp49", netem)
		if !errors.Is(err, ErrBadFault) || !strings.Contains(err.Error(), "swp49") {
			t.Errorf("%q: %v, want ErrBadFault naming swp49", netem, err)
		}
	}
	if got := bridgeLossTable("leaf-01.x"); got != "labfault_leaf_01_x" {
		t.Errorf("table %q", got)
	}
}

// TestMachineTCErrorNamesMissingNetem: on a machine whose kernel has no
// sch_prio/sch_netem (this 2-core machine's VM kernel has neither, and no
// modules), a link fault's machine side fails with tc's "Specified qdisc kind
// is unknown"; the error says so and points at host/NAME, which needs only the
// guest's kernel. Other tc errors are left as they are.
func TestMachineTCErrorNamesMissingNetem(t *testing.T) {
	// As tc answered on this machine (kernel 6.18.44-fc-v1147), through command().
	tcErr := errors.New("running ip netns exec fabricctl-labtest tc qdisc add dev tap1 root handle 1: prio bands 4 " +
		"priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1: exit status 2: Error: Specified qdisc kind is unknown.")
	err := machineTCError("tap1", tcErr)
	if !errors.Is(err, ErrNoNetem) {
		t.Fatalf("not ErrNoNetem: %v", err)
	}
	for _, want := range []string{"tap1", "host/NAME", "Specified qdisc kind is unknown"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q not in %q", want, err)
		}
	}
	other := errors.New("running ip netns exec fabricctl-lab tc qdisc add dev tap9 root: exit status 1: Cannot find device \"tap9\"")
	if err := machineTCError("tap9", other); err != other {
		t.Errorf("other tc error changed: %v", err)
	}
}
