#!/bin/sh
# Cost of a testbed as it grows: a short NetPIPE run between two hosts plus N hosts with no NIC,
# for each N given (default 200 and 2000), each in its own process. Linear growth means the
# wall time and peak RSS per host stay about the same.
# Usage: bench/hosts.sh [BUILD_DIR] [N...]
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 200 2000
bin="$build/bench/nicsim_bench"
[ -x "$bin" ] || { echo "bench/hosts.sh: $bin not built (ninja -C $build nicsim_bench)" >&2; exit 2; }
printf '%8s %9s %12s %12s %14s\n' hosts wall_s peak_rss_MB wall_ms/host rss_KB/host
for n in "$@"; do
  line=$("$bin" hosts --hosts "$n")
  get() { printf '%s\n' "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
  awk -v n="$n" -v w="$(get wall_s)" -v r="$(get peak_rss_kb)" \
    'BEGIN { printf "%8d %9.2f %12.1f %12.2f %14.1f\n", n, w, r / 1024, w * 1000 / n, r / n }'
done
