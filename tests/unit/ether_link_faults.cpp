// Link faults on a bench: a cable pulled and plugged, a partner PHY restarting auto-negotiation,
// a frame error rate; the PHY link monitor's timers (models/ether/phy.h,
// research/link-faults-failover.md §A1). Two fake ports with a PHY each, no NIC, no driver.
#include "core/sim_context.h"
#include "models/ether/link.h"
#include "models/ether/link_faults.h"
#include "models/ether/phy.h"
#include <catch2/catch.hpp>
#include <memory>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace ether_link_faults_test {
using namespace nicsim;

namespace {
struct Port : EthPort, EthLineSide {
  std::string nm;
  EthLinkEnd* end = nullptr;
  std::vector<std::pair<sc_time, EthFrame>> rx;
  std::vector<std::pair<sc_time, bool>> link_changes;  ///< (time, up) as the PHY declared them
  std::unique_ptr<EthPhy> phy;
  explicit Port(std::string n) : nm(std::move(n)) {
    phy = std::make_unique<EthPhy>(nm, [this](bool up) { link_changes.push_back({now(), up}); });
  }
  void attach_link(EthLinkEnd* e) override {
    end = e;
    phy->set_initial(true);
  }
  void frame_received(const EthFrame& f) override {
    rx.push_back({now(), f});
    order.push_back(false);
  }
  std::string port_name() const override { return nm; }
  void line_signal(const LineSignal& s) override { phy->line(s, end->speed_mbps()); }
  void frame_received_bad_fcs(const EthFrame& f) override {
    bad.push_back(f);
    order.push_back(true);
  }
  std::vector<EthFrame> bad;  ///< frames that arrived with a bad FCS
  std::vector<uint8_t> order;  ///< per arrival: 1 bad FCS, 0 good
};
EthFrame frame(unsigned len, uint8_t tag) {
  EthFrame f;
  f.bytes.assign(len, tag);
  return f;
}
}  // namespace

TEST_CASE("PHY timers: 1000BASE-T link fail 750 ms MASTER and 350 ms SLAVE and 10 ms at 100 Mb/s", "[ether][faults]") {
  const PhyTimers g = phy_timers(1000);
  CHECK(g.link_fail_master == ms(750));
  CHECK(g.link_fail_slave == ms(350));
  CHECK(g.link_up == ms(3 * 160 + 750));  // three pages of ~10 FLP bursts 16 ms apart, then training
  const PhyTimers f = phy_timers(100);
  CHECK(f.link_fail_master == ms(10));
  CHECK(f.link_fail_slave == ms(10));
  CHECK(f.link_up == ms(160 + 750));
}

TEST_CASE("Cable pull: each PHY declares link down after its own timer and link up after AN and training", "[ether][faults]") {
  Port a("a"), b("b");
  EthLink link("link", 1000, 2.0, a, b);
    LinkFaults(link).schedule_cable(ms(100), false);
  LinkFaults(link).schedule_cable(ms(3100), true);
  sc_core::sc_start(sec(5));
  REQUIRE(a.link_changes.size() == 2);
  REQUIRE(b.link_changes.size() == 2);
  const Port& m = LinkFaults(link).master(0) ? a : b;
  const Port& s = LinkFaults(link).master(0) ? b : a;
  CHECK(m.link_changes[0] == std::make_pair(ms(850), false));  // 100 ms + 750 ms MASTER
  CHECK(s.link_changes[0] == std::make_pair(ms(450), false));  // 100 ms + 350 ms SLAVE
  CHECK(m.link_changes[1] == std::make_pair(ms(3100) + phy_timers(1000).link_up, true));
  CHECK(s.link_changes[1] == std::make_pair(ms(3100) + phy_timers(1000).link_up, true));
}

TEST_CASE("Cable pull: the roles come from the run seed and differ across seeds", "[ether][faults]") {
  // One link per seed stream name: the draw is Rng::derive("<link>.master"), so each name is a
  // fair coin; over 64 names both outcomes appear (a constant role would fail).
  int master_a = 0;
  std::vector<std::unique_ptr<Port>> ports;
  std::vector<std::unique_ptr<EthLink>> links;
  for (int i = 0; i < 64; ++i) {
    ports.push_back(std::make_unique<Port>("a" + std::to_string(i)));
    ports.push_back(std::make_unique<Port>("b" + std::to_string(i)));
    links.push_back(std::make_unique<EthLink>(("l" + std::to_string(i)).c_str(), 1000, 2.0, *ports[2 * i], *ports[2 * i + 1]));
    LinkFaults f(*links.back());
    master_a += f.master(0) ? 1 : 0;
    CHECK(f.master(0) != f.master(1));
  }
  CHECK(master_a > 10);
  CHECK(master_a < 54);
}

