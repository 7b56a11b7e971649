#!/usr/bin/env bash
# bench/verdicts.sh: does `fabricctl check` tell a healthy fabric from a faulty one, run after run?
# Boots the soft-RoCE lab with profiles/lab/fabric.yaml, applies it, then runs
#   N healthy checks (every suite: preflight, loopback, pairwise), and
#   N checks with netem loss on one host's RoCE traffic (`fabricctl lab fault add host/H loss P`,
#     the pairwise suite; H cycles through the hosts, P through LOSSES),
# and counts
#   false positives: a healthy run that does not exit 0, or a faulty run that flags a healthy
#                    host or pair (blames another host, fails a pair without the faulty host);
#   false negatives: a faulty run that does not exit 2 or does not blame the faulty host
#                    (pairwise/host) — i.e. the fault was missed or not located.
# With --busy, two busy loops (sh -c 'while :; do :; done') run for the whole benchmark.
# Prints one line per run (exit code, verdict, load average), the lab's envelope as measured over
# the runs (bench/verdicts: bandwidths, their ratio to each run's best, counter movements of
# healthy tests and on the faulty host's pairs) and the totals; every check's JSON report, table
# and progress are kept under OUT (default out/verdicts-<condition>). The lab is always taken down.
# Hold the lab lock around it: flock /tmp/fabricctl-lab.lock bench/verdicts.sh -n 10 [--busy]
#   -n N          runs per kind (default 3)
#   --busy        two busy loops during the benchmark
#   LOSSES="1% 2% 3%" HOSTS="lab-h1 lab-h2 lab-h3 lab-h4"   what the faulty runs cycle through
set -uo pipefail
cd "$(dirname "$0")/.."
n=3 busy=0
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=$2; shift 2 ;;
    --busy) busy=1; shift ;;
    *) echo "usage: bench/verdicts.sh [-n N] [--busy]" >&2; exit 2 ;;
  esac
done
fabric=profiles/lab/fabric.yaml
bin=bin/fabricctl
netns=fabricctl-lab
state=/run/fabricctl-lab
losses=(${LOSSES:-1% 2% 3%})
hosts=(${HOSTS:-lab-h1 lab-h2 lab-h3 lab-h4})
cond=quiet; [ $busy = 1 ] && cond=busy
out=${OUT:-out/verdicts-$cond}
rm -rf "$out"; mkdir -p "$out"

if [ "$(id -u)" != 0 ]; then echo "verdicts: the lab needs root" >&2; exit 1; fi
make -s build lab-deps >/dev/null || exit 1
work=$(mktemp -d)
helper=$work/verdicts
go build -o "$helper" ./bench/verdicts || exit 1

busy_pids=()
cleanup() {
  for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null; done
  "$bin" lab fault clear >/dev/null 2>&1
  "$bin" lab down
  rm -rf "$work"
}
trap cleanup EXIT
if [ $busy = 1 ]; then
  for _ in 1 2; do sh -c 'while :; do :; done' & busy_pids+=($!); done
  echo "verdicts: two busy loops running (pids ${busy_pids[*]})"
fi

load() { cut -d' ' -f1 /proc/loadavg; }
loads=()
echo "verdicts: condition $cond, $n healthy and $n faulty runs, $(nproc) CPUs, load $(load)"
"$bin" lab up -f "$fabric" >"$out/lab-up.txt" 2>&1 || { cat "$out/lab-up.txt"; exit 1; }
LAB_SWITCH_PASSWORD=$(cat "$state/switch-password"); export LAB_SWITCH_PASSWORD
ip netns exec "$netns" "$bin" apply -f "$fabric" --target "$(IFS=,; echo "${hosts[*]}")" --yes >"$out/apply.txt" 2>&1 ||
  { cat "$out/apply.txt"; exit 1; }

fp=0 fn=0 t_all=$SECONDS
# run KIND I [FAULT-HOST LOSS]: one check, judged; prints one line.
run() {
  local kind=$1 i=$2 host=${3:-} loss=${4:-} suites=preflight,loopback,pairwise
  local f="$out/$kind-$i" l0 t0=$SECONDS rc=0
  l0=$(load)
  if [ "$kind" = faulty ]; then
    "$bin" lab fault add "host/$host" loss "$loss" >/dev/null || { echo "verdicts: fault add failed" >&2; exit 1; }
    suites=pairwise
  fi
  ip netns exec "$netns" "$bin" check -f "$fabric" --suite "$suites" -o json >"$f.json" 2>"$f.progress" || rc=$?
  [ "$kind" = faulty ] && { "$bin" lab fault clear >/dev/null || { echo "verdicts: fault clear failed" >&2; exit 1; }; }
  [ "$kind" = faulty ] && echo "$host $loss" >"$f.meta"
  local l1; l1=$(load); loads+=("$l0" "$l1")
  local blamed badpairs verdict=() j
  j=$("$helper" judge "$f.json") || { echo "verdicts: reading $f.json failed" >&2; exit 1; }
  blamed=$(echo "$j" | sed -n 's/^blamed=\([^ ]*\) .*/\1/p' | tr ',' ' ')
  badpairs=$(echo "$j" | sed -n 's/.* bad=\(.*\)$/\1/p' | tr ',' ' ')
  [ -n "$blamed" ] && blamed+=" "
  [ -n "$badpairs" ] && badpairs+=" "
  if [ "$kind" = healthy ]; then
    if [ $rc != 0 ]; then verdict+=("FALSE POSITIVE"); fp=$((fp + 1)); fi
  else
    local stray="" b
    for b in $badpairs; do [[ "$b" == *"$host/"* ]] || stray+="$b "; done
    for b in $blamed; do [ "$b" = "$host" ] || stray+="$b "; done
    if [ $rc != 2 ] || [[ " $blamed" != *" $host "* ]]; then verdict+=("FALSE NEGATIVE"); fn=$((fn + 1)); fi
    if [ -n "$stray" ]; then verdict+=("FALSE POSITIVE (healthy flagged: ${stray% })"); fp=$((fp + 1)); fi
  fi
  [ ${#verdict[@]} = 0 ] && verdict=(ok)
  printf '%-7s %2d %-7s %-5s exit %d  blamed [%s] failed/errored [%s]  %3ds  load %s..%s  %s\n' \
    "$kind" "$i" "${host:--}" "${loss:--}" "$rc" "${blamed% }" "${badpairs% }" $((SECONDS - t0)) "$l0" "$l1" "${verdict[*]}"
  [ "${verdict[*]}" = ok ] || grep -E '^(FAIL|ERROR) ' "$f.txt" | sed 's/^/        /'
}

for i in $(seq 1 "$n"); do run healthy "$i"; done
for i in $(seq 1 "$n"); do
  run faulty "$i" "${hosts[$(((i - 1) % ${#hosts[@]}))]}" "${losses[$(((i - 1) % ${#losses[@]}))]}"
done
mean=$(printf '%s\n' "${loads[@]}" | awk '{s+=$1; if(min==""||$1<min)min=$1; if($1>max)max=$1} END {printf "%.1f (%.1f..%.1f)", s/NR, min, max}')
"$helper" envelope "$out"
echo "verdicts: condition $cond: $n healthy + $n faulty runs in $(((SECONDS - t_all) / 60)) min: false positives $fp, false negatives $fn; load average (1 min) $mean"
[ $fp = 0 ] && [ $fn = 0 ]
