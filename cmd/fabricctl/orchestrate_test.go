package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/netnstest"
	"github.com/fabricctl/fabricctl/internal/sshdtest"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
	"golang.org/x/crypto/ssh"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// fabricctlBinary builds the real static binary once per test run: the
// controller uploads exactly this file to the hosts as their agent.
func fabricctlBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fabricctl-bin")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "fabricctl")
		cmd := exec.Command("go", "build", "-o", builtBin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

type cliRun struct {
	code           int
	stdout, stderr string
}

func runBinary(t *testing.T, bin string, env []string, args ...string) cliRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), env...)
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", bin, err)
	}
	t.Logf("$ fabricctl %s → exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	return cliRun{code, out.String(), errb.String()}
}

const e2eProfile = `apiVersion: fabricctl.io/v1alpha1
kind: Profile
metadata: {name: roce}
spec:
  ethernet:
    mtu: 9000
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: {bandwidthPercent: 50}, ecn: {minThreshold: 150KB, maxThreshold: 1500KB}}
      - {name: cnp, priority: 6, dscp: [48], ets: {strict: true}}
      - {name: default, priority: 0, dscp: rest, ets: {bandwidthPercent: 50}}
    pfc: {cableLength: 5m}
    roce: {class: roce, cnpClass: cnp}
`

