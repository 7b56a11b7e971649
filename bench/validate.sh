#!/usr/bin/env bash
# Times load + validate + resolve + render of a 2,000-host, 200-switch,
# 64-partition fabric with the real binary, and reports peak memory.
# Targets (issue 2): ≤ 300 ms and ≤ 200 MB peak on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { apt-get install -y -qq time >/dev/null 2>&1 || true; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
go build -o "$work/fabricctl" ./cmd/fabricctl
go run ./bench/genfabric -hosts 2000 -switches 200 -partitions 64 -out "$work/fabric"
"$work/fabricctl" render -f "$work/fabric/fabric.yaml" --out "$work/warm" >/dev/null   # warm the page cache
best_ms=999999; peak_kb=0; best_cpu_ms=999999
for i in 1 2 3 4 5; do
  rm -rf "$work/out"
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%e %M %U %S' -o "$work/t" "$work/fabricctl" render -f "$work/fabric/fabric.yaml" --out "$work/out" >/dev/null
    read -r secs kb usr sys <"$work/t"
    cpu_ms=$(awk -v u="$usr" -v s="$sys" 'BEGIN{printf "%d", (u+s)*1000}')
    (( cpu_ms < best_cpu_ms )) && best_cpu_ms=$cpu_ms
  else
    s=$(date +%s%N); "$work/fabricctl" render -f "$work/fabric/fabric.yaml" --out "$work/out" >/dev/null; e=$(date +%s%N)
    secs=$(awk -v n=$((e-s)) 'BEGIN{print n/1e9}'); kb=0
  fi
  ms=$(awk -v s="$secs" 'BEGIN{printf "%d", s*1000}')
  (( ms < best_ms )) && best_ms=$ms
  (( kb > peak_kb )) && peak_kb=$kb
done
files=$(find "$work/out" -type f | wc -l)
echo "validate+resolve+render 2000 hosts/200 switches/64 partitions: best ${best_ms} ms wall of 5 (target 300 ms), CPU ${best_cpu_ms} ms, peak RSS $((peak_kb/1024)) MB (target 200 MB), ${files} files, load $(cut -d' ' -f1 /proc/loadavg)"
echo "ratio to target: time $(awk -v a="$best_ms" 'BEGIN{printf "%.2f", a/300}'), memory $(awk -v a="$peak_kb" 'BEGIN{printf "%.2f", a/1024/200}')"
