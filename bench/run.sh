#!/bin/sh
# Run the four simulation-speed cases of nicsim_bench (netpipe, stream, flood, forward), each in its own
# process (SystemC elaborates once per process), and print a table.
# Usage: bench/run.sh [BUILD_DIR] [STREAM_SECONDS] [FLOOD_SECONDS] [FORWARD_PACKETS]
set -eu
build=${1:-build}
secs=${2:-10}
flood=${3:-0.1}
fwd=${4:-300000}
bin="$build/bench/nicsim_bench"
[ -x "$bin" ] || { echo "bench/run.sh: $bin not built (ninja -C $build nicsim_bench)" >&2; exit 2; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$bin" netpipe >>"$tmp"
"$bin" stream --seconds "$secs" >>"$tmp"
"$bin" flood --seconds "$flood" >>"$tmp"
"$bin" forward --packets "$fwd" >>"$tmp"
printf '%-8s %9s %9s %9s %9s %9s %9s %12s %12s %12s\n' case sim_s wall_s cpu_s sim/wall sim/cpu frames deltas/frame wall_us/frame cpu_us/frame
while read -r line; do
  get() { printf '%s\n' "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
  printf '%-8s %9s %9s %9s %9s %9s %9s %12s %12s %12s   %s\n' "$(get case)" "$(get sim_s)" "$(get wall_s)" \
    "$(get cpu_s)" "$(get sim_per_wall)" "$(get sim_per_cpu)" "$(get frames)" "$(get deltas_per_frame)" "$(get wall_us_per_frame)" "$(get cpu_us_per_frame)" \
    "$(printf '%s\n' "$line" | tr ' ' '\n' | grep -E '^(throughput_mbps|latency_us|forwarded_kpps)=' || true)"
done <"$tmp"
