package collective

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/fabric"
)

// TestEnvEachVariable judges each NCCL variable against the fabric's intent
// on the real log of two H800 hosts on RoCE (corpus n06: NCCL 2.18.5,
// "NCCL_IB_HCA set to mlx5_4", bootstrap over enp24s0np0 on the hosts'
// addresses). The healthy setup — the RoCE v2 GID index, the lossless
// class's traffic class, every fabric device, the OOB interface — passes on
// both hosts; then one thing at a time is wrong, and only that part fails
// (or warns, for the bootstrap interface: NCCL still runs).
func TestEnvEachVariable(t *testing.T) {
	healthyEnv := map[string]string{"NCCL_IB_GID_INDEX": "3", "NCCL_IB_TC": "106"}
	with := func(k, v string) map[string]string {
		env := map[string]string{}
		for a, b := range healthyEnv {
			env[a] = b
		}
		env[k] = v
		return env
	}
	for _, c := range []struct {
		name string
		devs []string // each host's RDMA devices (preflight)
		gid  int      // the RoCE v2 IPv4 GID index preflight found
		env  map[string]string
		oob  string
		want checks.Status
		text []string // parts of node2's summary
	}{
		{"healthy", []string{"mlx5_4"}, 3, healthyEnv, "", checks.StatusPass, []string{
			"NCCL_IB_GID_INDEX=3 is mlx5_4's RoCE v2 IPv4 GID",
			"NCCL_IB_TC=106: DSCP 26 → priority 3, lossless (the RoCE ToS)",
			"NCCL_IB_HCA=mlx5_4 takes every fabric device (mlx5_4)",
			"NCCL uses exactly the fabric's RDMA devices",
			"NCCL bootstraps over enp24s0np0:10.10.10.1, the host's fabric address"}},
		{"gid index pass on another index", []string{"mlx5_4"}, 5, with("NCCL_IB_GID_INDEX", "5"), "", checks.StatusPass, []string{
			"NCCL_IB_GID_INDEX=5 is mlx5_4's RoCE v2 IPv4 GID"}},
		{"gid index not the RoCE v2 GID", []string{"mlx5_4"}, 3, with("NCCL_IB_GID_INDEX", "1"), "", checks.StatusFail, []string{
			"NCCL_IB_GID_INDEX=1, but mlx5_4 port 1's RoCE v2 IPv4 GID is index 3"}},
		{"traffic class lossy", []string{"mlx5_4"}, 3, with("NCCL_IB_TC", "0"), "", checks.StatusFail, []string{
			"NCCL_IB_TC=0 marks DSCP 0 → priority 0, which is lossy; the RoCE class is ToS 106 (DSCP 26)"}},
		{"traffic class with other ECN bits", []string{"mlx5_4"}, 3, with("NCCL_IB_TC", "104"), "", checks.StatusPass, []string{
			"NCCL_IB_TC=104: DSCP 26 → priority 3, lossless (ECN bits 0, the RoCE ToS 106 has 2)"}},
		{"hca leaves a fabric device out", []string{"mlx5_4", "mlx5_5"}, 3, healthyEnv, "", checks.StatusFail, []string{
			"NCCL_IB_HCA=mlx5_4 leaves out the fabric's mlx5_5"}},
		{"bootstrap over the OOB interface", []string{"mlx5_4"}, 3, healthyEnv, "enp24s0np0", checks.StatusPass, []string{
			"NCCL bootstraps over the OOB interface enp24s0np0"}},
		{"bootstrap not over the OOB interface", []string{"mlx5_4"}, 3, healthyEnv, "eno1", checks.StatusWarn, []string{
			"NCCL bootstraps over enp24s0np0:10.10.10.1, not the OOB interface eno1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx := n06Exec(t, 1<<20, 20)
			out, err := Run(t.Context(), renamed(t, c.devs, c.gid, "node2", "node4"),
				Options{Executor: fx, Config: fabric.NCCL{MaxBytes: 1 << 20, Env: c.env, OOBInterface: c.oob}})
			if err != nil {
				t.Fatal(err)
			}
			for _, host := range []string{"node2", "node4"} {
				r := find(t, out, IDEnv, host)
				if r.Status != c.want {
					t.Errorf("%s: %s, want %s: %s", host, r.Status, c.want, r.Summary)
				}
				if host != "node2" {
					continue
				}
				for _, want := range c.text {
					if !strings.Contains(r.Summary, want) {
						t.Errorf("%s: summary lacks %q: %s", host, want, r.Summary)
					}
				}
			}
		})
	}
}

// TestSocketIfnameAgainstOOB: the real log of a host whose NCCL was told
// NCCL_SOCKET_IFNAME=bond0 (corpus n18a) passes when bond0 is the fabric's
// OOB interface and warns, naming the variable, when it is not.
func TestSocketIfnameAgainstOOB(t *testing.T) {
	log := corpusLog(t, "n18a_*.txt")
	for oob, want := range map[string]checks.Status{"bond0": checks.StatusPass, "eth0": checks.StatusWarn} {
		fx := &fakeExec{probes: map[string]Probe{"hostname-test": gpuProbe(8, "NVIDIA H100 80GB HBM3")},
			logs: map[string][]Log{"hostname-test": {{Name: "output", Text: scriptOutput(8, 1<<20, 300)}, {Name: "nccl.log", Text: log}}}}
		out, err := Run(t.Context(), renamed(t, nil, -1, "hostname-test"), Options{Executor: fx, Config: fabric.NCCL{MaxBytes: 1 << 20, OOBInterface: oob}})
		if err != nil {
			t.Fatal(err)
		}
		r := find(t, out, IDEnv, "hostname-test")
		if r.Status != want || !strings.Contains(r.Summary, "(NCCL_SOCKET_IFNAME=bond0)") || !strings.Contains(r.Summary, oob) {
			t.Errorf("oob %s: %+v", oob, r)
		}
	}
}
