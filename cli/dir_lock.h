// A lock on a sweep directory, so two `nicsim sweep` processes never run the same points in the
// same directories at once (and on a calibration's run directory, for `nicsim calibrate`). flock(2) on DIR/sweep.lock: the kernel drops it when its holder dies,
// SIGKILL included, so a killed sweep never leaves a stale lock behind.
//
// An unsharded sweep runs every point: it holds sweep.lock exclusively. Shards of one sweep may
// share a DIR (docs/sweep-and-check.md): each holds sweep.lock shared and
// DIR/shard-<I>-of-<N>.lock exclusively, so shards run side by side, but not the same shard twice
// and not alongside an unsharded sweep.
#pragma once
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace nicsim {

/// Another process holds the lock (the message names the directory and that process' pid).
struct DirLockBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class SweepDirLock {
 public:
  /// Takes the locks without waiting. `shard` = {I, N} for `--shard I/N`. `verb` names the command
  /// that owns the directory and its lock file (DIR/<verb>.lock): "sweep", or "calibrate" for a
  /// calibration's run directory (never sharded). Throws DirLockBusy when held by another process,
  /// std::runtime_error when a lock file cannot be opened.
  SweepDirLock(const std::filesystem::path& dir, std::optional<std::pair<unsigned, unsigned>> shard,
               const std::string& verb = "sweep");
  ~SweepDirLock();
  SweepDirLock(const SweepDirLock&) = delete;
  SweepDirLock& operator=(const SweepDirLock&) = delete;

 private:
  int dir_fd_ = -1, shard_fd_ = -1;
};

}  // namespace nicsim