// TestOrchestrationInNamespaces is issue 6's integration suite: real OpenSSH
// servers in network namespaces joined by a bridge, the real binary as
// controller and (uploaded) agent, a switch simulator in its own namespace.
func TestOrchestrationInNamespaces(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	sshdtest.Require(t)
	n := netnstest.New(t, 4)
	bin := fabricctlBinary(t)
	dir := t.TempDir()
	agentPath := filepath.Join(dir, "agent", "fabricctl")

	// h1..h3 run sshd; h4 does not (unreachable on port 22).
	var known bytes.Buffer
	var hostsYAML strings.Builder
	for i, h := range n.Hosts {
		addr := h.Addr
		if i < 3 {
			s := sshdtest.Start(t, sshdtest.Options{Netns: h.Netns, Addr: addr, Port: 22})
			kh, _ := os.ReadFile(s.KnownHosts)
			known.Write(kh)
			fmt.Fprintf(&hostsYAML, "    - {name: %s, address: %s, profile: roce, interfaces: [eth0], labels: {leaf: leaf-01}, ssh: {identityFile: %s}}\n", h.Name, addr, s.ClientKey)
		} else {
			fmt.Fprintf(&hostsYAML, "    - {name: %s, address: %s, profile: roce, interfaces: [eth0], ssh: {identityFile: %s}}\n", h.Name, addr, filepath.Join(dir, "nokey"))
		}
	}
	sshdtest.NewKey(t) // exercise key generation for the unreachable host's file
	os.WriteFile(filepath.Join(dir, "nokey"), sshdtest.NewKey(t).PrivatePEM, 0o600)

	// h3 gets a second interface that cannot take MTU 9000: a macvlan on a
	// veth left at 1500. Applying h3 writes eth0 first, then fails.
	n.Exec(t, n.Hosts[2], "ip", "link", "add", "zz0", "type", "veth", "peer", "name", "zz1")
	n.Exec(t, n.Hosts[2], "ip", "link", "set", "zz0", "up")
	n.Exec(t, n.Hosts[2], "ip", "link", "add", "mv0", "link", "zz0", "type", "macvlan")
	n.Exec(t, n.Hosts[2], "ip", "link", "set", "mv0", "up")

	// A Cumulus simulator in its own namespace, password from the environment.
	const password = "Sw1tch-s3cret-pw"
	swNS, srv := simInNamespace(t, n, "sw1", 101, sim.Options{Platform: "cumulus-nvue", Password: password}, &known)
	knownHosts := filepath.Join(dir, "known_hosts")
	os.WriteFile(knownHosts, known.Bytes(), 0o600)

	os.WriteFile(filepath.Join(dir, "roce.yaml"), []byte(e2eProfile), 0o644)
	fab := fmt.Sprintf(`apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata: {name: e2e}
spec:
  include: [roce.yaml]
  defaults:
    ssh: {user: root, port: 22, knownHostsFile: %s}
  hosts:
%s  switches:
    - {name: leaf-01, platform: cumulus-nvue, address: %s, profile: roce, ports: [swp1-4], ssh: {user: cumulus, passwordEnv: E2E_SWITCH_PASSWORD}}
`, knownHosts, hostsYAML.String(), swNS.Addr)
	fabFile := filepath.Join(dir, "fabric.yaml")
	os.WriteFile(fabFile, []byte(fab), 0o644)
	env := []string{"E2E_SWITCH_PASSWORD=" + password, "SSH_AUTH_SOCK=", "HOME=" + dir}
	common := []string{"-f", fabFile, "--agent-path", agentPath}
	healthy := []string{"--target", "h1,h2,leaf-01"}
	var outputs []cliRun
	run := func(args ...string) cliRun {
		r := runBinary(t, bin, env, args...)
		outputs = append(outputs, r)
		return r
	}
	mtu := func(h netnstest.Host, ifname string) string {
		out := n.Exec(t, h, "cat", "/sys/class/net/"+ifname+"/mtu")
		return strings.TrimSpace(out)
	}

	// 1. plan over the healthy targets: changes pending (exit 2), the MTU
	// change is visible, DCB on veth is reported unsupported, not an error.
	r := run(append(append([]string{"plan"}, common...), healthy...)...)
	if r.code != 2 || !strings.Contains(r.stdout, "1500 → 9000") || !strings.Contains(r.stdout, "leaf-01") {
		t.Fatalf("plan: exit %d, want 2 with the MTU change", r.code)
	}
	if !strings.Contains(r.stdout, "UNSUPPORTED") {
		t.Errorf("DCB on veth should be reported unsupported")
	}
	// 2. apply --yes, then drift is zero.
	r = run(append(append([]string{"apply", "--yes"}, common...), healthy...)...)
	if r.code != 0 {
		t.Fatalf("apply: exit %d", r.code)
	}
	if got := mtu(n.Hosts[0], "eth0"); got != "9000" {
		t.Fatalf("h1 eth0 MTU %s after apply, want 9000", got)
	}
	r = run(append(append([]string{"drift"}, common...), healthy...)...)
	if r.code != 0 {
		t.Fatalf("drift after apply: exit %d, want 0", r.code)
	}
	// 3. change one host by hand and one simulator value: drift names both.
	n.Exec(t, n.Hosts[1], "ip", "link", "set", "eth0", "mtu", "1500")
	if err := srv.Apply("nv set qos congestion-control default-global traffic-class 3 min-threshold 300000"); err != nil {
		t.Logf("editing the simulator: %v", err)
	}
	r = run(append(append([]string{"drift", "-o", "prometheus"}, common...), healthy...)...)
	if r.code != 2 || !strings.Contains(r.stdout, `fabricctl_drift{target="h2",component="eth0",setting="mtu"} 1`) {
		t.Fatalf("drift after a hand edit: exit %d, want 2 naming h2 eth0 mtu", r.code)
	}
	if !strings.Contains(r.stdout, `fabricctl_drift_settings{target="leaf-01",tier="switch"} 1`) {
		t.Errorf("the simulator edit is not reported as exactly one drifted setting")
	}
	r = run(append(append([]string{"apply", "--yes"}, common...), healthy...)...)
	if r.code != 0 || mtu(n.Hosts[1], "eth0") != "9000" {
		t.Fatalf("apply did not fix the drift: exit %d", r.code)
	}
	r = run(append(append([]string{"drift"}, common...), healthy...)...)
	if r.code != 0 {
		t.Fatalf("drift after the fix: exit %d", r.code)
	}

	// 4. faults: h4 unreachable, h3 fails midway (restored), the others fine.
	n.Exec(t, n.Hosts[0], "ip", "link", "set", "eth0", "mtu", "1500")
	fabH3 := strings.Replace(fab, "interfaces: [eth0], labels: {leaf: leaf-01}, ssh: {identityFile: "+findKey(t, fab, n.Hosts[2].Addr)+"}",
		"interfaces: [eth0, mv0], labels: {leaf: leaf-01}, ssh: {identityFile: "+findKey(t, fab, n.Hosts[2].Addr)+"}", 1)
	os.WriteFile(fabFile, []byte(fabH3), 0o644)
	r = run(append([]string{"apply", "--yes"}, common...)...)
	if r.code != 1 {
		t.Fatalf("apply with faults: exit %d, want 1", r.code)
	}
	for _, want := range []string{"h1", "changed", "h3", "rolled-back", "h4"} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("apply summary lacks %q", want)
		}
	}
	if got := mtu(n.Hosts[0], "eth0"); got != "9000" {
		t.Errorf("h1 was not applied while others failed: MTU %s", got)
	}
	if got := mtu(n.Hosts[2], "eth0"); got != "1500" {
		t.Errorf("h3 eth0 MTU %s after its failed apply, want the pre-image 1500", got)
	}

	// 4b. the agent's reply to apply is lost (issue 13): a wrapper in front
	// of the delivered agent runs the apply, then drops its reply as a dead
	// connection would. The controller recovers the host from its journal
	// over a new SSH session and says so.
	os.WriteFile(fabFile, []byte(fab), 0o644)
	n.Exec(t, n.Hosts[0], "ip", "link", "set", "eth0", "mtu", "1500")
	loseReplies(t, agentPath, false)
	h1 := append(append([]string{"apply", "--yes"}, common...), "--target", "h1")
	r = run(h1...)
	if r.code != 1 || mtu(n.Hosts[0], "eth0") != "1500" {
		t.Fatalf("apply whose reply was lost: exit %d, MTU %s; want 1 and the pre-image 1500", r.code, mtu(n.Hosts[0], "eth0"))
	}
	for _, want := range []string{"reply to apply was lost", "half-changed", "restored 1 setting(s)", "rolled-back"} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("the lost reply's report lacks %q", want)
		}
	}
	// The recovery fails too: the journal stays, drift reports it, and
	// fabricctl recover rolls it back.
	loseReplies(t, agentPath, true)
	r = run(h1...)
	if r.code != 1 || mtu(n.Hosts[0], "eth0") != "9000" || !strings.Contains(r.stdout+r.stderr, "journal stays on the host") {
		t.Fatalf("apply whose reply and recovery were lost: exit %d, MTU %s", r.code, mtu(n.Hosts[0], "eth0"))
	}
	r = run(append(append([]string{"drift"}, common...), "--target", "h1")...)
	if r.code != 2 || !strings.Contains(r.stdout, "interrupted-apply") {
		t.Fatalf("drift over an interrupted apply: exit %d, want 2 naming it", r.code)
	}
	r = run(append(append([]string{"recover"}, common...), "--target", "h1")...)
	if r.code != 0 || !strings.Contains(r.stdout, "restored") || mtu(n.Hosts[0], "eth0") != "1500" {
		t.Fatalf("recover: exit %d, MTU %s", r.code, mtu(n.Hosts[0], "eth0"))
	}
	restoreAgent(t, agentPath)
	if r = run(h1...); r.code != 0 || mtu(n.Hosts[0], "eth0") != "9000" {
		t.Fatalf("apply after recovering: exit %d", r.code)
	}

	// 5. a changed host key is refused with its fingerprint.
	bad := strings.Replace(known.String(), n.Hosts[0].Addr+" ", n.Hosts[0].Addr+"-old ", 1)
	other := sshdtest.NewKey(t)
	bad += n.Hosts[0].Addr + " " + string(marshalAuthorized(other))
	os.WriteFile(knownHosts, []byte(bad), 0o600)
	r = run(append(append([]string{"plan"}, common...), "--target", "h1")...)
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "SHA256:") {
		t.Errorf("changed host key: exit %d, want 1 with the fingerprint", r.code)
	}

	// 6. switch LLDP read-back (issue 17): a Junos and an NX-OS simulator,
	// each in its own namespace, serve their neighbour tables over SSH;
	// `check --suite preflight` reads them through the drivers and
	// compares them with the declared cabling. qfx-01 is cabled as
	// declared (no finding); n9k-01 sees h2 on Ethernet1/1 (it prints
	// Eth1/1) where Ethernet1/2 is declared: one wrong-port finding.
	os.WriteFile(knownHosts, known.Bytes(), 0o600)
	var lldpSwitches strings.Builder
	for i, sw := range []struct {
		name, platform, ports string
		table                 []fabric.Neighbor
	}{
		{"qfx-01", "junos", "et-0/0/1-4", []fabric.Neighbor{{LocalPort: "et-0/0/1", SystemName: "h1", ChassisIDType: "mac",
			ChassisID: "52:54:00:00:01:01", PortIDType: "ifname", PortID: "eth0"}}},
		{"n9k-01", "cisco-nxos", "Ethernet1/1-4", []fabric.Neighbor{{LocalPort: "Ethernet1/1", SystemName: "h2.lab.example.net",
			ChassisIDType: "mac", ChassisID: "52:54:00:00:01:02", PortIDType: "mac", PortID: "52:54:00:00:01:02", PortDescription: "eth0"}}},
	} {
		ns, _ := simInNamespace(t, n, fmt.Sprintf("sw%d", i+2), 102+i, sim.Options{Platform: sw.platform, Password: password,
			Hostname: sw.name, Neighbors: func() ([]fabric.Neighbor, error) { return sw.table, nil }}, &known)
		fmt.Fprintf(&lldpSwitches, "    - {name: %s, platform: %s, address: %s, profile: roce, ports: [%s], ssh: {user: admin, passwordEnv: E2E_SWITCH_PASSWORD}}\n",
			sw.name, sw.platform, ns.Addr, sw.ports)
	}
	os.WriteFile(knownHosts, known.Bytes(), 0o600)
	var lldpHosts strings.Builder
	for i, cable := range []string{"qfx-01:et-0/0/1", "n9k-01:Ethernet1/2"} {
		h := n.Hosts[i]
		fmt.Fprintf(&lldpHosts, "    - {name: %s, address: %s, profile: roce, interfaces: [eth0], links: {eth0: \"%s\"}, ssh: {identityFile: %s}}\n",
			h.Name, h.Addr, cable, findKey(t, fab, h.Addr))
	}
	lldpFab := filepath.Join(dir, "lldp.yaml")
	header := strings.Replace(fab[:strings.Index(fab, "  hosts:\n")], "{name: e2e}", "{name: e2e-lldp}", 1)
	os.WriteFile(lldpFab, []byte(header+"  hosts:\n"+lldpHosts.String()+"  switches:\n"+lldpSwitches.String()), 0o644)
	r = run("check", "-f", lldpFab, "--agent-path", agentPath, "--suite", "preflight", "-o", "json")
	var rep struct {
		Cabling []struct {
			Kind           string
			At, Discovered *fabric.Endpoint
			Declared       *fabric.Endpoint
		} `json:"cabling"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("check -o json: %v", err)
	}
	if len(rep.Cabling) != 1 || rep.Cabling[0].Kind != "wrong-port" || rep.Cabling[0].Discovered == nil ||
		*rep.Cabling[0].Discovered != (fabric.Endpoint{Device: "n9k-01", Port: "Ethernet1/1"}) {
		t.Errorf("cabling findings %+v, want one wrong-port: h2 on n9k-01:Ethernet1/1", rep.Cabling)
	}
	for _, sw := range []string{"qfx-01", "n9k-01"} {
		if strings.Contains(r.stderr, "reading LLDP neighbours of "+sw) {
			t.Errorf("%s's LLDP table was not read:\n%s", sw, r.stderr)
		}
	}

	// No secret in any output.
	for _, o := range outputs {
		if strings.Contains(o.stdout+o.stderr, password) {
			t.Fatalf("the switch password appeared in fabricctl's output")
		}
	}
	_ = testutil.RepoRoot
	_ = time.Second
}

// simInNamespace runs a switch simulator on port 22 of a new namespace
// joined to n's bridge for the rest of the test, and adds its host key
// to known.
func simInNamespace(t *testing.T, n *netnstest.Net, name string, octet int, opt sim.Options, known *bytes.Buffer) (netnstest.Host, *sim.Server) {
	t.Helper()
	ns := n.AddNamespace(t, name, octet)
	srv, err := sim.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(netnstest.ListenIn(t, ns.Netns, ns.Addr+":22"))
	t.Cleanup(func() { srv.Close() })
	known.WriteString(ns.Addr + " " + string(ssh.MarshalAuthorizedKey(srv.HostKey())))
	return ns, srv
}

// loseReplies puts a wrapper in front of the agent delivered to path: the
// first apply runs, then its reply is dropped and the session ends with
// status 255, as ssh reports a dead connection; with recoverToo the first
// recover is dropped unrun too. Everything else goes to the real agent.
func loseReplies(t *testing.T, path string, recoverToo bool) {
	t.Helper()
	real := path + ".real"
	if _, err := os.Stat(real); err != nil {
		if err := os.Rename(path, real); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(path + ".lost-apply")
	os.Remove(path + ".lost-recover")
	recoverCase := ""
	if recoverToo {
		recoverCase = `if grep -q '"op":"recover"' "$in" && [ ! -e "$0.lost-recover" ]; then
  touch "$0.lost-recover"; rm -f "$in"; exit 255
fi
`
	}
	script := `#!/bin/sh
# test wrapper (cmd/fabricctl orchestrate_test.go): loses agent replies
if [ "$1" != agent ]; then exec "$0.real" "$@"; fi
in=$(mktemp)
cat > "$in"
if grep -q '"op":"apply"' "$in" && [ ! -e "$0.lost-apply" ]; then
  touch "$0.lost-apply"
  "$0.real" "$@" < "$in" > /dev/null 2>&1
  rm -f "$in"; exit 255
fi
` + recoverCase + `"$0.real" "$@" < "$in"
status=$?
rm -f "$in"
exit $status
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// restoreAgent removes loseReplies's wrapper.
func restoreAgent(t *testing.T, path string) {
	t.Helper()
	if err := os.Rename(path+".real", path); err != nil {
		t.Fatal(err)
	}
}

func findKey(t *testing.T, fab, addr string) string {
	t.Helper()
	i := strings.Index(fab, "address: "+addr+",")
	j := strings.Index(fab[i:], "identityFile: ")
	rest := fab[i+j+len("identityFile: "):]
	return rest[:strings.Index(rest, "}")]
}

func marshalAuthorized(k sshdtest.Key) []byte { return ssh.MarshalAuthorizedKey(k.Public) }

func TestWriteTextfileReplacesTheFileWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fabricctl.prom")
	os.WriteFile(path, []byte("stale\n"), 0o644)
	p := &fabric.Plan{}
	if err := writeTextfile(path, p, time.Unix(1700000000, 0)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || strings.Contains(string(b), "stale") || !strings.Contains(string(b), "fabricctl_drift_last_run_timestamp_seconds 1700000000") {
		t.Errorf("textfile: %v\n%s", err, b)
	}
	if err := writeTextfile(filepath.Join(path, "x", "y.prom"), p, time.Now()); err == nil || !strings.Contains(err.Error(), "y.prom") {
		t.Errorf("an unwritable path: %v", err)
	}
}
