// Runs scenarios/busbench/*.toml the way `nicsim run` does: load_scenario (validation), Testbed
// (hardware), then the "busbench" WorkloadEntry, and checks the numbers against physical limits.
#include "models/bus/hub_link.h"
#include "models/bus/pci_timing.h"
#include "platforms/busbench.h"
#include "platforms/scenario.h"
#include "scenario_run.h"
#include <catch2/catch.hpp>
#include <iostream>
#include <sstream>

// This file's own names, apart from the other files of a unity batch.
namespace platform_busbench_scenarios_test {
using namespace nicsim;

namespace {

using Run = test::ScenarioRun;

Run run_scenario(const std::string& rel) {
  Scenario sc = load_scenario(std::string(NICSIM_SOURCE_DIR) + "/" + rel);
  REQUIRE(sc.workload.type == "busbench");
  return test::run_in_process(sc);
}

}  // namespace

TEST_CASE("scenario busbench/segA-pci66 runs and stays within PCI 66 limits", "[platform][busbench][scenario]") {
  Run r = run_scenario("scenarios/busbench/segA-pci66.toml");
  REQUIRE(r.rc == 0);
  CHECK(r.text.find("segment A: PCI 66 MHz") != std::string::npos);
  auto& bb = r.res["metrics"]["busbench"];
  const double peak32 = pci_peak_mb_per_s(32, 66), peak64 = pci_peak_mb_per_s(64, 66);
  double w4k = 0, r4k = 0;
  for (auto& row : bb["dma"]) {
    double alone = row["alone_mb_s"].get<double>();
    CHECK(alone <= peak32);                               // a 32-bit master: 4 bytes per clock
    CHECK(row["both"]["total_mb_s"].get<double>() <= peak64);  // both masters share one PCI 66 bus
    CHECK(row["both"]["m1_mb_s"].get<double>() < alone);
    if (row["bytes"] == 4096) (row["op"] == "write" ? w4k : r4k) = alone;
  }
  CHECK(r4k < w4k);  // delayed reads wait for the bridge; posted writes do not
  double rd = bb["mmio_read"]["mean_ns"].get<double>();
  CHECK(rd >= 700.0);   // research §4: PCI-X 0.6–1.0 µs, +0.1–0.2 µs in PCI-66 mode
  CHECK(rd <= 1200.0);
}

TEST_CASE("scenario busbench/segB-pcix100 runs and stays within PCI-X 100 and hub-link limits", "[platform][busbench][scenario]") {
  Run r = run_scenario("scenarios/busbench/segB-pcix100.toml");
  REQUIRE(r.rc == 0);
  CHECK(r.text.find("segment B: PCI-X 100 MHz") != std::string::npos);
  auto& bb = r.res["metrics"]["busbench"];
  HubLinkParams hp;
  const double hub_payload = hp.width_bits / 8.0 * hp.clock_mhz * hp.transfers_per_clock * hp.max_payload_bytes /
                             (hp.max_payload_bytes + hp.header_bytes);
  for (auto& row : bb["dma"]) {
    CHECK(row["alone_mb_s"].get<double>() <= pci_peak_mb_per_s(64, 100));
    CHECK(row["both"]["m2_mb_s"].get<double>() <= pci_peak_mb_per_s(64, 66));
    // The two segments together cannot move more than the hub link carries, give or take the
    // data still sitting in the two 512-byte posted-write buffers at the end of a point.
    const double slack = 2 * 512.0 / (64.0 * row["bytes"].get<double>()) * row["both"]["total_mb_s"].get<double>();
    CHECK(row["both"]["total_mb_s"].get<double>() <= hub_payload + slack);
  }
  double rd = bb["mmio_read"]["mean_ns"].get<double>();
  CHECK(rd >= 600.0);
  CHECK(rd <= 1000.0);
}

}  // namespace platform_busbench_scenarios_test
