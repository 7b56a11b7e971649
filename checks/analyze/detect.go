package analyze

import (
	"bytes"
	"regexp"

	"github.com/fabricctl/fabricctl/checks/internal/textutil"
	"github.com/fabricctl/fabricctl/checks/perftest"
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
	KindKernelLog    Kind = "kernel-log"    // the NVIDIA driver's lines in dmesg, journalctl -k, syslog: Xid events
	KindUnknown      Kind = "unknown"
)

// signature is a line pattern and what a match counts towards a kind.
type signature struct {
	re     *regexp.Regexp
	weight int
}

// parserSignatures are lines a tool's own parser knows better than a
// pattern: each counts weight towards its kind (at most maxHits lines).
var parserSignatures = []struct {
	kind   Kind
	line   func(string) bool
	weight int
}{
	// Any error perftest prints, as its parser knows them.
	{KindPerftest, perftest.FailureLine, 2},
}

// signatures are the lines each tool prints and no other tool does. A file
// scores per kind (at most maxHits matches per pattern count, so a long log
// does not drown a short capture) and the best score wins.
var signatures = []struct {
	kind Kind
	sigs []signature
}{
	{KindPerftestJSON, []signature{{regexp.MustCompile(`^\s*"?test_info"?\s*:\s*\{`), 10}, {regexp.MustCompile(`^\s*"?(?:BW_average|MsgSize|t_avg|n_iterations)"?\s*:`), 3}}},
	{KindSMIQuery, []signature{{regexp.MustCompile(`^=+NVSMI LOG=+$`), 20}, {regexp.MustCompile(`^\s+(?:Product Name|VBIOS Version|Replays Since Reset|GPU UUID)\s+:`), 3},
		// The command echoed above nvidia-smi's failure messages says -q/-a (see KindSMI).
		{regexp.MustCompile(`^(?:.*[#$%>]\s*)?nvidia-smi(?:\s+\S+)*?\s+(?:-q|-a|--query)(?:\s|$)`), 11}}},
	{KindSMI, []signature{{regexp.MustCompile(`NVIDIA-SMI [\d.]+\s+Driver Version:`), 20},
		// nvidia-smi's failure messages (hostparse.SMIFailure), a GPU's first and second table rows.
		{regexp.MustCompile(`^\s*(?:Unable to determine the device handle for (?i:gpu)|NVIDIA-SMI has failed because it couldn.t communicate with the NVIDIA driver|Failed to initialize NVML:|NVIDIA-SMI couldn.t find libnvidia-ml\.so|No devices were found\.?\s*$)`), 10},
		{regexp.MustCompile(`^\|\s*\d+\.?\s.*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]\s+(?:On|Off)\s*\|`), 10},
		{regexp.MustCompile(`^\|\s*(?:\d+%|N/A|ERR!)\s+(?:\d+C|N/A|ERR!)\s+(?:P\d+|N/A|ERR!)\s`), 5}}},
	{KindTopo, []signature{{regexp.MustCompile(`^\s*GPU0(?:\s+(?:GPU\d+|NIC\d+|mlx\w+))*\s+(?:CPU Affinity|NIC0|mlx5_0|GPU1)`), 10}, {regexp.MustCompile(`^(?:GPU|NIC)\d+\s+(?:X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)\b`), 3}, {regexp.MustCompile(`^\s*(?:PIX|PXB|PHB|NODE|SYS|NV#)\s+= `), 2}}},
	{KindNVLink, []signature{{regexp.MustCompile(`^\s*Link \d+: (?:Replay Errors|Recovery Errors|CRC (?:FLIT )?Errors|[\d.]+ GB/s|<inactive>)`), 4}, {regexp.MustCompile(`Unable to retrieve NVLink information as all links are (?i:inactive)`), 5}}},
	// show_gids: header, count and rows (DEV PORT INDEX GID …), indented too (pasted into markdown).
	{KindShowGIDs, []signature{{regexp.MustCompile(`^\s*DEV\s+PORT\s+INDEX\s+GID`), 10}, {regexp.MustCompile(`^\s*n_gids_found=\d+`), 10}, {regexp.MustCompile(`^\s*\S+\s+\d+\s+\d+\s+[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){7}(?:\s|$)`), 2}}},
	{KindIBDev2Netdev, []signature{{regexp.MustCompile(`\bport\s+\d+(?:\s+\(\w+\s*\))?\s+<?==+>\s+\S+`), 5}}},
	// iblinkinfo: a link, up ("==( 4X 53.125 Gbps Active/  LinkUp)==>") or down ("==(  Down/ Polling)==>").
	{KindIBLinkInfo, []signature{{regexp.MustCompile(`==\(\s*(?:\d+X\s+[\d.]+ Gbps|(?:Down|Initialize|Armed|Active)/\s*\w+\)==>)`), 5}, {regexp.MustCompile(`^(?:CA|Switch|Router): `), 2}}},
	// infiniband-diags read by checks/ibdiag: each tool's header or summary lines, and its data lines.
	{KindIBNetDiscover, []signature{{regexp.MustCompile(`^(?:Switch|Ca|Rt)\s+\d+\s+"[SHR]-[0-9a-fA-F]+"`), 10}, {regexp.MustCompile(`^\[\d+\](?:\([^)]*\))*\s*"[SHR]-[0-9a-fA-F]+"\[\d+\]`), 3},
		{regexp.MustCompile(`^(?:CA|SW|RT)\s+\d+\s+\d+\s+0x[0-9a-fA-F]+\s+\d+x\s+\S+`), 3}, {regexp.MustCompile(`^(?:switchguid|caguid|rtguid)=0x[0-9a-fA-F]+`), 3}}},
	{KindPerfQuery, []signature{{regexp.MustCompile(`^# (?:Port (?:extended )?counters|Port\w+Details counters): `), 20}, {regexp.MustCompile(`^(?:SymbolErrorCounter|LinkDownedCounter|PortRcvErrors|PortXmitWait|PortXmitData):\.+\d+$`), 2}}},
	{KindSMPQuery, []signature{{regexp.MustCompile(`^# (?:Port info|Node info|Switch info): `), 20}, {regexp.MustCompile(`^(?:LinkWidthActive|LinkSpeedActive|PhysLinkState|NodeType|PortGuid|SystemGuid):\.+`), 2}, {regexp.MustCompile(`^Node Description:\.+`), 5}}},
	{KindSMInfo, []signature{{regexp.MustCompile(`^sminfo: sm lid \d+ sm guid 0x`), 20}}},
	{KindIBTracert, []signature{{regexp.MustCompile(`^(?:From|To) (?:ca|switch|router) \{0x[0-9a-fA-F]+\} portnum \d+ lid \d+-\d+`), 10}, {regexp.MustCompile(`^\[\d+\] -> (?:ca|switch|router) port \{0x`), 3}}},
	{KindIBRoute, []signature{{regexp.MustCompile(`^Unicast lids \[0x[0-9a-fA-F]+-0x[0-9a-fA-F]+\] of switch `), 20}, {regexp.MustCompile(`^0x[0-9a-fA-F]{4} \d{3} : \(`), 2}}},
	{KindIBQueryErrors, []signature{{regexp.MustCompile(`^## Summary: \d+ nodes checked, \d+ bad nodes found`), 20}, {regexp.MustCompile(`^\s*GUID 0x[0-9a-fA-F]+ port (?:ALL|\d+): \[`), 5}, {regexp.MustCompile(`^(?:Errors|Data Counters) for (?:0x[0-9a-fA-F]+ )?"`), 5}}},
	// ibstat: its CA header, its keys, and its own state names (infiniband-diags ibstat.c port_state_str,
	// port_phy_state_str), so a fragment of one port block is still ibstat.
	{KindIBStat, []signature{{regexp.MustCompile(`^CA '[^']*'`), 10}, {regexp.MustCompile(`^\s+(?:CA type|Physical state|Base lid|Port GUID|Capability mask|SM lid):`), 2}, {regexp.MustCompile(`^ibpanic:`), 5},
		{regexp.MustCompile(`^\s*Physical state:\s+(?:Sleep|Polling|Disabled|PortConfigurationTraining|LinkUp|LinkErrorRecovery|Phy ?Test)\s*$`), 2}, {regexp.MustCompile(`^\s*State:\s+(?:Down|Initializing|Armed|Active)\s*$`), 2}}},
	// ibv_devinfo: its blocks and keys, its -v port lines (phys_state, GID[ n]), its own messages
	// (rdma-core libibverbs/examples/devinfo.c); ibstatus's "Infiniband device 'x' port N status:"
	// blocks share keys with it (link_layer, sm lid) and count against it.
	{KindDevInfo, []signature{{regexp.MustCompile(`^\*?\s*hca_id:`), 10}, {regexp.MustCompile(`^\s*(?:No IB devices? found|IB device '[^']*' wasn't found)`), 20}, {regexp.MustCompile(`^\s+(?:phys_port_cnt|port_lid|sm_lid|active_mtu|link_layer|vendor_part_id|fw_ver|node_guid):`), 2},
		{regexp.MustCompile(`^\s*Failed to (?:open device|query device props|query port \d+ props)\s*$`), 3}, {regexp.MustCompile(`^\s+phys_state:\s+[A-Z_ ]+ \(\d+\)`), 3}, {regexp.MustCompile(`^\s*GID\[\s*\d+\]:\s+[0-9a-fA-F:.]+`), 2},
		{regexp.MustCompile(`^Infiniband device '[^']*' port \d+ status:`), -10}}},
	{KindLSPCI, []signature{{regexp.MustCompile(`^(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] [^:]+: `), 3}, {regexp.MustCompile(`^\s+(?:LnkCap|LnkSta|LnkCtl2?|DevCap|DevCtl|DevSta|UESta|CESta|ACSCtl|Capabilities):`), 2},
		// grep-filtered registers that lost their indentation.
		{regexp.MustCompile(`^(?:LnkCap|LnkSta|DevSta|UESta|CESta):\s`), 2}}},
	{KindNCCLTests, []signature{{regexp.MustCompile(`^(?:\S+\s+)?#?\s*nThread \d+ nGpus`), 20}, {regexp.MustCompile(`#\s+Rank\s+\d+\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on`), 6}, {regexp.MustCompile(`^\S*\s*#?\s*(?:size|bytes)\s+(?:count|N)\s+type\s+(?:redop|op|time)\b`), 10}, {regexp.MustCompile(`#?\s*Avg bus bandwidth\s*:`), 10},
		// nccl-tests' own failure lines (NCCLCHECK/CUDACHECK in its common.cu) and result footer.
		{regexp.MustCompile(`\b(?:Test )?(?:NCCL|CUDA) failure \S+\.cu(?:\.cpp)?:\d+ '|\bTest failure \S+\.cu(?:\.cpp)?:\d+`), 20}, {regexp.MustCompile(`#?\s*Out of bounds values\s*:\s*\d+ (?:OK|FAILED)`), 10}, {regexp.MustCompile(`#\s*NCCL Tests compiled with`), 10},
		// A data row: size count type redop [root] time algbw busbw #wrong …, launcher tags ("[0]") anywhere.
		{regexp.MustCompile(`^(?:\S*\s+)?\d+\s+\d+\s+(?:float|half|double|bfloat16|int8|uint8|int32|uint32|int64|uint64|fp8_e4m3|fp8_e5m2)\s+(?:(?:sum|prod|max|min|avg|premulsum|none)\s+)?(?:-?\d+(?:\[\d+\])?\s+)?[\d.]+\s+[\d.]+\s+[\d.]+\s`), 2}}},
	{KindNCCL, []signature{{regexp.MustCompile(`\bNCCL (?:INFO|WARN|ABORT)\b|^\S+:\d+:\d+ \[\d+\] (?:INFO|WARN) `), 3}, {regexp.MustCompile(`\b[NR]CCL version\s*:?\s*\d`), 3}, {regexp.MustCompile(`Watchdog caught collective operation timeout|ProcessGroupNCCL|ncclRemoteError|ncclSystemError|Got completion (?:from peer )?.*with (?:error|status)`), 5}, {regexp.MustCompile(`^Job summary$|^Communicators\.\.\.|Group\s+Comms\s+Nodes`), 5}}},
	{KindPerftest, []signature{{regexp.MustCompile(`(?:BW|Latency|Lat) Test$`), 8}, {regexp.MustCompile(`#bytes\s+#iterations`), 8}, {regexp.MustCompile(`Waiting for client(?: rdma_cm QP)? to connect`), 8}, {regexp.MustCompile(`(?:local|remote) address: LID`), 4}, {regexp.MustCompile(`Couldn't connect to|Unable to init the socket connection|Failed to modify QP|Parser function exited with Error|Couldn't read remote address|Completion with error at|Couldn't get device attributes|IB device \S+ not found|Unable to find the Infiniband/RoCE device|Did not detect devices|Couldn't get context for|Couldn't create IB resources|RDMA CM event error|Failed to (?:handle|connect|disconnect) RDMA CM|Port number \d+ state is|Couldn't set the link layer`), 6}, {regexp.MustCompile(`ib_(?:write|read|send|atomic)_(?:bw|lat)`), 1}}},
	{KindP2P, []signature{{regexp.MustCompile(`^\[P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test\]`), 20}, {regexp.MustCompile(`^Device=\d+ (?:CAN|CANNOT) Access Peer Device=\d+`), 3}, {regexp.MustCompile(`^(?:(?:Uni|Bi)directional )?P2P(?:=(?:Enabled|Disabled))? (?:Bandwidth|Latency|Connectivity)\b.*Matrix`), 8}}},
	// The NVIDIA driver's own kernel lines (NVRM: Xid, fallen off the bus, its load and GPU UUID lines) at
	// the start of a line or behind what dmesg, dmesg -T, journalctl and syslog put there (not quoted by NHC).
	{KindKernelLog, []signature{{regexp.MustCompile(kernelPrefix + `NVRM: Xid \(`), 10}, {regexp.MustCompile(kernelPrefix + `NVRM: (?:GPU|The NVIDIA GPU) .*fallen off the bus`), 10},
		{regexp.MustCompile(kernelPrefix + `NVRM: (?:loading NVIDIA UNIX|GPU at PCI:)`), 3}}},
	{KindHealth, []signature{{regexp.MustCompile(`\|\s*(?:Healthy|ERROR:\s+nhc:)`), 8}, {regexp.MustCompile(`^\S+ \| .*(?:reported bandwidth|Measured|bus bw|BW)\b`), 3},
		// NHC's own texts (mej/nhc): die(), log(), the watchdog, node-mark-offline/online, nhc -d.
		{regexp.MustCompile(`(?:ERROR|SUCCESS):\s+nhc:\s+|Health check (?:failed|passed):|Node Health Check (?:failed|completed successfully)|NHC watchdog timer|node-mark-(?:offline|online)|\bnhc\[\d+\]:|^DEBUG:\s+Debugging activated via -d`), 6},
		{regexp.MustCompile(`(?:NHC: |check_(?:hw|ib|gpu|nccl|nv|fs|ps|xid|nvlink|file|cmd|dmi|net|moab|pbs|slurm)_\w+)`), 4}, {regexp.MustCompile(`^\[\w+\] NHC`), 4}}},
}

