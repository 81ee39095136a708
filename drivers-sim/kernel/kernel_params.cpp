// KernelParams from the host's profiles and the scenario's overrides, and the scenario keys that
// set them (kernel_params.h).
#include "drivers-sim/kernel/kernel_params.h"
#include "core/calib.h"
#include "drivers-sim/kernel/costs.h"
#include <algorithm>
#include <cmath>

namespace nicsim {

ParamSchema kernel_param_schema(const std::string& kernel_profile, const std::string& cpu_profile) {
  KernelParams d;
  ParamSchema s = {
      string_param("kernel_profile", kernel_profile, {}, "kernel profile the host runs (nicsim list kernels)",
                   "the platform's choice; drivers-sim/kernel/profiles.h"),
      string_param("cpu_profile", cpu_profile, {}, "CPU profile of the host's processors (nicsim list cpus)",
                   "the platform's choice; drivers-sim/kernel/profiles.h"),
      string_param("cost_profile", "", {}, "CPU cost table of kernel paths (nicsim list cpus names them); \"\": the CPU profile's",
                   "drivers-sim/kernel/costs_*.cpp"),
      int_param("irq_dest_cpu", d.irq_dest_cpu, 0, 63, "CPU", "CPU all external IRQs (and IRQ0) are delivered to",
                "research/e7500-p64h2-pcix.md §4 [S39]: 2.4 P4 SMP sent all IRQs to CPU0"),
      int_param("cpus_allowed", 0, 0, 0xFFFFFFFFll, "CPU mask",
                "taskset-like affinity of the workload's processes: bit n = CPU n (0x2: CPU 1 only); 0: every CPU, "
                "placed by the scheduler", "kernel/sched.c 2.4.20 cpus_allowed (unsigned long: 32 bits on i386); what-if override"),
      int_param("process_cpu", -1, -1, 63, "CPU",
                "deprecated: the one CPU the workload's processes may run on (cpus_allowed = 1 << process_cpu); "
                "-1: not set", "kept for old scenarios; use cpus_allowed"),
      int_param("threads_per_core", 0, 0, 2, "threads",
                "logical processors per core: 1 = hyper-threading off in the BIOS, 2 = on; 0: the CPU profile's",
                "CpuProfile::threads_per_core (xeon-prestonia-ht: 2); what-if override"),
      bool_param("hz_tick", d.hz_tick, "generate the HZ timer interrupts (IRQ0 and LOC)", "Linux 2.4 i386"),
      int_param("hz", 0, 0, 1000, "Hz", "timer interrupt rate; 0: the kernel profile's HZ",
                "kernel profile (linux-2.4.20-i386: tg3-bonding-tcp-gmac-formats.md §2.3: HZ=100)"),
      real_param("tick_phase_us", -1.0, -1.0, 1e5, "µs", "offset of the first timer tick; negative: drawn from the run seed (uniform over one tick period)",
                 "estimate: the phase of a host's timer tick is arbitrary; DESIGN.md: default offsets come from the seed"),
      real_param("halt_exit_latency_us", std::round(to_us(d.halt_exit_latency) * 1e6) / 1e6, 0.0, 100.0, "µs",
                 "HLT (C1) exit latency of an idle CPU", "estimate: no P4 Xeon figure found"),
      real_param("ipi_latency_us", std::round(to_us(d.ipi_latency) * 1e6) / 1e6, 0.0, 100.0, "µs", "reschedule IPI flight time",
                 "estimate: one FSB interrupt message"),
      int_param("netdev_max_backlog", 0, 0, 100000, "packets",
                "per-CPU receive backlog limit; 0: the kernel profile's", "kernel profile (net/core/dev.c 2.4: 300)"),
  };
  for (const CostGroup& g : cost_groups()) {
    if (std::find(g.cpu_profiles.begin(), g.cpu_profiles.end(), cpu_profile) == g.cpu_profiles.end()) continue;
    s.push_back(calibratable(real_param(g.param, 1.0, 0.0, 10.0, "x", g.doc, g.source), g.lo, g.lo_why, g.hi,
                             g.hi_why, g.mechanism));
  }
  return s;
}

KernelParams kernel_params_of(const KernelProfile& k, const CpuProfile& c) {
  KernelParams p;
  p.kernel_profile = k.name;
  p.cpu_profile = c.name;
  p.cost_profile = c.cost_profile;
  p.hz = k.hz;
  p.napi = k.napi;
  p.rx_budget = k.rx_budget;
  p.netdev_max_backlog = k.netdev_max_backlog;
  p.netdev_budget = k.netdev_budget;
  p.weight_p = k.weight_p;
  p.rx_time_limit_jiffies = k.rx_time_limit_jiffies;
  p.tx_queue_len = k.tx_queue_len;
  p.cache_line_bytes = c.cache_line_bytes;
  p.read_sector_bytes = c.read_sector_bytes;
  p.threads_per_core = c.threads_per_core;
  p.smt_shared_speed = c.smt_shared_speed;
  p.byte_order = c.byte_order;
  return p;
}

unsigned threads_per_core_of(const ParamValues& v) {
  if (v.has("threads_per_core") && v.i("threads_per_core") > 0) return static_cast<unsigned>(v.i("threads_per_core"));
  return v.has("cpu_profile") ? cpu_profile(v.s("cpu_profile")).threads_per_core : 1;
}

KernelParams kernel_params_from(const ParamValues& v, const std::string& host, unsigned cpus, double cpu_mhz) {
  KernelParams p = kernel_params_of(kernel_profile(v.s("kernel_profile")), cpu_profile(v.s("cpu_profile")));
  p.host = host;
  p.threads_per_core = threads_per_core_of(v);
  p.cpus = cpus * p.threads_per_core;
  p.cpu_mhz = cpu_mhz;
  if (!v.s("cost_profile").empty()) p.cost_profile = v.s("cost_profile");
  p.irq_dest_cpu = static_cast<unsigned>(v.i("irq_dest_cpu"));
  if (v.i("cpus_allowed") > 0) p.cpus_allowed = static_cast<uint64_t>(v.i("cpus_allowed"));
  if (v.i("process_cpu") >= 0) p.cpus_allowed = uint64_t(1) << v.i("process_cpu");
  p.hz_tick = v.b("hz_tick");
  if (v.i("hz") > 0) p.hz = static_cast<unsigned>(v.i("hz"));
  p.tick_phase = us(std::max(0.0, v.r("tick_phase_us")));  // negative: the testbed draws it from the seed
  p.halt_exit_latency = us(v.r("halt_exit_latency_us"));
  p.ipi_latency = us(v.r("ipi_latency_us"));
  if (v.i("netdev_max_backlog") > 0) p.netdev_max_backlog = static_cast<unsigned>(v.i("netdev_max_backlog"));
  for (const CostGroup& g : cost_groups())
    if (v.has(g.param) && v.r(g.param) != 1.0) p.cost_group_scales.emplace_back(g.name, v.r(g.param));
  return p;
}

}  // namespace nicsim
