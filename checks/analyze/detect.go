package analyze

import (
	"bytes"
	"regexp"

	"github.com/fabricctl/fabricctl/checks/internal/textutil"
)

// Kind names what tool printed a file.
type Kind string

// The kinds Detect tells apart.
const (
	KindNCCL         Kind = "nccl-log"          // NCCL_DEBUG=INFO, PyTorch's NCCL watchdog and errors, NCCL RAS reports
	KindNCCLTests    Kind = "nccl-tests"        // all_reduce_perf and its siblings
	KindPerftest     Kind = "perftest"          // ib_{write,read,send,atomic}_{bw,lat} console output
	KindPerftestJSON Kind = "perftest-json"     // an --out_json file
	KindTopo         Kind = "nvidia-smi-topo"   // nvidia-smi topo -m / -mp
	KindSMIQuery     Kind = "nvidia-smi-q"      // nvidia-smi -q
	KindSMI          Kind = "nvidia-smi"        // plain nvidia-smi
	KindNVLink       Kind = "nvidia-smi-nvlink" // nvidia-smi nvlink -s / -e
	KindDevInfo      Kind = "ibv_devinfo"
	KindIBStat       Kind = "ibstat"
	KindShowGIDs     Kind = "show_gids"
	KindIBDev2Netdev Kind = "ibdev2netdev"
	KindIBLinkInfo   Kind = "iblinkinfo"
	KindLSPCI        Kind = "lspci"         // lspci -vv / -vvv
	KindHealth       Kind = "health"        // node-health-check (NHC) pass/fail logs
	KindP2P          Kind = "p2p-bandwidth" // CUDA sample p2pBandwidthLatencyTest
	KindUnknown      Kind = "unknown"
)

// signature is a line pattern and what a match counts towards a kind.
type signature struct {
	re     *regexp.Regexp
	weight int
}

