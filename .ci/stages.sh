# Sourced by .ci/run and .ci/sanitize: `stage NAME COMMAND...` runs COMMAND and prints
#   ci: stage NAME <wall>s wall, <cpu>s CPU
# (CPU = user + system time of the processes it waited for: compilers, tests), so a CI log shows
# where the time goes and what each stage would take on an otherwise idle 2-core machine
# (docs/testing.md). A failing command stops the script (set -e), after printing its stage.

# User + system clock ticks of this shell's waited-for children so far (/proc/PID/stat fields 16
# and 17, cutime and cstime; read without a subshell, whose own counters would start at zero).
_ci_clk_tck=$(getconf CLK_TCK)
_ci_children_ticks() {
  local -a f
  read -r -a f < /proc/$$/stat
  _ci_ticks=$((f[15] + f[16]))
}

stage() {
  local name=$1 t0=$SECONDS c0 rc=0
  shift
  _ci_children_ticks
  c0=$_ci_ticks
  "$@" || rc=$?
  _ci_children_ticks
  echo "ci: stage $name $((SECONDS - t0))s wall, $(((_ci_ticks - c0 + _ci_clk_tck / 2) / _ci_clk_tck))s CPU"
  return "$rc"
}
