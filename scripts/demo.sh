#!/usr/bin/env bash
# The README's first command: build, validate and render the lab fabric, and —
# where the lab can run — boot it and prove it with the smoke scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
fabric=${1:-profiles/lab/fabric.yaml}
bin=bin/fabricctl
step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
step "fabricctl validate -f $fabric"
$bin validate -f "$fabric"
step "fabricctl render -f $fabric --out out/render"
rm -rf out/render
$bin render -f "$fabric" --out out/render
for t in out/render/hosts/lab-h1.json out/render/switches/leaf-01.*; do
  step "$t"; head -n 40 "$t"
done
if $bin lab --help >/dev/null 2>&1 && [ -z "${DEMO_NO_LAB:-}" ]; then
  step "fabricctl lab up -f $fabric   (soft-RoCE VMs; first run fetches Debian packages)"
  make -s lab-deps
  $bin lab up -f "$fabric"
  trap '$bin lab down >/dev/null 2>&1 || true' EXIT
  step "fabricctl lab run smoke"
  $bin lab run smoke
  step "fabricctl lab status"
  $bin lab status
fi
