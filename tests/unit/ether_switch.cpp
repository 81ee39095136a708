// The store-and-forward switch (models/ether/switch.h) on a test bench of plain MAC ports and tester
// ports: forwarding latency, learning/flooding/filtering, the output queue's size, 802.3x PAUSE
// obeyed on egress (pause_time x 512 bit times after the frame in progress, XON, restart) and sent
// on ingress congestion per port, and the tester-train fast path giving the frame-by-frame times.
// Expected times are computed from the rules: a 60-byte frame serialises in 72 byte times (576 ns)
// and occupies 84 byte times with its gap (672 ns) at 1 Gb/s; 2 m of cable is 10 ns; the switch's
// forwarding latency is SwitchParams::forwarding_latency (880 ns by default).
#include "models/ether/link.h"
#include "models/ether/pause.h"
#include "models/ether/switch.h"
#include "models/ether/traffic_gen.h"
#include <catch2/catch.hpp>
#include <memory>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace ether_switch_test {
using namespace nicsim;

namespace {
using Mac6 = std::array<uint8_t, 6>;
const Mac6 kMacA = {0x00, 0x02, 0xb3, 0x00, 0x00, 0x0a};
const Mac6 kMacB = {0x00, 0x02, 0xb3, 0x00, 0x00, 0x0b};
const Mac6 kMacC = {0x00, 0x02, 0xb3, 0x00, 0x00, 0x0c};
const sc_time kSer = ns(576), kPeriod = ns(672), kProp = ns(10), kFwd = ns(880);

std::vector<uint8_t> switch_frame_to(const Mac6& da, const Mac6& sa, uint8_t fill = 0x5a) {
  std::vector<uint8_t> b(60, fill);
  std::copy(da.begin(), da.end(), b.begin());
  std::copy(sa.begin(), sa.end(), b.begin() + 6);
  b[12] = 0x08, b[13] = 0x00;
  return b;
}

/// A MAC that sends what the test tells it and records what arrives (time and bytes).
struct Mac : EthPort {
  std::string n;
  EthLinkEnd* end = nullptr;
  std::vector<sc_time> at;
  std::vector<std::vector<uint8_t>> got;
  explicit Mac(std::string name) : n(std::move(name)) {}
  void attach_link(EthLinkEnd* e) override { end = e; }
  void frame_received(const EthFrame& f) override {
    at.push_back(now());
    got.push_back(f.bytes);
  }
  std::string port_name() const override { return n; }
  sc_time send(std::vector<uint8_t> b, const sc_time& start) {
    EthFrame f;
    f.bytes = std::move(b);
    return end->transmit(f, start);
  }
  size_t pauses() const {
    size_t k = 0;
    for (auto& g : got) k += is_pause_frame(g);
    return k;
  }
};

uint64_t tally_in(const FrameTally& t) {
  uint64_t n = t.accepted;
  for (auto* v : {&t.held, &t.consumed, &t.dropped})
    for (auto& [why, k] : *v) n += k;
  return n;
}
}  // namespace

TEST_CASE("Switch arithmetic: cells per frame and the unloaded latency", "[ether][switch]") {
  CHECK(switch_cells(60, 128) == 1);     // 64 bytes with FCS
  CHECK(switch_cells(124, 128) == 1);    // 128
  CHECK(switch_cells(125, 128) == 2);    // 129
  CHECK(switch_cells(1514, 128) == 12);  // 1518 / 128 = 11.86
  SwitchParams p;
  CHECK(switch_unloaded_latency(p, 60, 1000) == kFwd + kSer);
  CHECK(switch_unloaded_latency(p, 1514, 1000) == kFwd + ns(8 * (8 + 1518)));
  CHECK_THROWS_AS(EthSwitch("sw_bad", 1, p), std::invalid_argument);
  SwitchParams tiny;
  tiny.buffer_kb = 1;  // 8 cells < 12 for a 1518-byte frame
  CHECK_THROWS_AS(EthSwitch("sw_tiny", 2, tiny), std::invalid_argument);
  SwitchParams inverted;
  inverted.pause_off_kb = inverted.pause_on_kb + 1;
  CHECK_THROWS_AS(EthSwitch("sw_inv", 2, inverted), std::invalid_argument);
}

