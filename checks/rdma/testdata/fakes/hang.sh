#!/bin/sh
# A perftest that never finishes, like ib_write_bw on a black-holed rxe path
# (retry count 7 = retry forever). It leaves a child in its process group,
# which the kill must reach too.
echo "---------------------------------------------------------------------------------------"
echo "                    RDMA_Write BW Test"
sleep 300 &
[ -n "$FAKE_CHILD_PIDFILE" ] && echo $! > "$FAKE_CHILD_PIDFILE"
wait
