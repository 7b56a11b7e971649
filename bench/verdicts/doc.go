// Command verdicts reads the JSON reports of `fabricctl check` for
// bench/verdicts.sh:
//
//	verdicts judge REPORT.json        prints "blamed=H,… bad=TARGET,…" and writes REPORT.txt (the table)
//	verdicts envelope DIR...          the lab's envelope measured over every report in DIR
//
// judge names the hosts the re-tests blamed (pairwise/host) and the
// loopback and pairwise tests that failed or errored. envelope reads the
// reports healthy-N.json and faulty-N.json that bench/verdicts.sh writes
// (the faulty host and loss in faulty-N.meta) and prints the numbers
// docs/lab.md records: healthy bandwidths and their ratio to each run's
// best, the largest counter movements of healthy tests, and the smallest
// sequence-counter movements on the faulty host's pairs.
package main
