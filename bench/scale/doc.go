// Package scale measures the controller against thousands of hosts: plan,
// apply and drift through the fabric engine (parallel 32) with the targets
// `fabricctl plan` builds (action/fleet), over real SSH, to hosts simulated
// by testkit/agentsim. It is a benchmark, not part of `make test`:
//
//	bench/scale.sh                                   # 500, 1000, 2000 hosts, prints the curve
//	SCALE_N=1000 bench/scale.sh                      # other sizes
//	go test -run '^$' -bench BenchmarkScale -benchtime 1x ./bench/scale
//	SCALE_N=500 SCALE_HEAPPROFILE=/tmp/heap bench/scale.sh  # /tmp/heap.500 for go tool pprof
//	SCALE_N=500 SCALE_SIMPROFILE=/tmp/sim bench/scale.sh    # /tmp/sim.500: the servers' CPU profile
//
// The servers run in a child process (this test binary again, running
// TestFleetHelper), so the controller's peak RSS (/proc/self/status VmHWM,
// reset through /proc/self/clear_refs before each size) is its own; the
// servers' peak is reported beside it. Both share the machine's CPUs, so the
// wall times include the servers' half of every SSH handshake and agent call:
// they are an upper bound for a controller talking to real hosts.
//
// The servers keep their copies of the fixture host on tmpfs (/dev/shm, when
// it has room for about 2 MB per host), like the in-memory sysfs and
// configfs they stand in for: on the disk, every simulated sysfs write and
// configfs mkdir/rmdir is journal work shared with the rest of the machine,
// and the wall times grew faster than the fleet. SCALE_SIMTMP=DIR puts them
// elsewhere, SCALE_SIMTMP=- in the default TMPDIR.
//
// Each size starts a fresh fleet of mlx5 fixture hosts (hostcfgtest's
// mlx5-ofed, MTU 1500, firmware DCBX, global pause on), plans (every host has
// changes), applies, then plans again with fresh connections as a later
// `fabricctl drift` would and requires zero drift. Besides wall time it records
// the CPU seconds of both processes per phase (the machine is shared: the CPU
// is what does not depend on its load). For 2,000 hosts the target is plan
// and drift within 30 s and the controller within 1 GB: the ratios are
// printed, and the run fails on memory, or when the CPU plan or drift needs,
// spread over every CPU, exceeds 30 s (no idle machine could make it).
//
// Nothing here is for concurrent use; it is a test package.
package scale
