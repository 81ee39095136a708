#!/usr/bin/env bash
# Fresh Debian 12 machine -> built nicsim -> the default scenario's output.
#
#   ./setup.sh              install missing packages, build build/nicsim, run scenarios/default.toml
#   ./setup.sh --no-run     install missing packages and build, do not run
#   ./setup.sh --deps-only  only install missing packages (what .ci/run uses)
#
# Packages are installed with apt-get only when `dpkg-query` says they are not installed
# (`apt-get update` first in that case). Installing needs root.
set -euo pipefail
cd "$(dirname "$0")"

mode=all
case "${1:-}" in
  "") ;;
  --no-run) mode=build ;;
  --deps-only) mode=deps ;;
  -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
  *) echo "setup.sh: unknown option '$1' (use --no-run or --deps-only)" >&2; exit 2 ;;
esac

# Debian 12 packages nicsim needs (docs/developers.md "Dependencies"). clang (14), its sanitizer and libFuzzer
# runtimes (libclang-rt-14-dev) and llvm (llvm-symbolizer, for readable sanitizer reports) are for
# .ci/run's sanitizer build and the fuzz targets only; tshark (reads --pcap captures back) and
# chromium (renders `nicsim report`'s page headless) are for tests only.
packages=(cmake ninja-build g++ pkg-config libsystemc-dev libboost-program-options-dev catch2
          libfmt-dev libtomlplusplus-dev nlohmann-json3-dev zlib1g-dev libpcap-dev libnlopt-cxx-dev gnuplot-nox
          slurm-wlm munge clang libclang-rt-14-dev llvm tshark chromium)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then missing+=("$p"); fi
done
if ((${#missing[@]})); then
  echo "setup.sh: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup.sh: installing packages needs root (run as root, or install them: apt-get install ${missing[*]})" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi
[[ $mode == deps ]] && exit 0

# Unity batches as in the README's build command, so that command reuses this configuration.
cmake -S . -B build -G Ninja -DCMAKE_UNITY_BUILD=ON
cmake --build build --target nicsim
[[ $mode == build ]] && exit 0

scenario=scenarios/default.toml
if [[ ! -e $scenario ]]; then
  echo "setup.sh: nicsim is built (build/nicsim), but the default scenario $scenario is missing" >&2
  exit 1
fi
exec build/nicsim run "$scenario"
