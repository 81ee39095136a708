// CPU cost table of kernel paths, per kernel + CPU profile (DESIGN.md "Software model").
//
// Each entry is cycles per call + cycles per byte, with its source or "estimate: ...". MMIO and
// memory traffic are NOT here: they go through the hardware models (Cpu::mmio, DMA), and so do the
// CPU's cache misses on lines a device wrote by DMA (Kernel::load_dma_lines: a line fill through
// the chipset and DRAM models). The entries are the cache-resident work of each path.
// Per-byte costs of memory-bound copies are given at the profile's reference clock and scale with
// the core clock (a copy limited by DRAM takes the same time, so fewer cycles on a slower core).
#pragma once
#include <array>
#include <cstdint>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace nicsim {

/// The kernel paths software charges. Names follow the Linux 2.4 functions they stand for.
/// Drivers' own paths are not here: a driver declares them from its folder (driver_costs.h).
enum class CostId : unsigned {
  syscall_entry,       ///< int 0x80 entry (system_call, SAVE_ALL, dispatch)
  syscall_exit,        ///< ret_from_sys_call / iret
  copy_user_cached,    ///< copy_{to,from}_user with cache-resident source
  copy_user_uncached,  ///< copy_{to,from}_user with a source out of cache (e.g. just DMA'd)
  csum_partial,        ///< software Internet checksum over bytes
  skb_alloc,           ///< alloc_skb: skbuff_head_cache + kmalloc of the data
  skb_free,            ///< kfree_skb / __kfree_skb
  netif_rx,            ///< netif_rx incl. eth_type_trans and the timestamp (get_fast_time)
  net_rx_action,       ///< net_rx_action per packet (dequeue, deliver to the ptype handler)
  ip_rcv,              ///< ip_rcv + ip_rcv_finish + ip_local_deliver (route cache hit)
  ip_output,           ///< ip_queue_xmit + ip_output + ip_finish_output (neighbour cached)
  tcp_v4_rcv,          ///< tcp_v4_rcv + tcp_rcv_established (header prediction path)
  tcp_sendmsg,         ///< tcp_sendmsg per call (skb fill; copy charged separately)
  tcp_transmit_skb,    ///< tcp_transmit_skb: header build, clone
  tcp_recvmsg,         ///< tcp_recvmsg per call (copy charged separately)
  tcp_ack,             ///< tcp_ack processing of an incoming ACK (clean_rtx_queue etc.)
  udp_sendmsg,         ///< udp_sendmsg + ip_build_xmit per call (route, cork-free set-up; copy and skb separate)
  udp_rcv,             ///< udp_rcv + udp_v4_lookup + udp_queue_rcv_skb + sock_queue_rcv_skb + sock_def_readable
  udp_recvmsg,         ///< udp_recvmsg + skb_recv_datagram per call (copy charged separately)
  ip_defrag,           ///< ip_defrag per fragment (ip_find hash, ip_frag_queue insert; ip_frag_reasm share)
  dev_queue_xmit,      ///< dev_queue_xmit + pfifo_fast enqueue/dequeue + qdisc_restart
  net_tx_action,       ///< net_tx_action per invocation
  wakeup,              ///< try_to_wake_up + reschedule_idle, per woken task
  context_switch,      ///< schedule() + switch_to + mm switch (TLB flush) and refill
  pipe_rw,             ///< pipe_read/pipe_write body (fget/fput, i_sem, pipe bookkeeping); calibration only
  irq_entry,           ///< interrupt gate, common_interrupt SAVE_ALL, do_IRQ bookkeeping
  irq_return,          ///< ret_from_intr, RESTORE_ALL, iret
  apic_eoi,            ///< ack_APIC_irq (local APIC EOI write) incl. end_level_ioapic_irq's TMR read
  softirq_entry,       ///< do_softirq bookkeeping per invocation
  timer_interrupt,     ///< timer_interrupt/do_timer (IRQ0 on the timekeeping CPU)
  local_timer,         ///< smp_local_timer_interrupt/update_process_times (every CPU, per tick)
  run_timer_list,      ///< run_timer_list per TIMER_BH pass
  timer_callback,      ///< per expired timer (detach + call)
  spin_lock,           ///< spin_lock + spin_unlock on an SMP kernel (lock; decb, the release store); UP: none
  locked_op,           ///< one other LOCK-prefixed instruction of an SMP kernel (atomic_t, rwlock, semaphore,
                       ///< bitop, mb()); UP: none (include/asm-i386 LOCK / LOCK_PREFIX are empty without SMP)
  add_interrupt_randomness,  ///< handle_IRQ_event's entropy sample for an SA_SAMPLE_RANDOM line (drivers/char/random.c)
  ip_forward,          ///< ip_forward + ip_forward_finish + ip_output + ip_finish_output2 (hh cache) per forwarded packet
  count_
};
constexpr size_t kCostCount = static_cast<size_t>(CostId::count_);

/// "syscall_entry", ... (the enumerator's name).
const char* cost_name(CostId id);

