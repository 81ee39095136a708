// The Linux 2.6 / P4 Xeon cost table's forwarding path (drivers-sim/kernel/costs_linux_2_6.cpp) and
// the e1000 driver's 2.6 entries against the published 2.6.10 forwarding profile they are built
// from: research/linux26-forwarding-costs.md §A1 (K. Desler, LKML 2004-12-06, readprofile ticks;
// 1 tick = 0.12 cycles per forwarded packet). The tick counts are written here from the note, not
// read from the table's own constants. Pure arithmetic: no SystemC.
#include "drivers-sim/kernel/costs_linux_2_6.h"
#include "core/calib.h"
#include "drivers-sim/kernel/driver_costs.h"
#include "drivers-sim/kernel/kernel_params.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace kernel_costs_2_6_test {
using namespace nicsim;

namespace {

const CostProfile& c26() { return cost_profile("linux-2.6-p4xeon"); }
const CostProfile& c24() { return cost_profile("linux-2.4.20-p4xeon"); }
double per_call(CostId id) { return c26().at(id).cycles_per_call; }
bool in_profile_group(const CostEntry& e) { return e.group && std::string(e.group) == kDesler2004Group; }
constexpr double kTick = 0.12;  // §A1 "Conversion": 1.8e6 cycles per tick / 15.0 M packets

}  // namespace

TEST_CASE("2.6 cost table: 1 readprofile tick of the 2.6.10 profile is 0.12 cycles per forwarded packet", "[kernel][costs]") {
  // 60 s x 250 kpps = 15.0 M packets; one tick is 1 ms of a 1.8 GHz CPU.
  CHECK(kDesler2004CyclesPerTick == Approx(1.8e9 * 1e-3 / (60 * 250e3)));
  CHECK(desler2004_cycles(1000) == Approx(1000 * kTick));
  // §A1: busy ticks 73,606 -> about 8,830 cycles per forwarded packet, all included.
  CHECK(desler2004_cycles(73606) == Approx(8830).epsilon(0.001));
}

TEST_CASE("2.6 cost table: skb alloc + free is the profile's 1,530 cycles, its IP layer 431 plus a route-cache hit",
          "[kernel][costs]") {
  CHECK(per_call(CostId::skb_alloc) == Approx((4554 + 1063 + 425 + 15) * kTick));           // 727
  CHECK(per_call(CostId::skb_free) == Approx((4013 + 1605 + 701 + 346 + 33) * kTick));       // 804
  CHECK(per_call(CostId::skb_alloc) + per_call(CostId::skb_free) == Approx(1530).epsilon(0.002));
  // The IP group (ip_forward, ip_finish_output2, ip_rcv_finish, ip_rcv, ip_output, ip_forward_finish):
  // 3,591 ticks = 431 cycles, split over the ip_rcv and ip_forward entries; ip_rcv adds the route
  // cache's hash (282 ticks, per packet) and the estimated hit (100) for the profile's thrashing lookup.
  CHECK(per_call(CostId::ip_forward) == Approx((1198 + 228 + 230 + 910) * kTick));
  CHECK(per_call(CostId::ip_rcv) - 282 * kTick - 100 == Approx((489 + 536) * kTick));
  CHECK(per_call(CostId::ip_forward) + per_call(CostId::ip_rcv) - 282 * kTick - 100 == Approx(431).epsilon(0.002));
  // qdisc/xmit: 2,701 ticks = 324 cycles; netif_receive_skb 905 ticks = 109.
  CHECK(per_call(CostId::dev_queue_xmit) == Approx(324).epsilon(0.002));
  CHECK(per_call(CostId::net_rx_action) == Approx(905 * kTick));
  // The forwarding path's kernel entries without the locked ops: 2,528 cycles where the 2.4.20
  // table charged 3,358 for the same entries.
  const CostId path[] = {CostId::net_rx_action, CostId::ip_rcv,    CostId::ip_forward,
                         CostId::dev_queue_xmit, CostId::skb_alloc, CostId::skb_free};
  double s26 = 0, s24 = 0;
  for (CostId id : path) s26 += c26().at(id).cycles_per_call, s24 += c24().at(id).cycles_per_call;
  CHECK(s26 == Approx(2528).epsilon(0.002));
  CHECK(s24 == Approx(3358).epsilon(0.001));
}

TEST_CASE("2.6 cost table: locked ops stay a separate NetBurst charge - RCU leaves ip_rcv one, netif_receive_skb none",
          "[kernel][costs]") {
  CHECK(c26().at(CostId::ip_forward).smp_locked_ops == c24().at(CostId::ip_forward).smp_locked_ops);
  CHECK(c26().at(CostId::skb_free).smp_locked_ops == 2);
  CHECK(c26().at(CostId::ip_rcv).smp_locked_ops == 1);
  CHECK(c26().at(CostId::net_rx_action).smp_locked_ops == 0);
  CHECK(c26().at(CostId::locked_op).cycles_per_call == c24().at(CostId::locked_op).cycles_per_call);
}

TEST_CASE("2.6 cost table: netif_rx no longer pays a do_gettimeofday per packet", "[kernel][costs]") {
  // 2.4.20's entry holds ~650 cycles of gettimeofday before the table's x0.73 lmbench scale.
  CHECK(c24().at(CostId::netif_rx).cycles_per_call - per_call(CostId::netif_rx) == Approx(650 * 0.73));
  CHECK(per_call(CostId::netif_rx) > 0);
}

