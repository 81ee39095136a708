// e1000 driver model: the watchdog timer (e1000_watchdog, every 2·HZ jiffies from TIMER_BH) writes
// ICS = RXDMT0, a software interrupt each host takes every 2 s, and reads the statistics registers.
#include "driver_e1000_harness.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace driver_e1000_watchdog_test {
using namespace drvtest;
using namespace nicsim::e1000drv;


TEST_CASE("e1000 watchdog: ICS = RXDMT0 every 200 jiffies from the first tick after open and each one an interrupt",
          "[e1000drv]") {
  TestHost hw("alpha");
  e1000::E1000 nic("alpha_eth1", e1000::variant("82546EB"));
  auto vec = hw.attach("pcix", nic);
  Peer peer;
  EthLink cable("cable", 1000, 2.0, *nic.eth_port(0), peer);
  Kernel k(hw, kernel_params("alpha"));
  const DriverEntry* de = driver("e1000-4.4.12-k1");
  REQUIRE(de);
  auto devs = de->probe(k, nic, vec, nic_config("alpha", "eth1", "82546EB", de->name), ParamValues(de->params));
  auto* a = dynamic_cast<Adapter*>(devs[0].get());
  auto ifup = [&]() -> Task<void> { (void)co_await k.dev_open(*devs[0]); };
  k.spawn_process("ifup", ifup());
  const sc_time tick = tick_period(100);  // HZ = 100
  sc_core::sc_start(tick * 650);          // ticks 1, 201, 401, 601 run the watchdog

  const uint64_t bar = nic.bar(0);
  auto ics = hw.accesses(bar + E1000_ICS, true);
  REQUIRE(ics.size() == 4);
  for (auto& w : ics) CHECK(w.v == E1000_ICR_RXDMT0);
  // First run in TIMER_BH of the first tick (mod_timer(jiffies) at open).
  CHECK(ics[0].t > tick);
  CHECK(ics[0].t < tick * 2);
  // Later runs are 2·HZ = 200 jiffies apart and do the same work, so the same offset from their tick.
  CHECK(ics[2].t - ics[1].t == tick * 200);
  CHECK(ics[3].t - ics[2].t == tick * 200);
  CHECK(ics[1].t - tick * 201 < tick);
  // Each ICS write asserts INTA# no later than when it reaches the NIC (no ITR interval is pending
  // 2 s after the last interrupt).
  const auto& sends = hw.lines[0]->sends;
  for (auto& w : ics) {
    bool raised = std::any_of(sends.begin(), sends.end(),
                              [&](sc_time t) { return t >= w.t && t <= w.t + hw.mmio_to_device; });
    CHECK(raised);
  }
  // ... and the ISR finds RXDMT0 in ICR, then 0: two ICR reads per watchdog interrupt.
  CHECK(a->isr_reads()[2] == 4);
  CHECK(k.irq_count(0, vec[0]) == 4);
  CHECK(sim().counters.get("alpha.eth1.driver.watchdog") == 4);
  // e1000_update_stats reads the statistics each run; e1000_reset's clear_hw_cntrs read them once.
  CHECK(hw.accesses(bar + E1000_GPRC, false).size() == 4 + 1);
  CHECK(a->carrier_ok());
}

}  // namespace driver_e1000_watchdog_test
