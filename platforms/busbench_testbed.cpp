// Glue between the Testbed (issue 2, not in this branch) and busbench. When the Testbed lands,
// replace the body with, e.g.:
//   const Scenario& sc = tb.scenario();
//   HostHw& host = tb.host(sc.workload.params.s("host").empty() ? sc.hosts.front().name
//                                                               : sc.workload.params.s("host"));
//   return run_busbench(host, sc.workload.params, out, results);
#include "platforms/busbench.h"

namespace nicsim {

int run_busbench_on_testbed(Testbed&, std::ostream& out, nlohmann::json& results) {
  out << "busbench: this build has no Testbed yet; run it with run_busbench(HostHw&, ...)\n";
  results["error"] = "busbench needs the Testbed";
  return 1;
}

}  // namespace nicsim
