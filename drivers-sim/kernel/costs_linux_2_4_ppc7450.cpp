// Cost table "linux-2.4-ppc7450": Linux 2.4 (2.4.13-2.4.16, arch/ppc) kernel paths on a Motorola
// MPC7450 ("G4", 667-867 MHz on a 133 MHz MPX bus, PC133 SDRAM behind UniNorth), in cycles at
// 733 MHz, registered by name like the other tables; the CPU profile ppc7450 names it
// (profile_ppc7450.cpp), the kernel profile is linux-2.4.16-ppc (profile_linux_2_4_16_ppc.cpp).
//
// Calibration (once; nothing here is taken from or fitted to seed 001):
//
// No published lmbench (or other per-path) measurement of Linux 2.4 on a 7450 was found for this
// version of the table (searched: lmbench summaries on LKML / linuxppc-dev for G4 / 74xx, bw_mem on
// G4, STREAM on PC133 Power Macs). Every entry is therefore an `estimate`, made one of three ways,
// each stated in the entry's source:
//  (a) Code paths in generic C (net/, kernel/sched.c's C part, mm/slab.c): the cycles of the
//      calibrated P4 table (costs_linux_2_4_20_p4xeon.cpp) are kept. The same 2.4 C compiles to
//      roughly as many PowerPC instructions as i386 ones (a load/store ISA with 32 GPRs: fewer
//      spills, more explicit loads), and per clock the two cores retire kernel code at a similar
//      rate: the 7450 dispatches 3 instructions + a branch per clock through a 7-stage pipeline,
//      NetBurst 3 uops per clock through a 20-stage one whose mispredicts and int/iret microcode
//      cost more cycles, while the P4's L2 (7.7 ns) and DRAM (118 ns) misses cost ~3x the cycles
//      of the 7450's (L2 at the core clock). Equal cycles per path is the neutral estimate.
//  (b) Paths in arch/ppc assembly (LH@2.4.16:arch/ppc/kernel/head.S, entry.S, lib/string.S,
//      lib/checksum.S): estimated from their instruction counts and the cost of the serialising
//      operations (sc, rfi, mtmsr/mtspr SRR0/SRR1, mtsr), not from i386 figures. The P4's int 0x80
//      (1608 cycles for lmbench's null call) has no PowerPC counterpart: a PowerPC system call is
//      the `sc` exception, one rfi into the kernel with the MMU on (transfer_to_handler) and one
//      back (ret_from_except), ~180 instructions in between. The one PowerPC measurement of these
//      mechanisms found [L4]: on a 500 MHz IBM 750 (PowerBook "Pismo"), L4Ka::Pistachio's empty
//      system call -- kernel entry, the jump to the handler, virtual addressing switched on, user
//      state saved and restored, the return -- takes 51.73 cycles for 27.17 instructions (~25
//      cycles of pipeline refills over one instruction per clock), and an address-space switch of
//      12 segment registers ~40 cycles for ~24 instructions ("a pipe-flush for each segment register
//      update"). The 7450's pipeline is longer (7 stages minimum against the 750's 4), so each
//      refill is taken as twice the 750's.
//      [L4] J. LeVasseur, "L4Ka::Pistachio PowerPC Performance", l4ka.org/projects/pistachio/
//           powerpc/perf.php (initial Pistachio release, 2003).
//  (c) Memory-bound rates and device-register reads: from what the platform's own models take
//      (platforms/powermac_g4.cpp, models/chipset/uninorth.cpp: 133 MHz x 64-bit MPX bus and PC133
//      SDRAM, 1067 MB/s peak each, 32-byte lines) for a CPU line fill and a CPU register read, both
//      measured by tests/unit/platform_powermac_g4.cpp and pinned there to the entries; research
//      seeds-001-004 §1.1's estimate for a PIO read through UniNorth (0.3-1.0 us) bounds the latter.
//
// The interrupt controller (KeyLargo's OpenPIC). The platform models it as an interrupt router
// with the level rule (uninorth.h openpic_params: IoxApic) and does no register access of its
// own; the register accesses Linux makes are here, once each:
//   irq_entry   = exception entry + do_IRQ / ppc_irq_dispatch_handler bookkeeping (~260 cycles)
//                 + openpic_get_irq's read of the Interrupt Acknowledge register
//                 + ack_irq = openpic_ack_irq: openpic_disable_irq (read-modify-write of the
//                   source's Vector/Priority register and the read-back loop until MASK shows)
//                   and openpic_eoi (EOI write and its read-back "for PCI write posting");
//                 = 4 uncached reads + 2 posted writes (LH@2.4.16:arch/ppc/kernel/irq.c do_IRQ,
//                   open_pic.c openpic_irq, openpic_ack_irq, openpic_disable_irq, openpic_eoi);
//   apic_eoi    = the level path's end: openpic_end_irq -> openpic_enable_irq (read-modify-write,
//                 read-back loop until MASK clears): 2 reads + 1 write. The kernel model charges it
//                 after the handlers and only then lets the controller deliver the line again
//                 (cpu.eoi), which is what the unmask does here (the EOI itself went early, in the
//                 ack, while the source was masked).
//   One read of a KeyLargo register (KeyLargo sits on the 33 MHz slot bus behind the f2000000 host
//   bridge): what the platform's own models take for a CPU read of a register of a device on that
//   bus -- the MPX address and data tenures, UniNorth's decode, the on-die port, the host bridge's
//   outbound request and completion and the PCI read itself -- 686 ns (tests/unit/
//   platform_powermac_g4.cpp, "a CPU read of a register on the 33 MHz slot bus"), inside research
//   §1.1's 0.3-1.0 us [EST]: 503 cycles at 733 MHz. A posted write: ~40 cycles (the store's MPX
//   tenure and eieio). These are fixed times charged as cycles at 733 MHz: at 867 MHz they are
//   15 % short, at 667 MHz 10 % long.
//   The decrementer (PowerPC's timer interrupt) does not go through the OpenPIC; the model's tick
//   lines go through do_IRQ's entries all the same (100 Hz x ~4 us: 0.04 % of a CPU).
//
// Checks (tests/unit/kernel_costs.cpp): lmbench's programs composed from these entries, as the P4
// table's are, land where a 733 MHz G4 of the era would by the estimates above (they fix no entry).
#include "core/registry.h"
#include "drivers-sim/kernel/costs.h"
#include "drivers-sim/kernel/cpu_time.h"

