#!/bin/sh
# Runs fabricctl on issue 28's hostile inputs for every surface other than
# the fabric file (bench/surfaces): special files, 100 MiB inputs, budgets,
# deep nesting, random bytes as switch configurations, 50,000 NCCL logs, a
# 1,500-device topology, a 100 MiB agent request. Prints per run the exit,
# first error, wall and CPU time and peak RSS with its ratio to 300 MB.
#   bench/surfaces.sh [-only NAME]
set -eu
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/fabricctl" ./cmd/fabricctl
go build -o "$work/surfaces" ./bench/surfaces
echo "$(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
"$work/surfaces" -bin "$work/fabricctl" "$@"
