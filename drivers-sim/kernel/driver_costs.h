// Cost entries a driver declares for its own paths, per kernel/CPU cost profile.
//
// The kernel's cost table (costs.h CostId) covers the shared kernel paths only. A driver's paths
// (e1000_intr, tg3_poll, ...) belong to the driver: it declares their cycles per call and per byte
// from its own folder, one DriverCostTable per cost profile it has been calibrated on, registered
// like every other component:
//
//   static Registrar<DriverCostTable> reg{driver_cost_table("e1000", "linux-2.4.20-p4xeon",
//       {{"e1000_intr", {150, 0, false, "estimate: ..."}}, ...})};
//
// At probe the driver resolves the names of its paths once against the host's cost profile into a
// DriverCosts handle (Kernel::driver_costs); the hot path charges `k.cost(costs[Path::x])`, an
// array index, with the same arithmetic as a kernel entry (CostProfile::cycles).
#pragma once
#include "drivers-sim/kernel/costs.h"
#include <string>
#include <vector>

namespace nicsim {

/// One path of a driver: its name (the Linux function it stands for, e.g. "e1000_intr") and cost.
struct DriverCostItem {
  std::string path;
  CostEntry cost;  ///< cycles/call, cycles/byte, memory_bound, source (sourced or "estimate: ...")
};

/// A driver's cost entries under one cost profile (Registry<DriverCostTable>). `name` is
/// "<driver>@<profile>" (driver_cost_table builds it), so a driver has at most one table per profile.
struct DriverCostTable {
  std::string name;     ///< "<driver>@<profile>", e.g. "e1000@linux-2.4.20-p4xeon"
  std::string summary;  ///< one line for `nicsim list --verbose`
  std::string driver;   ///< the driver family's folder name, e.g. "e1000" (shared by its versions)
  std::string profile;  ///< CostProfile name, e.g. "linux-2.4.20-p4xeon"
  std::vector<DriverCostItem> items;
};

/// A DriverCostTable named "<driver>@<profile>". Throws std::invalid_argument when two items have
/// the same path or an item has no source (every cost is sourced or an estimate).
DriverCostTable driver_cost_table(std::string driver, std::string profile, std::vector<DriverCostItem> items,
                                  std::string summary = "");

/// The cost entries of one driver's paths, resolved for one cost profile: entry i is paths[i]
/// (index with the driver's own path enum). Built once at probe; copying it is cheap.
class DriverCosts {
 public:
  DriverCosts() = default;
  /// Looks up the table registered for (`driver`, `profile.name`) and each of `paths` in it.
  /// Throws std::invalid_argument naming the driver and the profile when the profile has no table
  /// for the driver (listing the profiles it has one for), or when the table lacks one of `paths`.
  DriverCosts(const std::string& driver, const CostProfile& profile, const std::vector<std::string>& paths);

  template <typename Id>
  const CostEntry& operator[](Id id) const {
    return entries_[static_cast<size_t>(id)];
  }
  size_t size() const { return entries_.size(); }

 private:
  std::vector<CostEntry> entries_;
};

}  // namespace nicsim
