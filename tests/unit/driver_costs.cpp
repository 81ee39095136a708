// Driver cost entries declared from the driver's folder (drivers-sim/kernel/driver_costs.h).
#include "core/registry.h"
#include "drivers-sim/drivers/e1000/e1000.h"
#include "drivers-sim/kernel/driver_costs.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace driver_costs_test {
using namespace nicsim;

namespace {
enum class FakePath : unsigned { fake_intr, fake_poll };
const std::vector<std::string> kFakePaths = {"fake_intr", "fake_poll"};
// A driver of the test binary only, calibrated on the shipped profile (values are arbitrary).
Registrar<DriverCostTable> fake_reg{driver_cost_table(
    "fakedrv", "linux-2.4.20-p4xeon",
    {{"fake_poll", {120, 2.0, true, "test value"}}, {"fake_intr", {70, 0, false, "test value"}}})};
const CostProfile& p4() { return cost_profile("linux-2.4.20-p4xeon"); }
}  // namespace

TEST_CASE("driver costs: paths resolve by name in the driver's order and cost like kernel entries",
          "[kernel][costs][driver_costs]") {
  DriverCosts c("fakedrv", p4(), kFakePaths);
  REQUIRE(c.size() == 2);
  CHECK(c[FakePath::fake_intr].cycles_per_call == 70);
  CHECK(c[FakePath::fake_poll].cycles_per_call == 120);
  // Memory-bound per-byte part scales with the core clock over the profile's ref_mhz, as CostProfile::cycles.
  CHECK(p4().cycles(c[FakePath::fake_poll], 100, p4().ref_mhz) == Approx(120 + 200));
  CHECK(p4().cycles(c[FakePath::fake_poll], 100, p4().ref_mhz / 2) == Approx(120 + 100));
}

TEST_CASE("driver costs: a profile without the driver's table or a missing path names driver and profile",
          "[kernel][costs][driver_costs]") {
  CostProfile other = p4();
  other.name = "linux-9.9-test";
  try {
    DriverCosts c("fakedrv", other, kFakePaths);
    FAIL("no error for a profile without a table");
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    CHECK(m.find("fakedrv") != std::string::npos);
    CHECK(m.find("linux-9.9-test") != std::string::npos);
    CHECK(m.find("linux-2.4.20-p4xeon") != std::string::npos);  // the profiles it has a table for
  }
  try {
    DriverCosts c("fakedrv", p4(), {"fake_intr", "fake_xmit"});
    FAIL("no error for a missing path");
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    CHECK(m.find("fakedrv") != std::string::npos);
    CHECK(m.find("linux-2.4.20-p4xeon") != std::string::npos);
    CHECK(m.find("fake_xmit") != std::string::npos);
  }
}

TEST_CASE("driver costs: a table refuses a duplicate path and an unsourced entry", "[kernel][costs][driver_costs]") {
  CHECK_THROWS_AS(driver_cost_table("d", "p", {{"a", {1, 0, false, "x"}}, {"a", {2, 0, false, "y"}}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(driver_cost_table("d", "p", {{"a", {1, 0, false, ""}}}), std::invalid_argument);
  CHECK(driver_cost_table("d", "p", {{"a", {1, 0, false, "x"}}}).name == "d@p");
}

TEST_CASE("driver costs: e1000 declares every one of its paths for the shipped profile, each sourced",
          "[kernel][costs][driver_costs][e1000]") {
  DriverCosts c(e1000drv::kCostDriver, p4(), e1000drv::path_names());
  REQUIRE(c.size() == e1000drv::path_names().size());
  for (size_t i = 0; i < c.size(); ++i) {
    INFO(e1000drv::path_names()[i]);
    CHECK(std::string(c[i].source).size() > 0);
    CHECK(c[i].cycles_per_call > 0);
  }
  // Unchanged from the kernel table they moved out of: e1000_intr 150, watchdog 800.
  CHECK(c[e1000drv::Path::e1000_intr].cycles_per_call == 150);
  CHECK(c[e1000drv::Path::e1000_watchdog].cycles_per_call == 800);
}

}  // namespace driver_costs_test
