#!/usr/bin/env bash
# Installs everything `make test` and `make demo` need on a fresh Debian 12
# machine: Debian packages (iproute2 for namespace tests, OpenSSH for real SSH
# targets, time for benchmarks, ibsim-utils + opensm + infiniband-diags for the
# InfiniBand lab: a simulated fabric with a real OpenSM, lab/iblab; yanglint
# (libyang2-tools) and Debian's python3 with jinja2 and yaml for the vendors'
# validators, switchcfg/vendorcheck) and the Go modules. Idempotent and quick when
# everything is already there. The lab's own packages (qemu) come from
# lab/scripts/install-deps.sh, which `make lab-deps` runs.
set -euo pipefail
need=()
for pair in ip:iproute2 sshd:openssh-server ssh:openssh-client ssh-keygen:openssh-client /usr/bin/time:time ethtool:ethtool ibsim:ibsim-utils opensm:opensm smpquery:infiniband-diags yanglint:libyang2-tools /usr/lib/python3/dist-packages/jinja2/__init__.py:python3-jinja2 /usr/lib/python3/dist-packages/yaml/__init__.py:python3-yaml; do
  cmd=${pair%%:*}; pkg=${pair#*:}
  if ! command -v "$cmd" >/dev/null 2>&1 && [ ! -e "$cmd" ] && [ ! -x "/usr/sbin/$cmd" ]; then need+=("$pkg"); fi
done
if ((${#need[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages ${need[*]}; run as root or install them" >&2
    exit 1
  fi
  echo "install-deps: apt-get install ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
cd "$(dirname "$0")/.."
# Headless Chromium checks the HTML check report (checks/report).
if [ "$(id -u)" -eq 0 ]; then scripts/install-chromium.sh; fi
go mod download
