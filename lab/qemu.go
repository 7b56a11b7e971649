package lab

import (
	"fmt"
	"os"
	"strconv"
)

// QemuArgs is the qemu-system-x86_64 command line of one VM (without the program name). The VM
// runs daemonized (qemu writes PidFile), its serial console goes to Console, eth0 is a virtio-net
// NIC on the tap Tap (which already exists, in the lab namespace: script=no), and the share is
// exported over virtio-9p with mount_tag host0. accel is "tcg" or "kvm".
//
// no_timer_check: on a busy machine an emulated CPU can be too slow for the kernel's early
// IO-APIC timer test, which then panics ("IO-APIC + timer doesn't work!"); seen under load.
func QemuArgs(s *State, v VM, accel string) []string {
	cpu := "max"
	if accel == "kvm" {
		cpu = "host"
	}
	return []string{
		"-name", "fabricctl-lab-" + v.Name,
		"-machine", "q35", "-accel", accel, "-cpu", cpu,
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

// Accel picks kvm when /dev/kvm is usable, tcg otherwise.
func Accel() string {
	if f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0); err == nil {
		f.Close()
		return "kvm"
	}
	return "tcg"
}
