// A pipe (Linux 2.4.20 fs/pipe.c, include/linux/pipe_fs_i.h): one page of buffer, one wait queue
// for readers and writers (PIPE_WAIT) and the inode semaphore (PIPE_SEM). Read and written with
// Kernel::sys_read / Kernel::sys_write (pipe.cpp) from process context.
//
// Semantics, as 2.4.20 pipe_read / pipe_write have them (blocking descriptors; O_NONBLOCK and
// signals are not modelled):
//  * read of an empty pipe sleeps until data arrives, or returns 0 (EOF) when no writer is left;
//    it returns what is there (up to the count), never waits for more once it has some, unless a
//    writer waits for room (then it wakes the writers and continues, "do_more_read");
//  * a write of count <= PIPE_BUF is atomic: it waits until count bytes are free, then copies them
//    in one piece; a larger write copies what fits, wakes the readers and sleeps while full;
//  * a write without readers returns -EPIPE (SIGPIPE is not modelled);
//  * every read and write ends with wake_up_interruptible(PIPE_WAIT); pipe_wait drops PIPE_SEM
//    while it sleeps.
// Costs: syscall entry/exit, the pipe_rw entry per call (fget/fput, down/up of i_sem, PIPE_*
// bookkeeping, the wake_up of an empty queue), copy_user_cached per chunk copied, and the kernel's
// wakeup per woken task (Kernel::wake_up).
#pragma once
#include "drivers-sim/kernel/kernel.h"
#include <array>
#include <cstdint>
#include <string>

namespace nicsim {

/// PIPE_BUF (include/linux/limits.h; the name is a libc macro): writes up to 4096 bytes are atomic.
constexpr size_t kPipeBuf = 4096;
/// PIPE_SIZE (include/linux/pipe_fs_i.h) = PAGE_SIZE: the pipe's one-page buffer (i386: 4096 B).
constexpr size_t kPipeSize = 4096;

/// struct pipe_inode_info with the inode fields pipe_read/pipe_write use. Created by pipe(2)
/// with one reader and one writer (both ends open in the creating process; fork shares them).
/// Not copyable (sleepers hold the address of its wait queues).
struct Pipe {
  explicit Pipe(std::string n = "pipe") : name(std::move(n)) {}
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  std::string name;
  std::array<uint8_t, kPipeSize> base{};  ///< PIPE_BASE: the page
  size_t start = 0;                        ///< PIPE_START: offset of the first unread byte
  size_t len = 0;                          ///< PIPE_LEN: unread bytes
  unsigned readers = 1, writers = 1;       ///< PIPE_READERS / PIPE_WRITERS: open ends
  unsigned waiting_readers = 0, waiting_writers = 0;  ///< PIPE_WAITING_READERS / _WRITERS
  WaitQueue wait;                          ///< PIPE_WAIT
  bool sem_held = false;                   ///< PIPE_SEM (i_sem) taken
  WaitQueue sem_wait;                      ///< sleepers in down(PIPE_SEM)

  size_t free_bytes() const { return kPipeSize - len; }  ///< PIPE_FREE
  bool empty() const { return len == 0; }                ///< PIPE_EMPTY
  /// close(2) of the write end: readers of an empty pipe then get EOF. Wake them with
  /// Kernel::wake_up(wait) (pipe_release does).
  void close_write() { if (writers) --writers; }
  /// close(2) of the read end: later writes return -EPIPE.
  void close_read() { if (readers) --readers; }
};

}  // namespace nicsim
