#!/bin/sh
# Scale benchmark: plan, apply and drift through the fabric engine (parallel
# 32) with the targets fabricctl builds (action/fleet), over real SSH against
# N simulated hosts (testkit/agentsim, in a child process), printing the curve
# of wall time, CPU time (per process and per phase) and peak memory.
#   bench/scale.sh                 # N = 500, 1000, 2000
#   SCALE_N=100,1000 bench/scale.sh
#   SCALE_SIMPROFILE=/tmp/sim ...  # also a CPU profile of the simulated hosts
# The target at 2,000 hosts: plan and drift within 30 s, the controller within
# 1 GB. The machine is shared: wall time is reported against the target with
# the load average; the run fails when the CPU plan or drift needs could not
# fit 30 s even on an idle machine, or on memory.
set -eu
cd "$(dirname "$0")/.."
exec go test -run '^$' -bench '^BenchmarkScale$' -benchtime 1x -timeout 30m ./bench/scale
