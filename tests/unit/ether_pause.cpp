// 802.3x PAUSE frames (models/ether/pause.h) and the pause of the shared MAC transmit queue
// (models/ether/mac_tx.h, used by the BCM5701 and 8255x models): a data frame waits out a pause,
// a control frame jumps the queue and ignores it (802.3 §31.5.3), a frame on the wire completes.
#include "models/ether/link.h"
#include "models/ether/mac_tx.h"
#include "models/ether/pause.h"
#include "tests/unit/nic_e1000_bench.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace ether_pause_test {
using namespace nicsim;


TEST_CASE("PAUSE frame bytes per 802.3 Annex 31B and their recognition", "[ether][flow]") {
  const std::array<uint8_t, 6> sa = {0x00, 0x10, 0x18, 0x01, 0x02, 0x03};
  const EthFrame f = make_pause_frame(sa, 0x1234);
  const std::vector<uint8_t> head = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x00, 0x10, 0x18, 0x01,
                                     0x02, 0x03, 0x88, 0x08, 0x00, 0x01, 0x12, 0x34};
  REQUIRE(f.bytes.size() == 60);
  CHECK(std::equal(head.begin(), head.end(), f.bytes.begin()));
  CHECK(std::all_of(f.bytes.begin() + 18, f.bytes.end(), [](uint8_t b) { return b == 0; }));
  CHECK(is_mac_control_frame(f.bytes));
  CHECK(is_pause_frame(f.bytes));
  CHECK(pause_time_quanta(f.bytes) == 0x1234);
  auto other_op = f.bytes;
  other_op[15] = 0x02;  // not PAUSE
  CHECK(is_mac_control_frame(other_op));
  CHECK_FALSE(is_pause_frame(other_op));
  auto unicast = f.bytes;
  unicast[0] = 0x00;  // not the reserved multicast address
  CHECK_FALSE(is_pause_frame(unicast));
  auto ip = f.bytes;
  ip[12] = 0x08;
  ip[13] = 0x00;
  CHECK_FALSE(is_mac_control_frame(ip));
  CHECK_FALSE(is_pause_frame(std::vector<uint8_t>(f.bytes.begin(), f.bytes.begin() + 17)));
}

namespace {
struct QPort : sc_core::sc_module, EthPort {
  MacTxQueue q;
  explicit QPort(sc_core::sc_module_name n, sc_time pipeline) : sc_module(n), q(std::string(n), pipeline) {}
  void attach_link(EthLinkEnd* e) override { q.set_link(e); }
  void frame_received(const EthFrame&) override {}
  std::string port_name() const override { return name(); }
};
/// A queue port with a 300 ns pipeline, linked at 1000 Mb/s over a 0 m cable to a fake peer.
struct Pair {
  const sc_time pipe = ns(300);
  QPort a{"a", pipe};
  bench::FakePeer peer{"peer"};
  EthLink link{"link", 1000, 0.0, a, peer};
};
EthFrame data(unsigned len, uint8_t tag) {
  EthFrame f;
  f.bytes.assign(len, tag);
  return f;
}
}  // namespace

TEST_CASE("MacTxQueue: a control frame goes ahead of queued data and ignores the pause, data waits for it",
          "[ether][flow]") {
  Pair pr;
  const sc_time pipe = pr.pipe;
  QPort& a = pr.a;
  bench::FakePeer& peer = pr.peer;
  std::vector<sc_time> sent;
  bench::run([&] {
    a.q.pause(100);  // 51.2 µs
    a.q.queue(data(1514, 1), [&] { sent.push_back(now()); });
    a.q.queue(data(1514, 2), [&] { sent.push_back(now()); });
    a.q.queue_control(make_pause_frame({0x00, 0x10, 0x18, 0, 0, 1}, 0), [&] { sent.push_back(now()); });
    CHECK(a.q.paused());
    CHECK(a.q.paused_until() == ns(100 * 512));
    bench::wait_until(us(20));
    a.q.pause(0);  // XON at 20 µs: data resumes at once
    bench::wait_until(us(100));
  }, us(100));
  REQUIRE(peer.rx.size() == 3);
  CHECK(is_pause_frame(peer.rx[0].f.bytes));  // queued last, sent first, during the pause
  CHECK(peer.rx[0].t == pipe + serialization_time(60, 1000));
  CHECK(peer.rx[1].f.bytes[0] == 1);
  CHECK(peer.rx[1].t == us(20) + serialization_time(1514, 1000));
  CHECK(peer.rx[2].f.bytes[0] == 2);
  CHECK(peer.rx[2].t == us(20) + frame_time(1514, 1000) + serialization_time(1514, 1000));
  REQUIRE(sent.size() == 3);
  CHECK(sent[0] == peer.rx[0].t);
}

TEST_CASE("MacTxQueue: a pause does not cut the frame on the wire, the next one waits N x 512 bit times",
          "[ether][flow]") {
  Pair pr;
  const sc_time pipe = pr.pipe;
  QPort& a = pr.a;
  bench::FakePeer& peer = pr.peer;
  bench::run([&] {
    a.q.queue(data(1514, 1), {});
    a.q.queue(data(1514, 2), {});
    bench::wait_until(us(1));  // frame 1 is on the wire since 300 ns
    a.q.pause(10);             // 5.12 µs from 1 µs: ends before frame 1 does
    bench::wait_until(us(2));
    a.q.pause(40);             // a new PAUSE restarts the timer: 2 + 20.48 µs
    bench::wait_until(us(60));
  }, us(60));
  REQUIRE(peer.rx.size() == 2);
  CHECK(peer.rx[0].t == pipe + serialization_time(1514, 1000));
  CHECK(peer.rx[1].t == us(2) + ns(40 * 512) + serialization_time(1514, 1000));
}

}  // namespace ether_pause_test
