#include "drivers-sim/kernel/driver_costs.h"
#include "core/registry.h"
#include "drivers-sim/kernel/cpu_time.h"
#include <set>
#include <stdexcept>

namespace nicsim {

DriverCostTable driver_cost_table(std::string driver, std::string profile, std::vector<DriverCostItem> items,
                                  std::string summary) {
  std::set<std::string> seen;
  for (auto& it : items) {
    if (!seen.insert(it.path).second)
      throw std::invalid_argument("driver " + driver + ", cost profile " + profile + ": path '" + it.path +
                                  "' declared twice");
    if (!it.cost.source || !*it.cost.source)
      throw std::invalid_argument("driver " + driver + ", cost profile " + profile + ": path '" + it.path +
                                  "' has no source");
  }
  DriverCostTable t;
  t.name = driver + "@" + profile;
  t.summary = summary.empty() ? driver + " driver paths under the " + profile + " cost profile" : std::move(summary);
  t.driver = std::move(driver);
  t.profile = std::move(profile);
  t.items = std::move(items);
  return t;
}

DriverCosts::DriverCosts(const std::string& driver, const CostProfile& profile, const std::vector<std::string>& paths) {
  auto& reg = Registry<DriverCostTable>::instance();
  const DriverCostTable* t = reg.find(driver + "@" + profile.name);
  if (!t) {
    std::string have;
    for (auto& [_, e] : reg.all())
      if (e.driver == driver) have += (have.empty() ? "" : ", ") + e.profile;
    throw std::invalid_argument("driver " + driver + " has no cost entries for cost profile '" + profile.name +
                                "' (it has: " + (have.empty() ? "none" : have) +
                                "); register a DriverCostTable for that profile in the driver's folder");
  }
  entries_.reserve(paths.size());
  for (auto& p : paths) {
    const DriverCostItem* found = nullptr;
    for (auto& it : t->items)
      if (it.path == p) found = &it;
    if (!found)
      throw std::invalid_argument("driver " + driver + ": cost profile '" + profile.name + "' has no entry '" + p +
                                  "' (table " + t->name + ")");
    entries_.push_back(scaled_entry(found->cost, profile.group_scales));  // the kernel's group factors
    entries_.back().what = what_tag(p + " [" + driver + "]");  // the module in brackets, as perf report shows it
  }
}

}  // namespace nicsim
