// Software as C++20 coroutines: the Task type and the awaitables that spend CPU time.
//
// Driver, stack and application code is written as coroutines returning Task<T>:
//
//   Task<int> e1000_xmit(Kernel& k, ...) {
//     co_await k.cost(CostId::dev_queue_xmit);      // compute (preemptible by interrupts)
//     uint32_t icr = co_await mmio_read32(bar + ICR); // uncached read: the CPU stalls
//     co_await mmio_write32(bar + TDT, tail);         // posted write
//     int rc = co_await sub_routine();                // nested call, value returned
//     co_return rc;
//   }
//
// A Task is lazy (nothing runs until it is awaited or installed as a context's root) and is
// awaited with symmetric transfer, so nesting costs no SystemC event and no stack depth.
// Code between two awaits runs in zero simulated time; only the awaitables below (and the
// kernel's, built on them) suspend. Awaiting anything else is a programming error (the CPU
// throws std::logic_error).
#pragma once
#include "core/frame_pool.h"
#include "models/cpu/cpu.h"
#include <coroutine>
#include <exception>
#include <optional>
#include <utility>

namespace nicsim {

template <typename T = void>
class Task;

namespace detail {
struct PromiseBase {
  std::coroutine_handle<> continuation;
  std::exception_ptr exception;
  std::suspend_always initial_suspend() noexcept { return {}; }
  struct FinalAwaiter {
    bool await_ready() const noexcept { return false; }
    template <typename P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      auto c = h.promise().continuation;
      return c ? c : std::noop_coroutine();
    }
    void await_resume() const noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { exception = std::current_exception(); }
  /// Coroutine frames come from the size-class free lists of core/frame_pool.h (every nested
  /// Task call allocates one; reusing them keeps malloc off the per-packet path).
  static void* operator new(std::size_t n) { return FramePool::allocate(n); }
  static void operator delete(void* p, std::size_t n) noexcept { FramePool::deallocate(p, n); }
};

/// The promise of a Task<T>: the value the coroutine returned (Task<void>: none).
template <typename T>
struct TaskPromise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object();
  template <typename U>
  void return_value(U&& v) { value.emplace(std::forward<U>(v)); }
  /// After the coroutine ended: its value (rethrows the exception it ended with).
  T take() {
    if (exception) std::rethrow_exception(exception);
    return std::move(*value);
  }
};
template <>
struct TaskPromise<void> : PromiseBase {
  Task<void> get_return_object();
  void return_void() noexcept {}
  void take() {
    if (exception) std::rethrow_exception(exception);
  }
};
}  // namespace detail

/// A lazily started coroutine producing a T (or nothing: Task<void>). Move-only; destroys its frame
/// when destroyed.
template <typename T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::TaskPromise<T>;
  using handle_type = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(handle_type h) : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (h_) h_.destroy();
  }

  bool valid() const { return static_cast<bool>(h_); }
  bool done() const { return h_ && h_.done(); }
  handle_type handle() const { return h_; }
  /// After done(): the value (rethrows the exception the coroutine ended with).
  T result() { return h_.promise().take(); }

  auto operator co_await() && noexcept {
    struct Awaiter {
      handle_type h;
      bool await_ready() const noexcept { return !h || h.done(); }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> c) noexcept {
        h.promise().continuation = c;
        return h;
      }
      T await_resume() { return h.promise().take(); }
    };
    return Awaiter{h_};
  }

 private:
  handle_type h_;
};

namespace detail {
template <typename T>
Task<T> TaskPromise<T>::get_return_object() {
  return Task<T>(std::coroutine_handle<TaskPromise<T>>::from_promise(*this));
}
inline Task<void> TaskPromise<void>::get_return_object() {
  return Task<void>(std::coroutine_handle<TaskPromise<void>>::from_promise(*this));
}
}  // namespace detail

/// Awaitable: the running context computes for `d` (preemptible when its IRQs are enabled),
/// charged in the CPU's profile to `what` (a cpu_time.h tag; 0 untagged).
struct CpuBurn {
  sc_time d;
  uint16_t what = 0;
  bool await_ready() const noexcept { return d == SC_ZERO_TIME; }
  void await_suspend(std::coroutine_handle<> h) const { Cpu::running_cpu().burn(h, d, what); }
  void await_resume() const noexcept {}
};

/// Awaitable: consecutive burns (e.g. Kernel::cost results) with no code between them as one
/// burn chain (Cpu::burn_chain): the same times, interrupts and profile as awaiting each in
/// turn, with fewer SystemC events where nothing can happen at a boundary. Holds up to kMax;
/// add() returns false when full (await it, then add again). Empty after the await.
struct CpuBurnChain {
  static constexpr size_t kMax = 8;
  BurnSegment seg[kMax];
  size_t n = 0;
  bool add(const CpuBurn& b) {
    if (b.d == SC_ZERO_TIME) return true;  // as co_await of a zero burn: nothing
    if (n == kMax) return false;
    seg[n++] = BurnSegment{b.d, b.what};
    return true;
  }
  bool await_ready() const noexcept { return n == 0; }
  bool await_suspend(std::coroutine_handle<> h) { return Cpu::running_cpu().burn_chain(h, seg, n); }
  void await_resume() noexcept { n = 0; }
};

