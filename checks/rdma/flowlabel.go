package rdma

import (
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/fabricctl/fabricctl/checks/perftest"
)

// FlowLabelAuto is Test.FlowLabel's value that gives every pair of a sweep
// its own flow label (PairFlowLabel of its client and server), so that
// each test keeps one UDP source port, hence one ECMP path, whenever it
// runs: its path can then be learned once (OpTracePath) and handed to the
// localiser.
const FlowLabelAuto = -1

// RoCE v2's UDP source port range, as the kernel fixes it
// (IB_ROCE_UDP_ENCAP_VALID_PORT_MIN, include/rdma/ib_verbs.h).
const (
	roceSportMin = 0xC000
	flowLabelLow = 0x3FFF                // the 14 bits of the label a source port keeps
	flowLabelMax = perftest.MaxFlowLabel // IB_GRH_FLOWLABEL_MASK
)

// UDPSourcePort is the RoCE v2 UDP source port the kernel's convention
// derives from a non-zero GRH flow label: rdma_flow_label_to_udp_sport in
// include/rdma/ib_verbs.h (Linux 5.8, commit d5665a21250e) folds the
// label's upper 6 bits onto its lower 14 and sets the two top bits:
// ((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | 0xc000. mlx5 (5.8), rxe, irdma
// and hns (5.17, through rdma_get_udp_sport) follow it; see
// docs/pinned-paths.md for which NICs do. A label of 0 has no fixed port
// (the drivers hash the QP numbers or pick one at random): ok is false.
func UDPSourcePort(flowLabel int) (port uint16, ok bool) {
	fl := uint32(flowLabel) & flowLabelMax
	if flowLabel <= 0 || flowLabel > flowLabelMax {
		return 0, false
	}
	low := fl & flowLabelLow
	low ^= (fl &^ flowLabelLow) >> 14
	return uint16(low | roceSportMin), true
}

// PairFlowLabel is the flow label a sweep gives the test whose client
// (the sender) is client and whose server is server, both as
// Endpoint.Name says them ("gpu-01/mlx5_0"): a hash of the two names,
// folded to the label's 20 bits and never 0. The same pair gets the same
// label in every run and every sweep, and the two directions of a pair
// get their own. Salt 0 is the sweep's; another salt gives the pair
// another label (another path, where ECMP spreads on the source port).
func PairFlowLabel(client, server string, salt uint32) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(client))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(server))
	if salt != 0 {
		_, _ = h.Write([]byte{0})
		_, _ = h.Write([]byte(strconv.FormatUint(uint64(salt), 10)))
	}
	v := h.Sum32()
	fl := int((v ^ v>>20) & flowLabelMax)
	if fl == 0 {
		fl = 1
	}
	return fl
}

// literalFlowLabel is the label Test.Spec passes to perftest: FlowLabel
// itself, and nothing for FlowLabelAuto (Job.Pinned resolves it per pair).
func (t Test) literalFlowLabel() int {
	if t.FlowLabel == FlowLabelAuto {
		return 0
	}
	return t.FlowLabel
}

// Pinned is the job's test with its flow label resolved: FlowLabelAuto
// becomes PairFlowLabel(client, server, 0) where perftest can apply it
// (both ends on RoCE with a GID index, no rdma_cm, not a loopback) and
// no label otherwise; any other value is kept.
func (j Job) Pinned() Test {
	t := j.Test
	if t.FlowLabel != FlowLabelAuto {
		return t
	}
	t.FlowLabel = 0
	if !j.Loopback() && !t.RDMACM && j.Server.GIDIndex != nil && j.Client.GIDIndex != nil {
		t.FlowLabel = PairFlowLabel(j.Client.Name(), j.Server.Name(), 0)
	}
	return t
}

// FlowLabel returns the flow label the run's sides carried and the UDP
// source port it implies (UDPSourcePort); ok is false when the run
// carried none.
func (r PairRun) FlowLabel() (label int, sport uint16, ok bool) {
	label = Job{Server: r.Server, Client: r.Client, Test: r.Test}.Pinned().FlowLabel
	sport, ok = UDPSourcePort(label)
	return label, sport, ok
}

// DescribeFlowLabel says what a flow label pins: "flow label 0x01a2b → UDP
// source port 0xda2b (55851)"; "" for no label.
func DescribeFlowLabel(label int) string {
	sport, ok := UDPSourcePort(label)
	if !ok {
		return ""
	}
	return fmt.Sprintf("flow label 0x%05x → UDP source port 0x%04x (%d)", label, sport, sport)
}
