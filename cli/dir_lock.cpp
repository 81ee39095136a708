#include "cli/dir_lock.h"
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/core.h>
#include <fstream>
#include <sys/file.h>
#include <unistd.h>

namespace nicsim {
namespace fs = std::filesystem;

namespace {

/// The pid the holder wrote into `path`, or "" when unreadable.
std::string holder_of(const fs::path& path) {
  std::ifstream f(path);
  std::string pid;
  f >> pid;
  return pid;
}

/// Open `path` (close-on-exec: `nicsim run` children must not inherit it) and flock it with `op`
/// without blocking. Returns the fd, or -1 when another process holds it.
int lock_file(const fs::path& path, int op) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot open lock file {}: {}", path.string(), std::strerror(errno)));
  int rc;
  while ((rc = ::flock(fd, op | LOCK_NB)) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK) return -1;
    throw std::runtime_error(fmt::format("cannot lock {}: {}", path.string(), std::strerror(e)));
  }
  return fd;
}

/// Record this process as the holder (for the message another sweep prints).
void write_pid(int fd) {
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
}

}  // namespace

DirLock::DirLock(const fs::path& dir, std::optional<std::pair<unsigned, unsigned>> shard,
                 const std::string& verb) {
  fs::create_directories(dir);
  fs::path main = dir / (verb + ".lock");
  dir_fd_ = lock_file(main, shard ? LOCK_SH : LOCK_EX);
  if (dir_fd_ < 0) {
    std::string pid = holder_of(main);
    throw DirLockBusy(fmt::format(
        "another nicsim {}{} is running in {} ({} is locked); wait for it to end or stop it, then rerun "
        "this command to resume",
        verb, pid.empty() ? (shard ? "" : " or shard") : " (pid " + pid + ")", dir.string(), main.string()));
  }
  if (!shard) {
    write_pid(dir_fd_);
    return;
  }
  // Shared holders leave no pid in sweep.lock: an unsharded sweep refused by them must not name
  // the pid of an old exclusive holder.
  if (::ftruncate(dir_fd_, 0) != 0) {
  }
  fs::path mine = dir / fmt::format("shard-{}-of-{}.lock", shard->first, shard->second);
  shard_fd_ = lock_file(mine, LOCK_EX);
  if (shard_fd_ < 0) {
    ::close(dir_fd_);
    dir_fd_ = -1;
    std::string pid = holder_of(mine);
    throw DirLockBusy(fmt::format("shard {}/{} is already running in {}{}; wait for it to end or stop it",
                                  shard->first, shard->second, dir.string(), pid.empty() ? "" : " (pid " + pid + ")"));
  }
  write_pid(shard_fd_);
}

DirLock::~DirLock() {
  if (shard_fd_ >= 0) ::close(shard_fd_);
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

}  // namespace nicsim