// signatures are the lines each tool prints and no other tool does. A file
// scores per kind (at most maxHits matches per pattern count, so a long log
// does not drown a short capture) and the best score wins.
var signatures = []struct {
	kind Kind
	sigs []signature
}{
	{KindPerftestJSON, []signature{{regexp.MustCompile(`^\s*"?test_info"?\s*:\s*\{`), 10}, {regexp.MustCompile(`^\s*"?(?:BW_average|MsgSize|t_avg|n_iterations)"?\s*:`), 3}}},
	{KindSMIQuery, []signature{{regexp.MustCompile(`^=+NVSMI LOG=+$`), 20}, {regexp.MustCompile(`^\s+(?:Product Name|VBIOS Version|Replays Since Reset|GPU UUID)\s+:`), 3}}},
	{KindSMI, []signature{{regexp.MustCompile(`NVIDIA-SMI [\d.]+\s+Driver Version:`), 20}}},
	{KindTopo, []signature{{regexp.MustCompile(`^\s*GPU0(?:\s+(?:GPU\d+|NIC\d+|mlx\w+))*\s+(?:CPU Affinity|NIC0|mlx5_0|GPU1)`), 10}, {regexp.MustCompile(`^(?:GPU|NIC)\d+\s+(?:X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)\b`), 3}, {regexp.MustCompile(`^\s*(?:PIX|PXB|PHB|NODE|SYS|NV#)\s+= `), 2}}},
	{KindNVLink, []signature{{regexp.MustCompile(`^\s*Link \d+: (?:Replay Errors|Recovery Errors|CRC (?:FLIT )?Errors|[\d.]+ GB/s|<inactive>)`), 4}}},
	{KindShowGIDs, []signature{{regexp.MustCompile(`^DEV\s+PORT\s+INDEX\s+GID`), 10}, {regexp.MustCompile(`^n_gids_found=\d+`), 10}}},
	{KindIBDev2Netdev, []signature{{regexp.MustCompile(`\bport\s+\d+(?:\s+\(\w+\s*\))?\s+<?==+>\s+\S+`), 5}}},
	{KindIBLinkInfo, []signature{{regexp.MustCompile(`==\(\s*\d+X\s+[\d.]+ Gbps`), 5}, {regexp.MustCompile(`^(?:CA|Switch): `), 2}}},
	{KindIBStat, []signature{{regexp.MustCompile(`^CA '[^']*'`), 10}, {regexp.MustCompile(`^\s+(?:CA type|Physical state|Base lid|Port GUID|Capability mask|SM lid):`), 2}, {regexp.MustCompile(`^ibpanic:`), 5}}},
	{KindDevInfo, []signature{{regexp.MustCompile(`^\*?\s*hca_id:`), 10}, {regexp.MustCompile(`^No IB devices? found`), 20}, {regexp.MustCompile(`^\s+(?:phys_port_cnt|port_lid|sm_lid|active_mtu|link_layer|vendor_part_id|fw_ver|node_guid):`), 2}}},
	{KindLSPCI, []signature{{regexp.MustCompile(`^(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] [^:]+: `), 3}, {regexp.MustCompile(`^\s+(?:LnkCap|LnkSta|LnkCtl2?|DevCap|DevCtl|UESta|CESta|ACSCtl|Capabilities):`), 2}}},
	{KindNCCLTests, []signature{{regexp.MustCompile(`^(?:\S+\s+)?#?\s*nThread \d+ nGpus`), 20}, {regexp.MustCompile(`#\s+Rank\s+\d+\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on`), 6}, {regexp.MustCompile(`^\S*\s*#?\s*(?:size|bytes)\s+(?:count|N)\s+type\s+(?:redop|op|time)\b`), 10}, {regexp.MustCompile(`#?\s*Avg bus bandwidth\s*:`), 10},
		// nccl-tests' own failure lines (NCCLCHECK/CUDACHECK in its common.cu) and result footer.
		{regexp.MustCompile(`\b(?:Test )?(?:NCCL|CUDA) failure \S+\.cu(?:\.cpp)?:\d+ '|\bTest failure \S+\.cu(?:\.cpp)?:\d+`), 20}, {regexp.MustCompile(`#?\s*Out of bounds values\s*:\s*\d+ (?:OK|FAILED)`), 10}, {regexp.MustCompile(`#\s*NCCL Tests compiled with`), 10},
		// A data row: size count type redop [root] time algbw busbw #wrong …, launcher tags ("[0]") anywhere.
		{regexp.MustCompile(`^(?:\S*\s+)?\d+\s+\d+\s+(?:float|half|double|bfloat16|int8|uint8|int32|uint32|int64|uint64|fp8_e4m3|fp8_e5m2)\s+(?:(?:sum|prod|max|min|avg|premulsum|none)\s+)?(?:-?\d+(?:\[\d+\])?\s+)?[\d.]+\s+[\d.]+\s+[\d.]+\s`), 2}}},
	{KindNCCL, []signature{{regexp.MustCompile(`\bNCCL (?:INFO|WARN|ABORT)\b`), 3}, {regexp.MustCompile(`\bNCCL version \d`), 3}, {regexp.MustCompile(`Watchdog caught collective operation timeout|ProcessGroupNCCL|ncclRemoteError|ncclSystemError|Got completion (?:from peer )?.*with (?:error|status)`), 5}, {regexp.MustCompile(`^Job summary$|^Communicators\.\.\.|Group\s+Comms\s+Nodes`), 5}}},
	{KindPerftest, []signature{{regexp.MustCompile(`(?:BW|Latency|Lat) Test$`), 8}, {regexp.MustCompile(`#bytes\s+#iterations`), 8}, {regexp.MustCompile(`Waiting for client(?: rdma_cm QP)? to connect`), 8}, {regexp.MustCompile(`(?:local|remote) address: LID`), 4}, {regexp.MustCompile(`Couldn't connect to|Unable to init the socket connection|Failed to modify QP|Parser function exited with Error|Couldn't read remote address|Completion with error at|Couldn't get device attributes|IB device \S+ not found`), 6}, {regexp.MustCompile(`ib_(?:write|read|send|atomic)_(?:bw|lat)`), 1}}},
	{KindP2P, []signature{{regexp.MustCompile(`^\[P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test\]`), 20}, {regexp.MustCompile(`^Device=\d+ (?:CAN|CANNOT) Access Peer Device=\d+`), 3}, {regexp.MustCompile(`^(?:(?:Uni|Bi)directional )?P2P(?:=(?:Enabled|Disabled))? (?:Bandwidth|Latency|Connectivity)\b.*Matrix`), 8}}},
	{KindHealth, []signature{{regexp.MustCompile(`\|\s*(?:Healthy|ERROR: nhc:)`), 8}, {regexp.MustCompile(`^\S+ \| .*(?:reported bandwidth|Measured|bus bw|BW)\b`), 3}, {regexp.MustCompile(`(?:ERROR: nhc: Health check failed|NHC: |check_(?:hw|ib|gpu|nccl)_\w+)`), 4}, {regexp.MustCompile(`^\[\w+\] NHC`), 4}}},
}

// maxHits bounds how many matches of one pattern count, maxLines how many
// lines Detect reads, and minScore the score a kind needs: a file that only
// names a tool ("ib_write_bw MISSING") is not its output.
const (
	maxHits  = 20
	maxLines = 5000
	minScore = 3
	// ncclTestsInLog is the nccl-tests score (a header, a footer or a
	// failure line of its own) that makes an NCCL log an nccl-tests run.
	ncclTestsInLog = 10
)

// Detect says which tool printed data, from its content alone (never its
// name): each kind's signature lines are counted and the best score wins.
// Terminal escapes and leading quote markers ("> ") are ignored.
func Detect(data []byte) Kind {
	scores := map[Kind]int{}
	hits := map[*regexp.Regexp]int{}
	lines := 0
	for len(data) > 0 && lines < maxLines {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		lines++
		s := textutil.StripANSI(string(bytes.TrimRight(line, "\r")))
		for len(s) > 1 && s[0] == '>' {
			s = s[1:]
			if s != "" && s[0] == ' ' {
				s = s[1:]
			}
		}
		for _, k := range signatures {
			for _, sig := range k.sigs {
				if hits[sig.re] >= maxHits || !sig.re.MatchString(s) {
					continue
				}
				hits[sig.re]++
				scores[k.kind] += sig.weight
			}
		}
	}
	best, bestScore := KindUnknown, minScore-1
	for _, k := range signatures {
		if scores[k.kind] > bestScore {
			best, bestScore = k.kind, scores[k.kind]
		}
	}
	// nccl-tests runs print NCCL's log inside their own output: a log
	// with nccl-tests' table or failure lines is an nccl-tests run.
	if best == KindNCCL && scores[KindNCCLTests] >= ncclTestsInLog {
		best = KindNCCLTests
	}
	return best
}