/// `co_await cpu_work(cycles)`: consume `cycles` core cycles of the CPU this code runs on.
/// Throws std::logic_error when no CPU is running software.
inline CpuBurn cpu_work(double cycles) { return CpuBurn{Cpu::running_cpu().cycles(cycles)}; }

/// Awaitable: an uncached access of `bytes` (1, 2, 4) through the CPU's fsb_initiator
/// (b_transport at annotated delay 0), in memory space or, with `space` PciSpace::Io, in I/O space
/// (x86 IN/OUT). The CPU stalls, not preemptible, for the delay the target returns (Cpu::mmio).
/// `co_await` yields the value read (zero-extended; for a write, the value written).
struct MmioAccess {
  bool write;
  uint64_t addr;
  uint32_t data;
  unsigned bytes = 4;
  PciSpace space = PciSpace::Memory;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) { return Cpu::running_cpu().mmio(h, write, addr, data, bytes, space); }
  uint32_t await_resume() const noexcept { return data; }
};

/// The same, yielding the access's own width (`uint8_t v = co_await inb(port)`).
template <typename T>
struct TypedAccess : MmioAccess {
  T await_resume() const noexcept { return static_cast<T>(data); }
};

/// Awaitable: a cache-line fill from memory through the CPU's fsb_initiator (a cache miss). The CPU
/// stalls, not preemptible, for the delay the chipset and memory models return; `co_await` yields
/// that delay (an interrupt taken at the end of the stall is not part of it).
/// `what`: the stall's profile tag (cpu_time.h).
struct LineFill {
  uint64_t addr;
  unsigned bytes;
  sc_time stall = SC_ZERO_TIME;
  uint16_t what = 0;
  sc_time extra = SC_ZERO_TIME;  ///< added to the fill (Cpu::line_fill)
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    return Cpu::running_cpu().line_fill(h, addr, bytes, &stall, what, extra);
  }
  sc_time await_resume() const noexcept { return stall; }
};

/// `uint32_t v = co_await mmio_read32(addr)`: read the register at bus address `addr`.
inline MmioAccess mmio_read32(uint64_t addr) { return MmioAccess{false, addr, 0}; }
/// `co_await mmio_write32(addr, v)`: posted write; the CPU stalls only for the returned delay.
inline MmioAccess mmio_write32(uint64_t addr, uint32_t v) { return MmioAccess{true, addr, v}; }

// Linux 2.4 <asm-i386/io.h> accessors, with Linux's argument order (value first for writes).
// Memory space (a BAR's bus address): readb/readw/readl, writeb/writew/writel: a read stalls the
// CPU for the round trip, a write only for the chipset's posting time (as mmio_read32/_write32).
// I/O space (a port below 0x10000): inb/inw/inl, outb/outw/outl: x86 IN/OUT; both stall for the
// whole round trip, since neither the CPU nor the chipset posts an I/O write (Cpu::mmio). A port
// or address nobody decodes throws std::runtime_error from the co_await (a master abort).
inline TypedAccess<uint8_t> readb(uint64_t addr) { return {{false, addr, 0, 1}}; }
inline TypedAccess<uint16_t> readw(uint64_t addr) { return {{false, addr, 0, 2}}; }
inline TypedAccess<uint32_t> readl(uint64_t addr) { return {{false, addr, 0, 4}}; }
inline TypedAccess<uint8_t> writeb(uint8_t v, uint64_t addr) { return {{true, addr, v, 1}}; }
inline TypedAccess<uint16_t> writew(uint16_t v, uint64_t addr) { return {{true, addr, v, 2}}; }
inline TypedAccess<uint32_t> writel(uint32_t v, uint64_t addr) { return {{true, addr, v, 4}}; }
inline TypedAccess<uint8_t> inb(uint16_t port) { return {{false, port, 0, 1, PciSpace::Io}}; }
inline TypedAccess<uint16_t> inw(uint16_t port) { return {{false, port, 0, 2, PciSpace::Io}}; }
inline TypedAccess<uint32_t> inl(uint16_t port) { return {{false, port, 0, 4, PciSpace::Io}}; }
inline TypedAccess<uint8_t> outb(uint8_t v, uint16_t port) { return {{true, port, v, 1, PciSpace::Io}}; }
inline TypedAccess<uint16_t> outw(uint16_t v, uint16_t port) { return {{true, port, v, 2, PciSpace::Io}}; }
inline TypedAccess<uint32_t> outl(uint32_t v, uint16_t port) { return {{true, port, v, 4, PciSpace::Io}}; }

}  // namespace nicsim
