#!/bin/sh
# Run every scenario under scenarios/ (except *.ref.toml) with BINARY and store each result.json
# under OUTDIR/<path without .toml>/result.json, for scripts/compare_results.py.
#   scripts/run_all_scenarios.sh build/nicsim /tmp/after
set -eu
bin=$1; out=$2
cd "$(dirname "$0")/.."
find scenarios -name '*.toml' ! -name '*.ref.toml' | sort | while read -r s; do
  d="$out/${s%.toml}"
  mkdir -p "$d"
  "$bin" run "$s" --out "$d" >/dev/null 2>"$d/stderr" || echo "run failed: $s (exit $?)" >&2
done