TEST_CASE("Switch: store and forward after forwarding_latency, unknown unicast flooded, learned SA forwarded, "
          "own-port destination filtered",
          "[ether][switch]") {
  EthSwitch sw("sw", 3, SwitchParams{});
  Mac a("a"), b("b"), c("c");
  EthLink la("la", 1000, 2.0, a, sw.port(0)), lb("lb", 1000, 2.0, b, sw.port(1)), lc("lc", 1000, 2.0, c, sw.port(2));
  // A -> B, B unknown: flooded to B and C. Last bit at the switch 576 + 10 ns after the start; out
  // of the egress port forwarding_latency later; at the far MAC one serialisation + cable after.
  a.send(switch_frame_to(kMacB, kMacA), us(1));
  sc_core::sc_start(us(5));
  const sc_time arrive_b = us(1) + kSer + kProp + kFwd + kSer + kProp;
  REQUIRE(b.at.size() == 1);
  REQUIRE(c.at.size() == 1);
  CHECK(b.at[0] == arrive_b);
  CHECK(c.at[0] == arrive_b);
  CHECK(sw.lookup(kMacA) == 0);
  CHECK(sw.lookup(kMacB) == -1);
  // B -> A: A was learned on port 0, so only A gets it; B is learned now.
  b.send(switch_frame_to(kMacA, kMacB), now());
  sc_core::sc_start(us(5));
  CHECK(a.at.size() == 1);
  CHECK(c.at.size() == 1);
  CHECK(sw.lookup(kMacB) == 1);
  // A -> A (learned on port 0): filtered, 802.1D.
  a.send(switch_frame_to(kMacA, kMacA), now());
  sc_core::sc_start(us(5));
  CHECK(a.at.size() == 1);
  CHECK(b.at.size() == 1);
  CHECK(c.at.size() == 1);
  const FrameTally t0 = *sw.port(0).tally();
  CHECK(t0.accepted == 1);
  CHECK(tally_in(t0) == 2);
  CHECK(t0.sent == 1);
  bool filtered = false;
  for (auto& [why, k] : t0.dropped) filtered |= why.find("drop_filtered") != std::string::npos && k == 1;
  CHECK(filtered);
}

TEST_CASE("Switch: a received PAUSE stops the output after the frame in progress for pause_time x 512 bit times",
          "[ether][switch][flow]") {
  EthSwitch sw("sw", 3, SwitchParams{});
  sw.add_static(kMacB, 2);
  TrafficGenParams gp;  // wire rate, trains of 64
  gp.frames = 200;
  TesterPort gen("gen", gp);
  Mac idle("idle"), b("b");
  EthLink l0("l0", 1000, 2.0, gen, sw.port(0)), l1("l1", 1000, 2.0, idle, sw.port(1)), l2("l2", 1000, 2.0, b, sw.port(2));
  sc_core::sc_start(us(1));
  gen.start(switch_frame_to(kMacB, kMacA));
  // Frame k: last bit at the switch a_k = 1 us + 672k + 586 ns, starts out of port 2 at a_k + 880.
  auto start_k = [&](uint64_t k) { return us(1) + kPeriod * double(k) + kSer + kProp + kFwd; };
  sc_core::sc_start(us(10));
  CHECK(sw.passing_through(0));  // the tester's train passes through as a train
  // B sends PAUSE (100 quanta = 51.2 us at 1 Gb/s) at 20 us: it arrives at 20.586 us, while frame 26
  // (start 19.938 us) is on the wire; frame 27 (would start 20.610 us) waits for the pause's end.
  sc_core::sc_start(us(20) - now());
  b.send(make_pause_frame(kMacB, 100).bytes, now());
  const sc_time p_arrive = us(20) + kSer + kProp;
  REQUIRE(start_k(26) < p_arrive);
  REQUIRE(start_k(27) > p_arrive);
  sc_core::sc_start(us(200));
  REQUIRE(b.at.size() == 200);
  CHECK(b.at[26] == start_k(26) + kSer + kProp);
  const sc_time resume = p_arrive + pause_duration(100, 1000);
  CHECK(pause_duration(100, 1000) == ns(51200));
  CHECK(b.at[27] == resume + kSer + kProp);
  // The stored frames then leave back to back, one per 672 ns (the queue never empties: the
  // input arrives at the same rate).
  for (size_t k = 28; k < 200; ++k) CHECK(b.at[k] - b.at[k - 1] == kPeriod);
  const FrameTally t2 = *sw.port(2).tally();
  CHECK(t2.sent == 200);
  bool counted = false;
  for (auto& [why, k] : t2.consumed) counted |= why.find("pause_rx") != std::string::npos && k == 1;
  CHECK(counted);
  CHECK(tally_in(*sw.port(0).tally()) == 200);
  CHECK(sw.port(0).tally()->accepted == 200);
}

