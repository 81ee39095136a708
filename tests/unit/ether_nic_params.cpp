// The shared NIC clock / MAC-PHY latency parameters (models/ether/nic_params.h) and their users.
#include "core/sim_context.h"
#include "models/device_entry.h"
#include "models/ether/nic_params.h"
#include "models/nic/e1000/e1000.h"
#include "models/nic/gem/gem.h"
#include "models/nic/i8255x/i8255x.h"
#include "models/nic/tg3/tg3.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace ether_nic_params_test {
using namespace nicsim;

namespace {
const ParamSpec* find(const ParamSchema& s, const std::string& name) {
  for (const ParamSpec& p : s)
    if (p.name == name) return &p;
  return nullptr;
}
const char* const kShared[] = {"clock_ppm",         "clock_ppm_spread",  "mac_tx_latency_ns",
                               "phy_tx_latency_ns", "phy_rx_latency_ns", "mac_rx_latency_ns"};

/// Each NIC schema holds the six shared entries once, with its own defaults, in ns / ppm.
template <typename P>
void check_schema(double mac_tx, double phy_tx, double phy_rx, double mac_rx) {
  const ParamSchema s = P::schema();
  for (const char* n : kShared) {
    INFO(n);
    size_t count = 0;
    for (const ParamSpec& p : s) count += p.name == n;
    CHECK(count == 1);
  }
  CHECK(std::get<double>(find(s, "clock_ppm")->def) == 0.0);
  CHECK(std::get<double>(find(s, "clock_ppm_spread")->def) == 15.0);
  CHECK(std::get<double>(find(s, "mac_tx_latency_ns")->def) == Approx(mac_tx));
  CHECK(std::get<double>(find(s, "phy_tx_latency_ns")->def) == Approx(phy_tx));
  CHECK(std::get<double>(find(s, "phy_rx_latency_ns")->def) == Approx(phy_rx));
  CHECK(std::get<double>(find(s, "mac_rx_latency_ns")->def) == Approx(mac_rx));
  CHECK(find(s, "clock_ppm")->unit == "ppm");
  CHECK(*find(s, "clock_ppm")->min == -100.0);
  CHECK(*find(s, "clock_ppm")->max == 100.0);
  CHECK(find(s, "mac_rx_latency_ns")->unit == "ns");
  // The values read back are the schema's (set values win over defaults).
  ParamValues v(s);
  v.set("clock_ppm", -42.5);
  v.set("phy_rx_latency_ns", 1234.0);
  const P p = P::from(v);
  CHECK(p.clock_ppm == -42.5);
  CHECK(p.clock_ppm_spread == 15.0);
  CHECK(to_ns(p.phy_rx_latency) == Approx(1234));
  CHECK(to_ns(p.mac_tx_latency) == Approx(mac_tx));
  CHECK(to_ns(p.mac_rx_latency) == Approx(mac_rx));
}
}  // namespace

TEST_CASE("Every NIC declares clock_ppm, clock_ppm_spread and the MAC/PHY latencies through one helper",
          "[ether][params]") {
  check_schema<e1000::E1000Params>(200, 100, 300, 200);
  check_schema<tg3::Tg3Params>(200, 100, 300, 200);
  check_schema<gem::GemParams>(200, 100, 300, 200);
  check_schema<i8255x::I8255xParams>(400, 300, 500, 400);  // 100 Mb/s MII parts
  // One text for the spread in every NIC.
  CHECK(find(e1000::E1000Params::schema(), "clock_ppm_spread")->doc ==
        find(i8255x::I8255xParams::schema(), "clock_ppm_spread")->doc);
  CHECK(find(tg3::Tg3Params::schema(), "clock_ppm_spread")->source ==
        find(gem::GemParams::schema(), "clock_ppm_spread")->source);
}

TEST_CASE("read_timing names a missing entry", "[ether][params]") {
  NicTimingParams t;
  ParamValues v(t.clock_schema("a clock"));  // no latency entries
  CHECK_THROWS_AS(t.read_timing(v), std::out_of_range);
}

TEST_CASE("draw_clock_offset: one seeded draw per instance, clipped to ±100 ppm, none at spread 0",
          "[ether][params]") {
  sim().rng = Rng(7);
  NicTimingParams exact;
  exact.clock_ppm = 12.0;
  exact.clock_ppm_spread = 0.0;
  exact.draw_clock_offset("alpha_eth1");
  CHECK(exact.clock_ppm == 12.0);

  NicTimingParams a, a2, b;
  a.draw_clock_offset("alpha_eth1");
  a2.draw_clock_offset("alpha_eth1");
  b.draw_clock_offset("beta_eth1");
  CHECK(a.clock_ppm != 0.0);
  CHECK(a.clock_ppm == a2.clock_ppm);  // a stream per instance name: the same draw again
  CHECK(a.clock_ppm != b.clock_ppm);
  // The draw is the run seed's stream "<inst>.clock_ppm", normal(0, spread).
  Rng r = sim().rng.derive("alpha_eth1.clock_ppm");
  CHECK(a.clock_ppm == r.normal(0.0, 15.0));

  NicTimingParams edge;
  edge.clock_ppm = 100.0;
  edge.clock_ppm_spread = 100.0;
  int clipped = 0;
  for (const char* inst : {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"}) {
    NicTimingParams e = edge;
    e.draw_clock_offset(inst);
    CHECK(e.clock_ppm <= 100.0);
    CHECK(e.clock_ppm >= -100.0);
    clipped += e.clock_ppm == 100.0;  // every positive draw lands on the limit
  }
  CHECK(clipped > 0);
}

TEST_CASE("Every NIC entry refuses a multicast mac_address and a cache line that is not a power of two alike",
          "[ether][params]") {
  for (const char* dev : {"82544GC", "82546EB", "82559", "BCM5701", "GMAC"}) {
    INFO(dev);
    const DeviceEntry* e = Registry<DeviceEntry>::instance().find(dev);
    REQUIRE(e);
    REQUIRE(e->check);
    ParamValues v(e->params);
    CHECK(e->check(v).empty());
    v.set("cache_line_bytes", int64_t{48});
    v.set("mac_address", std::string("01:00:5e:00:00:01"));  // group bit set
    const std::vector<ParamProblem> out = e->check(v);
    REQUIRE(out.size() == 2);
    CHECK(out[0].key == "mac_address");
    CHECK(out[1].key == "cache_line_bytes");
    CHECK(out[1].message ==
          "48 bytes is not a power of two (PCI 2.2 §6.2.4: the Cache Line Size register holds 4, 8, 16, 32 or 64 "
          "DWORDs: 16..256 bytes)");
  }
}

}  // namespace ether_nic_params_test
