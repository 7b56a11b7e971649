package nccl

import (
	"slices"
	"strings"
	"testing"
)

// TestClassify: every line is placed by the class the libraries give it,
// not by wording fabricctl has seen; what no class fits stays unclassified.
// The lines follow the format strings of NCCL's and rdma-core's sources.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		line, name string
		fatal      bool
	}{
		// IB async events, NCCL before 2.23: every event after "Got async event :".
		{"NET/IB : Got async event : local catastrophic error", "IBV_EVENT_DEVICE_FATAL", true},
		{"NET/IB : Got async event : port error", "IBV_EVENT_PORT_ERR", true},
		{"NET/IB : Got async event : port active", "IBV_EVENT_PORT_ACTIVE", false},
		{"NET/IB : Got async event : GID table change", "IBV_EVENT_GID_CHANGE", false},
		// 2.23 and later: NCCL says fatal or non-fatal itself.
		{"NET/IB : mlx5_3:1 async fatal event: local catastrophic error", "IBV_EVENT_DEVICE_FATAL", true},
		{"NET/IB : mlx5_3:1 async fatal event on CQ (0x55d0) handle=3 cqe=4096: CQ error", "IBV_EVENT_CQ_ERR", true},
		{"NET/IB : mlx5_3:1 async fatal event on QP (0x7f) qpn=77 handle=1 send_cq=2 recv_cq=2 state=6 sq_psn=1 rq_psn=2: local work queue catastrophic error", "IBV_EVENT_QP_FATAL", true},
		{"NET/IB : mlx5_3:1 Got non-fatal async event: port error(10)", "IBV_EVENT_PORT_ERR", true},
		{"NET/IB : mlx5_3:1 Got non-fatal async event: SM change(14)", "IBV_EVENT_SM_CHANGE", false},
		{"NET/IB : mlx5_3:1 GID table changed", "", false}, // not an event line NCCL prefixes: unclassified
		// Completion errors in every era.
		{"NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129", "IBV_WC_RETRY_EXC_ERR", true},
		{"NET/IB: Got completion from peer 10.0.0.2<39138> with status=IBV_WC_REM_ACCESS_ERR(10) opcode=IBV_WC_RDMA_WRITE(1) vendor_err=136 hca mlx5_3", "IBV_WC_REM_ACCESS_ERR", true},
		// ncclResult_t by name, by ncclGetErrorString's text, by number.
		{"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.", "ncclRemoteError", true},
		{"NCCL error in: ProcessGroupNCCL.cpp:1269, internal error - please report this issue to the NCCL developers, NCCL version 2.18.1", "ncclInternalError", true},
		{"Test NCCL failure common.cu:1005 'remote process exited or there was a network error / '", "ncclRemoteError", true},
		{"[Proxy Service 3] Failed to execute operation Connect from rank 3, retcode 6", "ncclRemoteError", true},
		{"transport/net.cc:869 -> 6", "ncclRemoteError", true},
		{"init.cc:1721 (ncclCommInitRankFunc) -> 3 [Async thread]", "ncclInternalError", true},
		{"misc/socket.cc:484 -> 2 (Connection refused)", "ncclSystemError", true},
		{"enqueue.cc:100 -> 7", "", false}, // ncclInProgress: no error
		// System calls by strerror text; CUDA; timeouts.
		{"socketProgress: Connection closed by remote peer node0<42830>", "ncclRemoteError", true},
		{"Call to recv from 10.0.0.3<59418> failed : Connection reset by peer", "ECONNRESET", true},
		{"Net : Call to send to 10.1.1.2<51234> failed : Broken pipe", "EPIPE", true},
		{"Call to ibv_reg_mr failed with error Cannot allocate memory", "ENOMEM", true},
		{"Cuda failure 'out of memory'", "ncclUnhandledCudaError", true},
		{"bootstrap.cc:60 Timeout waiting for connection from peer", "timeout", true},
		{"hipIpcGetMemHandle failed : invalid argument", "ncclUnhandledCudaError", true},
		{"NET/Socket : peer 10.0.0.2<41988> message truncated : receiving 4 bytes instead of 2.", "ncclInvalidUsage", true},
		{"Attempt to use communicator before the previous operation returned ncclSuccess", "ncclInvalidArgument", true},
		// Not errors: the environment variable names a timeout, a topology notice.
		{"NCCL_IB_TIMEOUT set by environment to 22.", "", false},
		{"Could not find real path of /sys/class/net/eth0/device", "", false},
		{"Unknown topology detected, NCCL_P2P_LEVEL ignored", "", false},
	} {
		got, ok := Classify(c.line)
		if c.name == "" {
			if ok {
				t.Errorf("%q: classified %s, want unclassified", c.line, got.Name)
			}
			continue
		}
		if !ok || got.Name != c.name || got.Fatal != c.fatal {
			t.Errorf("%q: got %+v (ok %v), want %s fatal=%v", c.line, got, ok, c.name, c.fatal)
		}
	}
}

