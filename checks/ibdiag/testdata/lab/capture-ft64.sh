#!/bin/bash
# capture-ft64.sh OUTDIR: the forwarding tables and traced paths of the 64-host fat tree
# (checks/localize's routes from real LFTs); see ft64.md beside this file.
set -uo pipefail
L=/work/shared/ib-lab-prototype
O=${1:?OUTDIR}; mkdir -p "$O"
D=$($L/run-ib-lab.sh up -t $L/topologies/ft-64.net) || exit 1
d() { $L/run-ib-lab.sh diag -d "$D" -- "$@" 2>&1; }
d ibnetdiscover >"$O/ft64-ibnetdiscover.txt"
d dump_fts >"$O/ft64-ibroute-dump_fts.txt"
declare -A lid
while read -r n l; do lid[$n]=$l; done < <(awk '/^Ca/ { split($0, q, "\""); n = q[4] } /^\[1\]\(/ { for (i = 1; i < NF; i++) if ($i == "lid") { print n, $(i + 1); break } }' "$O/ft64-ibnetdiscover.txt")
for p in "0001 0002" "0001 0017" "0001 0018" "0017 0001" "0018 0001" "0020 0035" "0035 0020" \
	"0033 0064" "0064 0033" "0049 0010" "0010 0049" "0005 0054"; do
	set -- $p
	d ibtracert "${lid[host-$1]}" "${lid[host-$2]}" >"$O/ft64-ibtracert-$1-$2.txt"
done
$L/run-ib-lab.sh down -d "$D"
