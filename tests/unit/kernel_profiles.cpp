// Kernel and CPU profiles as named data (drivers-sim/kernel/profiles.h): the first profiles are the
// model's former constants, scenario names are checked with suggestions, overrides apply.
#include "drivers-sim/kernel/kernel.h"
#include <catch2/catch.hpp>

using namespace nicsim;

TEST_CASE("profiles: linux-2.4.20-i386 on xeon-prestonia gives the KernelParams defaults (the former constants)",
          "[kernel][profiles]") {
  const KernelParams d;
  const KernelParams p = kernel_params_of(kernel_profile("linux-2.4.20-i386"), cpu_profile("xeon-prestonia"));
  CHECK(p.kernel_profile == d.kernel_profile);
  CHECK(p.cpu_profile == d.cpu_profile);
  CHECK(p.cost_profile == "linux-2.4.20-p4xeon");
  CHECK(p.hz == 100);
  CHECK(p.napi == false);
  CHECK(p.rx_budget == RxBudget::netdev_max_backlog);
  CHECK(p.netdev_max_backlog == 300);
  CHECK(p.rx_time_limit_jiffies == 1);
  CHECK(p.tx_queue_len == 100);
  CHECK(p.cache_line_bytes == 64);
  CHECK(p.hz == d.hz);
  CHECK(p.napi == d.napi);
  CHECK(p.netdev_max_backlog == d.netdev_max_backlog);
  CHECK(p.netdev_budget == d.netdev_budget);
  CHECK(p.weight_p == d.weight_p);
  CHECK(p.rx_time_limit_jiffies == d.rx_time_limit_jiffies);
  CHECK(p.tx_queue_len == d.tx_queue_len);
  CHECK(p.cache_line_bytes == d.cache_line_bytes);
}

TEST_CASE("profiles: scenario values resolve through the named profiles, set overrides win", "[kernel][profiles]") {
  ParamValues v(kernel_param_schema("linux-2.4.20-i386", "xeon-prestonia"));
  KernelParams p = kernel_params_from(v, "h", 2, 2200);
  CHECK(p.hz == 100);
  CHECK(p.netdev_max_backlog == 300);
  CHECK(p.cost_profile == "linux-2.4.20-p4xeon");
  v.set("hz", int64_t{1000});
  v.set("netdev_max_backlog", int64_t{1000});
  p = kernel_params_from(v, "h", 2, 2200);
  CHECK(p.hz == 1000);
  CHECK(p.netdev_max_backlog == 1000);
  v.set("kernel_profile", std::string("linux-2.4.2O-i386"));
  CHECK_THROWS_AS(kernel_params_from(v, "h", 2, 2200), std::invalid_argument);
}

TEST_CASE("profiles: unknown names are ParamProblems with the nearest name, cpu_mhz within the CPU profile",
          "[kernel][profiles]") {
  ParamValues v(kernel_param_schema("linux-2.4.20-i386", "xeon-prestonia"));
  v.set("cpu_mhz", 2400.0);
  CHECK(profile_problems("alpha", v).empty());
  v.set("kernel_profile", std::string("linux-2.4.2-i386"));
  v.set("cpu_profile", std::string("xeon-prestona"));
  auto probs = profile_problems("alpha", v);
  REQUIRE(probs.size() == 2);
  CHECK(probs[0].key == "hosts.alpha.kernel_profile");
  CHECK(probs[0].suggestion == "linux-2.4.20-i386");
  CHECK(probs[1].key == "hosts.alpha.cpu_profile");
  CHECK(probs[1].suggestion == "xeon-prestonia");
  v.set("cpu_profile", std::string("xeon-prestonia"));
  v.set("kernel_profile", std::string("linux-2.4.20-i386"));
  v.set("cpu_mhz", 3200.0);
  probs = profile_problems("alpha", v);
  REQUIRE(probs.size() == 1);
  CHECK(probs[0].key == "hosts.alpha.cpu_mhz");
  try {
    kernel_profile("linux-2.4.2-i386");
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("did you mean 'linux-2.4.20-i386'") != std::string::npos);
  }
  CHECK(describe_profiles(ParamValues(kernel_param_schema())).find("HZ 100, no NAPI") != std::string::npos);
}
