#!/usr/bin/env bash
# `make demo`: build (done by make), validate and render the lab fabric, and — where the lab can
# run (root, qemu installable) — boot it with its switch simulators and run the product against
# it from inside the lab namespace: plan → apply --yes → drift → check (a healthy lab must
# pass: exit 0). Then the tool earns its keep: inject a fault (netem loss on one host's RoCE
# traffic, `fabricctl lab fault add`), check again (exit 2), say which host and pairs were found
# and why, and clear the fault. Every step prints its command, its exit code and its time, and
# a long step says every 10 s that it is still running. The lab is always taken down.
#   DEMO_NO_LAB=1        stop after render
#   DEMO_FAULT=host/lab-h3 DEMO_LOSS=2%   where and how much loss to inject
# Then congestion: the incast suite (check --suite incast) must pass on the healthy lab (its
# leaf ports emulate lossless with deep queues) and, with one host's port made shallow
# (`lab fault add host/NAME pfc-off`), fail naming that port and the counters that proved it.
#   DEMO_PFC_OFF=host/lab-h3   whose leaf port loses the lossless emulation
set -uo pipefail
cd "$(dirname "$0")/.."
fabric=${1:-profiles/lab/fabric.yaml}
bin=bin/fabricctl
state=/run/fabricctl-lab
netns=fabricctl-lab
fault=${DEMO_FAULT:-host/lab-h3}
loss=${DEMO_LOSS:-2%}
pfcoff=${DEMO_PFC_OFF:-host/lab-h3}
# sm-01 (opensm) has no stand-in in the lab: commands leave it out.
targets=lab-h1,lab-h2,lab-h3,lab-h4,leaf-01,leaf-02
failed=0

