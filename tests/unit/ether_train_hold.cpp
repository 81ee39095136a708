// The link's receive-side seam (models/ether/frame.h EthRxFeed): a tester's train is delivered
// frame by frame as before, held as a count while the receiving port asks, taken in closed form
// with each frame's exact arrival time, and delivered one by one again after release(). Frames a
// MAC sends one by one are never held.
#include "models/ether/link.h"
#include "models/ether/traffic_gen.h"
#include <catch2/catch.hpp>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace ether_train_hold_test {
using namespace nicsim;

namespace {
/// Holds the train after `hold_after` frames were delivered one by one.
struct HoldingSink : EthPort {
  EthRxFeed* feed = nullptr;
  size_t hold_after = 3;
  bool held = false;
  std::vector<sc_time> at;  // frames delivered one by one
  void attach_link(EthLinkEnd*) override {}
  void attach_rx(EthRxFeed* f) override { feed = f; }
  void frame_received(const EthFrame& f) override {
    at.push_back(now());
    if (at.size() == hold_after) held = feed->hold(f);
  }
  std::string port_name() const override { return "sink"; }
};
/// A MAC that only sends (the test calls its link end).
struct SendingMac : EthPort {
  EthLinkEnd* end = nullptr;
  void attach_link(EthLinkEnd* e) override { end = e; }
  void frame_received(const EthFrame&) override {}
  std::string port_name() const override { return "mac"; }
};
}  // namespace

TEST_CASE("EthRxFeed: a held train is taken as counts with exact arrival times, then delivered one by one again",
          "[ether][tester][train]") {
  TrafficGenParams p;  // wire rate, batches of 64
  TesterPort gen("gen", p);
  HoldingSink sink;
  EthLink link("link", 1000, 2.0, gen, sink);
  REQUIRE(sink.feed != nullptr);
  sc_core::sc_start(us(1));
  gen.start(std::vector<uint8_t>(60, 0x5a));
  const sc_time t0 = now();
  // Frame k's last bit arrives at t0 + 672 ns × k + 576 ns (serialisation) + 10 ns (2 m of cable).
  auto arrival = [&](uint64_t k) { return t0 + ns(672) * double(k) + ns(586); };
  sc_core::sc_start(us(100));  // 149 frames started by now (k = 0..148), 148 arrived
  REQUIRE(sink.held);
  REQUIRE(sink.at.size() == 3);
  CHECK(sink.at[2] == arrival(2));
  CHECK(link.delivered(0) == 148);  // held frames that arrived count as delivered
  // Take those arrived by 50 µs after start: frames 3..73 (frame 73 arrives at 49.642 µs).
  EthFrameTrain t = sink.feed->take(t0 + us(50));
  REQUIRE(t.f != nullptr);
  CHECK(t.f->bytes == std::vector<uint8_t>(60, 0x5a));
  CHECK(t.first == arrival(3));
  CHECK(t.period == ns(672));
  CHECK(t.n == 71);
  CHECK(t.at(70) == arrival(73));
  CHECK(sink.feed->take(t0 + us(50)).n == 0);  // taken once
  t = sink.feed->take(now());
  CHECK(t.first == arrival(74));
  CHECK(t.n == 148 - 74);
  sink.feed->release();
  sc_core::sc_start(us(10));  // one by one again from frame 148
  REQUIRE(sink.at.size() > 3);
  CHECK(sink.at[3] == arrival(148));
  for (size_t i = 3; i < sink.at.size(); ++i) CHECK(sink.at[i] == arrival(148 + (i - 3)));
  CHECK(link.delivered(0) + link.in_flight(0) == link.frames(0));
  CHECK(link.frames(0) == gen.sent());
}

