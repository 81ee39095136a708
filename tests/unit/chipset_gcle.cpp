// Unit benches of the ServerWorks GC-LE models as the Dell PowerEdge 2650 wires them
// (models/chipset/serverworks_cmic.*, models/bridge/ciobx2.*, the IMBus HubLink): CMIC → IMBus →
// CIOB-X2 → PCI-X segment. Expected times are computed from the models' rules and parameters
// (link wire time, bridge clocks, prefetch sizes), not copied from a run.
#include "e7500_test_bench.h"
#include "core/sim_context.h"
#include "models/bridge/ciobx2.h"
#include "models/chipset/serverworks_cmic.h"
#include "platforms/chipset_host.h"
#include "platforms/dell_pe2650.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace chipset_gcle_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

ChipsetBoardSpec pe2650(std::vector<std::pair<std::string, ParamValue>> overrides = {}, bool slot1_used = false) {
  ParamValues v(pe2650_param_schema());
  v.set("onboard_nics", ParamValue(false));
  for (auto& [k, x] : overrides) v.set(k, x);
  return pe2650_board(v, slot1_used);
}

using GcBench = HostBench<ChipsetHost>;

}  // namespace

TEST_CASE("GC-LE MMIO read CMIC-IMBus-CIOB-X2 equals the E7500-HI-P64H2 read plus the two links' wire-time difference", "[chipset][gcle]") {
  // Same segment clock on both boards (a PCI-X 100 master: P4DPR slot B runs 100, PE2650 slot 3
  // then runs 100 too): the bridges and north bridges share their rules and, by the estimates,
  // their constants, so what differs is the link: a header-only request down and a 4-byte
  // completion up, each at its link's width and clock.
  GcBench g(pe2650(), "g");
  PciDmaMaster& x = g.add("slot3", master(64, true, 100));
  Bench p(p4dpr());
  PciDmaMaster& y = p.add("pcix", master(64, true, 100));
  p.cpu->body = [](TestCpu&) { sc_core::wait(sc_core::sc_time(1, sc_core::SC_SEC)); };  // idle: g's CPU drives both
  sc_time tg, tp;
  uint32_t v = 0;
  g.run([&](TestCpu& c) {
    sc_core::wait(us(1));
    tg = c.access(false, x.bar(0) + 8, v);
    sc_core::wait(tg + us(1));
    tp = p.cpu->access(false, y.bar(0) + 8, v);
    sc_core::wait(tp + us(1));
  });
  const HubLink& imb = g.host->link(0);  // slot 3 is on ciob0, link imb0
  const HubLink& hub = p.host->hub();
  INFO("PE2650 " << to_ns(tg) << " ns, P4DPR " << to_ns(tp) << " ns");
  // The bridge masters its segment on a clock edge, so the request's arrival is rounded up to
  // the next edge of the 100 MHz segment clock: the gap is the links' difference to within one clock.
  const double clock_ns = to_ns(g.host->bridge(0).segment(1).clock_period());
  CHECK(std::abs((to_ns(tg) - to_ns(tp)) - (to_ns(imb.wire_time(0) + imb.wire_time(4)) -
                                            to_ns(hub.wire_time(0) + hub.wire_time(4)))) < clock_ns);
  // research seeds §4.2: MMIO read via CIOB-X2 0.7–1.2 µs (estimate by the E7500 analogy)
  CHECK(to_us(tg) >= 0.6);
  CHECK(to_us(tg) <= 1.2);
}

/// Both benches' CPUs: `lead` runs the body, `idle` waits (its thread would otherwise stop the run).
static void idle(GcBench& b) { b.cpu->body = [](TestCpu&) { sc_core::wait(sc_core::sc_time(1, sc_core::SC_SEC)); }; }

