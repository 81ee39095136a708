// e1000 driver model without SystemC: module parameters (defaults, ranges, e1000_check_options),
// the ITR arithmetic, ring arithmetic, MAC identification, pause resolution, registry entries.
#include "drivers-sim/drivers/e1000/e1000.h"
#include "platforms/testbed.h"
#include <algorithm>
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace driver_e1000_params_test {
using namespace nicsim;
using namespace nicsim::e1000drv;


TEST_CASE("e1000 ITR arithmetic: fixed rate and the 5.x dynamic rule", "[e1000drv]") {
  // research §2: 1e9 / (8000 × 256) = 488 (124.9 µs); SDM p=305 example: 500 -> 7813 ints/s.
  CHECK(itr_interval(8000) == 488);
  CHECK(itr_interval(7813) == 499);
  CHECK(itr_interval(20000) == 195);
  CHECK(itr_interval(100000) == 39);
  CHECK(itr_interval(0) == 0);
  // goc = (tx + rx)/10000, dif = |tx - rx|/10000, rate = goc ? dif·6000/goc + 2000 : 8000
  CHECK(dynamic_itr_rate(0, 0) == 8000);                  // no traffic
  CHECK(dynamic_itr_rate(5000, 4000) == 8000);            // goc = 0: below 10 kB in 2 s
  CHECK(dynamic_itr_rate(1000000, 1000000) == 2000);      // symmetric (ping-pong)
  CHECK(dynamic_itr_rate(1000000, 0) == 8000);            // one-way
  CHECK(dynamic_itr_rate(0, 2000000) == 8000);
  CHECK(dynamic_itr_rate(30000, 10000) == 5000);          // goc 4, dif 2: 2·6000/4 + 2000
}

TEST_CASE("e1000 ring arithmetic: E1000_DESC_UNUSED and TXD_USE_COUNT and E1000_ROUNDUP", "[e1000drv]") {
  CHECK(desc_unused(256, 0, 0) == 255);  // one slot always stays empty
  CHECK(desc_unused(256, 10, 5) == 250);
  CHECK(desc_unused(256, 5, 10) == 4);
  CHECK(desc_unused(80, 79, 0) == 0);
  CHECK(txd_use_count(0, 4096) == 0);
  CHECK(txd_use_count(1514, 4096) == 1);
  CHECK(txd_use_count(4096, 4096) == 1);
  CHECK(txd_use_count(9014, 4096) == 3);
  CHECK(roundup(100, 8) == 104);
  CHECK(roundup(80, 8) == 80);
  CHECK(roundup(2048, 4096) == 4096);
}

TEST_CASE("e1000 MAC identification keeps the enum order that excludes the 82544 from '>= 82540'", "[e1000drv]") {
  CHECK(mac_type_of(device_id_of("82544GC")) == e1000_82544);
  CHECK(mac_type_of(device_id_of("82544EI")) == e1000_82544);
  CHECK(mac_type_of(device_id_of("82540EM")) == e1000_82540);
  CHECK(mac_type_of(device_id_of("82545EM")) == e1000_82545);
  CHECK(mac_type_of(device_id_of("82546EB")) == e1000_82546);
  CHECK(device_id_of("82546EB") == 0x1010);
  CHECK(device_id_of("82544GC") == 0x100C);
  CHECK(device_id_of("tg3") == 0);
  CHECK(mac_type_of(0x1234) == e1000_undefined);
  CHECK(e1000_82544 < e1000_82540);
  CHECK(e1000_82540 < e1000_82546);
  CHECK(IMS_ENABLE_MASK == 0x9D);
}

TEST_CASE("e1000 pause resolution after autonegotiation (802.3 Annex 28B)", "[e1000drv]") {
  const uint16_t both = NWAY_AR_PAUSE | NWAY_AR_ASM_DIR;
  CHECK(resolve_flow_control(both, NWAY_LPAR_PAUSE, e1000_fc_full) == e1000_fc_full);
  CHECK(resolve_flow_control(both, NWAY_LPAR_PAUSE, e1000_fc_rx_pause) == e1000_fc_rx_pause);
  CHECK(resolve_flow_control(NWAY_AR_ASM_DIR, NWAY_LPAR_PAUSE | NWAY_LPAR_ASM_DIR, e1000_fc_tx_pause) ==
        e1000_fc_tx_pause);
  CHECK(resolve_flow_control(both, NWAY_LPAR_ASM_DIR, e1000_fc_full) == e1000_fc_rx_pause);
  CHECK(resolve_flow_control(0, 0, e1000_fc_none) == e1000_fc_none);
}

TEST_CASE("e1000 module parameters: defaults per version and e1000_check_options", "[e1000drv]") {
  const DriverProfile& p4 = profile_4_4_12_k1();
  const DriverProfile& p5 = profile_5_0_43_k1();
  nicsim::e1000drv::Options o = check_options(ParamValues(param_schema(p4)), p4, e1000_82546);
  CHECK(o.tx_descriptors == 256);
  CHECK(o.rx_descriptors == 80);
  CHECK(o.rx_int_delay == 0);
  CHECK(o.rx_abs_int_delay == 128);
  CHECK(o.tx_int_delay == 64);
  CHECK(o.tx_abs_int_delay == 64);
  CHECK(o.itr == -1);  // no InterruptThrottleRate in 4.4.12
  CHECK(o.xsum_rx);
  CHECK(o.flow_control == e1000_fc_default);
  CHECK(o.autoneg == 0x2F);

  nicsim::e1000drv::Options o5 = check_options(ParamValues(param_schema(p5)), p5, e1000_82546);
  CHECK(o5.rx_descriptors == 256);
  CHECK(o5.itr == 1);  // dynamic

  ParamValues v(param_schema(p5));
  v.set("InterruptThrottleRate", int64_t(50));  // 2-99: invalid -> default
  CHECK(check_options(v, p5, e1000_82546).itr == 1);
  v.set("InterruptThrottleRate", int64_t(100));
  CHECK(check_options(v, p5, e1000_82546).itr == 100);
  v.set("InterruptThrottleRate", int64_t(0));
  CHECK(check_options(v, p5, e1000_82546).itr == 0);
  v.set("RxDescriptors", int64_t(100));  // REQ_RX_DESCRIPTOR_MULTIPLE 8
  CHECK(check_options(v, p5, e1000_82546).rx_descriptors == 104);
  v.set("RxDescriptors", int64_t(1024));
  CHECK(check_options(v, p5, e1000_82546).rx_descriptors == 1024);
  CHECK(check_options(v, p5, e1000_82543).rx_descriptors == 256);  // 256 max before the 82544: default
  v.set("Speed", int64_t(50));
  CHECK(check_options(v, p5, e1000_82546).speed == 0);
  v.set("Speed", int64_t(100));
  v.set("AutoNeg", int64_t(0x08));
  CHECK(check_options(v, p5, e1000_82546).autoneg == 0x2F);  // AutoNeg with a forced speed: ignored
}

TEST_CASE("e1000 option sets: every value the schema admits is one e1000_check_options keeps, and no other",
          "[e1000drv]") {
  // Regression (list --verbose showed FlowControl [0, 255] and Speed [0, 1000], wider than the
  // driver's check): the schema's accepted set is the one check_options uses.
  const DriverProfile& p5 = profile_5_0_43_k1();
  const ParamSchema schema = param_schema(p5);
  auto spec = [&](const std::string& n) {
    auto it = std::find_if(schema.begin(), schema.end(), [&](const ParamSpec& x) { return x.name == n; });
    REQUIRE(it != schema.end());
    return *it;
  };
  auto kept = [&](const std::string& name, int64_t x) {
    ParamValues v(schema);
    v.set(name, x);
    const nicsim::e1000drv::Options o = check_options(v, p5, e1000_82546);
    if (name == "FlowControl") return int64_t(o.flow_control) == x;
    if (name == "Speed") return int64_t(o.speed) == x;
    if (name == "AutoNeg") return int64_t(o.autoneg) == x;
    return int64_t(o.itr) == x;
  };
  for (const char* name : {"FlowControl", "Speed", "AutoNeg", "InterruptThrottleRate"}) {
    const ParamSpec s = spec(name);
    CHECK_FALSE(s.accepted.empty());
    const int64_t def = std::get<int64_t>(s.def);
    for (int64_t x = static_cast<int64_t>(*s.min) - 1; x <= std::min<int64_t>(static_cast<int64_t>(*s.max) + 1, 1100); ++x) {
      if (x == def) continue;  // the fallback itself
      INFO(name << " = " << x);
      CHECK(int_accepted(s, x) == kept(name, x));
    }
  }
}

TEST_CASE("e1000 driver entries: two versions with the same devices and documented parameters", "[e1000drv]") {
  const DriverEntry* d4 = Registry<DriverEntry>::instance().find("e1000-4.4.12-k1");
  const DriverEntry* d5 = Registry<DriverEntry>::instance().find("e1000-5.0.43-k1");
  REQUIRE(d4);
  REQUIRE(d5);
  const std::vector<std::string> devs = {"82544GC", "82544EI", "82540EM", "82545EM", "82546EB"};
  CHECK(d4->devices == devs);
  CHECK(d5->devices == devs);
  CHECK(d4->probe);
  auto find = [](const DriverEntry* e, const std::string& n) -> const ParamSpec* {
    for (const auto& s : e->params)
      if (s.name == n) return &s;
    return nullptr;
  };
  for (const char* n : {"TxDescriptors", "RxDescriptors", "RxIntDelay", "RxAbsIntDelay", "TxIntDelay", "TxAbsIntDelay",
                        "XsumRX", "FlowControl", "Speed", "Duplex", "AutoNeg"}) {
    INFO(n);
    REQUIRE(find(d4, n));
    REQUIRE(find(d5, n));
  }
  CHECK(find(d4, "InterruptThrottleRate") == nullptr);
  REQUIRE(find(d5, "InterruptThrottleRate"));
  CHECK(std::get<int64_t>(find(d5, "InterruptThrottleRate")->def) == 1);
  CHECK(std::get<int64_t>(find(d4, "RxDescriptors")->def) == 80);
  CHECK(std::get<int64_t>(find(d5, "RxDescriptors")->def) == 256);
  CHECK(std::get<int64_t>(find(d4, "TxIntDelay")->def) == 64);
  CHECK(find(d4, "RxIntDelay")->unit == "1.024 µs units");
  for (const auto* e : {d4, d5})
    for (const auto& s : e->params) {
      INFO(e->name << " " << s.name);
      CHECK(!s.unit.empty());
      CHECK(!s.doc.empty());
      CHECK(s.source.find("e1000_param.c") != std::string::npos);
    }
}

TEST_CASE("e1000 4.2.8-k1 module parameters: RxIntDelay is RDTR 64 on the 82544 and RADV 128 with RDTR 64 on the "
          "82540, TIDV fixed 64",
          "[e1000drv]") {
  // research/seeds-001-004-platforms-drivers.md §2.2 (LH@a4358d3aab e1000_param.c, e1000_main.c).
  const DriverProfile& p = profile_4_2_8_k1();
  CHECK(p.rx_int_delay_only);
  CHECK(p.tx_reclaim_in_xmit);
  CHECK_FALSE(p.itr_param);
  const ParamValues def(param_schema(p));
  nicsim::e1000drv::Options o = check_options(def, p, e1000_82544);
  CHECK(o.rx_descriptors == 80);
  CHECK(o.tx_descriptors == 256);
  CHECK(o.rx_int_delay == 64);  // DEFAULT_RDTR -> RDTR
  CHECK(o.tx_int_delay == 64);
  CHECK(o.itr == -1);
  nicsim::e1000drv::Options o40 = check_options(def, p, e1000_82540);
  CHECK(o40.rx_int_delay == 64);       // RDTR written 64
  CHECK(o40.rx_abs_int_delay == 128);  // DEFAULT_RADV -> RADV
  CHECK(o40.tx_int_delay == 64);
  ParamValues v(param_schema(p));
  v.set("RxIntDelay", int64_t(0));
  CHECK(check_options(v, p, e1000_82544).rx_int_delay == 0);
  CHECK(check_options(v, p, e1000_82546).rx_abs_int_delay == 0);
  CHECK(check_options(v, p, e1000_82546).rx_int_delay == 64);
  v.set("RxIntDelay", int64_t(200));
  CHECK(check_options(v, p, e1000_82544).rx_int_delay == 200);
  // The 4.4.x parameters do not exist in 4.2.8.
  const DriverEntry* d = Registry<DriverEntry>::instance().find("e1000-4.2.8-k1");
  REQUIRE(d);
  for (const char* n : {"RxAbsIntDelay", "TxIntDelay", "TxAbsIntDelay", "InterruptThrottleRate"}) {
    INFO(n);
    for (const auto& s : d->params) CHECK(s.name != n);
  }
  for (const auto& s : d->params) {
    INFO(s.name);
    CHECK(s.source.find("e1000_param.c") != std::string::npos);
    if (s.name == "RxIntDelay") CHECK(std::get<int64_t>(s.def) == kOptionUnset);
  }
}

}  // namespace driver_e1000_params_test
