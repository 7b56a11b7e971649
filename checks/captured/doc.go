// Package captured turns tool outputs that users captured on their hosts
// (ibv_devinfo, ibstat, show_gids, nvidia-smi topo -m, lspci -vvv,
// perftest, NCCL_DEBUG=INFO logs) into check results, without connecting to
// anything: `fabricctl check --from-dir DIR`.
//
// DIR holds one sub-directory per host (DIR/gpu-01/ibstat.txt …); files placed
// directly in DIR belong to a host named after DIR. A file's tool is found
// from its content (analyze.Detect), never from its name, so captures keep
// whatever names they have and a file such as nccl_lib_locations.txt is not
// mistaken for an NCCL log. Each file is judged by package analyze; result
// IDs are "captured/<kind>/<check>" (captured/ibstat/port-state, …), targets
// "host/<subject>". The NCCL logs of the whole tree are analysed together.
// Every file is accounted for: one that cannot be read is an error result
// (captured/file), files holding no tool's output one skip listing them
// (captured/unrecognised).
//
//	d, err := infile.OpenDir(ctx, dir, captured.MaxFileSize) // FIFOs, devices, links out refused
//	results, err := captured.Evaluate(d, captured.Options{})
//
// Evaluate is pure over the fs.FS it is given and safe for concurrent use.
package captured
