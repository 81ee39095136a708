// Pipes and the null system call of the kernel model (pipe.h; see kernel.h for the other files).
//
//   Linux (2.4.20)                                  here
//   fs/pipe.c pipe_read(), pipe_write(),            pipe_read, pipe_write, pipe_wait_readable /
//     pipe_wait(), down(PIPE_SEM)                   pipe_wait_writable, pipe_down / pipe_up;
//                                                   Kernel::sys_read, sys_write (on a Pipe)
//   kernel/timer.c sys_getppid()                    Kernel::sys_getppid (here beside the pipe calls:
//                                                   lmbench's lat_syscall and lat_pipe share the
//                                                   system-call entry and exit, in_syscall)
#include "drivers-sim/kernel/pipe.h"
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace nicsim {

namespace {

constexpr long kPipeEpipe = 32;

/// down(PIPE_SEM): sleep while another task holds the inode semaphore.
Task<void> pipe_down(Pipe& p) {
  while (p.sem_held) co_await p.sem_wait.wait();
  p.sem_held = true;
}

/// up(PIPE_SEM): release it and wake a sleeper in down().
Task<void> pipe_up(Kernel& k, Pipe& p) {
  p.sem_held = false;
  if (!p.sem_wait.empty()) co_await k.wake_up(p.sem_wait);
}

/// SMP: pipe_wait's add_wait_queue and remove_wait_queue (wq_write_lock_irqsave: a spin_lock) and
/// the up + down of PIPE_SEM around its schedule() (LOCK incl / decl); pipe_rw counts the call's
/// first down and last up.
constexpr unsigned kPipeWaitLockedOps = 4;

/// pipe_wait for a reader: sleep on PIPE_WAIT with PIPE_SEM dropped, until data or no writers.
/// The condition is tested after up() and right before sleeping (no simulated time passes between
/// the test and the sleep), as 2.4's add_wait_queue before up() guarantees no lost wake-up.
Task<void> pipe_wait_readable(Kernel& k, Pipe& p) {
  ++p.waiting_readers;
  co_await k.locked_ops(kPipeWaitLockedOps);
  co_await pipe_up(k, p);
  if (p.empty() && p.writers > 0) co_await p.wait.wait();
  --p.waiting_readers;
  co_await pipe_down(p);
}

/// pipe_wait for a writer: until `need` bytes are free or no readers are left.
Task<void> pipe_wait_writable(Kernel& k, Pipe& p, size_t need) {
  ++p.waiting_writers;
  co_await k.locked_ops(kPipeWaitLockedOps);
  co_await pipe_up(k, p);
  if (p.free_bytes() < need && p.readers > 0) co_await p.wait.wait();
  --p.waiting_writers;
  co_await pipe_down(p);
}

/// pipe_read's body: returns bytes read, 0 at EOF.
Task<long> pipe_read(Kernel& k, Pipe& p, uint8_t* buf, size_t count) {
  if (count == 0) co_return 0;
  co_await k.cost(CostId::pipe_rw);
  co_await pipe_down(p);
  long read = 0;
  for (;;) {  // do_more_read
    while (p.empty()) {
      if (p.writers == 0) {  // EOF
        co_await pipe_up(k, p);
        co_return read;
      }
      co_await pipe_wait_readable(k, p);
    }
    while (count > 0 && p.len > 0) {  // PIPE_MAX_RCHUNK = kPipeSize - PIPE_START
      const size_t chars = std::min({count, p.len, kPipeSize - p.start});
      co_await k.cost(CostId::copy_user_cached, chars);  // copy_to_user from the pipe's page
      if (buf) std::memcpy(buf + read, p.base.data() + p.start, chars);
      read += static_cast<long>(chars);
      p.start = (p.start + chars) & (kPipeSize - 1);
      p.len -= chars;
      count -= chars;
    }
    if (p.len == 0) p.start = 0;  // "cache behaviour optimization"
    if (count > 0 && p.waiting_writers > 0) {
      // We know we are going to sleep: signal writers synchronously, then read more.
      co_await k.wake_up(p.wait);
      continue;
    }
    break;
  }
  co_await k.wake_up(p.wait);  // signal writers asynchronously that there is more room
  co_await pipe_up(k, p);
  co_return read;
}

/// pipe_write's body: returns bytes written or -EPIPE.
Task<long> pipe_write(Kernel& k, Pipe& p, const uint8_t* buf, size_t count) {
  if (count == 0) co_return 0;
  co_await k.cost(CostId::pipe_rw);
  co_await pipe_down(p);
  long written = 0;
  if (p.readers == 0) {  // sigpipe
    co_await pipe_up(k, p);
    co_return -kPipeEpipe;
  }
  const size_t need = count <= kPipeBuf ? count : 1;  // count <= kPipeBuf is atomic
  while (p.free_bytes() < need) {
    co_await pipe_wait_writable(k, p, need);
    if (p.readers == 0) {
      co_await pipe_up(k, p);
      co_return -kPipeEpipe;
    }
  }
  while (count > 0) {
    const size_t space = p.free_bytes();
    if (space > 0) {  // PIPE_MAX_WCHUNK = kPipeSize - PIPE_END
      const size_t end = (p.start + p.len) & (kPipeSize - 1);
      const size_t chars = std::min({count, space, kPipeSize - end});
      co_await k.cost(CostId::copy_user_cached, chars);  // copy_from_user into the page
      if (buf) std::memcpy(p.base.data() + end, buf + written, chars);
      written += static_cast<long>(chars);
      p.len += chars;
      count -= chars;
      continue;
    }
    do {  // full: wake the readers synchronously and wait for room
      co_await k.wake_up(p.wait);
      co_await pipe_wait_writable(k, p, 1);
      if (p.readers == 0) {
        co_await pipe_up(k, p);
        co_return written ? written : -kPipeEpipe;
      }
    } while (p.free_bytes() == 0);
  }
  co_await k.wake_up(p.wait);  // signal readers asynchronously that there is more data
  co_await pipe_up(k, p);
  co_return written;
}

/// A system call around `body` (lazy: it runs inside): int 0x80 entry, the body, the exit, then
/// ret_from_sys_call's reschedule point. `in_kernel` is the caller's Process::in_kernel_ (no
/// preemption inside a system call, 2.4).
Task<long> in_syscall(Kernel& k, bool& in_kernel, Task<long> body) {
  in_kernel = true;
  co_await k.cost(CostId::syscall_entry);
  long r = co_await std::move(body);
  co_await k.cost(CostId::syscall_exit);
  in_kernel = false;
  co_await k.cond_resched();  // need_resched -> schedule
  co_return r;
}

/// sys_getppid reads current->p_opptr->tgid: a few loads, inside the entry/exit pair's cycles; an
/// SMP kernel re-reads p_opptr after an mb() (kernel/timer.c 2.4.20: lock; addl $0,0(%esp)), one
/// locked op. Returns 1: init adopts every modelled process.
Task<long> getppid_body(Kernel& k) {
  co_await k.locked_ops(1);
  co_return 1;
}

/// The running process; std::logic_error naming `what` outside process context.
Process& current_process(const Kernel& k, const char* what) {
  Process* p = k.current();
  if (!p) throw std::logic_error(std::string(what) + " outside process context");
  return *p;
}

}  // namespace

Task<long> Kernel::sys_read(Pipe& pipe, uint8_t* buf, size_t len) {
  Process& p = current_process(*this, "sys_read(pipe)");
  co_return co_await in_syscall(*this, p.in_kernel_, pipe_read(*this, pipe, buf, len));
}

Task<long> Kernel::sys_write(Pipe& pipe, const uint8_t* buf, size_t len) {
  Process& p = current_process(*this, "sys_write(pipe)");
  co_return co_await in_syscall(*this, p.in_kernel_, pipe_write(*this, pipe, buf, len));
}

Task<long> Kernel::sys_getppid() {
  Process& p = current_process(*this, "sys_getppid");
  co_return co_await in_syscall(*this, p.in_kernel_, getppid_body(*this));
}

}  // namespace nicsim
