package lab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// QemuArgs is the qemu-system-x86_64 command line of one VM (without the program name). The VM
// runs daemonized (qemu writes PidFile), its serial console goes to Console, eth0 is a virtio-net
// NIC on the tap Tap (which already exists, in the lab namespace: script=no), and the share is
// exported over virtio-9p with mount_tag host0. accel is "tcg" or "kvm".
//
// no_timer_check: on a busy machine an emulated CPU can be too slow for the kernel's early
// IO-APIC timer test, which then panics ("IO-APIC + timer doesn't work!"); seen under load.
func QemuArgs(s *State, v VM, accel string) []string {
	return []string{
		"-name", "fabricctl-lab-" + v.Name,
		"-machine", "q35", "-accel", accel, "-cpu", cpuModel(accel),
		"-smp", strconv.Itoa(s.CPUs), "-m", strconv.Itoa(s.MemoryMB),
		"-display", "none", "-monitor", "none", "-no-reboot",
		"-kernel", s.Image.Kernel, "-initrd", s.Image.Initrd,
		"-append", "console=ttyS0 quiet panic=-1 no_timer_check lab.host=" + v.Name,
		"-netdev", fmt.Sprintf("tap,id=n0,ifname=%s,script=no,downscript=no", v.Tap),
		"-device", "virtio-net-pci,netdev=n0,mac=" + v.MAC + ",romfile=",
		"-virtfs", fmt.Sprintf("local,path=%s,mount_tag=host0,security_model=none,id=host0", v.Share),
		"-serial", "file:" + v.Console,
		"-daemonize", "-pidfile", v.PidFile,
	}
}

// cpuModel is the guest CPU for accel. Under KVM it is the host's, without
// IA32_ARCH_CAPABILITIES: nested KVM (the CI machines) refuses to set that
// MSR and qemu aborts ("failed to set MSR 0x10a").
func cpuModel(accel string) string {
	if accel == "kvm" {
		return "host,-arch-capabilities"
	}
	return "max"
}

// AccelEnv names the environment variable that opts the lab into KVM.
const AccelEnv = "FABRICCTL_LAB_ACCEL"

// Accel picks the accelerator: tcg (software emulation) unless AccelEnv is
// "kvm", /dev/kvm opens and qemu (the binary qemu) can start a KVM machine
// with the lab's CPU model. KVM is opt-in because a nested KVM can pass
// that probe and still hang every guest before its first console line (seen
// on this project's machines); software emulation always boots.
//
// The probe starts a machine stopped (-S) and quits it from the monitor:
// vCPU set-up, where nested KVM refuses MSRs, happens before the monitor
// answers.
func Accel(ctx context.Context, qemu string) string {
	if os.Getenv(AccelEnv) != "kvm" {
		return "tcg"
	}
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return "tcg"
	}
	f.Close()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, qemu, "-machine", "q35", "-accel", "kvm", "-cpu", cpuModel("kvm"),
		"-m", "64", "-nodefaults", "-display", "none", "-S", "-monitor", "stdio")
	cmd.Stdin = strings.NewReader("quit\n")
	if cmd.Run() != nil {
		return "tcg"
	}
	return "kvm"
}
