package analyze

import (
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/hostparse"
)

// TestDevInfoNoDeviceFamily: every message ibv_devinfo prints when it has
// no device to list fails the host, with libibverbs' reason attached; a
// listing where only some devices could not be opened warns and names the
// message.
func TestDevInfoNoDeviceFamily(t *testing.T) {
	f, st := hostFixture(t, "devinfo/no_devices_libibverbs_warnings.txt")
	if f.Kind != KindDevInfo || st["ibv_devinfo/no-device "] != checks.StatusFail || f.Findings[0].Class != checks.NoDevice ||
		!hostMentions(f, checks.StatusFail, "no userspace device-specific driver") {
		t.Errorf("no devices: %+v", f.Findings)
	}
	for _, text := range []string{"IB device 'mlx5_9' wasn't found\n", "Failed to open device\nFailed to open device\n"} {
		if f, _ := hostText("x", text); f.Worst() != checks.StatusFail || f.Findings[0].Class != checks.NoDevice {
			t.Errorf("%q: %+v", text, f.Findings)
		}
	}
	f, st = hostFixture(t, "devinfo/failed_open_vfs.txt")
	if f.Worst() != checks.StatusWarn || st["ibv_devinfo/unreadable-device "] != checks.StatusWarn || st["ibv_devinfo/port-state mlx5_6/1"] != checks.StatusPass ||
		!hostMentions(f, checks.StatusWarn, `"Failed to open device" ×2`) || !hostMentions(f, checks.StatusWarn, "Failed to query port 1 props") {
		t.Errorf("failed open: %+v", f.Findings)
	}
}

// TestDevInfoMTU: an active port whose active_mtu is below its max_mtu
// warns, per port; equal passes; an inactive port's MTU is not judged.
func TestDevInfoMTU(t *testing.T) {
	f, st := hostFixture(t, "devinfo/verbose_rxe_gids.txt")
	if f.Worst() != checks.StatusWarn || st["ibv_devinfo/mtu rxe0/1"] != checks.StatusWarn || !hostMentions(f, checks.StatusWarn, "netdev's MTU") {
		t.Errorf("rxe: %+v", f.Findings)
	}
	f, st = hostFixture(t, "devinfo/roce_active_and_ib_down.txt")
	if st["ibv_devinfo/mtu mlx5_0/1"] != checks.StatusPass || st["ibv_devinfo/mtu mlx5_1/1"] != "" {
		t.Errorf("active and down: %+v", f.Findings)
	}
	ib := "hca_id:\tmlx5_2\n\tphys_port_cnt:\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t2048 (4)\n\t\t\tsm_lid:\t\t\t1\n\t\t\tlink_layer:\t\tInfiniBand\n"
	if f, st := hostText("ib", ib); st["ibv_devinfo/mtu mlx5_2/1"] != checks.StatusWarn || !hostMentions(f, checks.StatusWarn, "partition MTU") {
		t.Errorf("IB: %+v", f.Findings)
	}
}

// TestMTUFindingFabricMTU: the MTU check is a function of the port's facts
// and of the MTU wanted, so a fabric's MTU can replace the port's max_mtu.
func TestMTUFindingFabricMTU(t *testing.T) {
	p := hostparse.DevInfoPort{State: "PORT_ACTIVE", MaxMTU: 4096, ActiveMTU: 2048}
	for want, st := range map[int]checks.Status{0: checks.StatusWarn, 2048: checks.StatusPass, 1024: checks.StatusPass, 4096: checks.StatusWarn, 8192: checks.StatusWarn} {
		if f, ok := mtuFinding("x/mtu", "d/1", p, want); !ok || f.Status != st {
			t.Errorf("want %d: %+v %v", want, f, ok)
		}
	}
	if _, ok := mtuFinding("x/mtu", "d/1", hostparse.DevInfoPort{State: "PORT_ACTIVE"}, 0); ok {
		t.Error("a port without MTU lines is judged")
	}
}

// TestDevInfoCutCaptures: a capture that shows no port state at all is
// "nothing to judge" (skip), never a pass; a -v fragment with only
// phys_state judges a RoCE port by it (its state follows the link), fails a
// link that is not up, and leaves an InfiniBand port with a link up unknown
// (it may wait for its subnet manager). A device cut at the edge of an
// excerpt that shows other ports adds nothing.
func TestDevInfoCutCaptures(t *testing.T) {
	if f, st := hostFixture(t, "devinfo/cut_before_port_state.txt"); f.Worst() != checks.StatusSkip || st["ibv_devinfo/port-state mlx5_4"] != checks.StatusSkip {
		t.Errorf("cut before state: %+v", f.Findings)
	}
	if f, _ := hostFixture(t, "devinfo/verbose_fragment_phys_state_gids.txt"); f.Worst() != checks.StatusPass {
		t.Errorf("RoCE fragment: %+v", f.Findings)
	}
	if f, _ := hostText("ib", "\t\t\tlink_layer:\t\tInfiniBand\n\t\t\tphys_state:\t\tLINK_UP (5)\n"); f.Worst() != checks.StatusSkip {
		t.Errorf("IB fragment: %+v", f.Findings)
	}
	if f, _ := hostText("polling", "\t\t\tlink_layer:\t\tInfiniBand\n\t\t\tphys_state:\t\tPOLLING (2)\n"); f.Worst() != checks.StatusFail || !hostMentions(f, checks.StatusFail, "POLLING") {
		t.Errorf("polling fragment: %+v", f.Findings)
	}
	edge := "\t\t\tport_lmc:\t\t0x00\n\t\t\tlink_layer:\t\tEthernet\n\nhca_id:\tmlx5_3\n\tphys_port_cnt:\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t4096 (5)\n\nhca_id:\tmlx5_4\n\ttransport:\t\t\tInfiniBand (0)\n"
	if f, _ := hostText("edges", edge); f.Worst() != checks.StatusPass {
		t.Errorf("edges of an excerpt: %+v", f.Findings)
	}
}
