// busbench through the Testbed (`nicsim run scenarios/busbench/*.toml`).
#include "platforms/busbench.h"
#include <fmt/core.h>
#include <stdexcept>

namespace nicsim {

int run_busbench_on_testbed(Testbed& tb, std::ostream& out, nlohmann::json& results) {
  const ParamValues& wp = tb.scenario().workload.params;
  std::string name = wp.has("host") ? wp.s("host") : std::string();
  if (tb.hosts().empty()) throw std::runtime_error("busbench: the scenario has no host");
  // busbench drives one host's front-side bus itself (no CPU model); other hosts would be left
  // with unbound CPU ports.
  if (tb.hosts().size() > 1) throw std::runtime_error("busbench: runs on a scenario with exactly one host");
  if (name.empty()) name = tb.hosts().front().name();
  TestbedHost& h = tb.host(name);
  return run_busbench(*h.hw, wp, out, results);
}

}  // namespace nicsim
