#!/bin/sh
# Regenerate the fidelity guard's baselines (tests/fidelity/baseline/<scenario>.json) from a build.
# Usage: tests/fidelity/update-baseline.sh [BUILD_DIR] [SCENARIO.toml ...]   (default: build, every
# scenario under scenarios/ except *.ref.toml and *.full.toml). Run from the repository root.
#
# A baseline records what the model computes before a change that must not change results (made
# from main at 548b53c before the speed work, with that commit's build). Regenerate only
# when a result is MEANT to change, say which values changed and why in the commit message, and
# never to make a speed change pass.
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
bin="$build/nicsim"
tool="$build/tests/nicsim_fidelity"
[ -x "$bin" ] && [ -x "$tool" ] || { echo "update-baseline.sh: build $bin and $tool first" >&2; exit 2; }
if [ $# -eq 0 ]; then
  set -- $(find scenarios -name '*.toml' ! -name '*.ref.toml' ! -name '*.full.toml' | sort)
fi
src="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- . ':!tests' ':!bench' 2>/dev/null || echo '+local changes')"
for s in "$@"; do
  stem=${s#scenarios/}
  stem=${stem%.toml}
  "$tool" --write --nicsim "$bin" --scenario "$s" --baseline "tests/fidelity/baseline/$stem.json" --source "commit $src"
done
