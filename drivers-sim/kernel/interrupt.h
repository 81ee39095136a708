// Interrupt vectors, softirq numbers, request_irq flags and handler types of the kernel model
// (Linux 2.4 include/linux/interrupt.h, include/asm-i386/hw_irq.h). The code: irq.cpp (do_IRQ,
// request_irq), softirq.cpp (do_softirq, ksoftirqd). What runs where (Linux 2.4.20):
//  * Hard IRQ (do_IRQ): irq_entry cost with IF=0; for an edge vector the local APIC EOI first
//    (ack_edge_ioapic_irq / ack_APIC_irq); the handlers of the line with IF=1 unless SA_INTERRUPT
//    (handle_IRQ_event's __sti), so higher-class vectors may nest; for a level vector the EOI
//    after the handlers (end_level_ioapic_irq: no IO-APIC register is touched; research §4 [S40]);
//    irq_exit -> do_softirq if softirqs are pending and we are not already in interrupt context
//    (it runs as a softirq context stacked on the hard IRQ, interruptible); then irq_return.
//  * do_softirq (kernel/softirq.c 2.4.20): clears pending, runs HI, NET_TX, NET_RX, TASKLET
//    handlers in order with IRQs on, restarts only for softirqs raised meanwhile that have not run
//    in this invocation (mask), and leaves the rest to ksoftirqd_CPUn (a nice-19 kernel thread).
//    A softirq raised outside interrupt context (and outside local_bh_disable) wakes ksoftirqd.
#pragma once
#include "drivers-sim/kernel/task.h"
#include <functional>

namespace nicsim {

/// Vectors the kernel uses itself (include/asm-i386/hw_irq.h, Linux 2.4).
constexpr unsigned LOCAL_TIMER_VECTOR = 0xef;
constexpr unsigned RESCHEDULE_VECTOR = 0xfc;

/// Softirq numbers (include/linux/interrupt.h 2.4). TIMER_BH runs from HI_SOFTIRQ.
enum Softirq : unsigned { HI_SOFTIRQ = 0, NET_TX_SOFTIRQ = 1, NET_RX_SOFTIRQ = 2, TASKLET_SOFTIRQ = 3 };
constexpr unsigned kNrSoftirqs = 4;

/// request_irq flags.
/// SA_SAMPLE_RANDOM (= SA_RESTART, include/asm-i386/signal.h 2.4.20): the line feeds the entropy
/// pool, handle_IRQ_event calls add_interrupt_randomness after its handlers.
/// (<signal.h> defines SA_INTERRUPT as a macro, glibc's historical no-op sigaction flag, of the
/// same value: a translation unit that includes both, as a unity batch can, keeps the kernel's.)
#undef SA_INTERRUPT
enum : unsigned { SA_INTERRUPT = 0x20000000, SA_SAMPLE_RANDOM = 0x10000000, SA_SHIRQ = 0x04000000 };

/// An interrupt handler: a coroutine run in hard-IRQ context for `vector`.
using IrqHandler = std::function<Task<void>(unsigned vector)>;
/// A softirq action, run on `cpu`.
using SoftirqAction = std::function<Task<void>(unsigned cpu)>;

}  // namespace nicsim
