#!/usr/bin/env bash
# Benchmark: fabricctl vs the equivalent iproute2/sysfs shell script on 64 veth
# interfaces in a fresh network namespace, in the same run.
#
#   apply  : set the MTU of all 64 netdevs (alternating 9000/1500 so every run
#            writes), read back — fabricctl host apply vs `ip link set … mtu` + cat
#   observe: read every lossless setting of all 64 netdevs — fabricctl host show vs
#            `ip link show`, `dcb {dcbx,ets,pfc,app,apptrust} show` and cat of the
#            vendor qos/ecn files, per netdev
#
# Usage: bench/host-apply.sh [-n NETDEVS] [-r RUNS] [-b FABRICCTL]
#        ip netns exec NS bench/host-apply.sh shell-apply MTU   (the shell side alone,
#        ip netns exec NS bench/host-apply.sh shell-observe      also used by the Go benchmark)
# Needs root and iproute2 (ip, dcb). Prints medians and the ratios; exits 1 when
# fabricctl is not at least 5x faster on both (TARGET=0 to only report).
set -euo pipefail

NETDEVS=64 RUNS=5 BIN="" TARGET=${TARGET:-5}

# The shell side runs inside the namespace, as one `ip netns exec NS bash …`,
# exactly like the fabricctl side runs as one `ip netns exec NS fabricctl …`.
ifnames() { ip -o link show type veth | awk -F': ' '{sub(/@.*/,"",$2); print $2}'; }

shell_apply() { # MTU: what an operator's script does, with the read-back
	local mtu=$1 i
	for i in $(ifnames); do
		ip link set dev "$i" mtu "$mtu"
		[ "$(cat "/sys/class/net/$i/mtu")" = "$mtu" ] || { echo "mtu of $i not $mtu" >&2; return 1; }
	done
}

