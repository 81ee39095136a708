// Running a loaded scenario in the test process the way `nicsim run` does: the Testbed (hardware
// and host software), then the scenario's WorkloadEntry.
#pragma once
#include "core/registry.h"
#include "platforms/scenario.h"
#include "platforms/testbed.h"
#include <catch2/catch.hpp>
#include <iostream>
#include <sstream>

namespace nicsim::test {

/// What one run left: the workload's return code (0 = ok), its printed output, its result JSON
/// (metrics, ...), and the testbed (for hardware_json and the like).
struct ScenarioRun {
  int rc = -1;
  std::string text;
  nlohmann::json res;
  Testbed* tb = nullptr;
};

/// Builds `sc`'s testbed and runs its workload to the end; prints the output (visible with ctest
/// -V). One run per process: SystemC elaborates once, so the testbed lives until the process ends.
/// REQUIREs that the workload type is registered.
inline ScenarioRun run_in_process(const Scenario& sc) {
  auto* we = Registry<WorkloadEntry>::instance().find(sc.workload.type);
  REQUIRE(we);
  ScenarioRun r;
  r.tb = new Testbed(sc);  // deliberately never deleted (see above)
  std::ostringstream out;
  r.rc = we->run(*r.tb, out, r.res);
  r.text = out.str();
  std::cout << r.text;
  return r;
}

}  // namespace nicsim::test
