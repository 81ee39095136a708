// The traffic-generator port (models/ether/traffic_gen.h): its schedule on a real link, at full
// and half load, with a frame limit; and its refusals.
#include "models/ether/link.h"
#include "models/ether/traffic_gen.h"
#include <catch2/catch.hpp>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace ether_traffic_gen_test {
using namespace nicsim;

namespace {
struct GenSink : EthPort {
  std::vector<sc_time> at;
  void attach_link(EthLinkEnd*) override {}
  void frame_received(const EthFrame& f) override {
    at.push_back(now());
    CHECK(f.bytes.size() == 60);
  }
  std::string port_name() const override { return "sink"; }
};
}  // namespace

TEST_CASE("TesterPort offers frame k at t0 + k * frame_time / load and stops after the frame limit", "[ether][tester]") {
  TrafficGenParams p;
  p.load = 0.5;
  p.frames = 100;
  p.batch = 7;  // not a divisor of 100: the last activation is partial
  TesterPort gen("gen", p);
  GenSink sink;
  EthLink link("link", 1000, 2.0, gen, sink);
  sc_core::sc_start(us(3));  // the tester starts at 3 µs, as an operator would press start
  gen.start(std::vector<uint8_t>(60, 0xab));
  const sc_time t0 = now();
  sc_core::sc_start(us(500));
  REQUIRE(sink.at.size() == 100);
  // 60-byte frames: 672 ns back to back at 1 Gb/s (84 byte times), 1344 ns at half load; each
  // arrives one serialisation (72 byte times = 576 ns) plus 10 ns of cable after it starts.
  CHECK(gen.period() == ns(1344));
  for (size_t k = 0; k < sink.at.size(); ++k) {
    INFO("frame " << k);
    CHECK(sink.at[k] == t0 + ns(1344) * double(k) + ns(576) + ns(10));
  }
  CHECK(gen.sent() == 100);
  CHECK(link.frames(0) == 100);
  CHECK(gen.offered_by(t0) == 1);
  CHECK(gen.offered_by(t0 + ns(1343)) == 1);
  CHECK(gen.offered_by(t0 + ns(1344)) == 2);
  CHECK(gen.offered_by(t0 + us(400)) == 100);  // capped at `frames`
  auto t = gen.tally();
  REQUIRE(t);
  CHECK(t->sent == 100);
  CHECK_THROWS_AS(gen.start(std::vector<uint8_t>(60, 0)), std::logic_error);  // already started
}

TEST_CASE("TesterPort refuses a load outside 0..1 (0 excluded), a zero batch, a runt frame and an uncabled start",
          "[ether][tester]") {
  TrafficGenParams p;
  p.load = 1.5;
  CHECK_THROWS_AS(TesterPort("g1", p), std::invalid_argument);
  p.load = 0;
  CHECK_THROWS_AS(TesterPort("g2", p), std::invalid_argument);
  p.load = 1;
  p.batch = 0;
  CHECK_THROWS_AS(TesterPort("g3", p), std::invalid_argument);
  p.batch = 1;
  TesterPort g("g4", p);
  CHECK_THROWS_AS(g.start(std::vector<uint8_t>(60, 0)), std::logic_error);  // not cabled
  GenSink s;
  EthLink l("l", 1000, 1.0, g, s);
  CHECK_THROWS_AS(g.start(std::vector<uint8_t>(13, 0)), std::invalid_argument);
}

}  // namespace ether_traffic_gen_test