TEST_CASE("Switch: XON (pause_time 0) resumes at once, a new PAUSE restarts the timer", "[ether][switch][flow]") {
  EthSwitch sw("sw", 2, SwitchParams{});
  sw.add_static(kMacB, 1);
  Mac a("a"), b("b");
  EthLink l0("l0", 1000, 2.0, a, sw.port(0)), l1("l1", 1000, 2.0, b, sw.port(1));
  // PAUSE 100 quanta arriving at 1.586 us; at 10 us a frame from A (at the switch 10.586 us) waits.
  b.send(make_pause_frame(kMacB, 100).bytes, us(1));
  a.send(switch_frame_to(kMacB, kMacA, 1), us(10));
  // XON sent at 20 us arrives 20.586 us: the frame starts then.
  b.send(make_pause_frame(kMacB, 0).bytes, us(20));
  sc_core::sc_start(us(30));
  REQUIRE(b.at.size() == 1);
  CHECK(b.at[0] == us(20) + kSer + kProp + kSer + kProp);
  CHECK_FALSE(sw.paused(1));
  // PAUSE 100 at 40 us (arrives 40.586), another 100 at 60 us (arrives 60.586): the pause ends at
  // 60.586 + 51.2 = 111.786 us, not 91.786.
  b.send(make_pause_frame(kMacB, 100).bytes, us(40));
  a.send(switch_frame_to(kMacB, kMacA, 2), us(50));
  b.send(make_pause_frame(kMacB, 100).bytes, us(60));
  sc_core::sc_start(us(100) - now());
  CHECK(b.at.size() == 1);
  CHECK(sw.paused(1));
  sc_core::sc_start(us(50));
  REQUIRE(b.at.size() == 2);
  CHECK(b.at[1] == us(60) + kSer + kProp + ns(51200) + kSer + kProp);
}