struct CostEntry {
  double cycles_per_call = 0;
  double cycles_per_byte = 0;
  bool memory_bound = false;  ///< per-byte part scales with core MHz / ref_mhz
  const char* source = "";    ///< research note / source key, or "estimate: ..."
  /// CPU-profile tag of the entry (drivers-sim/kernel/cpu_time.h): a kernel entry's is
  /// what_tag(CostId), a driver entry's is set when DriverCosts resolves it; 0 untagged.
  uint16_t what = 0;
  /// LOCK-prefixed instructions an SMP build of the kernel executes on this path that a UP build
  /// does not (atomic_t ops, rwlocks, semaphores, bitops, mb(); counted in the 2.4.20 source, listed
  /// in smp_locked_source). Kernel::cost charges them as that many CostId::locked_op on a host
  /// with cpus > 1 and not at all on UP. 0: none, or not counted.
  unsigned smp_locked_ops = 0;
  const char* smp_locked_source = "";  ///< which 2.4.20 functions take them
  /// The cost group the entry belongs to (CostGroup::name), or nullptr: entries converted from one
  /// source by one unmeasured factor form a group a kernel parameter scales as one (cost_groups()).
  const char* group = nullptr;
};

/// A named group of cost entries whose cycles come from one source through one unmeasured factor
/// (e.g. a profile measured on another CPU), so that one kernel parameter, `param`, scales them
/// together: cycles_per_call and cycles_per_byte of every entry tagged with the group, the kernel's
/// and the drivers' alike (their LOCK-prefixed instructions, charged separately, are not scaled).
/// The parameter is an estimate (default 1) a calibration may fit within [lo, hi]; each bound has
/// its physical argument (core/calib.h).
struct CostGroup {
  const char* name;       ///< the tag the entries carry (CostEntry::group)
  const char* param;      ///< the kernel parameter (scenario key) that scales them
  const char* doc;        ///< what the factor is
  const char* source;     ///< "estimate: ..." (why 1 is the nominal value)
  double lo;              ///< hard lower bound of the factor
  const char* lo_why;     ///< its physical argument
  double hi;              ///< hard upper bound
  const char* hi_why;     ///< its physical argument
  const char* mechanism;  ///< what the factor sets in the model
  /// The CPU profiles whose hosts may carry entries of the group (their kernel parameter schemas
  /// declare `param`), e.g. {"xeon-prestonia", "xeon-prestonia-ht"}.
  std::vector<const char*> cpu_profiles;
};

/// Every declared cost group (each declared in its cost table's file), in a fixed order. Safe to call
/// during static initialisation (the platform schemas are built then).
const std::vector<CostGroup>& cost_groups();

struct CostProfile {
  std::string name;       ///< e.g. "linux-2.4.20-p4xeon"
  std::string summary;
  double ref_mhz = 2400;  ///< the core clock the per-byte memory-bound entries were derived at
  std::array<CostEntry, kCostCount> entries{};

  const CostEntry& at(CostId id) const { return entries[static_cast<size_t>(id)]; }
  /// Cycles for one call of `id` over `bytes` bytes on a core at `mhz` MHz:
  /// cycles_per_call + bytes × cycles_per_byte × (memory_bound ? mhz / ref_mhz : 1).
  double cycles(CostId id, size_t bytes, double mhz) const { return cycles(at(id), bytes, mhz); }
  /// The same for an entry of this profile that is not in `entries` (a driver's, driver_costs.h).
  double cycles(const CostEntry& e, size_t bytes, double mhz) const;

  /// A table's builder: entry `id` costs `cycles_per_call` + `cycles_per_byte` per byte (scaled with
  /// the core clock when `memory_bound`), from `source`. The SMP locked-op count and the CPU-profile
  /// tag are left as they are (a table built from another keeps that table's counts).
  void set(CostId id, double cycles_per_call, double cycles_per_byte, bool memory_bound, const char* source);
  /// A table's builder: an SMP kernel takes `n` LOCK-prefixed instructions on `id`'s path that a UP
  /// kernel does not, counted in the functions `source` names (CostEntry::smp_locked_ops).
  void set_smp_locked_ops(CostId id, unsigned n, const char* source);
  /// A table's builder: entry `id` belongs to cost group `group` (CostEntry::group, cost_groups()).
  void set_group(CostId id, const char* group) { entries[static_cast<size_t>(id)].group = group; }

  /// Multiply the cycles of every entry in `group` by `factor` and remember it (group_scales), so
  /// that a driver's entries resolved against this table are scaled alike (DriverCosts).
  void scale_group(const std::string& group, double factor);
  /// The factors applied by scale_group, in order.
  std::vector<std::pair<std::string, double>> group_scales;
};

/// `e` with its cycles multiplied by the factor `scales` holds for its group (1 when none does).
CostEntry scaled_entry(CostEntry e, const std::vector<std::pair<std::string, double>>& scales);

/// The registered cost table named `name` (each table registers itself from its own file,
/// costs_<kernel>_<cpu>.cpp, with a static Registrar<CostProfile>). Throws std::invalid_argument
/// naming the known tables and the nearest name.
const CostProfile& cost_profile(const std::string& name);
/// Names of the registered cost tables, sorted.
std::vector<std::string> cost_profile_names();
/// Sets every entry's CPU-profile tag (`what` = what_tag(CostId)): a table's builder calls it last.
void set_what_tags(CostProfile& p);

/// The calibrated Linux 2.4.20 / Pentium 4 Xeon table (costs_linux_2_4_20_p4xeon.cpp), built anew:
/// what tables for other kernels on the same CPU start from. Cycles at ref_mhz 2400.
CostProfile linux_2_4_20_p4xeon_costs();

/// The cost group of the 2.4.20 Xeon table's out-of-cache copy (copy_user_uncached, an estimate from a
/// range): the kernel parameter `uncached_copy_cost_scale` scales it (cost_groups()). Tables built from
/// the 2.4.20 one that set their own copy (linux-2.4-ppc7450) leave the group.
constexpr const char* kUncachedCopyGroup = "linux-2.4.20-p4xeon-uncached-copy";
CostGroup uncached_copy_cost_group();

}  // namespace nicsim