// TestWarnLinesFollowTheTaxonomy: in a log, a fatal class fails whatever
// its wording, a WARN no class fits is reported as unclassified (quoted),
// and NCCL's back-trace after an unclassified WARN makes it the error.
func TestWarnLinesFollowTheTaxonomy(t *testing.T) {
	log := `n1:10:20 [0] NCCL INFO NCCL version 2.21.5+cuda12.4
n1:10:20 [0] NCCL INFO Using network IB
n1:10:30 [0] transport/net_ib.cc:120 NCCL WARN NET/IB : Got async event : local catastrophic error
n2:11:21 [1] NCCL INFO NCCL version 2.21.5+cuda12.4
n2:11:21 [1] misc/strongstream.cc:53 NCCL WARN Unsupported thing happened here
n2:11:21 [1] NCCL INFO misc/strongstream.cc:55 -> 5
n3:12:22 [2] NCCL INFO NCCL version 2.21.5+cuda12.4
n3:12:22 [2] graph/topo.cc:700 NCCL WARN Some notice no class fits
`
	a, err := Analyze(Options{AllowSocket: true}, Source{Name: "x.log", R: strings.NewReader(log)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range a.Findings {
		got[f.Host+"/"+string(f.Kind)] = string(f.Status) + " " + f.Message
	}
	for key, want := range map[string]string{
		"n1/ib-async-event":       "fail IBV_EVENT_DEVICE_FATAL",
		"n2/nccl-error":           "fail ncclInvalidUsage",
		"n3/unclassified-warning": "warn NCCL WARN no class fits: Some notice no class fits",
	} {
		if !strings.HasPrefix(got[key], want) {
			t.Errorf("%s: got %q, want prefix %q (all: %v)", key, got[key], want, got)
		}
	}
	if _, ok := got["n2/unclassified-warning"]; ok {
		t.Errorf("the WARN NCCL returned an error after is still unclassified: %v", got)
	}
}

// TestTorchLogLevels: PyTorch's distributed backend says itself which of
// its lines are errors ([E…] in its C++ log prefix): those fail whatever
// their wording; its warnings ([W…]) are not failures.
func TestTorchLogLevels(t *testing.T) {
	log := `[rank0]:[E219 12:14:43.351647859 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 0] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered
[rank1]:[W219 12:14:44.000000001 ProcessGroupNCCL.cpp:1250] Warning: destroy_process_group() was not called before program exit
[rank1]:[E219 12:14:45.000000001 ProcessGroupNCCL.cpp:2000] [PG ID 0 Rank 1] something no class fits went wrong
`
	a, err := Analyze(Options{}, Source{Name: "torch.log", R: strings.NewReader(log)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range a.Findings {
		got = append(got, string(f.Status)+" "+f.Message)
	}
	slices.Sort(got)
	if len(got) != 2 || !strings.HasPrefix(got[1], "fail ncclUnhandledCudaError") || !strings.HasPrefix(got[0], "fail PyTorch c10d error: [PG ID 0 Rank 1]") {
		t.Errorf("findings: %q", got)
	}
}

// TestOldNICDistance: NCCL 2.0-2.3 said how far each GPU's NIC is; across
// the CPU (PHB, SYS) warns.
func TestOldNICDistance(t *testing.T) {
	log := "n1:1:1 [0] INFO CUDA Dev 0, IB Ports : mlx4_0/1(PHB)\nn1:1:1 [1] NCCL INFO CUDA Dev 1[1], IB NIC distance :  PIX\n"
	a, err := Analyze(Options{AllowSocket: true}, Source{Name: "old.log", R: strings.NewReader(log)})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Findings) != 1 || a.Findings[0].Kind != NICDistance || a.Findings[0].Status != "warn" || !strings.Contains(a.Findings[0].Message, "CUDA Dev 0 PHB") || strings.Contains(a.Findings[0].Message, "Dev 1") {
		t.Errorf("%+v", a.Findings)
	}
}

// FuzzClassify: any text is placed or left unclassified, never a panic,
// and a class always has its name, family and meaning.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		"NET/IB : mlx5_3:1 async fatal event on QP (0x7f) qpn=77: local work queue catastrophic error",
		"NET/IB : Got async event : port active(9)",
		"init.cc:1721 (ncclCommInitRankFunc) -> 3 [Async thread]",
		"Call to recv from 10.0.0.3<59418> failed : Connection reset by peer",
		"NET/IB: Got completion from peer x with status=IBV_WC_REM_ACCESS_ERR(10) opcode=IBV_WC_RDMA_WRITE(1)",
		"retcode 99", "Got async event : (7)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := Classify(s)
		if ok && (c.Name == "" || c.Family == "" || c.Meaning == "") {
			t.Errorf("%q: incomplete class %+v", s, c)
		}
	})
}

// TestRCCLBanners: RCCL's version banners, both forms, are read as
// versions and marked RCCL.
func TestRCCLBanners(t *testing.T) {
	log := "n1:1:1 [0] NCCL INFO RCCL version 2.18.3+hip5.5 develop:6ecf771+\nn2:2:2 [0] NCCL INFO RCCL version : 2.21.5-HEAD:9a0e6a1\n"
	a, err := Analyze(Options{}, Source{Name: "rccl.log", R: strings.NewReader(log)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range a.Hosts {
		got = append(got, h.Versions...)
	}
	if !slices.Equal(got, []string{"2.18.3+hip5.5 (RCCL)", "2.21.5-HEAD:9a0e6a1 (RCCL)"}) {
		t.Errorf("versions %q", got)
	}
}
