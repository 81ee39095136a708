// Kernel and CPU profiles: what a host runs, as named data.
//
// A platform chooses a KernelProfile (Linux version and its network-core and timer constants) and a
// CpuProfile (ISA, clock range, caches, the cost table its paths are charged from); a scenario host
// may override either by name (`kernel_profile = "..."`, `cpu_profile = "..."`, kernel_param_schema).
// The kernel model never tests a version: it reads these fields (through KernelParams). Profiles
// register themselves like every other component: `static Registrar<KernelProfile> reg{...}` in their
// own .cpp (the first: drivers-sim/kernel/profile_linux_2_4_20.cpp).
#pragma once
#include "core/param_problem.h"
#include "core/params.h"
#include <string>
#include <vector>

namespace nicsim {

/// What bounds one NET_RX softirq run (net_rx_action's `budget`).
enum class RxBudget {
  netdev_max_backlog,  ///< 2.4 and 2.6.11: budget = netdev_max_backlog (the backlog limit doubles as budget)
  netdev_budget,       ///< 2.6.12+: the separate net.core.netdev_budget sysctl
};
const char* rx_budget_name(RxBudget b);

/// How external interrupts are spread over CPUs.
enum class IrqPolicy {
  single_cpu,  ///< all to one CPU (KernelParams::irq_dest_cpu): 2.4 P4 SMP without irqbalance
};
const char* irq_policy_name(IrqPolicy p);

/// A kernel as the model sees it. Every field has its source in the registering .cpp.
struct KernelProfile {
  std::string name;     ///< e.g. "linux-2.4.20-i386"
  std::string summary;  ///< one line for `nicsim list kernels`
  std::string version;  ///< "2.4.20" (shown, never tested by code)
  std::string arch;     ///< "i386"
  unsigned hz = 100;    ///< timer interrupt rate (Hz)
  /// The NET_RX softirq serves a per-CPU poll_list (netif_rx_schedule, dev->poll with quota = weight,
  /// the backlog device for netif_rx); false: net_rx_action drains the backlog directly (2.4 non-NAPI).
  bool napi = false;
  RxBudget rx_budget = RxBudget::netdev_max_backlog;
  unsigned netdev_max_backlog = 300;  ///< input_pkt_queue limit per CPU (packets)
  unsigned netdev_budget = 300;       ///< packets per net_rx_action when rx_budget is netdev_budget
  unsigned weight_p = 64;             ///< the backlog device's weight (NAPI; packets)
  /// net_rx_action / process_backlog stop when jiffies - start exceeds this (jiffies).
  unsigned rx_time_limit_jiffies = 1;
  unsigned tx_queue_len = 100;        ///< ether_setup's dev->tx_queue_len (packets)
  std::string qdisc = "pfifo_fast";   ///< default qdisc of an Ethernet device (only pfifo_fast is modelled)
  /// The copy routine of socket reads/writes and where the checksum is computed (the cost entries
  /// copy_user_* and csum_partial, drivers-sim/kernel/costs.h, charge them).
  std::string copy_routine;
  std::string csum_routine;
  IrqPolicy irq_policy = IrqPolicy::single_cpu;
  std::string source;  ///< where the values come from
};

/// The order in which a CPU stores the bytes of a multi-byte integer in memory (Linux
/// <asm/byteorder.h>: __LITTLE_ENDIAN on i386, __BIG_ENDIAN on PowerPC). Simulated memory holds
/// bytes; a driver's plain store of an int lands in this order (drivers-sim/kernel/byteorder.h).
enum class ByteOrder { little, big };
const char* byte_order_name(ByteOrder o);  ///< "little-endian", "big-endian"

/// A CPU as the software model sees it.
struct CpuProfile {
  std::string name;     ///< e.g. "xeon-prestonia"
  std::string summary;
  std::string isa;      ///< "IA-32 (i686, SSE2)"
  double min_mhz = 0, max_mhz = 0;  ///< core clocks the profile (and its cost table) covers
  unsigned cache_line_bytes = 64;   ///< the unit a DMA write invalidates and a miss fills
  /// Bytes a read miss (or a prefetch) fetches from memory, a power-of-two multiple of the line:
  /// 0 = the line alone. NetBurst: 128, "each read due to a cache miss fetches a sector, consisting
  /// of two adjacent cache lines; a write operation is 64 bytes" (IA-32 Intel Architecture
  /// Optimization Reference Manual, order 248966, Table 1-1 note 1), and a prefetch "accesses a
  /// minimum of two cache lines of data on the Pentium 4" (same manual, ch. 6).
  unsigned read_sector_bytes = 0;
  unsigned l1d_kb = 0, l2_kb = 0;   ///< cache sizes (informational: the cost table holds cache-resident work)
  unsigned l3_kb = 0;               ///< backside L3 (0: none; informational)
  /// Logical processors per core (hyper-threading: 2). The kernel sees packages x threads CPUs,
  /// numbered as the BIOS lists them in the MP/ACPI tables (the first thread of every package,
  /// then the second: logical CPU n is thread n / packages of package n % packages); siblings share
  /// the core's caches (one line state) and its execution time (smt_shared_speed).
  unsigned threads_per_core = 1;
  /// Share of the core's speed a logical processor's computation gets while its sibling is also
  /// executing (Cpu::Params::smt_shared_speed); 1 without hyper-threading.
  double smt_shared_speed = 1.0;
  ByteOrder byte_order = ByteOrder::little;  ///< how a plain store lays out an integer's bytes
  std::string cost_profile;         ///< CostProfile name of the kernel paths (drivers-sim/kernel/costs.h)
  std::string source;
};

/// The registered profile named `name`. Throws std::invalid_argument listing the known names and
/// the nearest one when `name` is unknown.
const KernelProfile& kernel_profile(const std::string& name);
const CpuProfile& cpu_profile(const std::string& name);

/// Two lines for `nicsim describe`: the kernel and CPU profiles `v` names (kernel_param_schema
/// names), with the fields the model reads. Throws std::invalid_argument for an unknown profile.
std::string describe_profiles(const ParamValues& v);

/// ParamProblems (keys "hosts.<host>.kernel_profile" / ".cpu_profile" / ".cpu_mhz") for a host whose
/// resolved params `v` (kernel_param_schema names plus `cpu_mhz` when present) name an unknown
/// profile (with the nearest name as suggestion), or whose cpu_mhz is outside the CPU profile's range.
std::vector<ParamProblem> profile_problems(const std::string& host, const ParamValues& v);

}  // namespace nicsim
