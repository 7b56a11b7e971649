#!/usr/bin/env bash
# Fuzzes every fuzz target of the repository, found by looking for
# `func FuzzXxx(` in each package's _test.go files, for FUZZTIME each, with
# a short minimisation (FUZZMINIMIZETIME): Go's default of 60 s per new
# input left some targets running a dozen inputs in 45 s. Prints one line per
# target with its exec count and fails, listing them, when any target found
# a failing input (written to that package's testdata/fuzz/).
#   scripts/fuzz.sh                    # every target, 20s each
#   FUZZTIME=60s scripts/fuzz.sh ./fabric ./switchcfg/...   # some packages
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-20s}
minimize=${FUZZMINIMIZETIME:-5s}
pkgs=("$@")
[ ${#pkgs[@]} -eq 0 ] && pkgs=(./...)
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
failed=()
total=0
for dir in $(go list -f '{{.Dir}}' "${pkgs[@]}"); do
  rel=./${dir#"$PWD"/}
  [ "$dir" = "$PWD" ] && rel=.
  for name in $(grep -ho '^func Fuzz[A-Za-z0-9_]*(' "$dir"/*_test.go 2>/dev/null | sed 's/^func //; s/($//' | sort -u); do
    total=$((total + 1))
    out="$log/$total.log"
    go test "$rel" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" >"$out" 2>&1
    rc=$?
    execs=$(grep -ao 'execs: [0-9]*' "$out" | tail -1 | awk '{print $2}')
    if [ $rc -ne 0 ]; then
      failed+=("$rel $name")
      printf '%-28s %-36s FAIL (execs %s)\n' "$rel" "$name" "${execs:-0}"
      grep -a -A12 -- '--- FAIL' "$out" | head -20
    else
      printf '%-28s %-36s ok   %s execs\n' "$rel" "$name" "${execs:-0}"
    fi
  done
done
echo "fuzz: $total targets, ${#failed[@]} failed, $fuzztime each"
if [ ${#failed[@]} -gt 0 ]; then
  printf '  failed: %s\n' "${failed[@]}"
  exit 1
fi