namespace {
/// The output-queue bench (SystemC elaborates once per process: one TEST_CASE per setting).
void queue_case(unsigned cap_kb) {
  INFO("port_queue_kb " << cap_kb);
  SwitchParams p;
  p.buffer_kb = 2;  // 2048 / 128 = 16 cells: 16 minimum frames
  p.port_queue_kb = cap_kb;
  const unsigned room = cap_kb ? 8 : 16;
  const std::string n = "sw" + std::to_string(cap_kb);
  EthSwitch sw(n.c_str(), 3, p);
  CHECK(sw.cells_total() == 16);
  sw.add_static(kMacC, 2);
  Mac a(n + "a"), b(n + "b"), c(n + "c");
  EthLink l0((n + "l0").c_str(), 1000, 2.0, a, sw.port(0)), l1((n + "l1").c_str(), 1000, 2.0, b, sw.port(1)),
      l2((n + "l2").c_str(), 1000, 2.0, c, sw.port(2));
  // C pauses port 2 for the maximum (65535 quanta = 33.55 ms); A and B send 20 frames each to C.
  c.send(make_pause_frame(kMacC, 0xFFFF).bytes, SC_ZERO_TIME);
  for (int k = 0; k < 20; ++k) {
    a.send(switch_frame_to(kMacC, kMacA, uint8_t(k)), us(2) + kPeriod * double(k));
    b.send(switch_frame_to(kMacC, kMacB, uint8_t(k)), us(2) + kPeriod * double(k));
  }
  sc_core::sc_start(us(40));
  CHECK(c.at.empty());
  CHECK(sw.queued(2) == room);
  CHECK(sw.cells_used() == room);
  CHECK(sw.port(0).tally()->accepted + sw.port(1).tally()->accepted == room);
  CHECK(tally_in(*sw.port(0).tally()) + tally_in(*sw.port(1).tally()) == 40);
  // XON at 40 us (at the switch 40.586): the stored frames leave back to back.
  c.send(make_pause_frame(kMacC, 0).bytes, now());
  sc_core::sc_start(us(40));
  REQUIRE(c.at.size() == room);
  CHECK(c.at[0] == us(40) + kSer + kProp + kSer + kProp);
  for (size_t k = 1; k < room; ++k) CHECK(c.at[k] - c.at[k - 1] == kPeriod);
  CHECK(sw.cells_used() == 0);
  CHECK(sw.port(2).tally()->sent == room);
}
}  // namespace

TEST_CASE("Switch: the output queue holds the packet memory's cells, the rest is dropped", "[ether][switch]") { queue_case(0); }

TEST_CASE("Switch: port_queue_kb caps one output queue below the packet memory", "[ether][switch]") { queue_case(1); }

namespace {
/// The ingress-PAUSE bench, with send_pause on port 0 enabled or not.
void pause_send_case(bool enabled) {
  INFO("send_pause on port 0: " << enabled);
  SwitchParams p;
  p.pause_on_kb = 4;   // 32 cells of 128 B: 32 minimum frames
  p.pause_off_kb = 1;  // 8 cells
  p.pause_quanta = 0x1234;
  const std::string n = enabled ? "on" : "off";
  EthSwitch sw(n.c_str(), 3, p);
  sw.set_flow_control(0, true, enabled);
  sw.add_static(kMacC, 2);
  Mac a(n + "a"), b(n + "b"), c(n + "c");
  EthLink l0((n + "l0").c_str(), 1000, 2.0, a, sw.port(0)), l1((n + "l1").c_str(), 1000, 2.0, b, sw.port(1)),
      l2((n + "l2").c_str(), 1000, 2.0, c, sw.port(2));
  c.send(make_pause_frame(kMacC, 0xFFFF).bytes, SC_ZERO_TIME);  // nothing leaves port 2
  // A sends 40 frames back to back from 2 us: frame k at the switch at 2 us + 672k + 586 ns.
  for (int k = 0; k < 40; ++k) a.send(switch_frame_to(kMacC, kMacA, uint8_t(k)), us(2) + kPeriod * double(k));
  sc_core::sc_start(us(40));
  if (!enabled) {
    CHECK(a.at.empty());
  } else {
    // The 32nd frame (k = 31) brings port 0's frames to 32 cells: XOFF from port 0's address,
    // started at once (control frames need no lookup) and at A one serialisation + cable later.
    REQUIRE(a.got.size() == 1);
    Mac6 sa = p.base_mac;
    CHECK(a.got[0] == make_pause_frame(sa, 0x1234).bytes);
    CHECK(a.at[0] == us(2) + kPeriod * 31.0 + kSer + kProp + kSer + kProp);
  }
  // XON from C: 40 frames drain at 672 ns each; when port 0's frames are down to 8 cells (the
  // 32nd frame has left) the port sends XON.
  c.send(make_pause_frame(kMacC, 0).bytes, now());
  const sc_time xon_at = now() + kSer + kProp;
  sc_core::sc_start(us(60));
  CHECK(c.at.size() == 40);
  if (enabled) {
    REQUIRE(a.got.size() == 2);
    CHECK(is_pause_frame(a.got[1]));
    CHECK(pause_time_quanta(a.got[1]) == 0);
    // Frame j's last bit leaves port 2 at xon_at + 576 + 672 j: after j = 31, 8 frames remain.
    CHECK(a.at[1] == xon_at + kSer + kPeriod * 31.0 + kSer + kProp);
  } else {
    CHECK(a.got.empty());
  }
  CHECK(sw.port(0).tally()->sent == (enabled ? 2u : 0u));
}
}  // namespace

