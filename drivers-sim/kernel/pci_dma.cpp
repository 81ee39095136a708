// DMA memory of the kernel model (Linux 2.4.20 arch/i386/kernel/pci-dma.c, include/asm-i386/pci.h;
// see kernel.h for the other files).
//
// One allocator hands out DRAM above KernelParams::dma_base for everything software places in
// memory (descriptor rings, skb data, kernel objects tracked on SMP); a freed block of the same
// rounded size is reused last-in first-out, as the 2.4 slab allocator's per-CPU array cache does
// (mm/slab.c: cc_entry(cc)[--cc->avail]). A bus address is the physical address.
//
//   Linux                                           here
//   pci_alloc_consistent(), kmalloc()               Kernel::dma_alloc
//   pci_free_consistent(), kfree()                  Kernel::dma_free
//   pci_map_single() (ToDevice: the CPU's stores    Kernel::pci_map_single
//     reach memory), pci_unmap_single()             Kernel::pci_unmap_single
//   the CPU's stores and loads of DMA memory        Kernel::mem_write, mem_read
#include "drivers-sim/kernel/kernel.h"
#include "models/host/host_face.h"
#include <stdexcept>

namespace nicsim {

uint64_t Kernel::dma_alloc(size_t bytes, size_t align) {
  if (align == 0 || (align & (align - 1))) throw std::invalid_argument("dma_alloc: alignment must be a power of two");
  if (bytes == 0) bytes = 1;
  size_t sz = (bytes + 63) & ~size_t(63);
  // The most recently freed block of this size that is aligned (slab allocators hand back the
  // last object freed first: it is the one most likely still in the CPU's cache).
  if (auto f = dma_free_.find(sz); f != dma_free_.end()) {
    auto& stack = f->second;
    for (auto it = stack.rbegin(); it != stack.rend(); ++it)
      if (*it % align == 0) {
        uint64_t a = *it;
        stack.erase(std::next(it).base());
        dma_used_[a] = sz;
        return a;
      }
  }
  uint64_t a = (dma_next_ + align - 1) & ~uint64_t(align - 1);
  if (a + sz > hw_->dram_bytes())
    throw std::runtime_error(p_.host + ": DMA memory exhausted (" + std::to_string(bytes) + " bytes requested)");
  dma_next_ = a + sz;
  dma_used_[a] = sz;
  return a;
}

void Kernel::dma_free(uint64_t addr) {
  auto it = dma_used_.find(addr);
  if (it == dma_used_.end()) throw std::logic_error("dma_free of an address not allocated");
  dma_free_[it->second].push_back(addr);
  dma_used_.erase(it);
}

void Kernel::mem_write(uint64_t addr, const void* src, size_t len) {
  hw_->mem_write(addr, src, len);
  if (!dma_lines_.empty() && len)
    if (Cpu* c = Cpu::running_cpu_or_null()) cpu_stored(c->index(), addr, len);
}

void Kernel::mem_read(uint64_t addr, void* dst, size_t len) const { hw_->mem_read(addr, dst, len); }

uint64_t Kernel::pci_map_single(Skb& skb, DmaDir dir) {
  if (dir != DmaDir::FromDevice && skb.len) mem_write(skb.data_phys(), skb.data(), skb.len);
  return skb.data_phys();
}

void Kernel::pci_unmap_single(Skb& skb, uint32_t len, DmaDir dir) {
  if (dir == DmaDir::ToDevice) return;
  if (len > skb.buf.size() - skb.data_off) throw std::logic_error("pci_unmap_single: DMA length beyond the skb buffer");
  mem_read(skb.data_phys(), skb.data(), len);
}

}  // namespace nicsim
