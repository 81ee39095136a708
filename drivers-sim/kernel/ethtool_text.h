// What `ethtool -S DEV` prints (ethtool 1.x do_gstats, the user-space tool of the 2.4 era): the
// driver's ETHTOOL_GSTRINGS names with its ETHTOOL_GSTATS values, one per line as
// "     %.*s: %llu\n" under "NIC statistics:"; a driver reporting no stats (n_stats < 1 in
// ETHTOOL_GDRVINFO, every driver without ETHTOOL_GSTATS) gets "no stats available" (on stderr,
// exit status 94).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nicsim {

inline std::string ethtool_stats_listing(const std::vector<std::pair<std::string, uint64_t>>& stats) {
  if (stats.empty()) return "no stats available\n";
  std::string s = "NIC statistics:\n";
  for (auto& [name, value] : stats) s += "     " + name.substr(0, 32) + ": " + std::to_string(value) + "\n";
  return s;
}

}  // namespace nicsim
