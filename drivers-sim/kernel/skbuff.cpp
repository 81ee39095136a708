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

namespace nicsim {

void SkbDeleter::operator()(Skb* s) const {
  if (kernel_alive(kernel)) kernel->skb_release(s);
  else delete s;
}

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
}  // namespace

SkbPtr Kernel::make_skb(uint32_t size) {
  uint32_t data = (size + 15u) & ~15u;  // SKB_DATA_ALIGN
  auto* s = new Skb;
  s->buf.assign(data, 0);
  try {
    s->head_phys = dma_alloc(kmalloc_class(data + kSharedInfoBytes), 64);
  } catch (...) {
    delete s;
    throw;
  }
  s->truesize = data + kSkbStructBytes;
  return SkbPtr(s, SkbDeleter{this});
}

void Kernel::skb_release(Skb* s) {
  if (s->head_phys) dma_free(s->head_phys);
  delete s;
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

Task<void> Kernel::kfree_skb(SkbPtr skb) {
  co_await cost(CostId::skb_free);
  skb.reset();
}

}  // namespace nicsim