bold() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
# step WANT CMD...: run CMD, print its exit code and time; a code outside WANT (a|b list) fails the demo.
# With step_out=FILE, CMD's stdout goes to FILE.
step() {
  local want=$1; shift
  local shown="$*"
  shown=${shown/#in_lab/ip netns exec $netns $bin}
  bold "$shown"
  local t0=$SECONDS rc=0
  # A heartbeat on stderr, so that no wait is silent for more than 10 s.
  ( while sleep 10; do printf '    ... still running after %ds: %s\n' $((SECONDS - t0)) "${shown:0:60}" >&2; done ) &
  local hb=$!
  if [ -n "${step_out:-}" ]; then "$@" >"$step_out" || rc=$?; else "$@" || rc=$?; fi
  kill "$hb" 2>/dev/null; wait "$hb" 2>/dev/null
  local ok=ok
  [[ "|$want|" == *"|$rc|"* ]] || { ok=UNEXPECTED; failed=1; }
  printf '\033[1m<== exit %d (%s, want %s) in %ds\033[0m\n' "$rc" "$ok" "$want" $((SECONDS - t0))
  return $rc
}
in_lab() { ip netns exec "$netns" "$bin" "$@"; }

step 0 "$bin" validate -f "$fabric" || exit 1
rm -rf out/render
step 0 "$bin" render -f "$fabric" --out out/render || exit 1
for t in out/render/hosts/lab-h1.json out/render/switches/leaf-01.*; do
  bold "$t"; head -n 40 "$t"
done

if [ -n "${DEMO_NO_LAB:-}" ]; then
  echo "DEMO_NO_LAB set: not booting the lab"; exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "the lab needs root (network namespace, taps): not booting it"; exit 0
fi
for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
  if [ "$ns" != "$netns" ] && [[ "$ns" == fabricctl* ]]; then
    echo "note: another lab-like namespace ($ns) exists; two labs on a small machine slow both down"
  fi
done

step 0 make -s lab-deps || exit 1
trap 'bold "fabricctl lab down"; "$bin" lab down' EXIT
step 0 "$bin" lab up -f "$fabric" || exit 1
# The switch simulators' password: lab up generated it; the fabric names LAB_SWITCH_PASSWORD.
LAB_SWITCH_PASSWORD=$(cat "$state/switch-password")
export LAB_SWITCH_PASSWORD
echo "exported LAB_SWITCH_PASSWORD from $state/switch-password"

step 2 in_lab plan -f "$fabric" --target "$targets"
step 0 in_lab apply -f "$fabric" --target "$targets" --yes
step 0 in_lab drift -f "$fabric" --target "$targets"
mkdir -p out

bold "the healthy lab must pass: preflight, loopback on every host, every pair both ways"
step 0 in_lab check -f "$fabric" --report out/report.html
echo "report: out/report.html"

bold "now a fault: $loss loss on the RoCE traffic of $fault; the check must find it"
step 0 "$bin" lab fault add "$fault" loss "$loss"
# The table comes at the end (progress streams on stderr meanwhile): keep it for the summary below.
step_out=out/check-fault.txt step 2 in_lab check -f "$fabric" --suite pairwise --report out/report-fault.html
cat out/check-fault.txt
echo "report: out/report-fault.html"

bold "what the check found, and why"
want=${fault#*/}
# The table's columns: STATUS CHECK TARGET …; it ends at the first empty line (EVIDENCE follows).
found=$(awk 'NF == 0 {exit} $1 == "FAIL" && $2 == "pairwise/host" {print $3}' out/check-fault.txt | sort -u | tr '\n' ' ')
awk 'NF == 0 {exit} $1 == "FAIL" && $2 == "pairwise/host" {$1=$2=""; sub(/^ +/, ""); print "blamed host: " $0}' out/check-fault.txt
awk 'NF == 0 {exit} $1 == "FAIL" && $2 ~ /^pairwise\// && $2 != "pairwise/host" {print "failed pair:  " $3}' out/check-fault.txt
grep -E '^  [^ ].*(during the test|with known-good)' out/check-fault.txt | awk '!seen[$0]++' | head -n 6 | sed 's/^  /evidence:     /'
if [ "$found" = "$want " ]; then
  echo "found $want: the host the fault was put on, and no other"
else
  echo "UNEXPECTED: the check blamed '${found% }', the fault was on $want"; failed=1
fi

step 0 "$bin" lab fault clear

bold "congestion: the healthy lab's incast suite must pass (rxe has no PFC or ECN counter: losslessness from sequence counters)"
step_out=out/check-incast.txt step 0 in_lab check -f "$fabric" --suite incast --report out/report-incast.html
cat out/check-incast.txt
echo "report: out/report-incast.html"

bold "now pfc-off on $pfcoff: its leaf port drops under incast; the suite must find it"
step 0 "$bin" lab fault add "$pfcoff" pfc-off
step_out=out/check-incast-fault.txt step 2 in_lab check -f "$fabric" --suite incast --report out/report-incast-fault.html
cat out/check-incast-fault.txt
echo "report: out/report-incast-fault.html"

bold "what the incast suite found, and why"
want=${pfcoff#*/}
# incast/lossless fails per port ("lab-h3/eth0/rxe0:1"); the table ends at the first empty line.
found=$(awk 'NF == 0 {exit} $1 == "FAIL" && $2 == "incast/lossless" {split($3, t, "/"); print t[1]}' out/check-incast-fault.txt | sort -u | tr '\n' ' ')
awk 'NF == 0 {exit} $1 == "FAIL" && $2 == "incast/lossless" {print "failed port:  " $3}' out/check-incast-fault.txt
# The EVIDENCE section: the counter lines under each incast/lossless failure.
awk '/^EVIDENCE$/ {e = 1; next} e && /^[^ ]/ {on = ($1 == "FAIL" && $2 == "incast/lossless")} e && on && /^  .* \+[0-9]+ \(/' out/check-incast-fault.txt |
  head -n 6 | sed 's/^  /evidence:     /'
grep -E '^  incast/pfc .*not observable' out/check-incast-fault.txt | head -n 1 | sed 's/^  /note:         /'
if [ "$found" = "$want " ]; then
  echo "found $want: the port the pfc-off fault was put on, and no other"
else
  echo "UNEXPECTED: the incast suite blamed '${found% }', pfc-off was on $want"; failed=1
fi
step 0 "$bin" lab fault clear

if [ $failed = 0 ]; then bold "demo: every step as expected"; else bold "demo: some step FAILED (see UNEXPECTED above)"; fi
exit $failed
