// Where a router's limit sits: per forwarded packet, each CPU's busy time (split into instruction
// work and the stalls the model times in hardware: loads of lines a device wrote by DMA, descriptor
// lines among them, and MMIO) and each bus's occupancy (PCI/PCI-X segments, hub links, DRAM data
// bus: the `<...>.busy_ns` counters), with the rate each alone would allow. Read from result.json
// (`counters`, `cpu_profile`, `metrics.forwarded_kpps`); pure functions, no SystemC.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nicsim {

struct ForwardingResource {
  std::string name;         ///< "cpu0", "cpu0: DMA'd-line stalls (descriptors)", "p64h2.segA", "dram", ...
  bool part = false;        ///< a share of the row above it (a CPU's split), not a resource of its own
  double ns_per_packet = 0; ///< busy time per forwarded packet
  double ceiling_kpps = 0;  ///< 1e6 / ns_per_packet: the rate at which this alone is 100 % busy (0: none)
  double utilisation = 0;   ///< ns_per_packet x the measured forwarded rate (0 without metrics.forwarded_kpps)
};

struct ForwardingResources {
  std::string host;
  double forwarded = 0;        ///< <host>.netstat.Ip.ForwDatagrams over the whole simulation
  double forwarded_kpps = 0;   ///< metrics.forwarded_kpps (0 when absent)
  /// CPUs (each followed by its parts when it is busy at least a tenth of the busiest CPU's time),
  /// then buses, largest first.
  std::vector<ForwardingResource> rows;
  std::string binding;         ///< the resource (not a part) with the lowest ceiling
};

/// One entry per host that forwarded packets (ForwDatagrams > 0), in host order.
std::vector<ForwardingResources> forwarding_resources(const nlohmann::json& result);
/// The text `nicsim explain --cpu` prints after the profiles ("" when nothing was forwarded).
std::string format_forwarding_resources(const std::vector<ForwardingResources>& r);
nlohmann::json forwarding_resources_json(const std::vector<ForwardingResources>& r);

}  // namespace nicsim
