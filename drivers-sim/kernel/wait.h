// wait_queue_head_t of the kernel model (Linux 2.4 include/linux/wait.h). Sleeping is
// WaitQueue::wait() (sched.cpp: the Awaiter, add_wait_queue's link); waking is Kernel::wake_up
// (sched.cpp: __wake_up, try_to_wake_up).
#pragma once
#include <coroutine>
#include <cstddef>
#include <vector>

namespace nicsim {

class Kernel;
class Process;

/// A wait queue (wait_queue_head_t). Processes sleep on it with `co_await wq.wait()` (process
/// context only); Kernel::wake_up wakes them all.
///
/// Ownership: a wait queue owns nothing. It holds non-owning links to the processes sleeping on
/// it, and each such Process links back (Process::wait_queue()). Either side may be destroyed
/// first, while the other lives on: the destroyed side severs both directions of every link it
/// is in (~WaitQueue clears the sleepers' back links, ~Process takes itself off its queue), so no
/// order of destruction -- a queue in a Kernel's per-CPU state, in a socket, a driver, or in the
/// coroutine frame of the process sleeping on it -- leaves a dangling pointer behind. A process
/// whose queue went away stays asleep until woken by wake_up_process. Not copyable or movable
/// (its address is what the sleepers hold).
class WaitQueue {
 public:
  struct Awaiter {
    WaitQueue* wq;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h);
    void await_resume() const noexcept {}
  };
  WaitQueue() = default;
  WaitQueue(const WaitQueue&) = delete;
  WaitQueue& operator=(const WaitQueue&) = delete;
  ~WaitQueue();

  /// Sleep (TASK_INTERRUPTIBLE) until woken. Throws std::logic_error outside process context or
  /// with bottom halves disabled.
  Awaiter wait() { return Awaiter{this}; }
  bool empty() const { return waiters_.empty(); }
  size_t size() const { return waiters_.size(); }

 private:
  friend class Kernel;
  friend class Process;
  /// Link `p` (asleep) to this queue, both directions. `p` must not be on a queue.
  void link(Process& p);
  /// Sever the link to `p`, both directions (no-op when `p` is not on this queue).
  void unlink(Process& p);
  std::vector<Process*> waiters_;
};

}  // namespace nicsim