shell_observe() { # read what `fabricctl host show` reports, the iproute2/sysfs way
	local i f
	for i in $(ifnames); do
		ip -d link show dev "$i" >/dev/null
		for f in dcbx ets pfc app apptrust; do dcb "$f" show dev "$i" >/dev/null 2>&1 || true; done
		if command -v ethtool >/dev/null; then ethtool -a "$i" >/dev/null 2>&1 || true; fi
		cat "/sys/class/net/$i/qos/trust" /sys/class/net/"$i"/ecn/roce_np/enable/* \
			/sys/class/net/"$i"/ecn/roce_rp/enable/* "/sys/class/net/$i/ecn/roce_np/cnp_dscp" \
			"/sys/class/net/$i/ecn/roce_np/cnp_802p_prio" >/dev/null 2>&1 || true
	done
}

case "${1:-}" in
shell-apply) shell_apply "$2"; exit ;;   # run inside the namespace
shell-observe) shell_observe; exit ;;
esac

while getopts "n:r:b:" o; do
	case $o in
	n) NETDEVS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	b) BIN=$OPTARG ;;
	*) sed -n '2,17p' "$0"; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "bench/host-apply.sh: needs root (network namespaces)" >&2; exit 2; }
command -v dcb >/dev/null || { echo "bench/host-apply.sh: needs dcb from iproute2" >&2; exit 2; }

cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
NS=fabricctl-bench-$$
cleanup() { ip netns del "$NS" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
if [ -z "$BIN" ]; then
	BIN=$WORK/fabricctl
	CGO_ENABLED=0 go build -o "$BIN" ./cmd/fabricctl
fi

ip netns add "$NS"
for ((i = 0; i < NETDEVS; i += 2)); do
	ip -n "$NS" link add "vb$i" type veth peer name "vb$((i + 1))"
done
ip -n "$NS" link set dev lo up

# The desired state: the lossless profile's MTU on every netdev, and the rest of
# it (DCB, pause, ECN: unsupported on veth, so observed and reported, not written).
desired() { # MTU
	python3 - "$1" "$NETDEVS" <<'PY'
import json, sys
mtu, n = int(sys.argv[1]), int(sys.argv[2])
base = {"mtu": mtu, "dcbx": 9, "trust": "dscp", "pfc": {"enable": 8, "priorities": [3], "delay": 5},
        "ets": {"prioTc": [0,0,0,3,0,0,6,0], "tsa": [2,0,0,2,0,0,0,0], "bandwidth": [50,0,0,50,0,0,0,0]},
        "dscpMap": [{"dscp": d, "priority": {26: 3, 48: 6}.get(d, 0)} for d in range(64)],
        "ecn": {"priorities": [3]}, "cnp": {"dscp": 48, "priority": 6}, "dcqcn": {"enabled": True},
        "roce": {"mode": "", "tos": 0}, "globalPause": False}
ifs = [dict(base, name=f"vb{i}") for i in range(n)]
print(json.dumps({"apiVersion": "fabricctl.io/v1alpha1", "host": "bench", "address": "127.0.0.1",
                  "profile": "roce-lossless", "interfaces": ifs}))
PY
}
desired 9000 >"$WORK/d9000.json"
desired 1500 >"$WORK/d1500.json"

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { awk -v ns="$1" 'BEGIN {printf "%.1f", ns/1e6}'; }

run_fab_apply() { ip netns exec "$NS" "$BIN" host apply --desired "$WORK/d$1.json" --yes -o json >"$WORK/out.json"; }
SELF=$(realpath "$0")
run_shell_apply() { ip netns exec "$NS" bash "$SELF" shell-apply "$1"; }
run_shell_observe() { ip netns exec "$NS" bash "$SELF" shell-observe; }
run_fab_observe() { ip netns exec "$NS" "$BIN" host show --desired "$WORK/d9000.json" -o json >"$WORK/out.json" || true; }

# Warm up both sides once (page cache, binaries), and check the fabricctl side works.
run_fab_apply 9000
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert len(r["result"]["applied"])==int(sys.argv[2]), r["result"]' \
	"$WORK/out.json" "$NETDEVS"
run_shell_apply 1500
run_fab_observe
run_shell_observe

declare -a fa sa fo so
mtu=9000
for ((r = 0; r < RUNS; r++)); do
	t0=$(now); run_fab_apply "$mtu"; t1=$(now); fa+=($((t1 - t0)))
	[ $mtu = 9000 ] && mtu=1500 || mtu=9000
	t0=$(now); run_shell_apply "$mtu"; t1=$(now); sa+=($((t1 - t0)))
	[ $mtu = 9000 ] && mtu=1500 || mtu=9000
	t0=$(now); run_fab_observe; t1=$(now); fo+=($((t1 - t0)))
	t0=$(now); run_shell_observe; t1=$(now); so+=($((t1 - t0)))
done

FA=$(printf '%s\n' "${fa[@]}" | median) SA=$(printf '%s\n' "${sa[@]}" | median)
FO=$(printf '%s\n' "${fo[@]}" | median) SO=$(printf '%s\n' "${so[@]}" | median)
RA=$(awk -v a="$SA" -v b="$FA" 'BEGIN {printf "%.1f", a/b}')
RO=$(awk -v a="$SO" -v b="$FO" 'BEGIN {printf "%.1f", a/b}')
printf 'host-apply benchmark: %d veth netdevs, median of %d runs (%s, %d CPUs)\n' "$NETDEVS" "$RUNS" "$(uname -r)" "$(nproc)"
printf '  %-34s %10s ms   shell %10s ms   ratio %5sx\n' "apply MTU (write + read back)" "$(ms "$FA")" "$(ms "$SA")" "$RA"
printf '  %-34s %10s ms   shell %10s ms   ratio %5sx\n' "observe every setting" "$(ms "$FO")" "$(ms "$SO")" "$RO"
if [ "$TARGET" != 0 ]; then
	awk -v a="$RA" -v o="$RO" -v t="$TARGET" 'BEGIN {exit !(a >= t && o >= t)}' ||
		{ echo "below the ${TARGET}x target" >&2; exit 1; }
fi
