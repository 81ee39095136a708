// Reading the run's counters by their result names (core/result_names.h), for workloads that
// report windows of them (rx_flood, forwarding, tcp_stream, nuttcp).
#pragma once
#include "core/result_names.h"
#include "core/sim_context.h"
#include "drivers-sim/kernel/kernel.h"
#include <cstdint>
#include <map>
#include <string>

namespace nicsim {

/// The sum of the counters whose result name is `name` (0 when none).
inline uint64_t result_counter(const std::string& name) {
  uint64_t n = 0;
  for (auto& [path, v] : sim().counters.all())
    if (result_names()(path) == name) n += *v;
  return n;
}

/// Result-named counters whose name starts with `prefix`, summed by name.
inline std::map<std::string, uint64_t> counters_with_prefix(const std::string& prefix) {
  std::map<std::string, uint64_t> m;
  for (auto& [path, v] : sim().counters.all()) {
    std::string r = result_names()(path);
    if (r.rfind(prefix, 0) == 0) m[r] += *v;
  }
  return m;
}

/// Busy time (process + softirq + hardirq) summed over the CPUs of `k`, exact (Cpu::busy).
inline sc_core::sc_time busy_time(Kernel& k) {
  sc_core::sc_time t = sc_core::SC_ZERO_TIME;
  for (unsigned c = 0; c < k.num_cpus(); ++c)
    for (auto l : {ExecLevel::Process, ExecLevel::Softirq, ExecLevel::Hardirq}) t += k.cpu(c).busy(l);
  return t;
}

/// Interrupts host `host` took so far, summed over its CPUs, on lines whose /proc/interrupts label
/// ("eth0" or "eth1, eth2") names `devname` (counters `<host>.interrupts.CPU<n>.<label>`).
inline uint64_t dev_interrupts(const std::string& host, const std::string& devname) {
  uint64_t n = 0;
  const std::string prefix = host + ".interrupts.CPU";
  for (auto& [path, v] : sim().counters.all()) {
    if (path.rfind(prefix, 0) != 0) continue;
    auto dot = path.find('.', prefix.size());
    if (dot == std::string::npos) continue;
    std::string label = path.substr(dot + 1);
    for (size_t pos = 0; pos <= label.size();) {
      size_t end = label.find(", ", pos);
      if (end == std::string::npos) end = label.size();
      if (label.compare(pos, end - pos, devname) == 0) {
        n += *v;
        break;
      }
      pos = end + 2;
    }
  }
  return n;
}

}  // namespace nicsim
