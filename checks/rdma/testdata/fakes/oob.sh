#!/bin/sh
# A client whose server is not there: perftest's out-of-band connect fails.
echo "Couldn't connect to $(eval echo \${$#}):18515" >&2
echo "Unable to open file descriptor for socket connection Unable to init the socket connection" >&2
exit 1
