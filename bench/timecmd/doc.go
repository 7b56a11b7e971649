// Command timecmd runs a command several times and prints its wall-clock
// and CPU time (best and median) and its peak resident memory, from the
// kernel's accounting of each child:
//
//	go run ./bench/timecmd -n 9 -- fabricctl render -f F --out DIR/run-%d
//
// "%d" in an argument becomes the run's number, so each run can write to a
// fresh directory. Dirty pages are flushed before each run (-sync), so that
// no run pays for the writeback of the one before. Output goes to
// /dev/null; a failing run stops it.
package main
