// Socket buffers of the kernel model (Linux 2.4.20 net/core/skbuff.c, include/linux/skbuff.h; see
// kernel.h for the other files). An skb's data buffer is DMA memory (pci_dma.cpp) from the kmalloc
// size class of its size.
//
//   Linux                                           here
//   alloc_skb(), dev_alloc_skb()                    Kernel::alloc_skb, dev_alloc_skb (make_skb
//                                                   without CPU cost)
//   skb_copy()                                      Kernel::skb_copy
//   kfree_skb(), __kfree_skb                        Kernel::kfree_skb, SkbDeleter, skb_release
#include "drivers-sim/kernel/kernel.h"
#include "drivers-sim/kernel/kernel_internal.h"

#include "drivers-sim/kernel/skb_truesize.h"

namespace nicsim {

namespace {
/// kmalloc size classes are powers of two from 32 bytes (mm/slab.c cache_sizes).
size_t kmalloc_class(size_t n) {
  size_t c = 32;
  while (c < n) c <<= 1;
  return c;
}
// estimate: sizeof(struct skb_shared_info) and sizeof(struct sk_buff) on 2.4 i386.
constexpr uint32_t kSharedInfoBytes = 64;
constexpr uint32_t kSkbStructBytes = 160;

/// Freed skbs kept for reuse with their data buffers (the simulator's own memory, not the
/// simulated DRAM), by kmalloc size class (index i: 32 << i bytes), most recently freed last:
/// after the first packets a run allocates no host memory for skbs. One per thread (a simulation
/// runs on one thread); deleted at thread exit, after which freed skbs are deleted at once.
/// Emptied when a testbed's first kernel is built (skb_cache_clear): a reused buffer keeps the
/// bytes its own run wrote, never those of an earlier testbed in the same process.
/// Bypassed under AddressSanitizer like the coroutine frame pool (core/frame_pool.h), so a
/// use-after-free of an skb is still reported.
#ifndef NICSIM_FRAME_POOL_BYPASS
struct SkbCache {
  static constexpr unsigned kClasses = 16;  // up to 1 MB; larger skbs are not kept
  std::vector<Skb*> free[kClasses];
  void drop() {
    for (auto& v : free) {
      for (Skb* s : v) delete s;
      v.clear();
    }
  }
  ~SkbCache();
};
thread_local bool skb_cache_gone = false;  // trivially destructible: valid until the thread ends
SkbCache::~SkbCache() {
  skb_cache_gone = true;
  drop();
}
SkbCache& skb_cache() {
  static thread_local SkbCache c;
  return c;
}
#endif
}  // namespace

void skb_cache_clear() {
#ifndef NICSIM_FRAME_POOL_BYPASS
  if (!skb_cache_gone) skb_cache().drop();
#endif
}

namespace {
unsigned skb_class_index(size_t kmalloc_bytes) {
  unsigned i = 0;
  for (size_t c = 32; c < kmalloc_bytes; c <<= 1) ++i;
  return i;
}
/// An skb (fields as Skb{}) whose buffer can hold `data` bytes of kmalloc class index `ci`.
Skb* skb_from_cache(unsigned ci) {
#ifndef NICSIM_FRAME_POOL_BYPASS
  if (ci < SkbCache::kClasses && !skb_cache_gone) {
    auto& v = skb_cache().free[ci];
    if (!v.empty()) {
      Skb* s = v.back();
      v.pop_back();
      return s;
    }
  }
#else
  (void)ci;
#endif
  return new Skb;
}
/// Keep `s` (its DRAM buffer already freed) for reuse, or delete it.
void skb_to_cache(Skb* s) {
#ifndef NICSIM_FRAME_POOL_BYPASS
  const unsigned ci = skb_class_index(kmalloc_class(s->buf.size() + kSharedInfoBytes));
  if (ci < SkbCache::kClasses && !skb_cache_gone) {
    std::vector<uint8_t> bytes = std::move(s->buf);  // the buffer and its capacity stay with the skb
    *s = Skb{};
    s->buf = std::move(bytes);
    skb_cache().free[ci].push_back(s);
    return;
  }
#endif
  delete s;
}
}  // namespace

void SkbDeleter::operator()(Skb* s) const {
  if (kernel_alive(kernel)) kernel->skb_release(s);
  else delete s;
}

uint32_t alloc_skb_truesize(uint32_t size) { return ((size + 15u) & ~15u) + kSkbStructBytes; }

SkbPtr Kernel::make_skb(uint32_t size) {
  uint32_t data = (size + 15u) & ~15u;  // SKB_DATA_ALIGN
  const size_t cls = kmalloc_class(data + kSharedInfoBytes);
  Skb* s = skb_from_cache(skb_class_index(cls));
  // alloc_skb sets the sk_buff's fields (here Skb{}'s) but not the data buffer's bytes: kmalloc'd
  // memory holds what was there before (2.4.20 net/core/skbuff.c alloc_skb). A reused buffer keeps
  // its bytes; only bytes beyond its previous size are new (zero).
  s->buf.resize(data);
  try {
    s->head_phys = dma_alloc(cls, 64);
  } catch (...) {
    delete s;
    throw;
  }
  s->truesize = alloc_skb_truesize(size);
  return SkbPtr(s, SkbDeleter{this});
}

void Kernel::skb_release(Skb* s) {
  if (s->head_phys) dma_free(s->head_phys);
  skb_to_cache(s);
}

Task<SkbPtr> Kernel::alloc_skb(uint32_t size) {
  co_await cost(CostId::skb_alloc);
  co_return make_skb(size);
}

Task<SkbPtr> Kernel::dev_alloc_skb(uint32_t len) {
  SkbPtr s = co_await alloc_skb(len + 16);
  s->reserve(16);
  co_return s;
}

SkbPtr Kernel::skb_copy(const Skb& s) {
  SkbPtr n = make_skb(static_cast<uint32_t>(s.buf.size()));
  uint64_t phys = n->head_phys;
  uint32_t truesize = n->truesize;
  *n = s;  // copies bytes and metadata
  n->head_phys = phys;
  n->truesize = truesize;
  return n;
}

CpuBurn Kernel::skb_free_cost(bool cloned) const {
  CostEntry e = costs_->at(CostId::skb_free);
  if (!cloned && e.smp_locked_ops > 0) --e.smp_locked_ops;  // skb_release_data skips the dataref
  return cost(e);
}

Task<void> Kernel::kfree_skb(SkbPtr skb) {
  co_await skb_free_cost(skb->cloned);
  skb.reset();
}

}  // namespace nicsim
