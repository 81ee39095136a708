// Overrides that keep each workload type's run short (a few ms to tens of ms simulated), for tests
// that run every shipped scenario (tests/scenario/accounting.cpp, tests/scenario/fastmode.cpp).
#pragma once
#include <map>
#include <string>

namespace nicsim::test {

/// workload type -> `nicsim run` arguments (shell syntax) that shorten it.
inline const std::map<std::string, std::string>& short_run_sets() {
  static const std::map<std::string, std::string> k = {
      {"netpipe", "--set workload.lower=1 --set workload.upper=1024 --set workload.trials=2 --set workload.runtm_s=0.002"},
      {"tcp_stream", "--set workload.duration_s=0.05"},
      {"nuttcp", "--set workload.time_limit_s=0.05"},
      {"netperf_rr", "--set workload.duration_s=0.005 --set 'workload.sizes=\"16,1024\"'"},
      {"rx_flood", "--set workload.duration_s=0.002"},
      {"forwarding", "--set workload.packets=2000 --set workload.runs=1 --set workload.average_last=1"},
      {"busbench", "--set workload.sizes=64,1518 --set workload.transfers=4 --set workload.mmio_accesses=4"},
      {"lmbench", "--set workload.iterations=20 --set workload.tries=1"},
  };
  return k;
}

}  // namespace nicsim::test
