# Soft-RoCE lab targets; the top-level Makefile includes this file (-include lab/lab.mk).
#   make lab-deps    install qemu and the other host packages (idempotent, quick when present)
#   make lab-image   fetch the pinned Debian packages and build the VM image (cached by input hash)
#   make lab-test    the end-to-end tests: boot the lab fabric, run smoke, perftest, lossy (./lab/),
#                    then plan/apply/drift of the lab fabric against VMs and switch simulators
#                    (./lab/e2e/), then check's runner against the lab (./lab/labcheck/);
#                    -p 1: one lab at a time. Prints each phase's time ("lab: phase ...").
#                    A failed top-level lab test is rerun once (lab/scripts/rerun-failed.sh)
LAB_GO ?= go
LAB_TEST_TIMEOUT ?= 40m

.PHONY: lab-deps lab-image lab-test

lab-deps:
	sh lab/scripts/install-deps.sh

lab-image: lab-deps
	$(LAB_GO) run ./cmd/fabricctl lab build

# Each go test runs through lab/scripts/rerun-failed.sh: a top-level lab test that fails is run
# once more and must pass then (emulated rxe under TCG on 2 cores loses the odd run; the first
# failure stays in the log under a "FLAKE?" banner). Timeouts and build errors are not rerun.
lab-test: lab-deps
	LAB_REQUIRED=1 GO=$(LAB_GO) bash lab/scripts/rerun-failed.sh '^TestLab' -tags lab -p 1 -count=1 -v -timeout $(LAB_TEST_TIMEOUT) -- ./lab/ ./lab/e2e/
	LAB_REQUIRED=1 GO=$(LAB_GO) bash lab/scripts/rerun-failed.sh '^TestLab(Checks|NCCL)' -tags lab -count=1 -v -timeout 25m -- ./lab/labcheck/
