#!/bin/bash
# capture.sh OUTDIR: runs the ibdiag tools on the lab-3sw-4hca lab, healthy and with faults.
set -uo pipefail
L=/work/shared/ib-lab-prototype
O=${1:?OUTDIR}; mkdir -p "$O"
D=$($L/run-ib-lab.sh up -t $L/topologies/lab-3sw-4hca.net -p $L/partitions/good.conf)
echo "$D" > "$O/.rundir"
d() { $L/run-ib-lab.sh diag -d "$D" -- "$@" 2>&1; }
cap() { local name=$1; shift; { echo "$*" >"$O/$name.cmd"; d "$@" >"$O/$name.txt"; echo "rc=$?" >>"$O/$name.cmd"; }; }
set_all() { local pfx=$1
cap $pfx-ibnetdiscover ibnetdiscover
cap $pfx-ibnetdiscover-p ibnetdiscover -p
cap $pfx-ibnetdiscover-g ibnetdiscover -g
cap $pfx-ibnetdiscover-s ibnetdiscover -s
cap $pfx-iblinkinfo iblinkinfo
cap $pfx-perfquery-h1 perfquery 4 1
cap $pfx-perfquery-x-h1 perfquery -x 4 1
cap $pfx-perfquery-a-leaf02 perfquery -a 8
cap $pfx-perfquery-leaf02-p1 perfquery 8 1
cap $pfx-perfquery-x-leaf02-p1 perfquery -x 8 1
cap $pfx-ibqueryerrors ibqueryerrors
cap $pfx-ibqueryerrors-k ibqueryerrors -k
cap $pfx-ibqueryerrors-details ibqueryerrors --details
cap $pfx-ibqueryerrors-data ibqueryerrors --data
cap $pfx-ibtracert ibtracert 4 7
cap $pfx-ibroute-leaf01 ibroute 3
}
set_all healthy
cap healthy-smpquery-portinfo smpquery portinfo 4 1
cap healthy-smpquery-portinfo-sw smpquery portinfo 3 1
cap healthy-smpquery-nodeinfo smpquery nodeinfo 4
cap healthy-smpquery-nodeinfo-sw smpquery nodeinfo 3
cap healthy-smpquery-nodedesc smpquery nodedesc 4
cap healthy-smpquery-nodedesc-sw smpquery nodedesc 3
cap healthy-sminfo sminfo
cap healthy-ibtracert-sw ibtracert 4 3
cap healthy-ibtracert-guid ibtracert -G 0x0002c90300001001 0x0002c90300004001
cap healthy-ibroute-spine ibroute 2
# faults
$L/inject-width.sh "$D" spine-01 1 1x > "$O/.inject-width.log" 2>&1
$L/inject-counters.sh "$D" leaf-02 1 PortCounters.SymbolErrorCounter=57 PortCounters.LinkDownedCounter=3 PortCounters.PortRcvErrors=65535 PortCounters.LinkErrorRecoveryCounter=255 PortCounters.PortXmitDiscards=12 PortCounters.PortXmitWait=4294967295 PortCounters.ExcessiveBufferOverrunErrors=2 PortCounters.VL15Dropped=9 > "$O/.inject-counters.log" 2>&1
$L/inject-link.sh "$D" down lab-h3 1 > "$O/.inject-link.log" 2>&1
set_all faulty
cap faulty-smpquery-portinfo-sw smpquery portinfo 2 1
$L/run-ib-lab.sh down -d "$D"
