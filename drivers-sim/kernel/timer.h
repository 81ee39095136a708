// struct timer_list and the tick of the kernel model (Linux 2.4 include/linux/timer.h,
// include/asm-i386/timex.h). The code is timer.cpp.
//
// HZ is the kernel profile's (KernelParams::hz: 100 on 2.4 i386); the PIT (IRQ0, "timer")
// interrupts the timekeeping CPU, which increments jiffies and marks TIMER_BH (run from
// HI_SOFTIRQ); each CPU's local APIC timer ("LOC") runs update_process_times, which charges the
// tick to the current task (utime or stime). add_timer/mod_timer/del_timer use one global list
// (2.4); a timer runs in TIMER_BH at the first tick with jiffies >= expires.
#pragma once
#include "core/units.h"
#include "drivers-sim/kernel/task.h"
#include <cstdint>
#include <functional>
#include <map>

namespace nicsim {

class Kernel;

/// Tick period of a 2.4 i386 kernel: LATCH = (CLOCK_TICK_RATE + HZ/2) / HZ PIT clocks of
/// CLOCK_TICK_RATE = 1193180 Hz (include/asm-i386/timex.h, include/linux/timex.h); 10.000168 ms at HZ=100.
sc_time tick_period(unsigned hz);

/// struct timer_list. Its callback is a coroutine run in TIMER_BH (softirq context) on the
/// timekeeping CPU. A pending timer and its kernel are linked both ways (the kernel's timer list
/// holds the timer, the timer its kernel): ~TimerList deletes a pending timer from its kernel's
/// list, and ~Kernel unlinks the timers still pending (they stay, not pending, with no kernel).
class TimerList {
 public:
  uint64_t expires = 0;                   ///< in jiffies
  std::function<Task<void>()> function;  ///< the callback (copied before it is called)
  bool pending() const { return pending_; }
  TimerList() = default;
  TimerList(const TimerList&) = delete;
  TimerList& operator=(const TimerList&) = delete;
  ~TimerList();

 private:
  friend class Kernel;
  Kernel* kernel_ = nullptr;
  bool pending_ = false;
  std::multimap<uint64_t, TimerList*>::iterator it_;
};

}  // namespace nicsim
