// tg3's reaction to the link on the BCM5701 model (drivers-sim/drivers/tg3 "Link"): on a Dell board
// tg3_get_invariants chooses timer polling (TG3_FLAG_USE_MI_INTERRUPT | TG3_FLAG_USE_LINKCHG_REG),
// and tg3_timer's once-a-second MAC_STATUS read finds MAC_STATUS_MI_INTERRUPT and runs
// tg3_setup_phy, which turns the carrier off (and on again after the link returns); ETHTOOL_GLINK,
// what bonding asks, follows the carrier. research/link-faults-failover.md §A3/§A8: a Dell BCM5701
// learns of the loss 0-1 s after its PHY declares it.
#include "core/events.h"
#include "driver_tg3_harness.h"
#include "models/ether/link_faults.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace driver_tg3_link_test {
using namespace tg3test;
using namespace nicsim::tg3drv;

namespace {
/// Times (s) of the events `what` noted for `where`.
std::vector<double> event_times(const std::string& what, const std::string& where) {
  std::vector<double> v;
  for (const auto& e : run_events().events())
    if (e.what == what && e.where == where) v.push_back(to_s(e.at));
  return v;
}
}  // namespace

TEST_CASE("tg3-0.99 on a Dell board: a pulled cable turns the carrier off at the first tg3_timer run after the PHY "
          "declares it and on again after the link is back",
          "[tg3drv][link]") {
  run_events().clear();
  Rig r({}, kDriverName, false, true, 0x1028);
  LinkFaults f(*r.link);
  const PhyTimers pt = phy_timers(1000);
  const sc_time pull = ms(200), down = pull + pt.link_fail(f.master(0));
  const sc_time plug = ms(1500), up = plug + pt.link_up;
  f.schedule_cable(pull, false);
  f.schedule_cable(plug, true);
  r.open();
  sc_core::sc_start(down - us(1));
  REQUIRE(r.rc == 0);
  CHECK(r.t->link_flags() == (TG3_FLAG_USE_MI_INTERRUPT | TG3_FLAG_USE_LINKCHG_REG));
  CHECK(r.dev->netif_carrier_ok());  // the PHY has not declared it yet
  sc_core::sc_start(down + sec(1.0) - now());
  CHECK_FALSE(r.dev->netif_carrier_ok());
  CHECK(r.dev->mii_link_status() == 0);  // ETHTOOL_GLINK: what bond_mii_monitor reads
  CHECK_FALSE(r.dev->netif_queue_stopped());  // tg3 turns the carrier off only (no queue stop)
  const auto off = event_times("carrier off", "alpha.eth0");
  REQUIRE(off.size() == 1);
  CHECK(off[0] > to_s(down));
  CHECK(off[0] <= to_s(down) + 1.0 + 1e-3);  // the timer's period (HZ) plus its own run
  sc_core::sc_start(up + sec(1.0) - now());
  CHECK(r.dev->netif_carrier_ok());
  CHECK(r.dev->mii_link_status() == 1);
  const auto on = event_times("carrier on", "alpha.eth0");
  REQUIRE(on.size() == 1);
  CHECK(on[0] > to_s(up));
  CHECK(on[0] <= to_s(up) + 1.0 + 1e-3);
  // The two runs that found the changes are a whole number of timer periods apart.
  const double periods = (on[0] - off[0]) / 1.0;
  CHECK(periods == Approx(std::round(periods)).margin(2e-3));
}

TEST_CASE("tg3-0.99 on a non-Dell board: no timer polling and the link change waits for the chip attention",
          "[tg3drv][link]") {
  Rig r;  // Broadcom's own subsystem vendor: an add-in card
  r.open();
  sc_core::sc_start(ms(20));
  REQUIRE(r.rc == 0);
  CHECK(r.t->link_flags() == 0u);
  CHECK(r.dev->netif_carrier_ok());
}

}  // namespace driver_tg3_link_test
