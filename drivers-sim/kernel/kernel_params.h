// What one host's kernel model runs with (KernelParams) and the scenario keys that set it
// (kernel_params.cpp). The values come from the host's kernel and CPU profiles (profiles.h) and
// the overrides a scenario sets; the code that reads them is spread over the files kernel.h names.
// A difference between kernel versions is a field here, filled from the KernelProfile, never a
// version test in the code that reads it.
#pragma once
#include "core/params.h"
#include "core/units.h"
#include "drivers-sim/kernel/profiles.h"
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nicsim {

/// What one host's kernel model runs with. The defaults are the linux-2.4.20-i386 kernel profile on
/// the xeon-prestonia CPU profile (profile_linux_2_4_20.cpp; tests/unit/kernel_profiles.cpp holds
/// them equal); kernel_params_from fills them from the host's profiles and overrides.
struct KernelParams {
  std::string host = "host";  ///< host name: prefix of counters and journey "where"
  unsigned cpus = 1;          ///< logical CPUs the kernel sees: platform param `cpus` x threads_per_core
  /// Logical processors per core (CpuProfile::threads_per_core; scenario key threads_per_core):
  /// logical CPU n runs on core n % (cpus / threads_per_core), whose caches and execution time it
  /// shares with the other threads of that core.
  unsigned threads_per_core = 1;
  double smt_shared_speed = 1.0;  ///< CpuProfile::smt_shared_speed (Cpu::Params)
  double cpu_mhz = 2400;      ///< platform param `cpu_mhz`
  std::string kernel_profile = "linux-2.4.20-i386";  ///< KernelProfile name (shown; fields below)
  std::string cpu_profile = "xeon-prestonia";        ///< CpuProfile name (shown; fields below)
  std::string cost_profile = "linux-2.4.20-p4xeon";  ///< CpuProfile::cost_profile unless overridden
  /// CpuProfile::byte_order: how the CPU lays out an integer's bytes in memory (a driver's plain
  /// store; drivers-sim/kernel/byteorder.h). xeon-prestonia: little-endian.
  ByteOrder byte_order = ByteOrder::little;
  /// KernelProfile::napi: NET_RX serves the per-CPU poll_list (netif_rx_schedule, dev->poll, the
  /// backlog device); false: net_rx_action drains the backlog itself (2.4 non-NAPI).
  bool napi = false;
  RxBudget rx_budget = RxBudget::netdev_max_backlog;  ///< KernelProfile::rx_budget
  unsigned netdev_budget = 300;                       ///< KernelProfile::netdev_budget (packets)
  unsigned weight_p = 64;                             ///< KernelProfile::weight_p: backlog device weight
  unsigned rx_time_limit_jiffies = 1;                 ///< KernelProfile::rx_time_limit_jiffies
  unsigned tx_queue_len = 100;                        ///< KernelProfile::tx_queue_len: NetDevice default
  /// CPU every external IRQ is delivered to. research/e7500-p64h2-pcix.md §4 [S39]: 2.4 P4 SMP
  /// kernels sent all IRQs to CPU0. Also the timekeeping CPU (IRQ0).
  unsigned irq_dest_cpu = 0;
  /// cpus_allowed of a process started without an explicit CPU (spawn_process(name, task)): bit n
  /// = CPU n may run it (taskset's mask). All ones: any CPU (2.4.20's default, CPU_MASK_ALL).
  uint64_t cpus_allowed = ~uint64_t(0);
  bool hz_tick = true;  ///< generate IRQ0 and local APIC timer ticks
  unsigned hz = 100;    ///< tg3-bonding-tcp-gmac-formats.md §2.3: HZ = 100 on i386
  /// Offset of the first tick from time 0 (ticks at tick_phase + k·tick_period, k >= 1).
  /// estimate: 0; the phase between two hosts' ticks is arbitrary.
  sc_time tick_phase = SC_ZERO_TIME;
  /// Vector of IRQ0 (PIT timer) on the IO-APIC. estimate: 2.4 io_apic.c assign_irq_vector
  /// hands out vectors from FIRST_DEVICE_VECTOR 0x31 in steps of 8; the chipset model must not
  /// assign this vector to a device.
  unsigned timer_irq_vector = 0x31;
  /// HLT exit latency of an idle core (see Cpu::Params).
  sc_time halt_exit_latency = us(1.0);
  /// Time for an IPI (reschedule) to reach another CPU's local APIC.
  /// estimate: one interrupt message on the 400 MT/s FSB plus APIC acceptance, ~0.5 µs.
  sc_time ipi_latency = us(0.5);
  unsigned netdev_max_backlog = 300;  ///< net/core/dev.c 2.4
  /// First DRAM address the kernel's DMA allocator hands out. estimate: above the first 16 MB
  /// (kernel image, ISA DMA zone).
  uint64_t dma_base = 16ull << 20;
  /// Bytes of one CPU cache line: the unit a DMA write invalidates and a miss fills over the FSB.
  /// research/e7500-p64h2-pcix.md §2/§7: 64 B on the P4 (the PCI cache line size Linux 2.4.20
  /// expects on this board; the P4's 128-byte L2 lines are two 64-byte sectors, each filled by its
  /// own FSB read).
  unsigned cache_line_bytes = 64;
  /// Bytes a read miss or a prefetch fetches from memory: the aligned sector around the line
  /// (CpuProfile::read_sector_bytes). 0 or cache_line_bytes: the line alone. Larger: the other
  /// lines of the sector are fetched too, each by its own FSB read right after the demanded one,
  /// without stalling the load (NetBurst's adjacent cache line prefetch).
  unsigned read_sector_bytes = 0;
  /// Extra time a load spends when the line is modified in another CPU's cache (HITM): the FSB
  /// snoop phase is stalled while the owner looks the line up and queues its implicit writeback;
  /// the transaction itself is the line read the chipset model times. estimate: research
  /// linux24-smp-network-costs.md §2 has no measured HITM latency; two snoop-stall extensions of
  /// 2 BCLK each at the 100 MHz bus clock of the 400 MT/s FSB (IA-32 bus protocol: a stalled
  /// snoop result repeats every 2 clocks) = 40 ns.
  sc_time hitm_snoop_stall = ns(40);
  /// Factors applied to the cost groups of the host's cost table (CostGroup, costs.h): (group name,
  /// factor), from the scenario keys the groups declare (e.g. linux26_profile_cost_scale); only the
  /// factors other than 1 are listed.
  std::vector<std::pair<std::string, double>> cost_group_scales;
};

/// The scenario-settable kernel parameters (names as in KernelParams; times in µs), with their
/// defaults, units and sources, for a platform's or host's ParamSchema. `kernel_profile` and
/// `cpu_profile` default to the platform's choice; `hz`, `netdev_max_backlog` (0) and
/// `cost_profile` ("") default to the profiles' values. Each cost group declared for `cpu_profile`
/// (cost_groups(), costs.h) adds its scale parameter, default 1, declared calibratable. Unknown profile names are reported by
/// profile_problems (drivers-sim/kernel/profiles.h), to be called from the platform's check.
ParamSchema kernel_param_schema(const std::string& kernel_profile = "linux-2.4.20-i386",
                                const std::string& cpu_profile = "xeon-prestonia");
/// KernelParams from `v` (which must hold every kernel_param_schema() name) plus the host name
/// and the platform's CPU count (packages) and clock: the named profiles' fields, then the overrides
/// that are set; `cpus` of the result is packages x threads_per_core_of(v). Throws std::invalid_argument for an unknown profile name.
KernelParams kernel_params_from(const ParamValues& v, const std::string& host, unsigned cpus, double cpu_mhz);
/// Logical processors per core a host's resolved params `v` (kernel_param_schema names) give: the
/// scenario's threads_per_core, or the CPU profile's when it is 0. Throws std::invalid_argument for
/// an unknown CPU profile.
unsigned threads_per_core_of(const ParamValues& v);
/// KernelParams of `k` on `c` (cost_profile = c.cost_profile), other fields at their defaults.
KernelParams kernel_params_of(const KernelProfile& k, const CpuProfile& c);

}  // namespace nicsim
