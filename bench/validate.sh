#!/usr/bin/env bash
# Times fabricctl on a 2,000-host, 200-switch, 64-partition fabric with the
# real binary (issue 2's target: load+validate+resolve+render in <= 300 ms and
# <= 200 MB peak on a 2-core machine). Three figures, each the best and median
# of RUNS runs (bench/timecmd; dirty pages are flushed before each run):
#   validate        load + validate
#   render          load + validate + resolve + render every target to stdout
#   render --out    the same, written as 2,401 files under a new directory
# Every --out run writes a directory of its own, removed only at the end: on
# ext4 without a journal, creating files soon after deleting thousands is
# several times slower (the inode allocator skips recently deleted inodes),
# which a benchmark that cleans up between runs would measure instead.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-15}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
go build -o "$work/fabricctl" ./cmd/fabricctl
go build -o "$work/timecmd" ./bench/timecmd
go run ./bench/genfabric -hosts 2000 -switches 200 -partitions 64 -out "$work/fabric"
f="$work/fabric/fabric.yaml"
mkdir "$work/out"
echo "fabric: $(wc -c <"$f") bytes, $(grep -c '^    - {name: gpu' "$f") hosts; output on $(df -T "$work" | awk 'NR==2{print $2}'); $(nproc) CPUs; load $(cut -d' ' -f1 /proc/loadavg)"
"$work/timecmd" -n "$runs" -label "validate" -- "$work/fabricctl" validate -f "$f"
"$work/timecmd" -n "$runs" -label "render (stdout)" -target 300ms -max-mb 200 -- "$work/fabricctl" render -f "$f"
"$work/timecmd" -n "$runs" -label "render --out" -target 300ms -max-mb 200 -- "$work/fabricctl" render -f "$f" --out "$work/out/run-%d"
echo "files per --out run: $(find "$work/out/run-0" -type f | wc -l)"