TEST_CASE("GC-LE MMIO read grows by twice the added IMBus crossing time to within one segment clock", "[chipset][gcle]") {
  GcBench a(pe2650({{"imb_crossing_ns", ParamValue(100.0)}}), "a");
  GcBench b(pe2650({{"imb_crossing_ns", ParamValue(150.0)}}), "b");
  PciDmaMaster& x = a.add("slot3", master(64, true, 133));
  PciDmaMaster& y = b.add("slot3", master(64, true, 133));
  idle(b);
  sc_time ta, tb;
  uint32_t v = 0;
  a.run([&](TestCpu& c) {
    sc_core::wait(us(1));
    ta = c.access(false, x.bar(0) + 8, v);
    sc_core::wait(ta + us(1));
    tb = b.cpu->access(false, y.bar(0) + 8, v);
    sc_core::wait(tb + us(1));
  });
  // One crossing down, one up: +100 ns, to within one segment clock (each request is rounded up
  // to the next clock edge of the 133 MHz segment, which the two arrivals meet at different phases).
  const double clock_ns = to_ns(a.host->bridge(0).segment(1).clock_period());
  CHECK(std::abs(to_ns(tb) - to_ns(ta) - 100.0) < clock_ns);
}

TEST_CASE("GC-LE DMA write burst at PCI-X 133 is capped by the IMBus payload rate, not the segment", "[chipset][gcle]") {
  GcBench g(pe2650(), "g");
  PciDmaMaster& m = g.add("slot3", master(64, true, 133));
  double mbs = 0;
  g.run([&](TestCpu&) {
    mbs = run_job(m, dma_job(true, 16 << 20, 4096, 64)).mb_per_s();
  });
  const HubLink& imb = g.host->link(0);
  // The rule: 64-byte packets with an 8-byte header on a 2 B × 400 MT/s pipe per direction.
  const double cap = imb.raw_mb_per_s() * 64.0 / (64.0 + 8.0);
  CHECK(std::abs(imb.payload_mb_per_s() - cap) < 1e-9);
  CHECK(std::abs(imb.raw_mb_per_s() - 800.0) < 1e-9);
  INFO("4 KB writes: " << mbs << " MB/s, IMBus payload " << cap << " MB/s, PCI-X 133 peak " << pci_peak_mb_per_s(64, 133));
  CHECK(pci_peak_mb_per_s(64, 133) > cap);  // the segment could go faster
  CHECK(mbs <= cap * 1.01);                 // the link drains the posted buffer (slack: the last 512 B in it)
  CHECK(mbs >= cap * 0.97);
}

TEST_CASE("GC-LE read with prefetch: a PCI-mode MRM read is a delayed transaction fetching the CIOB-X2's prefetch size", "[chipset][gcle]") {
  // A conventional 64-bit PCI 66 card in slot 3 drops bus 2 to PCI 66: reads become delayed
  // transactions; a 256-byte read spanning lines is a Memory Read Multiple, and the bridge fetches
  // mrm_prefetch_bytes from the line the read starts in, so each read discards the rest.
  GcBench g(pe2650(), "g");
  PciDmaMaster& m = g.add("slot3", master(64, false, 66));
  const unsigned n = 16;
  g.run([&](TestCpu&) {
    PciDmaMaster::Job j;
    j.write = false;
    j.addr = 16 << 20;
    j.bytes = 256;
    j.count = n;
    j.region_bytes = 1 << 20;
    run_job(m, j);
  });
  const PcixBridgeParams bp = ciobx2_params();
  CHECK(sim().counters.get("g.ciob0.segB.delayed_reads") == n);
  CHECK(sim().counters.get("g.ciob0.segB.prefetch_discarded_bytes") == uint64_t(n) * (bp.mrm_prefetch_bytes - 256));
  CHECK(sim().counters.get("g.ciob0.segB.split_responses") == 0);
}

TEST_CASE("GC-LE one I/OxAPIC per CIOB-X2 serves both segments with distinct inputs and vectors", "[chipset][gcle][irq]") {
  GcBench g(pe2650(), "g");
  std::vector<unsigned> v1, v3;
  PciDmaMaster& a = g.add("slot1", master(64, true, 133), &v1);
  PciDmaMaster& b = g.add("slot3", master(64, true, 133), &v3);
  CHECK(&g.host->bridge(0).ioxapic(0) == &g.host->bridge(0).ioxapic(1));
  REQUIRE(v1.size() == 1);
  REQUIRE(v3.size() == 1);
  CHECK(v1[0] != v3[0]);
  g.run([&](TestCpu&) {
    a.set_irq(0, true);
    b.set_irq(0, true);
    sc_core::wait(us(2));
  });
  CHECK(sim().counters.get("g.ciob0.ioxapic.messages") == 2);
  REQUIRE(g.cpu->irqs.size() == 2);
}

}  // namespace chipset_gcle_test