namespace nicsim {
namespace {

/// Cycles at 733 MHz of one uncached read of an OpenPIC register: the platform model's 686 ns for a
/// CPU read of a register on the 33 MHz slot bus (see the calibration block).
constexpr double kOpenPicReadCycles = 503;
/// Cycles of one posted write to an OpenPIC register plus its eieio.
constexpr double kOpenPicWriteCycles = 40;

CostProfile linux_2_4_ppc7450() {
  // Start from the P4 table for its per-entry SMP locked-operation counts (the same generic 2.4
  // functions take the same atomics; on PowerPC each is a lwarx/stwcx. loop, include/asm-ppc/
  // atomic.h, bitops.h, spinlock.h); every cycle figure is set below.
  CostProfile p = linux_2_4_20_p4xeon_costs();
  p.name = "linux-2.4-ppc7450";
  p.summary = "Linux 2.4.13-2.4.16 PowerPC (sc syscalls, OpenPIC, HZ=100) on an MPC7450 G4, cycles at 733 MHz";
  p.ref_mhz = 733;
  constexpr const char* kKept =
      "estimate: the P4 table's calibrated cycles kept (same 2.4 C path; equal cycles per path, see the calibration "
      "block (a) in costs_linux_2_4_ppc7450.cpp)";

  // --- (b) arch/ppc assembly paths -------------------------------------------------------------
  // System call (LH@2.4.16:arch/ppc/kernel/head.S SystemCall -> EXCEPTION_PROLOG ->
  // transfer_to_handler, entry.S DoSyscall, ret_from_syscall_1, ret_from_except): the sc exception
  // and transfer_to_handler's rfi to the handler with MSR[IR,DR] on (the refills [L4] measured on
  // the 750, ~25 cycles, twice on the 7450's longer pipeline: ~50 for the three transitions of the
  // round trip, ~35 of them here), the prolog's SPRG/SRR saves and the 2.4 frame save of r0-r12,
  // CR, LR, CTR, XER (~60 instructions, one store per clock through the one load/store unit),
  // DoSyscall's table dispatch (~25 instructions); getppid's body (a few loads). Entry ~160 cycles,
  // the round trip 280: [L4]'s 52-cycle minimal path with ~6x the instructions.
  p.set(CostId::syscall_entry, 160, 0, false,
      "estimate: arch/ppc 2.4.16 head.S SystemCall/EXCEPTION_PROLOG + transfer_to_handler (rfi with the MMU on) + "
      "entry.S DoSyscall, ~120 instructions and two serialising transitions on a 7450; scaled from the one PowerPC "
      "measurement found, L4Ka::Pistachio's empty system call on a 500 MHz 750: 51.73 cycles / 27 instructions "
      "(l4ka.org pistachio/powerpc/perf.php); no PowerPC Linux lmbench found");
  // ret_from_syscall_1's errno check, ret_from_except's need_resched / sigpending tests with
  // interrupts off (mtmsr), the register restore (~40 loads) and the final rfi to user mode.
  p.set(CostId::syscall_exit, 120, 0, false,
      "estimate: arch/ppc 2.4.16 entry.S ret_from_syscall_1 + ret_from_except (checks, mtmsr, ~40 restores, rfi)");
  // __copy_tofrom_user (LH@2.4.16:arch/ppc/lib/string.S): per 32-byte line one dcbt (source, one
  // line ahead), one dcbz (destination) and 8 lwz + 8 stw through the 7450's single load/store
  // unit: >= 18 cycles per line, ~0.8 cycles/B with the source in L1 or the core-clock L2
  // (~0.9 GB/s at 733 MHz). Core-clock work: not scaled (memory_bound false).
  p.set(CostId::copy_user_cached, 40, 0.8, false,
      "estimate: arch/ppc/lib/string.S __copy_tofrom_user line loop (dcbt + dcbz + 8 lwz/stw per 32 B) through one "
      "load/store unit, ~0.8 cycles/B cache-resident; per call (alignment prologue, exception-table setup) estimate");
  // The source out of cache (just DMA'd). __copy_tofrom_user's line loop issues the dcbt of line
  // n+1 before it loads line n (prefetched one iteration earlier), so two 32-byte line reads are in
  // flight and one line takes (L + W) / 2: L the line fill on the MPX bus through UniNorth to PC133
  // SDRAM, W the line's own work (0.8 cycles/B x 32 B = 35 ns at 733 MHz). L from the platform's own
  // models: 135 ns for the next line in an open SDRAM row (tests/unit/platform_powermac_g4.cpp, "a
  // CPU line fill from SDRAM"; 157.5 ns for a first line, 180 ns in another row). (135 + 35) / 2 =
  // 85 ns per 32 B = 376 MB/s = 1.95 cycles/B at 733 MHz; dcbz spares the destination read. The
  // 2.4.16 kernel leaves the 7450's L2 prefetch engines (MSSCR0) as the firmware set them: none assumed.
  p.set(CostId::copy_user_uncached, 40, 1.95, true,
      "estimate: __copy_tofrom_user with the source out of cache: dcbt one line ahead keeps two 32-byte line "
      "fills in flight, (L + W) / 2 per line with L = 135 ns (the platform model's SDRAM line fill, next line in "
      "an open row) and W = 35 ns (the cached work): 376 MB/s, 1.95 cycles/B at 733 MHz; dcbz spares the "
      "destination read");
  p.set_group(CostId::copy_user_uncached, nullptr);  // its own copy, not the Xeon table's cost group
  // csum_partial (LH@2.4.16:arch/ppc/lib/checksum.S): lwzu + adde per 32-bit word in a bdnz loop;
  // the adde chain through XER[CA] gives one word per clock at best: ~0.3 cycles/B cache-resident.
  p.set(CostId::csum_partial, 30, 0.3, false,
      "estimate: arch/ppc/lib/checksum.S csum_partial, one lwzu + adde per word (carry chain: ~1 word/clock), "
      "~0.3 cycles/B cache-resident");
  // Context switch: kernel/sched.c schedule() is the same C as on i386 (goodness loop; ~700
  // cycles of the P4's 1758 by the same equal-cycles estimate once its TLB part is taken out),
  // then entry.S _switch (19 non-volatile GPRs + CR/LR saved and restored, the stack switch, an
  // rfi-free return) and switch_mm -> set_context (include/asm-ppc/mmu_context.h): 16 mtsr of the
  // new context's VSIDs with isync. The hashed page table is tagged by VSID: no TLB flush and no
  // refill, unlike the P4's CR3 reload.
  p.set(CostId::context_switch, 900, 0, false,
      "estimate: schedule() C as the P4 (~700 cycles) + entry.S _switch (~100) + set_context's 16 mtsr/isync "
      "(~100: L4Ka::Pistachio's 12-segment-register switch ~40 cycles on a 500 MHz 750, l4ka.org "
      "pistachio/powerpc/perf.php, x16/12, x2 for the 7450's pipeline); no TLB flush on PowerPC (VSID-tagged "
      "hashed page table, asm-ppc/mmu_context.h switch_mm)");
  p.set(CostId::wakeup, 300, 0, false, kKept);
  p.set(CostId::pipe_rw, 276, 0, false, kKept);
  // Interrupt entry and the OpenPIC accesses (see the calibration block).
  p.set(CostId::irq_entry, 260 + 4 * kOpenPicReadCycles + 2 * kOpenPicWriteCycles, 0, false,
      "estimate: exception entry + do_IRQ/ppc_irq_dispatch_handler (~260 cycles, cf. syscall_entry) + the OpenPIC "
      "accesses of 2.4.16 arch/ppc/kernel/open_pic.c: openpic_irq's IACK read, openpic_ack_irq = openpic_disable_irq "
      "(read, write, read-back) + openpic_eoi (write, read-back): 4 reads x 503 + 2 writes x 40 cycles (a register read on the "
      "33 MHz slot bus, KeyLargo's, takes 686 ns through the platform's UniNorth models; research seeds §1.1: "
      "0.3-1.0 us)");
  p.set(CostId::irq_return, 150, 0, false,
      "estimate: arch/ppc entry.S ret_from_intr/ret_from_except (need_resched, sigpending, restore, rfi), as "
      "syscall_exit plus the interrupted-context checks");
  p.set(CostId::apic_eoi, 2 * kOpenPicReadCycles + kOpenPicWriteCycles, 0, false,
      "estimate: the level interrupt's end on OpenPIC, 2.4.16 open_pic.c openpic_end_irq -> openpic_enable_irq "
      "(read, write, read-back until MASK clears): 2 reads x 503 + 1 write x 40 cycles; the EOI write itself is "
      "in irq_entry (openpic_ack_irq)");
  p.set(CostId::timer_interrupt, 1000, 0, false,
      "estimate: arch/ppc/kernel/time.c timer_interrupt: decrementer reload (mtdec), do_timer, timebase-based "
      "xtime update; no PIT latch read as on i386 (P4 table: 1500)");
  p.set(CostId::local_timer, 1000, 0, false, kKept);
  p.set(CostId::run_timer_list, 300, 0, false, kKept);
  p.set(CostId::timer_callback, 150, 0, false, kKept);
  p.set(CostId::softirq_entry, 146, 0, false, kKept);
  // SMP (the dual-800 QuickSilver): spin_lock is lwarx/stwcx. + isync, spin_unlock eieio + a store
  // (LH@2.4.16:include/asm-ppc/spinlock.h); an atomic op a lwarx/stwcx. loop (atomic.h). A
  // reservation on a line in the own cache, ~20 cycles for the pair plus the isync/eieio
  // serialisation: ~60 cycles. The lock's line moving between the CPUs is separate (touch_lines).
  constexpr const char* kLockSrc =
      "estimate: include/asm-ppc/spinlock.h / atomic.h 2.4.16: lwarx/stwcx. on an own-cache line + isync or eieio, "
      "~60 cycles (no LOCK prefix draining a NetBurst store buffer); the cross-CPU line transfer is separate";
  p.set(CostId::spin_lock, 60, 0, false, kLockSrc);
  p.set(CostId::locked_op, 60, 0, false, kLockSrc);
  p.set(CostId::add_interrupt_randomness, 200, 0, false,
      "estimate: drivers/char/random.c add_timer_randomness + batch_entropy_store (get_cycles = mftb on PowerPC), a "
      "few dozen instructions as on the P4");

  // --- (a) generic C paths: the P4's cycles kept -------------------------------------------------
  p.set(CostId::skb_alloc, 292, 0, false, kKept);
  p.set(CostId::skb_free, 292, 0, false, kKept);
  // netif_rx: the P4 entry (584) holds do_gettimeofday's ~475 cycles (its 650 scaled by 0.73) of
  // rdtsc and the i386 offset arithmetic; PowerPC's do_gettimeofday reads the timebase (mftb,
  // arch/ppc/kernel/time.c) and scales it with one mulhwu: ~60 cycles.
  p.set(CostId::netif_rx, 170, 0, false,
      "estimate: the P4 entry without its i386 do_gettimeofday (584 - 475) + PowerPC's timebase read and scale "
      "(mftb, mulhwu: ~60 cycles, arch/ppc/kernel/time.c) = ~170 cycles");
  p.set(CostId::net_rx_action, 219, 0, false, kKept);
  p.set(CostId::ip_rcv, 730, 0, false, kKept);
  p.set(CostId::ip_output, 1095, 0, false, kKept);
  p.set(CostId::ip_forward, 1095, 0, false, kKept);
  p.set(CostId::tcp_v4_rcv, 2190, 0, false, kKept);
  p.set(CostId::tcp_sendmsg, 2190, 0, false, kKept);
  p.set(CostId::tcp_transmit_skb, 1095, 0, false, kKept);
  p.set(CostId::tcp_recvmsg, 1460, 0, false, kKept);
  p.set(CostId::tcp_ack, 1500, 0, false, kKept);
  p.set(CostId::udp_sendmsg, 2190, 0, false, kKept);
  p.set(CostId::udp_rcv, 1898, 0, false, kKept);
  p.set(CostId::udp_recvmsg, 1460, 0, false, kKept);
  p.set(CostId::ip_defrag, 800, 0, false, kKept);
  p.set(CostId::dev_queue_xmit, 730, 0, false, kKept);
  p.set(CostId::net_tx_action, 300, 0, false, kKept);

  // SMP locked-op counts that differ from the P4 table's (the rest are the generic code's, kept).
  p.set_smp_locked_ops(CostId::context_switch, 2,
      "kernel/sched.c __schedule_tail's task_lock + mb(); PowerPC switch_mm (include/asm-ppc/mmu_context.h 2.4.16) "
      "sets the VSIDs without i386's cpu_vm_mask bitops");
  set_what_tags(p);
  return p;
}

Registrar<CostProfile> reg_costs_2_4_ppc7450{linux_2_4_ppc7450()};

}  // namespace
}  // namespace nicsim