TEST_CASE("EthRxFeed: frames sent one by one are not held, and a single frame behind a train follows it",
          "[ether][tester][train]") {
  SendingMac mac;
  HoldingSink sink;
  sink.hold_after = 1;
  EthLink link("link2", 1000, 2.0, mac, sink);
  EthFrame f;
  f.bytes.assign(60, 1);
  mac.end->transmit(f, SC_ZERO_TIME);
  mac.end->transmit(f, SC_ZERO_TIME);
  sc_core::sc_start(us(5));
  CHECK_FALSE(sink.held);  // no train on this direction: the port must take each frame
  CHECK(sink.at.size() == 2);
  mac.end->transmit_train(f, now(), ns(672), 4);
  // A single frame behind the train starts when the train's last frame has left (4 × 672 ns).
  const sc_time t_train = now();
  CHECK(mac.end->transmit(f, now()) == t_train + ns(672) * 4.0 + ns(576));
  // A train spaced closer than the frame's wire time is sent one by one (starts wait for the wire).
  sc_core::sc_start(us(5));
  REQUIRE(sink.at.size() == 2 + 4 + 1);
  CHECK(sink.at[6] == t_train + ns(672) * 4.0 + ns(586));
  mac.end->transmit_train(f, now(), ns(600), 3);
  sc_core::sc_start(us(5));
  CHECK(sink.at.size() == 2 + 4 + 1 + 3);
  CHECK(sink.at[8] - sink.at[7] == ns(672));
}

namespace {
/// Holds the train from its first frame; takes it (and releases) when the link asks before a
/// single frame behind it.
struct SettlingSink : EthPort {
  EthRxFeed* feed = nullptr;
  std::vector<sc_time> at;
  uint64_t taken = 0;
  bool hold_on = true;
  void attach_link(EthLinkEnd*) override {}
  void attach_rx(EthRxFeed* f) override { feed = f; }
  void frame_received(const EthFrame& f) override {
    at.push_back(now());
    if (hold_on) feed->hold(f);
  }
  void rx_feed_settle() override {
    taken += feed->take(now()).n;
    feed->release();
  }
  std::string port_name() const override { return "settling"; }
};
}  // namespace

TEST_CASE("EthLink: a single frame behind a held train is delivered after the port took the train",
          "[ether][train]") {
  SendingMac mac;
  SettlingSink sink;
  EthLink link("link3", 1000, 2.0, mac, sink);
  EthFrame f;
  f.bytes.assign(60, 1);
  EthFrame g;
  g.bytes.assign(60, 2);
  mac.end->transmit_train(f, us(1), ns(672), 10);
  sink.hold_on = true;
  mac.end->transmit(g, us(1));
  sc_core::sc_start(us(20));
  // Frame 0 delivered one by one (the port holds after it), frames 1..9 taken, then g one by one.
  REQUIRE(sink.at.size() == 2);
  CHECK(sink.taken == 9);
  CHECK(sink.at[1] == us(1) + ns(672) * 10.0 + ns(586));
  CHECK(link.delivered(0) == 11);
  CHECK(link.in_flight(0) == 0);
}

TEST_CASE("EthLink: retract_train takes back the frames that have not started", "[ether][train]") {
  SendingMac mac;
  SettlingSink sink;
  sink.hold_on = false;
  EthLink link("link4", 1000, 2.0, mac, sink);
  EthFrame f;
  f.bytes.assign(60, 1);
  mac.end->transmit_train(f, us(1), ns(672), 100);
  CHECK(link.frames(0) == 100);
  sc_core::sc_start(us(5));  // frames 0..5 started (frame 5 at 4.36 us), frame 6 at 5.032 us
  CHECK_THROWS_AS(mac.end->retract_train(us(4)), std::logic_error);  // the past
  CHECK(mac.end->retract_train(now()) == 94);
  CHECK(link.frames(0) == 6);
  CHECK(mac.end->wire_free_at() == us(1) + ns(672) * 5.0 + ns(672));
  CHECK(mac.end->retract_train(now()) == 0);
  sc_core::sc_start(us(10));
  CHECK(sink.at.size() == 6);
  CHECK(link.delivered(0) == 6);
  CHECK(link.in_flight(0) == 0);
  // A fresh train may start once the wire is free.
  mac.end->transmit_train(f, now(), ns(672), 3);
  sc_core::sc_start(us(5));
  CHECK(sink.at.size() == 9);
}

}  // namespace ether_train_hold_test