TEST_CASE("Cable pull: frames on the wire and sent into the dead line are lost and counted there", "[ether][faults]") {
  Port a("a"), b("b");
  EthLink link("link", 1000, 2.0, a, b);
  LinkFaults(link).schedule_cable(us(25), false);
  LinkFaults(link).schedule_cable(us(50), true);
  sc_core::sc_spawn(
      [&] {
        // 1514-byte frames back to back, 12.304 µs apart: frames 0 and 1 arrive before 25 µs, the
        // third (last bit at 36.8 µs) is on the wire when the cable goes.
        for (int i = 0; i < 3; ++i) a.end->transmit(frame(1514, uint8_t(i)), SC_ZERO_TIME);
        sc_core::wait(us(30));
        a.end->transmit(frame(60, 0xAA), SC_ZERO_TIME);  // dead line: lost
        sc_core::wait(us(40));  // 70 µs: line live again (whether the PHYs pass frames is the port's business)
        a.end->transmit(frame(60, 0xBB), SC_ZERO_TIME);
      },
      "script");
  sc_core::sc_start(us(200));
  REQUIRE(b.rx.size() == 3);
  CHECK(b.rx[0].second.bytes[0] == 0);
  CHECK(b.rx[1].second.bytes[0] == 1);
  CHECK(b.rx[2].second.bytes[0] == 0xBB);
  CHECK(link.frames(0) == 5);
  CHECK(LinkFaults::lost(link, 0) == 2);  // one cut on the wire, one sent into the dead line
  CHECK(link.delivered(0) + link.in_flight(0) + LinkFaults::lost(link, 0) == link.frames(0));
  CHECK(link.in_flight(0) == 0);
  CHECK(LinkFaults::lost(link, 1) == 0);
}

TEST_CASE("Cable pulled and replugged before the link-fail timer: the link stays up", "[ether][faults]") {
  Port a("a"), b("b");
  EthLink link("link", 1000, 2.0, a, b);
  LinkFaults(link).schedule_cable(ms(10), false);
  LinkFaults(link).schedule_cable(ms(200), true);  // < 350 ms: neither PHY declares link fail
  sc_core::sc_start(sec(2));
  CHECK(a.link_changes.empty());
  CHECK(b.link_changes.empty());
}

TEST_CASE("Partner link loss: the restarting PHY is down at once and the other after its timer", "[ether][faults]") {
  Port a("a"), b("b");
  EthLink link("link", 1000, 2.0, a, b);
  LinkFaults(link).schedule_partner_loss(ms(100), 1, ms(1250));  // b restarts auto-negotiation
  sc_core::sc_start(sec(4));
  REQUIRE(b.link_changes.size() == 2);
  CHECK(b.link_changes[0] == std::make_pair(ms(100), false));
  REQUIRE(a.link_changes.size() == 2);
  CHECK(a.link_changes[0].first == ms(100) + (LinkFaults(link).master(0) ? ms(750) : ms(350)));
  CHECK(a.link_changes[1].first == ms(1350) + phy_timers(1000).link_up);
  CHECK(b.link_changes[1].first == ms(1350) + phy_timers(1000).link_up);
}

TEST_CASE("Frame error rate: only frames in the window and only that direction and the same draws per seed", "[ether][faults]") {
  auto run = [](std::vector<uint8_t>& bad) {
    Port a("a"), b("b");
    EthLink link("link", 1000, 2.0, a, b);
    LinkFaults(link).add_error_window(0, us(100), us(100) + ns(672) * 10000.0, 0.1);
    sc_core::sc_spawn(
        [&] {
          for (int i = 0; i < 30000; ++i) a.end->transmit(frame(60, 0), SC_ZERO_TIME);
          for (int i = 0; i < 100; ++i) b.end->transmit(frame(60, 0), SC_ZERO_TIME);
        },
        "script");
    sc_core::sc_start(ms(30));
    bad = b.order;
    CHECK(a.bad.empty());
    CHECK(a.rx.size() == 100);
    CHECK(LinkFaults::corrupted(link, 1) == 0);
    return LinkFaults::corrupted(link, 0);
  };
  std::vector<uint8_t> bad;
  const uint64_t n = run(bad);
  REQUIRE(bad.size() == 30000);
  // Frame i starts at i × 672 ns: the window holds frames 149..10148 (10,000 frames at p = 0.1).
  uint64_t in = 0, out = 0;
  for (size_t i = 0; i < bad.size(); ++i) (i >= 149 && i < 10149 ? in : out) += bad[i];
  CHECK(out == 0);
  CHECK(in == n);
  CHECK(n > 900);   // 1000 ± 3σ (σ = 30)
  CHECK(n < 1100);
}

TEST_CASE("Frame error rate: refused toward a port that does not check the FCS", "[ether][faults]") {
  Port a("a");
  struct PlainPort : EthPort {
    void attach_link(EthLinkEnd*) override {}
    void frame_received(const EthFrame&) override {}
    std::string port_name() const override { return "plain"; }
  } p;
  EthLink link("link", 1000, 2.0, a, p);
  CHECK_THROWS_WITH(LinkFaults(link).add_error_window(0, SC_ZERO_TIME, ms(1), 0.5),
                    Catch::Contains("does not model FCS checking"));
  CHECK_NOTHROW(LinkFaults(link).add_error_window(1, SC_ZERO_TIME, ms(1), 0.5));
}

}  // namespace ether_link_faults_test
