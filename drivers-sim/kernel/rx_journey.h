// The receive-side journey marks every NIC driver's RX clean loop makes when it reaches a frame,
// shared by the drivers (e1000, e100, eepro100): which interrupt's delivery the frame waited for,
// when the ISR pass that found it started, and the descriptor-load miss that pass paid for it.
#pragma once
#include "core/sim_context.h"
#include "drivers-sim/kernel/kernel.h"
#include <algorithm>
#include <string>

namespace nicsim {

/// Mark journey `j` (0: nothing) as reached by the driver's RX clean pass on `k`: "ISR" from
/// max(t_pass, the interrupt's acceptance) when the running interrupt arrived after the journey's
/// last mark (its delivery is then the frame's wait, Kernel::mark_irq), else from max(last mark,
/// t_pass) with cause "ISR already running" (an earlier interrupt's loop found it); then
/// Kernel::kDmaMissStage at `desc_miss_at` when the descriptor load missed at or after that
/// (SC_ZERO_TIME: no miss); then "driver rx" now. Times are absolute simulated times.
inline void mark_rx_journey(Kernel& k, JourneyId j, sc_time t_pass, sc_time desc_miss_at) {
  if (!j) return;
  const sc_time last = sim().journeys.last_mark_time(j).value_or(SC_ZERO_TIME);
  const IrqStamp* st = k.current_irq();
  Cpu* c = Cpu::running_cpu_or_null();
  const std::string where = k.host() + (c ? ".cpu" + std::to_string(c->index()) : std::string());
  sc_time isr_at;
  if (st && st->arrived >= last) {
    k.mark_irq(j);
    isr_at = std::max(t_pass, st->accepted);
    sim().journeys.mark(j, isr_at, "ISR", where);
  } else {
    isr_at = std::max(last, t_pass);
    sim().journeys.mark(j, isr_at, "ISR", where, "ISR already running");
  }
  if (desc_miss_at != SC_ZERO_TIME && desc_miss_at >= isr_at)
    sim().journeys.mark(j, desc_miss_at, Kernel::kDmaMissStage, where);
  k.mark(j, "driver rx");
}

}  // namespace nicsim
