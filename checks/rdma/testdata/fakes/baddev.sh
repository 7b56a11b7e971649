#!/bin/sh
# A server asked for a device the host does not have exits before it listens.
echo "IB device rxe9 not found" >&2
echo " Unable to find the Infiniband/RoCE device" >&2
exit 1
