#!/usr/bin/env bash
# Installs Debian's headless-capable `chromium` for the checks/report browser
# test (TestChromium renders the HTML report, screenshots it and dumps its DOM).
# Idempotent: does nothing when a chromium binary is already on PATH.
# Needs root (apt-get); prints what it does on stderr.
set -euo pipefail
for c in chromium chromium-browser; do
  if command -v "$c" >/dev/null 2>&1; then
    exit 0
  fi
done
if [ "$(id -u)" -ne 0 ]; then
  echo "install-chromium: chromium is missing; run as root or: apt-get install chromium" >&2
  exit 1
fi
echo "install-chromium: apt-get install chromium (a few minutes on a fresh machine)" >&2
export DEBIAN_FRONTEND=noninteractive
start=$(date +%s)
# Other installers (install-deps.sh, the lab) may hold the dpkg lock: wait for it.
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
echo "install-chromium: installed $(chromium --version 2>/dev/null || echo chromium) in $(( $(date +%s) - start ))s" >&2
