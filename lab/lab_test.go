package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/crypto/ssh"

	"github.com/fabricctl/fabricctl/lab/image"
)

func TestDefaultTopologyIsTheLabFabric(t *testing.T) {
	topo := DefaultTopology()
	if err := topo.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := topo.SortedHosts(); !slices.Equal(got, []string{"lab-h1", "lab-h2", "lab-h3", "lab-h4"}) {
		t.Errorf("hosts %v", got)
	}
	if topo.Hosts[3].Address.String() != "10.99.0.14" || topo.Controller.String() != "10.99.0.1" {
		t.Errorf("addresses %v controller %v", topo.Hosts[3].Address, topo.Controller)
	}
}

func TestValidateRejects(t *testing.T) {
	base := DefaultTopology()
	mod := func(f func(*Topology)) Topology {
		c := base
		c.Hosts = slices.Clone(base.Hosts)
		c.Extra = slices.Clone(base.Extra)
		f(&c)
		return c
	}
	cases := map[string]struct {
		topo Topology
		want string
	}{
		"outside subnet":   {mod(func(t *Topology) { t.Hosts[0].Address = netip.MustParseAddr("10.98.0.11") }), "outside the lab subnet"},
		"duplicate addr":   {mod(func(t *Topology) { t.Hosts[1].Address = t.Hosts[0].Address }), "already used by"},
		"controller clash": {mod(func(t *Topology) { t.Hosts[0].Address = t.Controller }), "already used by controller"},
		"duplicate name":   {mod(func(t *Topology) { t.Hosts[1].Name = "lab-h1" }), "used twice"},
		"bad name":         {mod(func(t *Topology) { t.Hosts[0].Name = "Lab_H1" }), "lower-case"},
		"ipv6":             {mod(func(t *Topology) { t.Hosts[0].Address = netip.MustParseAddr("fd00::1") }), "not IPv4"},
		"broadcast":        {mod(func(t *Topology) { t.Hosts[0].Address = netip.MustParseAddr("10.99.0.255") }), "broadcast"},
		"no hosts":         {mod(func(t *Topology) { t.Hosts = nil }), "no hosts"},
		"bad subnet":       {mod(func(t *Topology) { t.Subnet = netip.Prefix{} }), "subnet"},
		"mac collision": {Topology{Subnet: netip.MustParsePrefix("10.0.0.0/8"), Controller: netip.MustParseAddr("10.0.0.1"),
			Hosts: []Host{{"a", netip.MustParseAddr("10.1.0.5")}, {"b", netip.MustParseAddr("10.2.0.5")}}}, "collides"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.topo.Validate()
			if !errors.Is(err, ErrBadTopology) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrBadTopology mentioning %q", err, c.want)
			}
		})
	}
}

func TestParseHosts(t *testing.T) {
	h, err := ParseHosts("a=10.99.0.21, b=10.99.0.22")
	if err != nil {
		t.Fatal(err)
	}
	want := []Host{{"a", netip.MustParseAddr("10.99.0.21")}, {"b", netip.MustParseAddr("10.99.0.22")}}
	if d := cmp.Diff(want, h, cmpopts.EquateComparable(netip.Addr{})); d != "" {
		t.Fatal(d)
	}
	for _, bad := range []string{"a", "a=notip", "a=10.99.0.300"} {
		if _, err := ParseHosts(bad); !errors.Is(err, ErrBadTopology) {
			t.Errorf("ParseHosts(%q) = %v", bad, err)
		}
	}
}

