package perftest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func gid(n int) *int { return &n }

func TestArgs(t *testing.T) {
	server := Spec{Test: WriteBW, Device: "mlx5_0", IBPort: 1, GIDIndex: gid(3), TCPPort: 20001,
		ReportGbits: true, IgnoreFreq: true, Duration: 5 * time.Second, Size: 65536, QPs: 2}
	client := server
	client.Peer = "10.0.1.12"
	cases := []struct {
		name string
		spec Spec
		want []string
	}{
		{"server", server, []string{"ib_write_bw", "-d", "mlx5_0", "-i", "1", "-x", "3", "-p", "20001", "--report_gbits", "-F", "-D", "5", "-s", "65536", "-q", "2"}},
		{"client", client, []string{"ib_write_bw", "-d", "mlx5_0", "-i", "1", "-x", "3", "-p", "20001", "--report_gbits", "-F", "-D", "5", "-s", "65536", "-q", "2", "10.0.1.12"}},
		{"minimal", Spec{Test: ReadLat, Device: "rxe0"}, []string{"ib_read_lat", "-d", "rxe0"}},
		// NCCL's marking: GID index and traffic class in the GRH (--tclass).
		{"traffic class", Spec{Test: WriteBW, Device: "mlx5_0", GIDIndex: gid(3), TClass: gid(0), Peer: "10.0.1.12"},
			[]string{"ib_write_bw", "-d", "mlx5_0", "-x", "3", "--tclass=0", "10.0.1.12"}},
		// NCCL's QP timeout (NCCL_IB_TIMEOUT's default 20) instead of perftest's 14.
		{"qp timeout", Spec{Test: WriteBW, Device: "mlx5_0", GIDIndex: gid(3), TClass: gid(106), QPTimeout: 20, TCPPort: 20001, Peer: "10.0.1.12"},
			[]string{"ib_write_bw", "-d", "mlx5_0", "-x", "3", "--tclass=106", "-u", "20", "-p", "20001", "10.0.1.12"}},
		// A pinned path: the flow label picks the RoCE v2 UDP source port.
		{"flow label", Spec{Test: WriteBW, Device: "mlx5_0", GIDIndex: gid(3), TClass: gid(106), FlowLabel: 0x1a2b, TCPPort: 20001, Peer: "10.0.1.12"},
			[]string{"ib_write_bw", "-d", "mlx5_0", "-x", "3", "--tclass=106", "--flow_label=6699", "-p", "20001", "10.0.1.12"}},
		{"largest flow label", Spec{Test: ReadLat, Device: "rxe0", GIDIndex: gid(1), FlowLabel: MaxFlowLabel},
			[]string{"ib_read_lat", "-d", "rxe0", "-x", "1", "--flow_label=1048575"}},
		{"gid zero, iterations, all sizes, rdma_cm, bidirectional, json",
			Spec{Test: SendBW, Device: "mlx5_bond_0", GIDIndex: gid(0), Iterations: 5000, AllSizes: true, RDMACM: true, Bidirectional: true, JSONFile: "/tmp/fabricctl-1.json", Peer: "192.168.1.2"},
			[]string{"ib_send_bw", "-d", "mlx5_bond_0", "-x", "0", "-n", "5000", "-a", "-R", "-b", "--out_json", "--out_json_file=/tmp/fabricctl-1.json", "192.168.1.2"}},
	}
	for _, c := range cases {
		got, err := Args(c.spec)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

func TestArgsRejects(t *testing.T) {
	cases := []struct {
		spec Spec
		want string
	}{
		{Spec{Device: "mlx5_0"}, "is not one of"},
		{Spec{Test: WriteBW}, "device is required"},
		{Spec{Test: WriteBW, Device: "-x"}, "must not start with '-'"},
		{Spec{Test: WriteBW, Device: "mlx5_0", Peer: "10.0.0.1; rm -rf /"}, "peer"},
		{Spec{Test: WriteBW, Device: "mlx5_0", Peer: "--help"}, "peer"},
		{Spec{Test: WriteBW, Device: "mlx5_0", IBPort: 4}, "ib port 4"},
		{Spec{Test: WriteBW, Device: "mlx5_0", GIDIndex: gid(-1)}, "gid index -1"},
		{Spec{Test: WriteBW, Device: "mlx5_0", TCPPort: 70000}, "tcp port 70000"},
		{Spec{Test: WriteBW, Device: "mlx5_0", TClass: gid(256)}, "traffic class 256"},
		{Spec{Test: WriteBW, Device: "mlx5_0", QPTimeout: 32}, "qp timeout 32 is outside 1..31"},
		{Spec{Test: WriteBW, Device: "mlx5_0", GIDIndex: gid(3), FlowLabel: 0x100000}, "flow label 1048576 is outside 1..1048575"},
		{Spec{Test: WriteBW, Device: "mlx5_0", GIDIndex: gid(3), FlowLabel: -1}, "flow label -1"},
		{Spec{Test: WriteBW, Device: "mlx5_0", FlowLabel: 7}, "needs a GRH"},
		{Spec{Test: WriteBW, Device: "mlx5_0", GIDIndex: gid(3), RDMACM: true, FlowLabel: 7}, "rdma_cm"},
		{Spec{Test: WriteBW, Device: "mlx5_0", QPTimeout: -1}, "qp timeout -1"},
		{Spec{Test: WriteBW, Device: "mlx5_0", Duration: 5 * time.Second, Iterations: 100}, "exclusive"},
		{Spec{Test: WriteBW, Device: "mlx5_0", Duration: 2 * time.Second}, "too short"},
		{Spec{Test: WriteBW, Device: "mlx5_0", Duration: 5500 * time.Millisecond}, "whole number of seconds"},
		{Spec{Test: WriteBW, Device: "mlx5_0", Iterations: 2}, "iterations 2"},
		{Spec{Test: WriteBW, Device: "mlx5_0", Size: 64, AllSizes: true}, "size and all sizes"},
		{Spec{Test: WriteBW, Device: "mlx5_0", Size: -1}, "negative"},
		{Spec{Test: WriteBW, Device: "mlx5_0", QPs: 20000}, "queue pairs"},
		{Spec{Test: WriteLat, Device: "mlx5_0", Bidirectional: true}, "only in bandwidth tests"},
		{Spec{Test: WriteBW, Device: "mlx5_0", JSONFile: "a b"}, "json file"},
	}
	for _, c := range cases {
		_, err := Args(c.spec)
		if !errors.Is(err, ErrBadSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Args(%+v) = %v, want ErrBadSpec mentioning %q", c.spec, err, c.want)
		}
	}
	// All problems are reported at once.
	err := Spec{Test: WriteBW, IBPort: 9, QPs: -1}.Validate()
	for _, want := range []string{"device is required", "ib port 9", "queue pairs -1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want it to mention %q", err, want)
		}
	}
}
