// Package e2e holds the soft-RoCE lab's end-to-end tests of the whole product: `make lab-test`
// runs them (go test -tags lab ./lab/e2e/). They boot the lab fabric (profiles/lab/fabric.yaml)
// with `fabricctl lab up -f`, which also starts its two switches as simulators, and then drive
// the static fabricctl binary from inside the lab namespace exactly as a user would:
// plan → apply → drift, the agent's view of the hosts, the ToS on the wire during a perftest,
// and drift after a hand change. The subnet manager sm-01 has no stand-in in the lab, so every
// command leaves it out with --target.
//
// The tests need root, qemu-system-x86_64 and the lab image's tools; without them they skip
// loudly, or fail when LAB_REQUIRED=1. Only one lab may run on a machine at a time (it uses the
// default state directory and namespace named in the fabric file). Nothing here is meant for
// concurrent use.
package e2e
