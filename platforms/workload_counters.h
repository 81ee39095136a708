// Reading the run's counters by their result names (core/result_names.h), for workloads that
// report windows of them (rx_flood, forwarding).
#pragma once
#include "core/result_names.h"
#include "core/sim_context.h"
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

}  // namespace nicsim
