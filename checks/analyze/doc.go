// Package analyze judges tool outputs that users captured, one file at a
// time, from their content alone: `fabricctl analyze FILE...` and
// `fabricctl check --from-dir`.
//
// Detect tells what printed a file (never from its name, so
// "nccl_lib_locations.txt" is not taken for an NCCL log): NCCL_DEBUG=INFO
// logs with any launcher prefixes, PyTorch's NCCL watchdog lines and NCCL RAS
// reports (nccl-log), nccl-tests, perftest console output and --out_json
// files, nvidia-smi topo -m, nvidia-smi -q, plain nvidia-smi, nvidia-smi
// nvlink -s/-e, the CUDA sample p2pBandwidthLatencyTest, ibv_devinfo,
// ibstat, show_gids, ibdev2netdev, iblinkinfo, the InfiniBand diagnostics
// read by checks/ibdiag (ibnetdiscover, perfquery, smpquery, sminfo,
// ibtracert, ibroute, ibqueryerrors), lspci -vvv,
// node-health-check logs and the NVIDIA driver's lines in kernel logs
// (kernel-log: dmesg, journalctl -k, syslog; Xid events judged by NVIDIA's
// Xid catalog). Each kind's signature lines are counted and the best score
// wins.
//
// Analyze parses the file with the kind's parser (checks/hostparse,
// checks/perftest, checks/nccl) and returns its Findings — each an ID
// ("<kind>/<check>"), a status (pass, warn, fail, skip, error), the subject
// inside the file (a port, a GPU, a host) and a summary — and its Facts, the
// parsed values. It never fails: unrecognised content is one skip finding, a
// parse error one error finding, and figures that are no number their field
// holds (a counter of 1e23, a NaN rate) one "<kind>/numbers" error finding
// naming their lines; no NaN or infinity reaches a measurement or a fact,
// so every Report encodes as JSON and YAML.
//
//	rep, err := analyze.ReadFiles(ctx, os.Stdin, []string{"ibstat.txt", "rank0.log"}, analyze.Options{})
//	for _, f := range rep.Files { fmt.Println(f.File, f.Kind, f.Worst()) }
//
// A verdict is only given on what a file shows: a topology cell that the
// capture cut off is "skip" (unknown), never a failure or a guess. A figure
// (perftest bandwidth or latency, nccl-tests bus bandwidth) is judged only
// against a yardstick (Options.Expect: ParseExpect for --expect,
// FabricExpect for a fabric's portRate and maxLatency); without one it is a
// skip with the figure. A file no kind is told in says which kinds were tried
// and which came closest (Closest); one whose lines carry launcher prefixes
// (pdsh, srun …) is first taken apart by machine. docs/analyze.md has the
// rules and the published-output corpus that holds them.
//
// Report.Table writes the findings for people and Report.Worst is the worst verdict (what the
// exit code of `fabricctl analyze` follows).
//
// Everything here is safe for concurrent use; ReadFiles reads the files it
// is given and nothing else.
package analyze
