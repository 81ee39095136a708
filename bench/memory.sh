#!/bin/sh
# Flat memory: the peak resident set of a 60 s simulated TCP stream must be within 10% of a 10 s
# one (nothing grows with simulated time). Each run is its own process; takes a few CPU minutes.
# Usage: bench/memory.sh [BUILD_DIR] [SHORT_S] [LONG_S]
set -eu
build=${1:-build}
short=${2:-10}
long=${3:-60}
bin="$build/bench/nicsim_bench"
[ -x "$bin" ] || { echo "bench/memory.sh: $bin not built (ninja -C $build nicsim_bench)" >&2; exit 2; }
rss() { "$bin" stream --seconds "$1" | tr ' ' '\n' | sed -n 's/^peak_rss_kb=//p'; }
a=$(rss "$short")
b=$(rss "$long")
awk -v a="$a" -v b="$b" -v s="$short" -v l="$long" 'BEGIN {
  d = (b - a) / a * 100
  printf "peak RSS: %s s stream %.1f MB, %s s stream %.1f MB (%+.1f%%)\n", s, a / 1024, l, b / 1024, d
  if (d > 10 || d < -10) { print "FAIL: more than 10% apart"; exit 1 }
  print "ok: within 10%"
}'
