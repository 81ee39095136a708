#!/bin/sh
# Parallel sweeps: the same 100-point sweep with --jobs 1 and --jobs 2, wall time of
# each and their ratio (target <= 0.53 on 2 cores), and a check that both wrote the same sweep.csv.
# Each point is the seed-000 82546EB NetPIPE scenario (scenarios/default.toml) shortened to 3
# trials of RUNTM = 0.1 s per size (~1.3 CPU s), RxIntDelay = 0..99. Needs an idle machine: the
# ratio is of wall times. Takes ~4 wall minutes.
# Usage: bench/sweep.sh [BUILD_DIR] [POINTS]
set -eu
build=${1:-build}
points=${2:-100}
bin="$build/nicsim"
[ -x "$bin" ] || { echo "bench/sweep.sh: $bin not built (ninja -C $build nicsim)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wall() {  # wall seconds of a sweep with --jobs $1 into $tmp/j$1
  s=$(date +%s.%N)
  "$bin" sweep scenarios/default.toml --vary "hosts.*.nics.eth1.RxIntDelay=0:$((points - 1)):1" \
    --metric latency_us --set workload.trials=3 --set workload.runtm_s=0.1 --no-plot \
    --jobs "$1" --out "$tmp/j$1" >"$tmp/j$1.log" 2>&1 || { cat "$tmp/j$1.log" >&2; exit 1; }
  e=$(date +%s.%N)
  echo "$s $e" | awk '{ printf "%.2f", $2 - $1 }'
}
w1=$(wall 1)
w2=$(wall 2)
same=yes
cmp -s "$tmp/j1/sweep.csv" "$tmp/j2/sweep.csv" || same=NO
awk -v a="$w1" -v b="$w2" -v n="$points" -v same="$same" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
  printf "%d-point sweep: --jobs 1 %.1f s, --jobs 2 %.1f s, ratio %.3f (target <= 0.53); same sweep.csv: %s; load %s\n", n, a, b, b / a, same, load
  if (same != "yes") exit 1
}'
