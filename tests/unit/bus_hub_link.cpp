// Hub Interface 2.0 link: packetized wire time, shared pipe, ordering.
#include "models/bus/hub_link.h"
#include "core/sim_context.h"
#include <cmath>
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace bus_hub_link_test {
using namespace nicsim;


TEST_CASE("HI 2.0 wire time: 16 bits × 66.67 MHz × 8 with a header per ≤64-byte packet", "[bus][hub]") {
  HubLinkParams p;
  HubLink h("hub", p);
  const double raw = 16.0 / 8 * (200.0 / 3.0) * 8;  // MB/s
  CHECK(h.raw_mb_per_s() == Approx(raw));
  CHECK(h.raw_mb_per_s() == Approx(1066.67).epsilon(1e-4));
  CHECK(h.packets(0) == 1);
  CHECK(h.packets(64) == 1);
  CHECK(h.packets(65) == 2);
  CHECK(to_ns(h.wire_time(64)) == Approx((64 + p.header_bytes) / raw * 1000.0));
  CHECK(to_ns(h.wire_time(0)) == Approx(p.header_bytes / raw * 1000.0));
  CHECK(to_ns(h.wire_time(1518)) == Approx((1518 + 24.0 * p.header_bytes) / raw * 1000.0));
  CHECK(h.payload_mb_per_s() == Approx(raw * 64 / (64 + p.header_bytes)));
}

TEST_CASE("a shared HI pipe serialises the two directions - separate pipes do not", "[bus][hub]") {
  HubLinkParams shared;
  HubLinkParams duplex;
  duplex.shared_pipe = false;
  HubLink a("shared", shared), b("duplex", duplex);
  auto up = a.send(HubLink::Dir::Up, 4096, SC_ZERO_TIME, SC_ZERO_TIME);
  auto dn = a.send(HubLink::Dir::Down, 4096, SC_ZERO_TIME, SC_ZERO_TIME);
  CHECK(up.last_end == a.wire_time(4096));
  CHECK(dn.last_end == a.wire_time(4096) * 2.0);
  auto up2 = b.send(HubLink::Dir::Up, 4096, SC_ZERO_TIME, SC_ZERO_TIME);
  auto dn2 = b.send(HubLink::Dir::Down, 4096, SC_ZERO_TIME, SC_ZERO_TIME);
  CHECK(up2.last_end == b.wire_time(4096));
  CHECK(dn2.last_end == b.wire_time(4096));
}

TEST_CASE("HI packets of a streaming completion interleave with other traffic - order is kept per direction", "[bus][hub]") {
  HubLink h("hub");
  const sc_time pkt = h.wire_time(64);
  // A 256-byte completion whose data trickles in over 1 µs leaves gaps another sender can use.
  auto c = h.send(HubLink::Dir::Down, 256, ns(100), ns(1100));
  CHECK(c.last_end == ns(1100) + pkt);
  auto w = h.send(HubLink::Dir::Up, 64, ns(200), ns(200));
  CHECK(w.start == ns(200));  // fitted between the completion's packets
  // A later upstream message never overtakes an earlier upstream write still on the wires.
  auto big = h.send(HubLink::Dir::Up, 4096, ns(2000), ns(2000));
  auto msg = h.send(HubLink::Dir::Up, 4, ns(2100), ns(2100));
  CHECK(msg.start >= big.last_end);
}

TEST_CASE("HI busy counters: the shared pipe's busy_ns sums both directions - a duplex link counts each pipe", "[bus][hub]") {
  HubLinkParams duplex;
  duplex.shared_pipe = false;
  HubLink a("hubbusy_shared", HubLinkParams{}), b("hubbusy_duplex", duplex);
  a.send(HubLink::Dir::Up, 4096, SC_ZERO_TIME, SC_ZERO_TIME);
  a.send(HubLink::Dir::Down, 64, SC_ZERO_TIME, SC_ZERO_TIME);
  b.send(HubLink::Dir::Up, 4096, SC_ZERO_TIME, SC_ZERO_TIME);
  b.send(HubLink::Dir::Down, 64, SC_ZERO_TIME, SC_ZERO_TIME);
  auto& c = sim().counters;
  CHECK(c.at("hubbusy_shared.busy_ns") == uint64_t(std::llround(to_ns(a.wire_time(4096) + a.wire_time(64)))));
  CHECK(c.at("hubbusy_duplex.up_busy_ns") == uint64_t(std::llround(to_ns(b.wire_time(4096)))));
  CHECK(c.at("hubbusy_duplex.down_busy_ns") == uint64_t(std::llround(to_ns(b.wire_time(64)))));
  CHECK(c.at("hubbusy_shared.busy_ns") == uint64_t(std::llround(to_ns(a.pipe(HubLink::Dir::Up).busy_total()))));
}

}  // namespace bus_hub_link_test
