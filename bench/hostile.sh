#!/bin/sh
# Runs fabricctl validate (and render, where it applies) on issue 13's
# hostile documents, generated afresh (bench/hostile), and prints per run the
# exit code, first error, wall time and peak RSS with their ratios to the
# targets: refused with exit 1 and a located error, under 1 s and 300 MB.
#   bench/hostile.sh
set -eu
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/fabricctl" ./cmd/fabricctl
echo "$(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
go build -o "$work/hostile" ./bench/hostile
"$work/hostile" -bin "$work/fabricctl"
