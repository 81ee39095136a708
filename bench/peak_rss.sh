#!/bin/sh
# Peak resident memory of every shipped scenario as the fidelity guard runs it (scenarios/**/*.toml
# without *.ref.toml and *.full.toml, `nicsim run --format json`) and of a NetPIPE run to its
# default upper of 8 MB (scenarios/default.toml with workload.upper=8388608), one process each,
# measured by GNU time's %M (maximum resident set size). Prints one table row per run, largest
# last; exits 1 when any run peaks above LIMIT_MB or fails. Takes about 20 CPU minutes.
# Usage: bench/peak_rss.sh [BUILD_DIR] [LIMIT_MB]
set -eu
build=${1:-build}
limit=${2:-200}
bin="$build/nicsim"
[ -x "$bin" ] || { echo "bench/peak_rss.sh: $bin not built (ninja -C $build nicsim)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/peak_rss.sh: needs GNU time (/usr/bin/time, Debian package time)" >&2; exit 2; }
cd "$(dirname "$0")/.."
case "$bin" in /*) ;; *) bin="$(pwd)/$bin" ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows="$tmp/rows"
: >"$rows"
measure() {  # NAME ARGS...: one run, its peak RSS and wall time appended to the rows
  name=$1
  shift
  if /usr/bin/time -f '%M %e' -o "$tmp/time" "$bin" run "$@" --format json --quiet >/dev/null 2>"$tmp/err"; then
    status=ok
  else
    status=FAILED
  fi
  set -- $(tail -n 1 "$tmp/time")
  echo "$1 $2 $status $name" >>"$rows"
  printf '%-60s %9.1f MB %8.1f s %s\n' "$name" "$(echo "$1" | awk '{print $1 / 1024}')" "$2" "$status" >&2
}
for s in $(find scenarios -name '*.toml' ! -name '*.ref.toml' ! -name '*.full.toml' | sort); do
  measure "$s" "$s"
done
measure "scenarios/default.toml upper=8388608 (NetPIPE to 8 MB)" scenarios/default.toml --set workload.upper=8388608
sort -n "$rows" | awk -v limit="$limit" '
  BEGIN { printf "%-60s %12s %10s\n", "run", "peak RSS MB", "wall s"; bad = 0 }
  { name = $4; for (i = 5; i <= NF; ++i) name = name " " $i
    printf "%-60s %12.1f %10.1f%s\n", name, $1 / 1024, $2, $3 == "ok" ? "" : "  (run failed)"
    if ($1 / 1024 > limit || $3 != "ok") bad = 1 }
  END { if (bad) { printf "FAIL: a run failed or peaked above %d MB\n", limit; exit 1 }
        printf "ok: every run under %d MB\n", limit }'
