// Package labcheck holds no code: its tests (build tag lab) run `fabricctl
// check`'s runner (action/check) against the soft-RoCE lab — real VMs, real
// rxe devices, real perftest, real SSH and the real agent uploaded to every
// VM-host — and compare its measurements with perftest run by hand:
//
//	go test -tags lab -count=1 -v -timeout 25m ./lab/labcheck/
//
// They live under lab/ because they boot the lab (lab.Up), and the check
// runner, one floor below, must not import it. `make lab-test` runs them.
package labcheck
