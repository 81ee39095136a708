// The Dell PowerEdge 2650 platform entry: its topology (describe), its checks (onboard NICs as
// registry data, the riser bus-1 speed rule), and the busbench scenario on its riser slot 3.
#include "core/registry.h"
#include "core/sim_context.h"
#include "e7500_test_bench.h"
#include "models/chipset/serverworks_cmic.h"
#include "platforms/busbench.h"
#include "platforms/dell_pe2650.h"
#include "platforms/scenario.h"
#include "scenario_run.h"
#include <catch2/catch.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

// This file's own names, apart from the other files of a unity batch.
namespace platform_pe2650_test {
using namespace nicsim;

namespace {

const PlatformEntry& pe() {
  auto* e = Registry<PlatformEntry>::instance().find("dell-pe2650");
  REQUIRE(e);
  return *e;
}

HostConfig host_config(std::vector<std::pair<std::string, ParamValue>> set, std::vector<std::string> nic_slots = {}) {
  HostConfig hc;
  hc.name = "alpha";
  hc.platform = pe().name;
  hc.params = ParamValues(pe().params);
  for (auto& [k, v] : set) hc.params.set(k, v);
  for (size_t i = 0; i < nic_slots.size(); ++i) {
    NicConfig n;
    n.host = "alpha";
    n.name = "eth" + std::to_string(i);
    n.slot = nic_slots[i];
    hc.nics.push_back(n);
  }
  return hc;
}

bool has_problem(const std::vector<ParamProblem>& ps, const std::string& key, const std::string& text) {
  for (auto& p : ps)
    if (p.key == key && p.message.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("dell-pe2650 is registered: slots, sourced parameters and a describe tree of its GC-LE topology", "[platform][pe2650]") {
  const PlatformEntry& e = pe();
  for (auto& p : e.params) CHECK_FALSE(p.source.empty());
  std::vector<std::string> slots;
  for (auto& s : e.slots) slots.push_back(s.name);
  CHECK(slots == std::vector<std::string>{"slot1", "slot2", "slot3", "onboard-nic1", "onboard-nic2"});
  CHECK(e.slots[3].onboard);
  CHECK(e.slots[3].onboard_devices == std::vector<std::string>{kPe2650OnboardNic});
  ParamValues v(e.params);
  std::string d = e.describe(v);
  INFO(d);
  for (const char* want :
       {"ServerWorks CMIC-LE", "IMB0 (imb0): IMBus 16-bit × 400 MT/s = 800 MB/s per direction", "CIOB-X2 (ciob0)",
        "CIOB-X2 (ciob1)", "segment A (PCI bus 1): PCI-X 100 MHz", "segment B (PCI bus 2): PCI-X 133 MHz",
        "bus 03 device 06, IRQ 28", "bus 03 device 08, IRQ 29", "2-way interleaved DDR200", "400 MT/s", "kernel: "})
    CHECK(d.find(want) != std::string::npos);
}

TEST_CASE("dell-pe2650 check: onboard NICs name a registered device or are left out with onboard_nics", "[platform][pe2650]") {
  const PlatformEntry& e = pe();
  const bool have = Registry<DeviceEntry>::instance().find(kPe2650OnboardNic) != nullptr;
  auto ps = e.check(host_config({}));
  // Without a BCM5701 model in the build the board cannot be built with its NICs: a clear error
  // naming the key and the way out; with one, no problem.
  CHECK(has_problem(ps, "hosts.alpha.onboard_nics", "set onboard_nics = false") == !have);
  CHECK(e.check(host_config({{"onboard_nics", ParamValue(false)}})).empty());
  auto off = e.check(host_config({{"onboard_nics", ParamValue(false)}}, {"onboard-nic1"}));
  CHECK(has_problem(off, "hosts.alpha.nics.eth0.slot", "onboard_nics = false"));
}

TEST_CASE("dell-pe2650 riser bus 1 runs 133 MHz with slot 2 alone and 100 MHz once slot 1 holds a card", "[platform][pe2650]") {
  ParamValues v(pe().params);
  CHECK(pe2650_board(v, false).bridges[0].segment[0].max_pcix_mhz == 133);
  CHECK(pe2650_board(v, true).bridges[0].segment[0].max_pcix_mhz == 100);
  CHECK(pe2650_board(v, true).bridges[0].segment[1].max_pcix_mhz == 133);  // slot 3, bus 2
  auto ps = pe().check(host_config({{"onboard_nics", ParamValue(false)}, {"riser_bus1_mhz", ParamValue(int64_t{133})}},
                                   {"slot1"}));
  CHECK(has_problem(ps, "hosts.alpha.riser_bus1_mhz", "slot 2 alone"));
  auto bad = pe().check(host_config({{"onboard_nics", ParamValue(false)}, {"riser_bus1_mhz", ParamValue(int64_t{120})}}));
  CHECK(has_problem(bad, "hosts.alpha.riser_bus1_mhz", "not a PCI-X segment clock"));
}

TEST_CASE("scenario busbench/pe2650-slot3-pcix133 runs within PCI-X 133 and IMBus limits", "[platform][pe2650][busbench][scenario]") {
  Scenario sc = load_scenario(std::string(NICSIM_SOURCE_DIR) + "/scenarios/busbench/pe2650-slot3-pcix133.toml");
  const test::ScenarioRun r = test::run_in_process(sc);
  REQUIRE(r.rc == 0);
  CHECK(r.text.find("(PCI bus 2) segment B: PCI-X 133 MHz") != std::string::npos);
  CHECK(r.text.find("(PCI bus 1) segment A: PCI-X 133 MHz") != std::string::npos);  // slot 1 empty
  // The hardware JSON lists the segments the board wires (ciob1 segment B has no slot: not listed).
  const nlohmann::json seg = r.tb->hardware_json()["alpha"]["segments"];
  INFO(seg.dump());
  CHECK(seg.contains("ciob0.segA"));
  CHECK(seg.contains("ciob0.segB"));
  CHECK(seg.contains("ciob1.segA"));
  CHECK_FALSE(seg.contains("ciob1.segB"));
  const HubLinkParams l = imbus_link_params();
  const double payload = l.width_bits / 8.0 * l.clock_mhz * l.transfers_per_clock * l.max_payload_bytes /
                         (l.max_payload_bytes + l.header_bytes);
  const auto& bb = r.res["metrics"]["busbench"];
  for (auto& row : bb["dma"]) {
    const double slack = 2 * 512.0 / (64.0 * row["bytes"].get<double>()) * row["both"]["total_mb_s"].get<double>();
    CHECK(row["alone_mb_s"].get<double>() <= pci_peak_mb_per_s(64, 133));
    // Both masters are behind one CIOB-X2: together they move no more than one IMBus direction carries.
    CHECK(row["both"]["total_mb_s"].get<double>() <= payload + slack);
  }
  const double rd = bb["mmio_read"]["mean_ns"].get<double>();
  CHECK(rd >= 600.0);   // research seeds §4.2: MMIO read via CIOB-X2 0.7–1.2 µs (estimate)
  CHECK(rd <= 1200.0);
}

TEST_CASE("busbench on the PE2650 with masters behind the two CIOB-X2s says they share only the CMIC",
          "[platform][pe2650][busbench][scenario]") {
  // Regression: the placement line said "(other segment: the two share only the link to the north
  // bridge)" for masters behind different CIOB-X2s, which have an IMBus each, and the posted-write
  // note spoke of one shared upstream link.
  Scenario sc = load_scenario(std::string(NICSIM_SOURCE_DIR) + "/scenarios/busbench/pe2650-slot3-pcix133.toml",
                              {"workload.second_slot=\"onboard-nic1\"", "workload.sizes=\"4096\"",
                               "workload.ops=\"write\"", "workload.transfers=16", "workload.mmio_accesses=1",
                               "workload.interrupt=false"});
  const test::ScenarioRun r = test::run_in_process(sc);
  REQUIRE(r.rc == 0);
  INFO(r.text);
  CHECK(r.text.find("(behind another bridge, ServerWorks CIOB-X2 ciob1 on its own IMBus imb1: the two share only "
                    "the north bridge cmic and its memory)") != std::string::npos);
  CHECK(r.text.find("each master's rate can exceed what its own link (the IMBus imb0 and imb1) carries") !=
        std::string::npos);
  CHECK(r.text.find("shared link") == std::string::npos);
}

TEST_CASE("busbench on the PE2650 with masters on the two segments of one CIOB-X2 says they share its IMBus",
          "[platform][pe2650][busbench][scenario]") {
  Scenario same = load_scenario(std::string(NICSIM_SOURCE_DIR) + "/scenarios/busbench/pe2650-slot3-pcix133.toml",
                                {"workload.sizes=\"4096\"", "workload.ops=\"write\"", "workload.transfers=16",
                                 "workload.mmio_accesses=1", "workload.interrupt=false"});
  const test::ScenarioRun r2 = test::run_in_process(same);
  REQUIRE(r2.rc == 0);
  CHECK(r2.text.find("(other segment of the same ServerWorks CIOB-X2 ciob0: the two share only its IMBus imb0 to the "
                     "north bridge cmic)") != std::string::npos);
  CHECK(r2.text.find("the total can exceed what the shared link, the IMBus imb0 carries") != std::string::npos);
}

namespace {
std::string seed004_error(const std::vector<std::string>& sets) {
  try {
    load_scenario(std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed004/single-64k.toml", sets);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(loaded)";
}
}  // namespace

TEST_CASE("seed004 load checks: tg3 coalescing that never reports, tg3-1.0 without NAPI, PE2650 cpu_mhz",
          "[platform][pe2650][tg3drv]") {
  // TX 0/0: no TX completion would ever be reported (tg3 set_coalesce refuses it in later versions).
  CHECK_THAT(seed004_error({"hosts.alpha.nics.eth0.tx-usecs=0", "hosts.alpha.nics.eth0.tx-frames=0"}),
             Catch::Contains("key 'hosts.alpha.nics.eth0.tx-frames'") && Catch::Contains("never report a sent frame"));
  // The HIGH band the adaptive scheme may switch to later, and only while adaptive-rx is on.
  CHECK_THAT(seed004_error({"hosts.alpha.nics.eth0.rx-usecs-high=0", "hosts.alpha.nics.eth0.rx-frames-high=0"}),
             Catch::Contains("key 'hosts.alpha.nics.eth0.rx-frames-high'") && Catch::Contains("HIGH band"));
  CHECK(seed004_error({"hosts.alpha.nics.eth0.rx-usecs-high=0", "hosts.alpha.nics.eth0.rx-frames-high=0",
                       "hosts.alpha.nics.eth0.adaptive-rx=false"}) == "(loaded)");
  // tg3-1.0 is NAPI: refused at load on the 2.4.20 profile, naming the driver key; fine on Red Hat's.
  CHECK_THAT(seed004_error({"hosts.alpha.nics.eth0.driver=tg3-1.0"}),
             Catch::Contains("key 'hosts.alpha.nics.eth0.driver'") &&
                 Catch::Contains("tg3-1.0 is a NAPI driver") && Catch::Contains("linux-2.4.20-i386"));
  CHECK(seed004_error({"hosts.*.nics.eth0.driver=tg3-1.0", "hosts.*.kernel_profile=linux-2.4.18-14-rh"}) == "(loaded)");
  // cpu_mhz: the schema's range is what the CPU profile accepts (list --verbose shows it).
  CHECK_THAT(seed004_error({"hosts.alpha.cpu_mhz=2600"}), Catch::Contains("above the maximum 2400"));
  for (auto& p : pe().params)
    if (p.name == "cpu_mhz") {
      CHECK(*p.min == Approx(2000));
      CHECK(*p.max == Approx(2400));
    }
  // tg3-1.0's parameter help gives 1.0's values, not 0.99's tg3.h constants.
  const DriverEntry* t10 = Registry<DriverEntry>::instance().find("tg3-1.0");
  REQUIRE(t10);
  for (auto& p : t10->params) {
    INFO(p.name << ": " << p.doc);
    CHECK(p.doc.find("DEFAULT_") == std::string::npos);
  }
}

}  // namespace platform_pe2650_test
