// The Linux 2.6 kernel profiles (drivers-sim/kernel/profile_linux_2_6.cpp) and their cost table
// (costs_linux_2_6.cpp): the values read from 2.6.11 / 2.6.14, and the NAPI budget each implies.
#include "drivers-sim/kernel/cpu_time.h"
#include "drivers-sim/kernel/kernel.h"
#include <algorithm>
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace kernel_profiles_2_6_test {
using namespace nicsim;


TEST_CASE("profiles: linux-2.6.11-i386 is HZ 1000 NAPI with budget = netdev_max_backlog 300, txqueuelen 1000",
          "[kernel][profiles]") {
  const KernelParams p = kernel_params_of(kernel_profile("linux-2.6.11-i386"), cpu_profile("xeon-prestonia-ht"));
  CHECK(p.hz == 1000);
  CHECK(p.napi);
  CHECK(p.rx_budget == RxBudget::netdev_max_backlog);
  CHECK(p.netdev_max_backlog == 300);
  CHECK(p.weight_p == 64);
  CHECK(p.rx_time_limit_jiffies == 1);
  CHECK(p.tx_queue_len == 1000);
  CHECK(p.cost_profile == "linux-2.6-p4xeon");
  CHECK(kernel_profile("linux-2.6.11-i386").version == "2.6.11");
}

TEST_CASE("profiles: linux-2.6.14-i386 is HZ 250 (Kconfig default) with the separate netdev_budget 300 and "
          "netdev_max_backlog 1000",
          "[kernel][profiles]") {
  const KernelParams p = kernel_params_of(kernel_profile("linux-2.6.14-i386"), cpu_profile("xeon-prestonia-ht"));
  CHECK(p.hz == 250);
  CHECK(p.napi);
  CHECK(p.rx_budget == RxBudget::netdev_budget);
  CHECK(p.netdev_budget == 300);
  CHECK(p.netdev_max_backlog == 1000);
  CHECK(p.tx_queue_len == 1000);
  ParamValues v(kernel_param_schema("linux-2.6.14-i386", "xeon-prestonia-ht"));
  CHECK(describe_profiles(v).find("linux-2.6.14-i386") != std::string::npos);
}

TEST_CASE("costs: linux-2.6-p4xeon is registered, takes its forwarding path from the 2.6.10 profile, keeps the "
          "2.4.20 entries elsewhere and drops the 2.4 read locks on receive",
          "[kernel][costs]") {
  const auto names = cost_profile_names();
  CHECK(std::find(names.begin(), names.end(), "linux-2.6-p4xeon") != names.end());
  const CostProfile& c26 = cost_profile("linux-2.6-p4xeon");
  const CostProfile& c24 = cost_profile("linux-2.4.20-p4xeon");
  const CostId from_profile[] = {CostId::netif_rx,       CostId::net_rx_action, CostId::ip_rcv,  CostId::ip_forward,
                                 CostId::dev_queue_xmit, CostId::skb_alloc,     CostId::skb_free};
  for (size_t i = 0; i < kCostCount; ++i) {
    const auto id = static_cast<CostId>(i);
    INFO(cost_name(id));
    if (std::find(std::begin(from_profile), std::end(from_profile), id) == std::end(from_profile))
      CHECK(c26.at(id).cycles_per_call == c24.at(id).cycles_per_call);
    else
      CHECK(c26.at(id).cycles_per_call != c24.at(id).cycles_per_call);
    CHECK(c26.at(id).what == what_tag(id));
    CHECK(std::string(c26.at(id).source).size() > 0);
  }
  CHECK(c26.at(CostId::net_rx_action).smp_locked_ops == 0);
  CHECK(c26.at(CostId::ip_rcv).smp_locked_ops == 1);
  CHECK(c26.at(CostId::ip_rcv).smp_locked_ops < c24.at(CostId::ip_rcv).smp_locked_ops);
  CHECK_THROWS_AS(cost_profile("linux-2.6-p4xeonn"), std::invalid_argument);
}

}  // namespace kernel_profiles_2_6_test
