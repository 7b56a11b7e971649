# fabricctl — see README.md. `make demo` and `make test` do all the set-up.
GO      ?= go
BIN     := bin/fabricctl
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS := -X main.version=$(VERSION) -X main.revision=$(REVISION)
FABRIC  ?= profiles/lab/fabric.yaml
# Packages whose tests run in `make test` (all of them).
PKGS    ?= ./...

# make install puts the static binary in $(BINDIR): $(PREFIX)/bin when PREFIX
# is given, else $(GOBIN) when Go has one, else /usr/local/bin. DESTDIR stages it.
PREFIX  ?= /usr/local
GOBIN   ?= $(shell $(GO) env GOBIN 2>/dev/null)
ifeq ($(origin PREFIX),file)
BINDIR  ?= $(if $(GOBIN),$(GOBIN),$(PREFIX)/bin)
else
BINDIR  ?= $(PREFIX)/bin
endif

.PHONY: all build install deps test unit lint bench demo fuzz fuzz-long vendorcheck clean

all: build

deps:
	@scripts/install-deps.sh

# A static binary: the controller uploads this same file to hosts as the agent.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/fabricctl

install: build
	install -D -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/fabricctl

# Every package, with Chromium required for the HTML report test (deps installs it).
unit: deps
	$(GO) vet $(PKGS)
	FABRICCTL_REQUIRE_CHROMIUM=1 $(GO) test -count=1 -timeout 30m $(PKGS)

# Every test: unit, corpus, namespace and (when qemu is installable) the lab.
test: unit lab-test

# The vendors' validators alone (part of `make test` too): SONiC and Junos
# YANG, Arista AVD, NVUE's OpenAPI facts (docs/switches.md).
vendorcheck: deps
	$(GO) test -count=1 -v -run 'SONiC|Junos|EOS|AVD|NVUE|Cases' ./switchcfg/vendorcheck/

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 3x ./fabric/... ./internal/output ./action/render
	bench/validate.sh
	bench/hostile.sh
	bench/surfaces.sh

# Short fuzzing of every fuzz target of the repository (scripts/fuzz.sh finds
# them), FUZZTIME each with a short minimisation; one line per target.
FUZZTIME ?= 20s
fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# Every fuzz target for 60 s, two at a time (issue 28's bar): no failure.
FUZZJOBS ?= 2
fuzz-long:
	FUZZTIME=60s FUZZJOBS=$(FUZZJOBS) scripts/fuzz.sh

demo: build
	@scripts/demo.sh $(FABRIC)

clean:
	rm -rf bin

-include lab/lab.mk

ifeq ($(wildcard lab/lab.mk),)
lab-test:
	@echo "lab-test: lab/lab.mk absent; NO LAB TESTS RUN"
endif
