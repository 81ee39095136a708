// Private to the kernel model's .cpp files (not for drivers or tests): the hard-IRQ and softirq
// execution contexts the Kernel creates (irq.cpp's interrupt, softirq.cpp's run_softirq_child)
// and destroys (irq.cpp's finished, kernel.cpp's ~Kernel), and the registry of live kernels an
// skb's deleter consults (kernel.cpp, skbuff.cpp).
#pragma once
#include "drivers-sim/kernel/kernel.h"

namespace nicsim {

/// A hard IRQ (with the interrupt's delivery stamp) or softirq context in flight on a CPU.
struct Kernel::KCtx : ExecContext {
  using ExecContext::ExecContext;
  Task<void> task;
  IrqStamp stamp;
};

/// Whether `k` is a Kernel not yet destroyed (an skb freed after its kernel is deleted without it).
bool kernel_alive(const Kernel* k);

/// Delete the skbs kept for reuse (skbuff.cpp): a new testbed's buffers then start as fresh
/// memory (zero bytes), as in a process of its own, instead of holding an earlier testbed's bytes.
void skb_cache_clear();

}  // namespace nicsim
