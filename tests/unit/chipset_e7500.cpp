// E7500 MCH + HI 2.0 + P64H2 from the CPU's side: MMIO latency, posted writes, interrupt delivery.
#include "core/sim_context.h"
#include "e7500_test_bench.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace chipset_e7500_test {
using namespace nicsim;
using namespace nicsim::test;


TEST_CASE("CPU MMIO read behind the P64H2: 0.6–1.0 µs on PCI-X - 0.1–0.2 µs more on PCI 66", "[chipset]") {
  Bench b(p4dpr());
  PciDmaMaster& g = b.add("onboard-gbe", master(32, false, 66));
  PciDmaMaster& x = b.add("pcix", master(64, true, 133));
  sc_time rx, rg;
  tlm::tlm_response_status sx, sg;
  uint32_t vx = 0, vg = 0;
  b.run([&](TestCpu& c) {
    uint32_t w = 0x12345678;
    sc_core::wait(c.access(true, x.bar(0) + 8, w));
    sc_core::wait(us(2));
    rx = c.access(false, x.bar(0) + 8, vx, &sx);
    sc_core::wait(rx + us(1));
    rg = c.access(false, g.bar(0) + 8, vg, &sg);
    sc_core::wait(rg + us(1));
  });
  CHECK(sx == tlm::TLM_OK_RESPONSE);
  CHECK(sg == tlm::TLM_OK_RESPONSE);
  CHECK(vx == 0x12345678);  // the register file answered with what was written
  INFO("PCI-X 100: " << to_ns(rx) << " ns, PCI 66: " << to_ns(rg) << " ns");
  // research §4: 0.7–0.9 µs measured e1000 reads [S33]; EST 0.6–1.0 µs E7500->HI->P64H2->PCI-X,
  // +0.1–0.2 µs in PCI-66 mode.
  CHECK(to_us(rx) >= 0.6);
  CHECK(to_us(rx) <= 1.0);
  CHECK(to_us(rg - rx) >= 0.1);
  CHECK(to_us(rg - rx) <= 0.2);
}

TEST_CASE("a posted MMIO write releases the CPU far sooner than a read - the write still reaches the device", "[chipset]") {
  Bench b(p4dpr());
  PciDmaMaster& x = b.add("pcix", master(64, true, 133));
  sc_time rel, rd, issued, arrived;
  b.run([&](TestCpu& c) {
    uint32_t v = 7;
    issued = now();
    rel = c.access(true, x.bar(0) + 0x10, v);
    arrived = x.last_write_at();
    sc_core::wait(rel + us(2));
    rd = c.access(false, x.bar(0) + 0x10, v);
    sc_core::wait(rd);
  });
  const E7500MchParams& mp = b.host->mch().params();
  // Released after the FSB request phases and one data clock (4 bytes < 32 B per clock).
  CHECK(rel == b.host->mch().fsb_clocks(mp.fsb_request_clocks + 1));
  CHECK(to_ns(rel) * 5 < to_ns(rd));
  CHECK(arrived - issued > rel);  // the write continues downstream after the CPU moved on
  CHECK(x.mmio_writes() == 1);
}

TEST_CASE("CPU MMIO read to an unclaimed address in a segment window master-aborts with all ones", "[chipset]") {
  Bench b(p4dpr());
  b.add("pcix", master(64, true, 133));
  uint32_t v = 0;
  tlm::tlm_response_status st;
  b.run([&](TestCpu& c) { sc_core::wait(c.access(false, b.host->spec().mmio_base + 0x3000000, v, &st)); });
  CHECK(v == 0xFFFFFFFF);
  CHECK(st == tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

// Modeled INTx# -> local APIC latency on an idle path: I/OxAPIC message, bridge, one HI packet of
// 4 data bytes, the crossing, and the MCH's FSB interrupt transaction.
static sc_time irq_path(E7500Host& h) {
  return ns(h.spec().apic.message_ns) + ns(h.bridge().params().apic_message_ns) + h.hub().wire_time(4) +
         ns(h.hub().params().crossing_ns) + h.mch().fsb_clocks(h.mch().params().interrupt_fsb_clocks);
}
static sc_time eoi_path(E7500Host& h) {
  return ns(h.mch().params().eoi_ns) + h.hub().wire_time(0) + ns(h.hub().params().crossing_ns) +
         ns(h.bridge().params().eoi_forward_ns);
}

TEST_CASE("an interrupt asserted by a device reaches the CPU after the modeled path latency", "[chipset][irq]") {
  Bench b(p4dpr());
  std::vector<unsigned> vec;
  PciDmaMaster& x = b.add("pcix", master(64, true, 133), &vec);
  sc_time asserted;
  b.run([&](TestCpu&) {
    sc_core::wait(us(1));
    asserted = now();
    x.set_irq(0, true);
    sc_core::wait(us(2));
  });
  REQUIRE(b.cpu->irqs.size() == 1);
  CHECK(b.cpu->irqs[0].first == vec.at(0));
  CHECK(b.cpu->irqs[0].second - asserted == irq_path(*b.host));
  INFO("INTx# to local APIC: " << to_ns(irq_path(*b.host)) << " ns");
  CHECK(to_us(irq_path(*b.host)) < 1.0);  // research §4 EST INTx#->ISR 1–2 µs includes CPU entry
}

TEST_CASE("a level-triggered line that stays asserted is not lost: EOI re-sends it", "[chipset][irq]") {
  Bench b(p4dpr());
  std::vector<unsigned> vec;
  PciDmaMaster& x = b.add("pcix", master(64, true, 133), &vec);
  sc_time t_assert, t_eoi1, t_eoi2, t_eoi3;
  size_t after_reassert = 0;
  b.run([&](TestCpu&) {
    sc_core::wait(us(1));
    t_assert = now();
    x.set_irq(0, true);       // message 1
    sc_core::wait(us(2));
    x.set_irq(0, false);      // the device deasserts and asserts again while in service:
    sc_core::wait(us(1));
    x.set_irq(0, true);       // Remote IRR is set, so no message now
    sc_core::wait(us(2));
    after_reassert = b.cpu->irqs.size();
    t_eoi1 = now();
    b.host->eoi_in().eoi(vec[0], SC_ZERO_TIME);  // line still asserted -> message 2
    sc_core::wait(us(3));
    x.set_irq(0, false);      // the driver cleared the cause
    t_eoi2 = now();
    b.host->eoi_in().eoi(vec[0], SC_ZERO_TIME);  // line low -> nothing
    sc_core::wait(us(3));
    t_eoi3 = now();
    x.set_irq(0, true);       // a new event after the EOI -> message 3 at once
    sc_core::wait(us(3));
  });
  const sc_time L = irq_path(*b.host), E = eoi_path(*b.host);
  CHECK(after_reassert == 1);
  REQUIRE(b.cpu->irqs.size() == 3);
  CHECK(b.cpu->irqs[0].second == t_assert + L);
  CHECK(b.cpu->irqs[1].second == t_eoi1 + E + L);
  CHECK(b.cpu->irqs[2].second == t_eoi3 + L);
  CHECK(sim().counters.get("h.p64h2.ioxapicB.asserts_while_in_service") == 1);
}

}  // namespace chipset_e7500_test