func TestPlan(t *testing.T) {
	s, err := Plan(DefaultTopology(), Options{StateDir: "/tmp/x"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Netns != DefaultNetns || s.MemoryMB != 1024 || s.CPUs != 1 || s.User != "root" {
		t.Errorf("defaults: %+v", s)
	}
	v := s.VMs[1]
	if v.Name != "lab-h2" || v.Tap != "tap1" || v.MAC != "52:54:00:63:00:0c" || v.Prefix != 24 ||
		v.Share != "/tmp/x/vms/lab-h2/share" || v.Console != "/tmp/x/vms/lab-h2/console.log" {
		t.Errorf("vm: %+v", v)
	}
	if s.KeyPath != "/tmp/x/id_ed25519" || s.KnownHosts != "/tmp/x/known_hosts" {
		t.Errorf("key paths %s %s", s.KeyPath, s.KnownHosts)
	}
	env := s.GuestEnv(v)
	for _, want := range []string{"LAB_HOST=lab-h2\n", "LAB_ADDR=10.99.0.12/24\n", "LAB_GW=10.99.0.1\n",
		"10.99.0.11=52:54:00:63:00:0b", "10.99.0.1=52:54:00:63:00:01", "10.99.0.101=52:54:00:63:00:01"} {
		if !strings.Contains(env, want) {
			t.Errorf("lab.env lacks %q:\n%s", want, env)
		}
	}
	if strings.Contains(env, "10.99.0.12=") {
		t.Errorf("lab.env has the host's own neighbour entry:\n%s", env)
	}
	if _, err := s.VM("10.99.0.13"); err != nil {
		t.Error(err)
	}
	if _, err := s.VM("nope"); err == nil || !strings.Contains(err.Error(), "lab-h1, lab-h2") {
		t.Errorf("unknown host error %v", err)
	}
	bad := DefaultTopology()
	bad.Hosts = nil
	if _, err := Plan(bad, Options{}); !errors.Is(err, ErrBadTopology) {
		t.Errorf("Plan of a bad topology: %v", err)
	}
}

func TestQemuArgs(t *testing.T) {
	s, _ := Plan(DefaultTopology(), Options{StateDir: "/st", MemoryMB: 768, CPUs: 2})
	s.Image = image.Image{Kernel: "/img/vmlinuz", Initrd: "/img/initrd.img"}
	args := strings.Join(QemuArgs(s, s.VMs[0], "tcg"), " ")
	for _, want := range []string{
		"-accel tcg -cpu max", "-smp 2 -m 768", "-kernel /img/vmlinuz -initrd /img/initrd.img",
		"-netdev tap,id=n0,ifname=tap0,script=no,downscript=no",
		"-device virtio-net-pci,netdev=n0,mac=52:54:00:63:00:0b,romfile=",
		"-virtfs local,path=/st/vms/lab-h1/share,mount_tag=host0,security_model=none,id=host0",
		"-serial file:/st/vms/lab-h1/console.log", "-daemonize -pidfile /st/vms/lab-h1/qemu.pid",
		"-no-reboot", "panic=-1", "no_timer_check",
	} {
		if !strings.Contains(args, want) {
			t.Errorf("qemu args lack %q:\n%s", want, args)
		}
	}
	if kvm := strings.Join(QemuArgs(s, s.VMs[0], "kvm"), " "); !strings.Contains(kvm, "-accel kvm -cpu host,-arch-capabilities") {
		t.Errorf("kvm args: %s", kvm)
	}
}

func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, err := Plan(DefaultTopology(), Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s.Image = image.Image{Kernel: "k", Initrd: "i", KernelVersion: "6.1.0-57-amd64", Hash: "abc"}
	s.VMs[0].Pid = 1234
	s.StartedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if _, err := Load(dir); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Load before Save: %v", err)
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(s, got, cmpopts.IgnoreUnexported(State{}), cmpopts.EquateComparable(netip.Addr{}, netip.Prefix{})); d != "" {
		t.Fatalf("round trip (-want +got):\n%s", d)
	}
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"apiVersion":"v0"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "apiVersion") {
		t.Errorf("wrong apiVersion accepted: %v", err)
	}
}

func TestKeysAndKnownHosts(t *testing.T) {
	dir := t.TempDir()
	s, _ := Plan(DefaultTopology(), Options{StateDir: dir})
	for _, v := range s.VMs {
		if err := os.MkdirAll(v.Share, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.writeKeys(); err != nil {
		t.Fatal(err)
	}
	cfg, err := s.SSHConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.User != "root" {
		t.Errorf("user %q", cfg.User)
	}
	// the known_hosts file accepts each VM's own key, by name and by address, and nothing else
	v0, v1 := s.VMs[0], s.VMs[1]
	k0 := parseKey(t, v0.HostKey)
	k1 := parseKey(t, v1.HostKey)
	addr := func(v VM) *netAddr { return &netAddr{v.Address.String() + ":22"} }
	if err := cfg.HostKeyCallback(v0.Address.String()+":22", addr(v0), k0); err != nil {
		t.Errorf("own key by address rejected: %v", err)
	}
	if err := cfg.HostKeyCallback(v0.Name+":22", addr(v0), k0); err != nil {
		t.Errorf("own key by name rejected: %v", err)
	}
	if err := cfg.HostKeyCallback(v0.Address.String()+":22", addr(v0), k1); err == nil {
		t.Error("another VM's key accepted")
	}
	// the share holds what the guest's /init installs
	for _, f := range []string{"ssh_host_ed25519_key", "authorized_keys", "lab.env"} {
		b, err := os.ReadFile(filepath.Join(v0.Share, f))
		if err != nil || len(b) == 0 {
			t.Errorf("share file %s: %v", f, err)
		}
	}
	auth, _ := os.ReadFile(filepath.Join(v0.Share, "authorized_keys"))
	pub, _ := os.ReadFile(s.KeyPath + ".pub")
	if !bytes.Equal(auth, pub) {
		t.Error("authorized_keys is not the controller key")
	}
	hostPriv, _ := os.ReadFile(filepath.Join(v0.Share, "ssh_host_ed25519_key"))
	signer, err := ssh.ParsePrivateKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(signer.PublicKey().Marshal(), k0.Marshal()) {
		t.Error("host private key does not match the known_hosts entry")
	}
}

type netAddr struct{ s string }

func (a *netAddr) Network() string { return "tcp" }
func (a *netAddr) String() string  { return a.s }

func parseKey(t *testing.T, s string) ssh.PublicKey {
	t.Helper()
	k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestDecodeSide(t *testing.T) {
	b, _ := os.ReadFile("testdata/lab-pt-client.json")
	p, err := decodeSide(b)
	if err != nil {
		t.Fatal(err)
	}
	if !p.OK() || p.Result.BWAvg != 0.14 || p.Result.BWUnit != "Gb/s" || p.Counters["sent_pkts"] != 64004 || p.Attempts != 2 {
		t.Errorf("decoded %+v %+v", p, p.Result)
	}
	b, _ = os.ReadFile("testdata/lab-pt-timeout.json")
	p, err = decodeSide(b)
	if err != nil {
		t.Fatal(err)
	}
	if p.OK() || !p.TimedOut || p.Result != nil || p.Counters["completer_retry_err"] != 412 {
		t.Errorf("timeout side %+v", p)
	}
	if _, err := decodeSide([]byte("Unexpected CM event")); err == nil {
		t.Error("garbage accepted")
	}
}

// A smoke check over a recorded lab-info: all pass for the right host, and each wrong fact fails
// its own check.
func TestSmokeChecks(t *testing.T) {
	b, _ := os.ReadFile("testdata/lab-info.json")
	var info HostInfo
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	s, _ := Plan(DefaultTopology(), Options{StateDir: t.TempDir()})
	s.Image.KernelVersion = "6.1.0-57-amd64"
	run := func(v VM, h HostInfo) []Check {
		r := &runner{s: s, res: &Result{}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		checkHost(r, v, h, map[string]string{})
		return r.res.Checks
	}
	for _, c := range run(s.VMs[0], info) {
		if !c.Passed {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
	failed := func(cs []Check) []string {
		var f []string
		for _, c := range cs {
			if !c.Passed {
				f = append(f, c.Name)
			}
		}
		return f
	}
	// lab-h2's address is not in lab-h1's GID table, nor its name
	if got := failed(run(s.VMs[1], info)); !slices.Equal(got, []string{"lab-h2: host name", "lab-h2: rxe0 RoCE v2 GID of 10.99.0.12"}) {
		t.Errorf("failed checks %v", got)
	}
	down := info
	down.Devices = slices.Clone(info.Devices)
	down.Devices[0].Ports = []RDMAPort{info.Devices[0].Ports[0]}
	down.Devices[0].Ports[0].State = "1: DOWN"
	if got := failed(run(s.VMs[0], down)); !slices.Equal(got, []string{"lab-h1: rxe0 port ACTIVE"}) {
		t.Errorf("failed checks %v", got)
	}
	nolb := info
	nolb.Devices = info.Devices[:1]
	if got := failed(run(s.VMs[0], nolb)); !slices.Equal(got, []string{"lab-h1: rxelb present"}) {
		t.Errorf("failed checks %v", got)
	}
}

func TestDecodeResult(t *testing.T) {
	res := Result{APIVersion: APIVersion, Scenario: "perftest", Passed: true, Checks: []Check{{Name: "x", Passed: true}},
		Perftests: []Perftest{{Name: "write_bw", Tool: "ib_write_bw", Client: "lab-h1", Server: "lab-h2",
			ClientSide: &PerftestSide{RC: 0, Result: &PerftestSummary{BWAvg: 0.14, BWUnit: "Gb/s"}}}}}
	b, _ := json.Marshal(res)
	got, err := DecodeResult(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if got.Perftests[0].ClientSide.Result.BWAvg != 0.14 || !got.Passed {
		t.Errorf("decoded %+v", got)
	}
	for name, in := range map[string]string{
		"unknown field": `{"apiVersion":"fabricctl.io/v1alpha1","scenario":"smoke","bogus":1}`,
		"api version":   `{"apiVersion":"v2","scenario":"smoke"}`,
		"no scenario":   `{"apiVersion":"fabricctl.io/v1alpha1"}`,
		"not json":      `PASS`,
	} {
		if _, err := DecodeResult(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestScenariosSortedAndBounded(t *testing.T) {
	var names []string
	for _, s := range Scenarios() {
		names = append(names, s.Name)
		if s.Timeout <= 0 || s.Timeout > 10*time.Minute || s.run == nil {
			t.Errorf("%s: timeout %s", s.Name, s.Timeout)
		}
	}
	if !slices.Equal(names, []string{"lossy", "perftest", "smoke"}) {
		t.Errorf("scenarios %v", names)
	}
	s, _ := Plan(DefaultTopology(), Options{StateDir: t.TempDir()})
	if _, err := s.RunScenario(t.Context(), "nope", nil); !errors.Is(err, ErrUnknownScenario) || !strings.Contains(err.Error(), "lossy, perftest, smoke") {
		t.Errorf("unknown scenario: %v", err)
	}
}

func TestShellJoin(t *testing.T) {
	got := shellJoin("lab-pt", "client", "x", "10.99.0.12", "ib_write_bw", "-R", "it's", "")
	if got != `lab-pt client x 10.99.0.12 ib_write_bw -R 'it'\''s' ''` {
		t.Errorf("shellJoin = %s", got)
	}
}

func TestIPv4GID(t *testing.T) {
	if g := IPv4GID([4]byte{10, 99, 0, 11}); g != "0000:0000:0000:0000:0000:ffff:0a63:000b" {
		t.Errorf("gid %s", g)
	}
}

// Up refuses quickly, before touching the system, when qemu is missing (or when not root).
func TestUpWithoutQemu(t *testing.T) {
	dir := t.TempDir()
	_, err := Up(t.Context(), DefaultTopology(), image.Image{}, Options{StateDir: dir, Qemu: "/nonexistent/qemu-system-x86_64"}, nil)
	switch {
	case os.Geteuid() != 0:
		if !errors.Is(err, ErrNotRoot) {
			t.Fatalf("err = %v, want ErrNotRoot", err)
		}
	case !errors.Is(err, image.ErrMissingTool) || !strings.Contains(err.Error(), "qemu") || !strings.Contains(err.Error(), "install-deps.sh"):
		t.Fatalf("err = %v, want ErrMissingTool naming qemu", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("state dir touched: %v", entries)
	}
}

func TestAccelIsTCGUnlessKVMIsAskedForAndWorks(t *testing.T) {
	dir := t.TempDir()
	fake := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	works, fails := fake("qemu-ok", "cat >/dev/null; exit 0"), fake("qemu-fails", "exit 1")
	ctx := context.Background()
	t.Setenv(AccelEnv, "")
	if a := Accel(ctx, works); a != "tcg" {
		t.Errorf("without %s: %s, want tcg", AccelEnv, a)
	}
	t.Setenv(AccelEnv, "kvm")
	if a := Accel(ctx, fails); a != "tcg" {
		t.Errorf("KVM asked for, probe failing: %s, want tcg", a)
	}
	if f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0); err == nil {
		f.Close()
		if a := Accel(ctx, works); a != "kvm" {
			t.Errorf("KVM asked for, /dev/kvm usable, probe passing: %s, want kvm", a)
		}
	}
}
