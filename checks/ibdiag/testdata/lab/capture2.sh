#!/bin/bash
set -uo pipefail
L=/work/shared/ib-lab-prototype
O=${1:?OUTDIR}; mkdir -p "$O"
D=$($L/run-ib-lab.sh up -t $L/topologies/lab-3sw-4hca.net -p $L/partitions/good.conf)
d() { $L/run-ib-lab.sh diag -d "$D" -- "$@" 2>&1; }
cap() { local name=$1; shift; { echo "$*" >"$O/$name.cmd"; d "$@" >"$O/$name.txt"; echo "rc=$?" >>"$O/$name.cmd"; }; }
$L/inject-width.sh "$D" spine-01 1 1x > "$O/.inject-width.log" 2>&1
$L/inject-counters.sh "$D" leaf-02 1 PortCounters.SymbolErrorCounter=57 PortCounters.LinkDownedCounter=3 PortCounters.PortRcvErrors=65535 PortCounters.LinkErrorRecoveryCounter=255 PortCounters.PortXmitDiscards=12 PortCounters.PortXmitWait=4294967295 PortCounters.ExcessiveBufferOverrunErrors=2 PortCounters.VL15Dropped=9 > "$O/.inject-counters.log" 2>&1
$L/inject-counters.sh "$D" lab-h1 1 PortCounters.SymbolErrorCounter=65535 PortCounters.PortRcvRemotePhysicalErrors=4 PortRcvErrorDetails.PortLocalPhysicalErrors=7 >> "$O/.inject-counters.log" 2>&1
$L/inject-link.sh "$D" down lab-h3 1 > "$O/.inject-link.log" 2>&1
cap faulty-ibqueryerrors-r ibqueryerrors -r
cap faulty-ibqueryerrors-details ibqueryerrors --details
cap faulty-ibqueryerrors-data ibqueryerrors --data
cap faulty-ibqueryerrors-counters ibqueryerrors --counters
cap faulty-ibqueryerrors-suppress ibqueryerrors -s SymbolErrorCounter,PortXmitWait
cap faulty-ibqueryerrors-switch ibqueryerrors --switch
cap faulty-perfquery-h1 perfquery 4 1
cap faulty-perfquery-E-h1 perfquery -E 4 1
cap faulty-perfquery-D-h1 perfquery -D 4 1
cap faulty-perfquery-l ibqueryerrors -k
cap faulty-ibroute-spine-M ibroute -M 2
cap faulty-ibtracert-down ibtracert 4 6
cap faulty-sminfo sminfo
$L/run-ib-lab.sh down -d "$D"
