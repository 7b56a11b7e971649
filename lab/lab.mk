# Soft-RoCE lab targets; the top-level Makefile includes this file (-include lab/lab.mk).
#   make lab-deps    install qemu and the other host packages (idempotent, quick when present)
#   make lab-image   fetch the pinned Debian packages and build the VM image (cached by input hash)
#   make lab-test    the end-to-end tests: boot the lab fabric, run smoke, perftest, lossy (./lab/),
#                    then plan/apply/drift of the lab fabric against VMs and switch simulators
#                    (./lab/e2e/); -p 1: one lab at a time. Prints each phase's time ("lab: phase ...")
LAB_GO ?= go
LAB_TEST_TIMEOUT ?= 40m

.PHONY: lab-deps lab-image lab-test

lab-deps:
	sh lab/scripts/install-deps.sh

lab-image: lab-deps
	$(LAB_GO) run ./cmd/fabricctl lab build

lab-test: lab-deps
	LAB_REQUIRED=1 $(LAB_GO) test -tags lab -p 1 -count=1 -v -timeout $(LAB_TEST_TIMEOUT) -run '^TestLab' ./lab/ ./lab/e2e/
	LAB_REQUIRED=1 $(LAB_GO) test -tags lab -count=1 -v -timeout 25m -run '^TestLab(Checks|NCCL)' ./checks/runner/
