// Command surfaces runs fabricctl on issue 28's hostile inputs for every
// surface that reads user input other than a fabric file — analyze, nccl
// analyze, switch parse, check --from-dir, drift --from-dir, host
// show --desired, agent on stdin — generated afresh in a temporary
// directory: FIFOs, devices, links out of a --from-dir tree, 100 MiB inputs
// of each format, inputs at the budgets, Junos nested 10,000 deep, random
// bytes given as switch configurations, 50,000 NCCL logs, a 1,500-device
// topology. Per run it prints the exit code, the first error line, wall and
// CPU time and peak RSS with its ratio to the target (300 MB), and fails
// when a run misses its expected exit or error, the memory target, or its
// CPU bound.
//
//	go run ./bench/surfaces -bin bin/fabricctl     # or bench/surfaces.sh
package main