TEST_CASE("Switch: an input whose frames in the buffer reach pause_on_kb sends XOFF (Annex 31B frame), and XON at pause_off_kb", "[ether][switch][flow]") { pause_send_case(true); }

TEST_CASE("Switch: an input without send_pause sends no PAUSE however full", "[ether][switch][flow]") { pause_send_case(false); }

TEST_CASE("Switch: a port with obey_pause off counts a PAUSE as consumed control and keeps sending",
          "[ether][switch][flow]") {
  EthSwitch sw("sw", 2, SwitchParams{});
  sw.set_flow_control(1, false, false);
  sw.add_static(kMacB, 1);
  Mac a("a"), b("b");
  EthLink l0("l0", 1000, 2.0, a, sw.port(0)), l1("l1", 1000, 2.0, b, sw.port(1));
  b.send(make_pause_frame(kMacB, 0xFFFF).bytes, us(1));
  a.send(switch_frame_to(kMacB, kMacA), us(5));
  sc_core::sc_start(us(20));
  REQUIRE(b.at.size() == 1);
  CHECK(b.at[0] == us(5) + kSer + kProp + kFwd + kSer + kProp);
  CHECK_FALSE(sw.paused(1));
  bool counted = false;
  const FrameTally t1 = *sw.port(1).tally();
  for (auto& [why, k] : t1.consumed) counted |= why.find("consumed_control") != std::string::npos && k == 1;
  CHECK(counted);
}

TEST_CASE("Switch: a tester's train through the fast path arrives exactly as frame by frame, every frame accounted",
          "[ether][switch][train]") {
  // Two testers, wire rate, 1000 frames each, one into port 0 (to C on port 2), one into port 1 (to
  // A... on port 0): each egress carries one train, so both pass through as trains.
  EthSwitch sw("sw", 3, SwitchParams{});
  sw.add_static(kMacC, 2);
  sw.add_static(kMacA, 0);
  TrafficGenParams gp;
  gp.frames = 1000;
  TesterPort g0("g0", gp), g1("g1", gp);
  Mac c("c");
  EthLink l0("l0", 1000, 2.0, g0, sw.port(0)), l1("l1", 1000, 2.0, g1, sw.port(1)), l2("l2", 1000, 2.0, c, sw.port(2));
  sc_core::sc_start(us(1));
  g0.start(switch_frame_to(kMacC, kMacB));
  g1.start(switch_frame_to(kMacA, kMacB, 0x33));
  sc_core::sc_start(us(2));
  CHECK(sw.passing_through(0));
  CHECK(sw.passing_through(1));
  sc_core::sc_start(ms(1));
  REQUIRE(c.at.size() == 1000);
  for (size_t k = 0; k < 1000; ++k) {
    INFO("frame " << k);
    CHECK(c.at[k] == us(1) + kPeriod * double(k) + kSer + kProp + kFwd + kSer + kProp);
  }
  CHECK(g0.received() == 1000);  // flow from g1 out of port 0 to g0
  for (unsigned i = 0; i < 2; ++i) {
    const FrameTally t = *sw.port(i).tally();
    CHECK(t.accepted == 1000);
    CHECK(tally_in(t) == 1000);
  }
  CHECK(sw.port(2).tally()->sent == 1000);
  CHECK(sw.port(0).tally()->sent == 1000);
  CHECK(l2.delivered(0) + l2.delivered(1) == 1000);
  CHECK(sw.cells_used() == 0);
}

}  // namespace ether_switch_test
