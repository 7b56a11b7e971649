// Package captured turns tool outputs that users captured on their hosts
// (ibv_devinfo, ibstat, show_gids, nvidia-smi topo -m, lspci -vvv,
// perftest, NCCL_DEBUG=INFO logs) into check results, without connecting to
// anything: `fabricctl check --from-dir DIR`.
//
// DIR holds one sub-directory per host (DIR/gpu-01/ibstat.txt …); files placed
// directly in DIR belong to a host named after DIR. A file's tool is found
// from its name (it contains "ibv_devinfo", "ibstat", "show_gids",
// "topo", "lspci", "ib_<verb>_<bw|lat>" or "perftest", or
// "nccl") or, failing that, from a directory named perftest or nccl, so
// captures keep their natural names.
//
//	results, err := captured.Evaluate(os.DirFS(dir), captured.Options{})
//
// Evaluate is pure over the fs.FS it is given and safe for concurrent use.
package captured
