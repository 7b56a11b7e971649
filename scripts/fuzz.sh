#!/usr/bin/env bash
# Fuzzes every fuzz target of the repository, found by looking for
# `func FuzzXxx(` in each package's _test.go files, for FUZZTIME each, with
# a short minimisation (FUZZMINIMIZETIME): Go's default of 60 s per new
# input left some targets running a dozen inputs in 45 s. FUZZJOBS targets
# run at once, each with one fuzzing worker (-parallel 1), so that a run on a
# small machine is not starved. Prints one line per target with its exec
# count and fails, listing them, when any target found a failing input
# (written to that package's testdata/fuzz/). Go's engine sometimes ends a
# clean run with "context deadline exceeded" and no input: such a target is
# run once more, and fails only if it fails again.
#   scripts/fuzz.sh                    # every target, 20s each
#   FUZZTIME=60s FUZZJOBS=2 scripts/fuzz.sh ./fabric ./switchcfg/...
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-20s}
minimize=${FUZZMINIMIZETIME:-5s}
jobs=${FUZZJOBS:-1}
pkgs=("$@")
[ ${#pkgs[@]} -eq 0 ] && pkgs=(./...)
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# one target: run it, retry once on an engine hiccup, write a status line
fuzz_one() { # n rel name
  local n=$1 rel=$2 name=$3 out="$log/$1.log" rc execs try
  for try in 1 2; do
    go test "$rel" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" -parallel 1 >"$out" 2>&1
    rc=$?
    [ $rc -eq 0 ] && break
    grep -aq 'context deadline exceeded' "$out" && ! grep -aq 'Failing input written' "$out" || break
  done
  execs=$(grep -ao 'execs: [0-9]*' "$out" | tail -1 | awk '{print $2}')
  if [ $rc -ne 0 ]; then
    printf '%-28s %-36s FAIL (execs %s)\n' "$rel" "$name" "${execs:-0}" >"$log/$n.status"
    grep -a -A12 -- '--- FAIL' "$out" | head -20 >>"$log/$n.status"
    echo "$rel $name" >"$log/$n.failed"
  else
    printf '%-28s %-36s ok   %s execs\n' "$rel" "$name" "${execs:-0}" >"$log/$n.status"
  fi
  cat "$log/$n.status"
}

total=0
for dir in $(go list -f '{{.Dir}}' "${pkgs[@]}"); do
  rel=./${dir#"$PWD"/}
  [ "$dir" = "$PWD" ] && rel=.
  for name in $(grep -ho '^func Fuzz[A-Za-z0-9_]*(' "$dir"/*_test.go 2>/dev/null | sed 's/^func //; s/($//' | sort -u); do
    total=$((total + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    fuzz_one "$total" "$rel" "$name" &
  done
done
wait
failed=$(cat "$log"/*.failed 2>/dev/null | wc -l)
echo "fuzz: $total targets, $failed failed, $fuzztime each, $jobs at once"
if [ "$failed" -gt 0 ]; then
  sed 's/^/  failed: /' "$log"/*.failed
  exit 1
fi
