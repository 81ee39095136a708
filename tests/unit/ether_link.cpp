// Ethernet wire timing: pure arithmetic from IEEE 802.3 and a link bench with two fake ports.
#include "models/ether/link.h"
#include <catch2/catch.hpp>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace ether_link_test {
using namespace nicsim;


TEST_CASE("Wire bytes: minimum frame 84 byte times, 1514-byte frame 1538", "[ether]") {
  // 60 B + 4 FCS = 64 (minimum), + 8 preamble/SFD + 12 IFG.
  CHECK(wire_bytes(60) == 84);
  CHECK(wire_bytes(14) == 84);  // padded to the minimum
  CHECK(wire_bytes(1514) == 1538);
  CHECK(serialized_bytes(1514) == 1526);
  CHECK(frame_time(60, 1000) == ns(672));
  CHECK(frame_time(1514, 1000) == ns(1538 * 8));
  CHECK(frame_time(1514, 100) == ns(1538 * 80));
  CHECK(frame_time(60, 10) == ns(84 * 800));
  CHECK(max_frame_rate(60, 1000) == Approx(1488095.238).epsilon(1e-9));
  CHECK(std::floor(max_frame_rate(60, 1000)) == 1488095.0);
  CHECK(pause_duration(1, 1000) == ns(512));
  CHECK(pause_duration(0xFFFF, 1000) == ns(65535 * 512.0));
  CHECK(propagation_delay(100, 5.0) == ns(500));
}

namespace {
struct Port : EthPort {
  std::string nm;
  EthLinkEnd* end = nullptr;
  std::vector<std::pair<sc_time, EthFrame>> rx;
  explicit Port(std::string n) : nm(std::move(n)) {}
  void attach_link(EthLinkEnd* e) override { end = e; }
  void frame_received(const EthFrame& f) override { rx.push_back({now(), f}); }
  std::string port_name() const override { return nm; }
};
EthFrame link_frame(unsigned len, uint8_t tag) {
  EthFrame f;
  f.bytes.assign(len, tag);
  return f;
}
}  // namespace

TEST_CASE("Link: back-to-back minimum frames arrive 672 ns apart, both directions independent", "[ether]") {
  Port a("a"), b("b");
  EthLink link("link", 1000, 10.0, a, b);  // 10 m → 50 ns
  REQUIRE(a.end);
  REQUIRE(b.end);
  const int n = 100;
  sc_core::sc_spawn(
      [&] {
        for (int i = 0; i < n; ++i) a.end->transmit(link_frame(60, uint8_t(i)), SC_ZERO_TIME);
        b.end->transmit(link_frame(1514, 0xEE), SC_ZERO_TIME);  // full duplex: not delayed by a's frames
      },
      "script");
  sc_core::sc_start(us(100));
  REQUIRE(b.rx.size() == size_t(n));
  for (int i = 0; i < n; ++i) {
    CHECK(b.rx[i].first == ns(576) + ns(50) + ns(672) * double(i));  // (8 + 64) × 8 ns, + cable
    CHECK(b.rx[i].second.bytes[0] == uint8_t(i));
  }
  REQUIRE(a.rx.size() == 1);
  CHECK(a.rx[0].first == ns(1526 * 8) + ns(50));
  CHECK(link.frames(0) == uint64_t(n));
  // n frames took n × 84 byte times on the wire: the last bit of the last one at n×672 − 96 ns.
  CHECK(a.end->wire_free_at() == ns(672) * double(n));
}

TEST_CASE("Link: a frame started on a busy wire waits for the inter-frame gap, 100 Mb/s timing", "[ether]") {
  Port a("a"), b("b");
  EthLink link("link", 100, 0.0, a, b);
  sc_core::sc_spawn(
      [&] {
        sc_time end1 = a.end->transmit(link_frame(1514, 1), SC_ZERO_TIME);
        CHECK(end1 == ns(1526 * 80));
        sc_time end2 = a.end->transmit(link_frame(100, 2), ns(1000));  // asked to start while the wire is busy
        CHECK(end2 == ns(1538 * 80) + ns((8 + 104) * 80));
      },
      "script");
  sc_core::sc_start(ms(1));
  REQUIRE(b.rx.size() == 2);
  CHECK(b.rx[1].first == ns(1538 * 80 + 112 * 80));
}

TEST_CASE("Link rejects a speed other than 10/100/1000", "[ether]") {
  Port a("a"), b("b");
  CHECK_THROWS_AS(EthLink("bad", 2500, 1.0, a, b), std::invalid_argument);
}

}  // namespace ether_link_test
