// result.json "hardware.<host>" reports the kernel values a run actually used: the profile's HZ,
// backlog and cost table where the scenario left the "profile's value" placeholders (0 / ""),
// and the seeded tick phase where it asked for one (a negative tick_phase_us).
#include "platforms/run_workload.h"
#include "platforms/scenario.h"
#include <catch2/catch.hpp>
#include <sstream>

// This file's own names, apart from the other files of a unity batch.
namespace result_hardware_test {
using namespace nicsim;


TEST_CASE("result hardware: the kernel parameters the run used, not the placeholders of the echo",
          "[platform][results]") {
  Scenario s = load_scenario(std::string(NICSIM_SOURCE_DIR) + "/scenarios/default.toml",
                             {"workload.upper=1", "workload.trials=1", "workload.runtm_s=0.001", "hosts.beta.hz=1000"});
  nlohmann::json result = nlohmann::json::object();
  std::ostringstream out;
  REQUIRE(run_workload(s, out, result) == 0);
  const auto& a = result["hardware"]["alpha"];
  CHECK(a["kernel_profile"] == "linux-2.4.20-i386");
  CHECK(a["cost_profile"] == "linux-2.4.20-p4xeon");
  CHECK(a["hz"] == 100);
  CHECK(a["netdev_max_backlog"] == 300);
  CHECK(a["tick_phase_us"].get<double>() >= 0.0);
  CHECK(a["tick_phase_us"].get<double>() < 1e4);  // one 10 ms tick at HZ = 100
  CHECK(result["hardware"]["beta"]["hz"] == 1000);  // a scenario value wins over the profile
  CHECK(result["hardware"]["beta"]["tick_phase_us"].get<double>() < 1e3);
}

}  // namespace result_hardware_test
