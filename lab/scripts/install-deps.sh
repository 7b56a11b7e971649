#!/bin/sh
# Install the host packages the soft-RoCE lab needs (Debian 12 / Ubuntu). Idempotent: when everything
# is already installed it only runs dpkg-query and exits in well under a second.
#   qemu-system-x86  boots the lab VMs (TCG; /dev/kvm is used when present)
#   iproute2         ip netns / bridge / tuntap for the lab network namespace
#   dpkg, apt        the image builder fetches and unpacks Debian packages (dpkg-deb, apt-get download)
#   xz-utils         uncompresses the kernel once at build time (PVH boot skips the in-guest decompressor)
#   ca-certificates  so apt can use https mirrors where configured
#   lldpd            the two-leaf lab's leaf "switches" advertise their name and port names over LLDP
#   nftables         loss on a leaf port or tap where the machine's kernel has no netem (nft bridge rules)
set -eu
PKGS="qemu-system-x86 iproute2 dpkg apt xz-utils ca-certificates lldpd nftables"
missing=""
for p in $PKGS; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case $st in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
done
# the image builder runs apt-get download: it needs package lists even when nothing is missing
lists_empty() { ! ls /var/lib/apt/lists/ 2>/dev/null | grep -q '_Packages'; }
if [ -z "$missing" ]; then
  if lists_empty; then
    [ "$(id -u)" = 0 ] || { echo "install-deps: apt package lists are empty; run apt-get update as root" >&2; exit 1; }
    echo "install-deps: apt package lists are empty; running apt-get update"
    apt-get update -qq || { sleep 2; apt-get update -qq; }
  fi
  echo "install-deps: all present ($PKGS)"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: need root to install:$missing" >&2
  exit 1
fi
command -v apt-get >/dev/null 2>&1 || { echo "install-deps: apt-get not found; install$missing by hand" >&2; exit 1; }
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# an update is needed on a fresh machine (empty lists); retry once on a flaky mirror
apt-get update -qq || { sleep 2; apt-get update -qq; }
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
