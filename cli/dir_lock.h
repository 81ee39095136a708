// A lock on a run directory, so two processes never run the same points in it at once: a
// `nicsim sweep` directory (DIR/sweep.lock) or a calibration's run directory (DIR/calibrate.lock).
// flock(2): the kernel drops it when its holder dies, SIGKILL included, so a killed sweep or
// calibration never leaves a stale lock behind.
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

class DirLock {
 public:
  /// Takes the locks without waiting. `shard` = {I, N} for `--shard I/N`. `verb` names the command
  /// that owns the directory and its lock file (DIR/<verb>.lock): "sweep", or "calibrate" for a
  /// calibration's run directory (never sharded). Throws DirLockBusy when held by another process,
  /// std::runtime_error when a lock file cannot be opened.
  DirLock(const std::filesystem::path& dir, std::optional<std::pair<unsigned, unsigned>> shard,
          const std::string& verb = "sweep");
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int dir_fd_ = -1, shard_fd_ = -1;
};

}  // namespace nicsim
