package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// TestCountersCommand runs `fabricctl counters` against a Cumulus
// simulator over SSH (host key checked) that counts FCS errors on swp2,
// and an unreachable leaf-03. The hosts' half (the agent's port-counters
// op over SSH) is tested in action/counters and checks/rdma with
// in-process agents: reaching a host agent here takes the namespace
// harness of orchestrate_test.go.
func TestCountersCommand(t *testing.T) {
	fab := simCountersFabric(t)

	// Every switch: leaf-03 cannot be read, so exit 1; swp2's errors are
	// a row, the clean ports one line.
	code, out, errs := runCLI(t, "counters", "-f", fab)
	if code != exitError {
		t.Errorf("exit %d with an unreachable switch, want 1; stderr %q", code, errs)
	}
	row := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "leaf-01") {
			row = l
		}
	}
	if f := strings.Fields(row); len(f) != 13 || f[1] != "swp2" || f[11] != "17" || f[2] != "-" {
		t.Errorf("swp2's row %q: want PFC3 columns \"-\" and 17 under SYMBOL/CRC\n%s", row, out)
	}
	for _, want := range []string{"PFC3-RX", "2 ports clean", "leaf-03: not read"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// One switch, every port, JSON with provenance: exit 0.
	code, out, errs = runCLI(t, "counters", "-f", fab, "--target", "leaf-01", "--all", "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var rep struct {
		Kind  string `json:"kind"`
		Ports []struct {
			Port     string `json:"port"`
			Counters map[string]struct {
				Value uint64 `json:"value"`
				From  string `json:"from"`
			} `json:"counters"`
		} `json:"ports"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Ports) != 3 {
		t.Fatalf("JSON %v: %s", err, out)
	}
	if c := rep.Ports[1].Counters["crc_errors"]; rep.Ports[1].Port != "swp2" || c.Value != 17 || c.From != "ip -s -s -j link show" {
		t.Errorf("swp2 crc_errors %+v", c)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"counters"}, "no fabric file"},
		{[]string{"counters", "-f", fab, "--interval", "-1s"}, "--interval -1s is negative"},
		{[]string{"counters", "-f", fab, "-o", "junit"}, `unknown output format "junit"`},
		{[]string{"counters", "-f", fab, "--target", "gpu-99"}, "no host or switch to read"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != exitError || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, errs, c.want)
		}
	}
}

// simCountersFabric writes a fabric of a Cumulus simulator leaf-01 over SSH
// (host key checked) that counts 17 FCS errors on swp2, and an unreachable
// leaf-03, and returns its path.
func simCountersFabric(t *testing.T) string {
	t.Helper()
	const pw = "Counters-cli-pw-1"
	t.Setenv("COUNTERS_CLI_PW", pw)
	pc := sim.NewPortCounters("swp1", "swp2", "swp3")
	pc.Inject(sim.PortErrors{Port: "swp2", FCS: 17})
	srv, err := sim.New(sim.Options{Platform: "cumulus-nvue", Password: pw, Hostname: "leaf-01", Counters: pc.Read})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	_, port, _ := net.SplitHostPort(srv.Addr())
	dir := t.TempDir()
	kh := filepath.Join(dir, "known_hosts")
	os.WriteFile(kh, []byte(srv.KnownHostsLine()+"\n"), 0o600)
	profile, _ := filepath.Abs("../../profiles/roce-lossless.yaml")
	fab := filepath.Join(dir, "fabric.yaml")
	os.WriteFile(fab, []byte(fmt.Sprintf(`apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata: {name: counters}
spec:
  include: [%s]
  defaults:
    ssh: {knownHostsFile: %s}
  switches:
    - {name: leaf-01, platform: cumulus-nvue, address: 127.0.0.1, profile: roce-lossless, ports: [swp1-3], ssh: {user: cumulus, port: %s, passwordEnv: COUNTERS_CLI_PW}}
    - {name: leaf-03, platform: cumulus-nvue, address: 127.0.0.2, profile: roce-lossless, ports: [swp1], ssh: {port: 1, passwordEnv: COUNTERS_CLI_PW}}
`, profile, kh, port)), 0o644)
	return fab
}
