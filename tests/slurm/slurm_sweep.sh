#!/usr/bin/env bash
# `nicsim sweep --slurm` on a real Slurm: starts Debian's munged, slurmctld and slurmd on this
# machine with a generated configuration in a temporary directory (no systemd, nothing written
# outside it), submits a 4-point sweep as a 4-task array, kills one task while it runs, checks
# that the merge reports the point missing, resubmits with the same command (only the killed
# shard runs again) and checks that the merged sweep.csv equals a local sweep's.
#
#   tests/slurm/slurm_sweep.sh NICSIM_BINARY
#
# Exit 77 (ctest: skipped) only when the Slurm or MUNGE programs are not installed
# (./setup.sh --deps-only installs slurm-wlm and munge).
set -euo pipefail
nicsim=$(readlink -f "$1")
cd "$(dirname "$0")/../.."

missing=()
for p in munged mungekey slurmctld slurmd sbatch squeue scancel sinfo; do
  command -v "$p" >/dev/null || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "SKIP: Slurm/MUNGE programs missing: ${missing[*]} (Debian packages slurm-wlm and munge: ./setup.sh --deps-only)"
  exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nicsim-slurm-XXXXXX")
chmod 755 "$tmp"  # munged wants its socket directory searchable
pids=()
cleanup() {
  local rc=$?
  for f in "$tmp"/slurmd.pid "$tmp"/slurmctld.pid "$tmp"/munged.pid; do
    [[ -s $f ]] && kill "$(cat "$f")" 2>/dev/null || true
  done
  if ((rc != 0)); then
    echo "--- logs ($tmp) ---"
    tail -n 30 "$tmp"/*.log "$tmp"/sweep/slurm/logs/*.log 2>/dev/null || true
  fi
  sleep 0.5
  rm -rf "$tmp"
  exit $rc
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# ---- MUNGE with its own key and socket, Slurm with its own ports and state ----
mkdir -p "$tmp/state" "$tmp/spool"
mungekey --create --keyfile="$tmp/munge.key"
chmod 600 "$tmp/munge.key"
munged --force --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munge.seed"
node=$(hostname -s)
port=$((20000 + $$ % 20000))
user=$(id -un)
cat >"$tmp/slurm.conf" <<CONF
ClusterName=nicsimtest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -i -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N "$node"
for _ in $(seq 100); do
  [[ $(sinfo -h -o %T 2>/dev/null) == idle ]] && break
  sleep 0.2
done
[[ $(sinfo -h -o %T) == idle ]] || fail "the Slurm node did not come up: $(sinfo 2>&1)"

# ---- the sweep: 4 points of a short NetPIPE run (about 1 s of CPU each), 4 array tasks ----
sweep=(sweep scenarios/default.toml --set workload.upper=64 --set workload.trials=2 --set workload.runtm_s=0.02
       --vary 'hosts.*.nics.eth1.RxIntDelay=0,64' --vary seed=1:2:1 --metric latency_us --no-plot)
"$nicsim" "${sweep[@]}" --jobs 2 --out "$tmp/local" 2>"$tmp/local.log" || fail "local sweep failed"

"$nicsim" "${sweep[@]}" --out "$tmp/sweep" --slurm 4 2>"$tmp/submit1.log" || fail "submission failed: $(cat "$tmp/submit1.log")"
cat "$tmp/submit1.log"
array=$(sed -n 's/^sweep: submitted array job \([0-9]*\) .*/\1/p' "$tmp/submit1.log")
merge=$(sed -n 's/^sweep: merge job \([0-9]*\) .*/\1/p' "$tmp/submit1.log")
[[ -n $array && -n $merge ]] || fail "no job ids in the submission's output"
grep -q -- "--array=0-3" "$tmp/sweep/slurm/sweep.sbatch" || fail "the array script is not a 4-task array"

# Kill task 1 while it runs (scancel sends SIGKILL to every process of the step).
for _ in $(seq 150); do
  [[ $(squeue -h -j "${array}_1" -o %T 2>/dev/null) == RUNNING ]] && break
  sleep 0.1
done
[[ $(squeue -h -j "${array}_1" -o %T) == RUNNING ]] || fail "task ${array}_1 never ran"
scancel --signal=KILL --full "${array}_1"
echo "killed task ${array}_1"

# The merge runs after every task ended; the killed shard's point is missing.
for _ in $(seq 600); do
  [[ -z $(squeue -h -j "$array,$merge" 2>/dev/null) ]] && break
  sleep 0.1
done
[[ -z $(squeue -h -j "$array,$merge") ]] || fail "the jobs did not end"
log="$tmp/sweep/slurm/logs/merge-job$merge.log"
[[ -f $log ]] || fail "no merge log $log"
# Slurm ends a cancelled step with SIGTERM to its processes before SIGKILL, so the shard either
# dies first (its point is missing) or sees its child killed by the signal first and records the
# point as failed (exit 143, result set aside). Either way the point has no result.json and the
# resubmission below must redo exactly it.
grep -Eq "3 ok, (0 failed, 1 missing|1 failed, 0 missing)" "$log" ||
  fail "the merge after the kill should lack exactly one point: $(cat "$log")"

# Same command again, waiting: only shard 1 is resubmitted, then the merge is complete.
"$nicsim" "${sweep[@]}" --out "$tmp/sweep" --slurm 4 --wait 2>"$tmp/submit2.log" || fail "resubmission failed: $(cat "$tmp/submit2.log")"
cat "$tmp/submit2.log"
grep -q -- "(1 of 4 shards: --array=1)" "$tmp/submit2.log" || fail "the rerun should resubmit only shard 1"
grep -q "4 ok, 0 failed, 0 missing" "$tmp/submit2.log" || fail "the final merge is incomplete"
cmp "$tmp/local/sweep.csv" "$tmp/sweep/sweep.csv" || fail "merged sweep.csv differs from the local sweep's"
echo "PASS: Slurm sweep (one task killed and resubmitted) equals the local sweep"
