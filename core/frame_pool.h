// A size-class free-list allocator for short-lived, frequently allocated blocks of a few hundred
// bytes: the coroutine frames of software Tasks (drivers-sim/kernel/task.h), which every nested
// call of driver, stack and application code allocates and frees (about 30 per frame on the wire
// in a TCP stream, bench/README.md).
//
// Blocks up to kMaxBytes are rounded up to a multiple of kGranule and served from a per-thread
// free list of that class; freed blocks go back to their list and are reused, so a steady-state
// run stops calling malloc for frames. Larger blocks go to ::operator new. Blocks in the free lists
// are kept for the life of the thread (the lists are trivially destructible, so a frame freed
// during static destruction at exit is still safe to return). Not shared between threads (a block must be freed on the
// thread that allocated it, true of SystemC's one-thread simulation).
//
// Under AddressSanitizer the pool is bypassed (every block comes from ::operator new), so a
// use-after-free of a coroutine frame is still reported.
#pragma once
#include <cstddef>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define NICSIM_FRAME_POOL_BYPASS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NICSIM_FRAME_POOL_BYPASS 1
#endif
#endif

namespace nicsim {

class FramePool {
 public:
  static constexpr std::size_t kGranule = 64;    ///< bytes: size-class step (one cache line)
  static constexpr std::size_t kMaxBytes = 4096;  ///< bytes: larger blocks bypass the pool

  /// A block of at least `n` bytes, aligned for any object (__STDCPP_DEFAULT_NEW_ALIGNMENT__).
  /// Throws std::bad_alloc like ::operator new.
  static void* allocate(std::size_t n) {
#ifndef NICSIM_FRAME_POOL_BYPASS
    if (n != 0 && n <= kMaxBytes) {
      Node*& head = heads_[cls(n)];
      if (head) {
        Node* b = head;
        head = b->next;
        return b;
      }
      return ::operator new((cls(n) + 1) * kGranule);
    }
#endif
    return ::operator new(n);
  }
  /// Return a block from allocate(`n`) (the same `n`).
  static void deallocate(void* p, std::size_t n) noexcept {
#ifndef NICSIM_FRAME_POOL_BYPASS
    if (n != 0 && n <= kMaxBytes) {
      Node* b = static_cast<Node*>(p);
      b->next = heads_[cls(n)];
      heads_[cls(n)] = b;
      return;
    }
#endif
    ::operator delete(p);
  }

 private:
  struct Node {
    Node* next;
  };
  static std::size_t cls(std::size_t n) { return (n - 1) / kGranule; }
  static inline thread_local Node* heads_[kMaxBytes / kGranule] = {};
};

}  // namespace nicsim
