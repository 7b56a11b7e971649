#!/usr/bin/env bash
# Times `fabricctl check --local --suite ib` end to end on a generated
# two-level fat tree of 1,024 HCAs (32 leaves of 32 hosts, 8 spines, every
# leaf cabled to every spine; sm-01 on leaf-01; one partition of every host)
# in the InfiniBand lab (ibsim + the real OpenSM and infiniband-diags under
# umad2sim), on 2 cores (taskset -c 0,1). Issue 31's target: <= 30 s.
# Prints the check's wall time, its results, and the ratio to the target
# (below 1 meets it). HOSTS, LEAVES, SPINES resize the tree; RUNS repeats
# the timed check (best and median printed).
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=${HOSTS:-1024} leaves=${LEAVES:-32} spines=${SPINES:-8} runs=${RUNS:-3}
target=30
per=$(( (hosts + leaves - 1) / leaves ))
work=$(mktemp -d)
lab="$work/lab"
cleanup() {
  [ -x "$work/fabricctl" ] && "$work/fabricctl" lab down --ib --ib-dir "$lab" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/fabricctl" ./cmd/fabricctl
f="$work/fat-tree.yaml"
{
  cat <<YAML
apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata: {name: ft-$hosts}
spec:
  profiles:
    - apiVersion: fabricctl.io/v1alpha1
      kind: Profile
      metadata: {name: ib}
      spec:
        infiniband:
          partitions:
            - {name: compute, pkey: 0x0001, members: [{hosts: {labels: {role: compute}}, membership: full}]}
  subnetManagers:
    - {name: sm-01, kind: opensm, address: 10.250.0.1, profile: ib}
  hosts:
YAML
  for ((i = 1; i <= hosts; i++)); do
    printf '    - {name: h%04d, address: 10.%d.%d.%d, profile: ib, labels: {role: compute}}\n' "$i" $((i / 65536 + 1)) $((i / 256 % 256)) $((i % 256))
  done
  printf '  infiniband:\n    linkWidth: 4X\n    linkSpeed: EDR\n    switches:\n'
  for ((l = 1; l <= leaves; l++)); do printf '      - {name: leaf-%02d, ports: %d}\n' "$l" $((per + spines + 1)); done
  for ((s = 1; s <= spines; s++)); do printf '      - {name: spine-%02d, ports: %d}\n' "$s" "$leaves"; done
  printf '    links:\n'
  for ((i = 1; i <= hosts; i++)); do
    printf '      - endpoints: [h%04d:1, leaf-%02d:%d]\n' "$i" $(( (i - 1) / per + 1 )) $(( (i - 1) % per + 1 ))
  done
  printf '      - endpoints: [sm-01:1, leaf-01:%d]\n' $((per + spines + 1))
  for ((l = 1; l <= leaves; l++)); do
    for ((s = 1; s <= spines; s++)); do
      printf '      - endpoints: [leaf-%02d:%d, spine-%02d:%d]\n' "$l" $((per + s)) "$s" "$l"
    done
  done
} >"$f"
echo "fabric: $hosts hosts, $leaves leaves, $spines spines, $(grep -c 'endpoints:' "$f") cables; $(nproc) CPUs; load $(cut -d' ' -f1 /proc/loadavg)"
t0=$(date +%s.%N)
"$work/fabricctl" lab up --ib --ib-dir "$lab" -f "$f" >/dev/null
"$work/fabricctl" apply -f "$f" --target sm-01 --ib-lab "$lab" --yes >/dev/null
echo "lab up and partitions applied in $(echo "$(date +%s.%N) - $t0" | bc) s (not timed below)"
# shellcheck disable=SC1091
. "$lab/env"
mkdir -p "$work/clients"
umad=$(ls /usr/lib/*/umad2sim/libumad2sim.so | head -1)
times=()
for ((r = 1; r <= runs; r++)); do
  t0=$(date +%s.%N)
  set +e
  (cd "$work/clients" && LD_PRELOAD=$umad IBSIM_SOCKNAME=$IBSIM_SOCKNAME SIM_HOST=$SM_NODE \
    taskset -c 0,1 "$work/fabricctl" check --local --suite ib -f "$f" -o json >"$work/report.json")
  rc=$?
  set -e
  times+=("$(echo "$(date +%s.%N) - $t0" | bc)")
done
python3 - "$work/report.json" "$rc" "$target" "${times[@]}" <<'PY'
import json, statistics, sys
rep = json.load(open(sys.argv[1])); rc = int(sys.argv[2]); target = float(sys.argv[3])
ts = sorted(float(t) for t in sys.argv[4:])
by = {}
for r in rep["results"]:
    by.setdefault(r["id"], {}).setdefault(r["status"], 0)
    by[r["id"]][r["status"]] += 1
print("results:", ", ".join(f"{k} {v}" for k, v in sorted(by.items())), f"(exit {rc})")
print(f"check --local --suite ib: best {ts[0]:.2f} s, median {statistics.median(ts):.2f} s over {len(ts)} runs")
print(f"ratio to the {target:.0f} s target: {statistics.median(ts) / target:.3f} (median; < 1 meets it)")
PY
