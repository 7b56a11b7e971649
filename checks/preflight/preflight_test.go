package preflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
)

const hosts = "../../hostcfg/testdata/hosts"

func desired(t *testing.T, name string) fabric.HostIntent {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../hostcfg/testdata/desired", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var d fabric.HostIntent
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// rxeGatherer gathers on a private copy of the rxe fixture host.
func rxeGatherer(t *testing.T) (*Gatherer, *hostcfgtest.Fixture) {
	t.Helper()
	fx := hostcfgtest.Load(t, filepath.Join(hosts, "rxe"))
	g := &Gatherer{
		Open:     func(context.Context) (*hostcfg.Host, error) { return fx.Host, nil },
		Sys:      fx.Host.Sys,
		ProcRoot: t.TempDir(),
		LibDirs:  []string{t.TempDir()},
		LookPath: func(string) (string, error) { return filepath.Abs("testdata/fakes/ib_write_bw") },
		Resolve: func(_ context.Context, name string) ([]string, error) {
			if name == "gpu-02" {
				return []string{"10.0.0.22"}, nil
			}
			return nil, errors.New("no such host")
		},
		Run: func(_ context.Context, name string, _ ...string) ([]byte, error) {
			return nil, fmt.Errorf("running %s: exec: %q: executable file not found in $PATH", name, name)
		},
		FileRoot:   t.TempDir(),
		PythonDirs: []string{},
		CondaDirs:  []string{},
	}
	return g, fx
}

func find(rs []checks.Result, id string) []checks.Result {
	var out []checks.Result
	for _, r := range rs {
		if r.ID == id {
			out = append(out, r)
		}
	}
	return out
}

func one(t *testing.T, rs []checks.Result, id string) checks.Result {
	t.Helper()
	got := find(rs, id)
	if len(got) != 1 {
		t.Fatalf("%d results %s, want 1: %+v", len(got), id, rs)
	}
	return got[0]
}

func TestHealthyRxeHost(t *testing.T) {
	g, _ := rxeGatherer(t)
	f := g.Gather(t.Context(), Args{Intent: desired(t, "rxe"), Peers: []Peer{{Name: "gpu-02", Address: "10.0.0.22"}, {Name: "gpu-03", Address: "gpu-03.mgmt"}}})
	rs := Evaluate(f, Options{ExpectedRate: 10})
	want := map[string]checks.Status{IDRDMADevice: checks.StatusPass, IDPort: checks.StatusPass, IDRate: checks.StatusPass,
		IDGID: checks.StatusPass, IDPerftest: checks.StatusPass, IDAffinity: checks.StatusSkip, IDPeerMem: checks.StatusSkip}
	for id, st := range want {
		if r := one(t, rs, id); r.Status != st {
			t.Errorf("%s: %s (%s), want %s", id, r.Status, r.Summary, st)
		}
	}
	if r := one(t, rs, IDGID); !strings.Contains(r.Summary, "index 1") || r.Target != "lab-01/rxe0" {
		t.Errorf("gid: %s %q", r.Target, r.Summary)
	}
	if r := one(t, rs, IDPerftest); r.Summary != "perftest 6.22" {
		t.Errorf("perftest: %q", r.Summary)
	}
	// rxe has no DCB: the settings it cannot do are a warning, not drift.
	if r := one(t, rs, IDLossless); r.Status == checks.StatusPass || r.Status == checks.StatusError {
		t.Errorf("lossless on rxe: %s %q %q", r.Status, r.Summary, r.Evidence)
	}
	if r := one(t, rs, IDResolve); r.Status != checks.StatusFail || r.Class != checks.OOBConnect || len(r.Evidence) != 2 {
		t.Errorf("name resolution: %+v", r)
	}
}

func TestPortDownAndNoGID(t *testing.T) {
	g, fx := rxeGatherer(t)
	port := fx.Host.Sys.Path("class", "infiniband", "rxe0", "ports", "1")
	os.WriteFile(filepath.Join(port, "state"), []byte("1: DOWN\n"), 0o644)
	os.WriteFile(filepath.Join(port, "phys_state"), []byte("3: Disabled\n"), 0o644)
	os.WriteFile(filepath.Join(port, "gid_attrs", "types", "1"), []byte("IB/RoCE v1\n"), 0o644)
	rs := Evaluate(g.Gather(t.Context(), Args{Intent: desired(t, "rxe")}), Options{ExpectedRate: 100})
	if r := one(t, rs, IDPort); r.Status != checks.StatusFail || r.Class != checks.PortDown {
		t.Errorf("port: %+v", r)
	}
	if r := one(t, rs, IDGID); r.Status != checks.StatusFail || r.Class != checks.QPBringUp || len(r.Evidence) == 0 {
		t.Errorf("gid: %+v", r)
	}
	if r := one(t, rs, IDRate); r.Status != checks.StatusFail {
		t.Errorf("rate: %+v", r)
	}
}

func TestMissingPerftestAndMissingDevice(t *testing.T) {
	g, _ := rxeGatherer(t)
	g.LookPath = func(string) (string, error) {
		return "", errors.New(`exec: "ib_write_bw": executable file not found in $PATH`)
	}
	in := desired(t, "rxe")
	in.Interfaces[0].Name = "ens9"
	rs := Evaluate(g.Gather(t.Context(), Args{Intent: in}), Options{})
	if r := one(t, rs, IDPerftest); r.Status != checks.StatusError || r.Class != checks.MissingTool {
		t.Errorf("perftest: %+v", r)
	}
	if r := one(t, rs, IDRDMADevice); r.Status != checks.StatusFail || r.Class != checks.NoDevice {
		t.Errorf("device: %+v", r)
	}
}

// writePCI builds /sys/bus/pci/devices links into /sys/devices for a GPU
// behind the NIC's PCIe switch and a GPU on another socket.
func writePCI(t *testing.T, root string) {
	t.Helper()
	dev := func(path, class, vendor, cur, max, curW, maxW, numa string, aer map[string]string) {
		full := filepath.Join(root, "devices", path)
		os.MkdirAll(full, 0o755)
		for name, v := range map[string]string{"class": class, "vendor": vendor, "current_link_speed": cur, "max_link_speed": max,
			"current_link_width": curW, "max_link_width": maxW, "numa_node": numa} {
			os.WriteFile(filepath.Join(full, name), []byte(v+"\n"), 0o644)
		}
		for name, v := range aer {
			os.WriteFile(filepath.Join(full, name), []byte(v), 0o644)
		}
		bdf := filepath.Base(path)
		os.MkdirAll(filepath.Join(root, "bus", "pci", "devices"), 0o755)
		os.Symlink(filepath.Join("..", "..", "..", "devices", path), filepath.Join(root, "bus", "pci", "devices", bdf))
	}
	clean := map[string]string{"aer_dev_correctable": "RxErr 0\nTOTAL_ERR_COR 0\n", "aer_dev_fatal": "TOTAL_ERR_FATAL 0\n", "aer_dev_nonfatal": "TOTAL_ERR_NONFATAL 0\n"}
	dev("pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0", "0x030200", "0x10de", "16.0 GT/s PCIe", "16.0 GT/s PCIe", "16", "16", "0", clean)
	dev("pci0000:97/0000:97:01.0/0000:98:00.0", "0x030200", "0x10de", "8.0 GT/s PCIe", "16.0 GT/s PCIe", "8", "16", "1",
		map[string]string{"aer_dev_correctable": "TOTAL_ERR_COR 3\n", "aer_dev_fatal": "TOTAL_ERR_FATAL 0\n", "aer_dev_nonfatal": "TOTAL_ERR_NONFATAL 0\n"})
}

func TestGPUsLinksAffinityAndPeerMemory(t *testing.T) {
	g, fx := rxeGatherer(t)
	writePCI(t, fx.Host.Sys.Root())
	f := g.Gather(t.Context(), Args{Intent: desired(t, "rxe")})
	// The rxe fixture's NIC is virtio (no PCIe link files); add the NIC by hand as the
	// agent would have found it on a PCIe host.
	f.PCI = append(f.PCI, PCIDevice{BDF: "0000:19:00.0", Kind: "nic", Name: "ens1f0np0", RDMADevice: "mlx5_0",
		Path: "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0", NUMANode: 0,
		CurrentSpeed: "16.0 GT/s PCIe", MaxSpeed: "16.0 GT/s PCIe", CurrentWidth: "16", MaxWidth: "16"})
	rs := Evaluate(f, Options{})
	links := map[string]checks.Result{}
	for _, r := range find(rs, IDPCIe) {
		links[r.Target] = r
	}
	if r := links["lab-01/GPU0"]; r.Status != checks.StatusPass {
		t.Errorf("GPU0 link: %+v", r)
	}
	if r := links["lab-01/GPU1"]; r.Status != checks.StatusFail || !strings.Contains(r.Summary, "8.0 GT/s PCIe x8") {
		t.Errorf("GPU1 link: %+v", r)
	}
	aff := map[string]checks.Result{}
	for _, r := range find(rs, IDAffinity) {
		aff[r.Target] = r
	}
	if r := aff["lab-01/GPU0"]; r.Status != checks.StatusPass || !strings.Contains(r.Summary, "mlx5_0 via PIX") {
		t.Errorf("GPU0 affinity: %+v", r)
	}
	if r := aff["lab-01/GPU1"]; r.Status != checks.StatusWarn || !strings.Contains(r.Summary, "SYS") {
		t.Errorf("GPU1 affinity: %+v", r)
	}
	aer := map[string]checks.Result{}
	for _, r := range find(rs, IDAER) {
		aer[r.Target] = r
	}
	if aer["lab-01/GPU0"].Status != checks.StatusPass || aer["lab-01/GPU1"].Status != checks.StatusWarn {
		t.Errorf("aer: %+v", aer)
	}
	if r := one(t, rs, IDPeerMem); r.Status != checks.StatusFail {
		t.Errorf("peer memory without the module: %+v", r)
	}
	os.WriteFile(filepath.Join(g.ProcRoot, "modules"), []byte("nvidia_peermem 16384 0 - Live 0x0\nnvidia 5000 1 nvidia_peermem, Live 0x0\n"), 0o644)
	if r := one(t, Evaluate(g.Gather(t.Context(), Args{Intent: desired(t, "rxe")}), Options{}), IDPeerMem); r.Status != checks.StatusPass {
		t.Errorf("peer memory with the module: %+v", r)
	}
}

func TestFleetVersionSkewAndNCCLLibrary(t *testing.T) {
	g, _ := rxeGatherer(t)
	os.WriteFile(filepath.Join(g.LibDirs[0], "libnccl.so.2.21.5"), nil, 0o644)
	a := g.Gather(t.Context(), Args{Intent: desired(t, "rxe")})
	if a.NCCL != "2.21.5" {
		t.Fatalf("nccl %q", a.NCCL)
	}
	b := a
	b.Host, b.NCCL = "lab-02", "2.18.3"
	rs := Fleet([]Facts{a, b})
	var nccl, pt checks.Result
	for _, r := range rs {
		switch r.Target {
		case "fleet/nccl":
			nccl = r
		case "fleet/perftest":
			pt = r
		}
	}
	if nccl.Status != checks.StatusWarn || len(nccl.Evidence) != 2 || pt.Status != checks.StatusPass {
		t.Errorf("fleet: %+v", rs)
	}
}

func TestOpOverTheAgentProtocol(t *testing.T) {
	g, fx := rxeGatherer(t)
	g.Open = func(context.Context) (*hostcfg.Host, error) { return fx.Host, nil }
	h := &agent.Handler{}
	g.Register(h)
	var f Facts
	if err := agentclient.Call(t.Context(), agentclient.Local{Handler: h}, Op, Args{Intent: desired(t, "rxe")}, &f); err != nil {
		t.Fatal(err)
	}
	if f.Observed == nil || len(f.Observed.Interfaces) != 1 || f.Observed.Interfaces[0].RDMA.RoCEv2IPv4GIDIndex != 1 {
		t.Errorf("facts over the protocol: %+v", f.Observed)
	}
}

// TestWithoutNetlinkBackends: where the host backends cannot be opened (a
// kernel without a netlink family), sysfs still gives the RDMA port and GID
// index, and the lossless check says why it could not decide.
func TestWithoutNetlinkBackends(t *testing.T) {
	g, fx := rxeGatherer(t)
	g.Open = func(context.Context) (*hostcfg.Host, error) {
		return nil, errors.New("opening netlink handle: protocol not supported")
	}
	g.Sys = fx.Host.Sys
	rs := Evaluate(g.Gather(t.Context(), Args{Intent: desired(t, "rxe")}), Options{})
	if r := one(t, rs, IDGID); r.Status != checks.StatusPass || r.Target != "lab-01/rxe0" {
		t.Errorf("gid: %+v", r)
	}
	if r := one(t, rs, IDLossless); r.Status != checks.StatusError || !strings.Contains(r.Summary, "protocol not supported") {
		t.Errorf("lossless: %+v", r)
	}
}

// TestOpRefusesHostileArgs: the op decodes its args strictly (an unknown
// field, here or inside the intent, was ignored before) and refuses names
// that would leave their sysfs directory before anything is observed; a
// well-formed netdev the host lacks is still a finding, not a refusal.
func TestOpRefusesHostileArgs(t *testing.T) {
	g, _ := rxeGatherer(t)
	g.Open = func(context.Context) (*hostcfg.Host, error) {
		t.Error("the host was observed for a request that is refused")
		return nil, errors.New("no host")
	}
	h := &agent.Handler{}
	g.Register(h)
	intent := func(iface string) string {
		return `"intent":{"apiVersion":"fabricctl.io/v1alpha1","host":"lab-01","interfaces":[` + iface + `]}`
	}
	for _, c := range []struct{ args, want string }{
		{`{` + intent(`{"name":"enp0s3"}`) + `,"bogus":1}`, `unknown field "bogus"`},
		{`{` + intent(`{"name":"enp0s3","mtuu":9000}`) + `}`, `unknown field "mtuu"`},
		{`{` + intent(`{"name":"../../../../etc"}`) + `}`, `intent.interfaces[0].name "../../../../etc" is not a name`},
		{`{` + intent(`{"name":"enp0s3","roce":{"mode":"RoCE v2","tos":-4}}`) + `}`, "intent.interfaces[0].roce.tos -4 is negative"},
		{`{` + intent(``) + `,"peers":[{"name":"gpu-02\u001b[2J","address":"10.0.0.2"}]}`, "peers[0].name"},
		{`{` + intent(``) + `} []`, "more data after the JSON value"},
		{``, "none given"},
	} {
		r := h.Handle(t.Context(), agent.Request{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: Op, Args: json.RawMessage(c.args)})
		if r.OK || r.Error.Kind != agent.ErrorBadRequest || !strings.Contains(r.Error.Message, c.want) {
			t.Errorf("%.80s: reply %+v, want a bad request saying %q", c.args, r.Error, c.want)
		}
	}
}

// TestLargestRequestsFit: the agent's request budget keeps a wide margin
// over the largest legitimate requests: a preflight naming every other
// host of a 20,000-host fabric, and an apply of a host with eight NICs.
func TestLargestRequestsFit(t *testing.T) {
	in := desired(t, "mlx5-ofed")
	for len(in.Interfaces) < 8 {
		in.Interfaces = append(in.Interfaces, in.Interfaces...)
	}
	peers := make([]Peer, 20000)
	for i := range peers {
		peers[i] = Peer{Name: fmt.Sprintf("gpu-rack%03d-node%02d", i/32, i%32), Address: fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&255, i&255)}
	}
	pre, err := agentclient.Request(Op, Args{Intent: in, Peers: peers})
	if err != nil {
		t.Fatal(err)
	}
	apply := agent.Request{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: agent.OpApply, Desired: &in}
	for name, req := range map[string]agent.Request{"preflight": pre, "apply": apply} {
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", name, len(b))
		if len(b) > agent.MaxRequestBytes/2 {
			t.Errorf("a %s request of %d bytes leaves less than half of the %d-byte budget", name, len(b), agent.MaxRequestBytes)
		}
	}
}