// maxHits bounds how many matches of one pattern count, maxLines how many
// lines Detect reads, and minScore the score a kind needs: a file that only
// names a tool ("ib_write_bw MISSING") is not its output.
const (
	maxHits  = 20
	maxLines = 5000
	minScore = 3
	// maxDetectLine is how much of a line the signatures read: every
	// signature sits in a line's first few hundred bytes, and a wide line
	// (a 1,500-device topology row is 10 KB) would otherwise cost every
	// pattern its whole length.
	maxDetectLine = 1024
	// ncclTestsInLog is the nccl-tests score (a header, a footer or a
	// failure line of its own) that makes an NCCL log an nccl-tests run.
	ncclTestsInLog = 10
)

// Detect says which tool printed data, from its content alone (never its
// name): each kind's signature lines are counted and the best score wins.
// Terminal escapes and leading quote markers ("> ") are ignored.
func Detect(data []byte) Kind {
	scores := scoresOf(data)
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

// scoresOf counts each kind's signature lines in data.
func scoresOf(data []byte) map[Kind]int {
	scores := map[Kind]int{}
	hits := map[*signature]int{}
	parserHits := make([]int, len(parserSignatures))
	lines := 0
	for len(data) > 0 && lines < maxLines {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		lines++
		line = bytes.TrimRight(line, "\r")
		if len(line) > maxDetectLine {
			line = line[:maxDetectLine]
		}
		s := textutil.StripANSI(string(line))
		for len(s) > 1 && s[0] == '>' {
			s = s[1:]
			if s != "" && s[0] == ' ' {
				s = s[1:]
			}
		}
		for _, k := range signatures {
			for i := range k.sigs {
				sig := &k.sigs[i]
				if hits[sig] >= maxHits || !sig.re.MatchString(s) {
					continue
				}
				hits[sig]++
				scores[k.kind] += sig.weight
			}
		}
		for i, p := range parserSignatures {
			if parserHits[i] < maxHits && p.line(s) {
				parserHits[i]++
				scores[p.kind] += p.weight
			}
		}
	}
	return scores
}

// Closest says, for data no kind was told in, which kinds were tried and
// which came closest: the kind with the best score below the threshold,
// and that score ("" when no line of any kind was seen).
func Closest(data []byte) (tried []Kind, closest Kind, score int) {
	scores := scoresOf(data)
	closest = KindUnknown
	for _, k := range signatures {
		tried = append(tried, k.kind)
		if scores[k.kind] > score {
			closest, score = k.kind, scores[k.kind]
		}
	}
	return tried, closest, score
}
