// local_irq_save / local_irq_restore for driver models (Linux 2.4 <asm/system.h>: __save_flags +
// __cli, __restore_flags): what spin_lock_irqsave / spin_unlock_irqrestore do on a UP kernel, on the
// context the running CPU executes. Its CPU cost is the caller's cost entry.
#pragma once
#include "drivers-sim/kernel/kernel.h"

namespace nicsim {

/// Interrupts off for the running CPU's current context; returns whether they were on (false when no
/// software context is running, e.g. at elaboration).
inline bool local_irq_save() {
  Cpu* c = Cpu::running_cpu_or_null();
  ExecContext* x = c ? c->running() : nullptr;
  if (!x) return false;
  const bool was = x->irqs_enabled;
  x->irqs_enabled = false;
  return was;
}

/// Interrupts back to `was` (local_irq_save's result) on the running CPU's current context.
inline void local_irq_restore(bool was) {
  Cpu* c = Cpu::running_cpu_or_null();
  if (ExecContext* x = c ? c->running() : nullptr) x->irqs_enabled = was;
}

}  // namespace nicsim