TEST_CASE("e1000 2.6 entries: the profile's driver self times less the DMA'd-line misses the model charges itself",
          "[kernel][costs][e1000]") {
  const DriverCosts d("e1000", c26(), {"e1000_clean_rx_irq", "e1000_clean_tx_irq", "e1000_alloc_rx_buffers",
                                       "e1000_xmit_frame", "e1000_intr"});
  const DriverCosts d24("e1000", c24(), {"e1000_clean_rx_irq", "e1000_clean_tx_irq", "e1000_alloc_rx_buffers",
                                         "e1000_xmit_frame", "e1000_intr"});
  const double miss = 155 * 1.8;  // §A3: 155 ns, in cycles of the profile's 1.8 GHz Opteron
  CHECK(kDesler2004DmaMissCycles == Approx(miss));
  // clean_rx_irq + rx_checksum + eth_type_trans, less the header line and a quarter descriptor line.
  CHECK(d[0].cycles_per_call == Approx((2852 + 70 + 2692) * kTick - 1.25 * miss));
  CHECK(d[1].cycles_per_call == Approx(3100 * kTick - 0.25 * miss));
  CHECK(d[2].cycles_per_call == Approx(674 * kTick));
  // Not in the profile: the 2.4 estimates.
  CHECK(d[3].cycles_per_call == d24[3].cycles_per_call);
  CHECK(d[4].cycles_per_call == d24[4].cycles_per_call);
  for (size_t i = 0; i < d.size(); ++i) CHECK(std::string(d[i].source).size() > 0);
}

TEST_CASE("2.6 cost table: the entries taken from the profile form one group, and one factor scales exactly them",
          "[kernel][costs][calibrate]") {
  const std::vector<std::string> paths{"e1000_clean_rx_irq", "e1000_clean_tx_irq", "e1000_alloc_rx_buffers",
                                       "e1000_xmit_frame", "e1000_intr"};
  // In the group: the six kernel entries built from the profile's ticks and e1000's three.
  std::vector<CostId> grouped;
  for (size_t i = 0; i < kCostCount; ++i)
    if (in_profile_group(c26().entries[i])) grouped.push_back(static_cast<CostId>(i));
  CHECK(grouped == std::vector<CostId>{CostId::skb_alloc, CostId::skb_free, CostId::net_rx_action, CostId::ip_rcv,
                                       CostId::dev_queue_xmit, CostId::ip_forward});
  for (size_t i = 0; i < kCostCount; ++i) CHECK_FALSE(in_profile_group(c24().entries[i]));  // 2.4.20: not in it
  const DriverCosts d("e1000", c26(), paths);
  for (size_t i = 0; i < d.size(); ++i) CHECK((d[i].group != nullptr) == (i < 3));

  CostProfile scaled = c26();
  scaled.scale_group(kDesler2004Group, 0.7);
  for (size_t i = 0; i < kCostCount; ++i) {
    const double f = in_profile_group(c26().entries[i]) ? 0.7 : 1.0;
    CHECK(scaled.entries[i].cycles_per_call == Approx(c26().entries[i].cycles_per_call * f));
    CHECK(scaled.entries[i].smp_locked_ops == c26().entries[i].smp_locked_ops);  // locked ops stay NetBurst's
  }
  // A driver resolved against the scaled table gets the same factor on its grouped entries.
  const DriverCosts ds("e1000", scaled, paths);
  for (size_t i = 0; i < d.size(); ++i)
    CHECK(ds[i].cycles_per_call == Approx(d[i].cycles_per_call * (i < 3 ? 0.7 : 1.0)));
}

TEST_CASE("2.6 cost table: linux26_profile_cost_scale is a calibratable kernel parameter of Xeon hosts only",
          "[kernel][costs][calibrate]") {
  const auto find = [](const ParamSchema& s) -> const ParamSpec* {
    for (const ParamSpec& p : s)
      if (p.name == "linux26_profile_cost_scale") return &p;
    return nullptr;
  };
  const ParamSchema xeon = kernel_param_schema("linux-2.6.14-i386", "xeon-prestonia-ht");
  const ParamSpec* p = find(xeon);
  REQUIRE(p);
  CHECK(p->source.rfind("estimate", 0) == 0);
  const CalibBounds* b = calib_bounds(*p);
  REQUIRE(b);
  CHECK(b->lo == 0.5);
  CHECK(b->hi == 2.0);
  CHECK(find(kernel_param_schema("linux-2.4.20-i386", "xeon-prestonia")));  // the P4DPR and PE2650 hosts
  CHECK_FALSE(find(kernel_param_schema("linux-2.4.16-ppc", "ppc7450")));   // no group on the G4

  ParamValues v(xeon);
  CHECK(kernel_params_from(v, "h", 1, 2000).cost_group_scales.empty());  // the nominal 1 applies nothing
  v.set("linux26_profile_cost_scale", 0.7);
  const KernelParams k = kernel_params_from(v, "h", 1, 2000);
  REQUIRE(k.cost_group_scales.size() == 1);
  CHECK(k.cost_group_scales[0].first == kDesler2004Group);
  CHECK(k.cost_group_scales[0].second == 0.7);
}

}  // namespace kernel_costs_2_6_test
