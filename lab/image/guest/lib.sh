# helpers for the lab's guest scripts (bash)
RES=/mnt/host/out
[ -d "$RES" ] || RES=/tmp
now_ms() { awk '{printf "%d\n", $1*1000}' /proc/uptime; }
# jstr STRING -> JSON string literal
jstr() { local s=$1; s=${s//\\/\\\\}; s=${s//\"/\\\"}; s=${s//$'\n'/\\n}; s=${s//$'\r'/}; s=${s//$'\t'/ }; printf '"%s"' "$s"; }
# ipv4 of an interface (first, without prefix)
ifaddr() { ip -4 -o addr show dev "$1" | awk '{split($4,a,"/"); print a[1]; exit}'; }
# gid_index DEV IPv4 -> index of the RoCE v2 GID carrying that IPv4 address
gid_index() {
  local want g i
  want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
  for g in /sys/class/infiniband/$1/ports/1/gids/*; do
    i=${g##*/}
    [ "$(cat "$g")" = "$want" ] && [ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] && { echo "$i"; return 0; }
  done
  return 1
}
# counters DEV -> "name value" lines of ports/1/hw_counters
counters() { local f; for f in /sys/class/infiniband/$1/ports/1/hw_counters/*; do [ -f "$f" ] && echo "${f##*/} $(cat "$f")"; done; }
# cdelta_json BEFORE AFTER -> {"name":delta,...} for every counter
cdelta_json() { awk 'NR==FNR {b[$1]=$2; next} {printf "%s\"%s\":%d", (n++ ? "," : ""), $1, $2-b[$1]} END {}' "$1" "$2" | { printf '{'; cat; printf '}'; }; }
