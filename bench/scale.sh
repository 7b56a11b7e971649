#!/bin/sh
# Scale benchmark of issue 6: plan, apply and drift through the fabric engine
# (parallel 32) over real SSH against N simulated hosts (internal/agentsim,
# in a child process), printing the curve of wall time and peak memory.
#   bench/scale.sh                 # N = 50, 200, 500
#   SCALE_N=100,1000 bench/scale.sh
# Fails when 500 hosts take more than 30 s to plan or drift, or the
# controller's peak RSS exceeds 500 MB.
set -eu
cd "$(dirname "$0")/.."
exec go test -run '^$' -bench '^BenchmarkScale$' -benchtime 1x -timeout 30m ./bench/scale
