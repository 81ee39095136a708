// The contention cases for "carry a burst as one transaction": each runs a scenario twice
// through the real `nicsim run`, with the posted trains (PcixBridgeParams::detailed_dma = false, the
// default) and with the detailed piece-by-piece path (platform parameter detailed_dma = true), and
// compares every metric and counter with the fidelity guard's comparison and tolerances
// (core/fidelity_compare.h, tests/fidelity/tolerances.json). The largest relative difference is printed; the
// trains are built to be exact (a train is sent only when the posted buffer surely holds it, and
// every resource sees the same requests in the same order), so it is expected to be 0.
#include "core/fidelity_compare.h"
#include "tests/support/run_nicsim.h"
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

// This file's own names, apart from the other files of a unity batch.
namespace bus_dma_train_contention_test {

using nlohmann::json;
namespace fid = nicsim::fidelity;

namespace {

struct Compared {
  double largest = 0;
  std::string where = "none";
  size_t leaves = 0;
  bool ok = false;
  json fast;
};

/// `nicsim run ARGS` with the trains and with detailed_dma = true on every host in `hosts`.
Compared fast_vs_detailed(const std::string& args, const std::vector<std::string>& hosts = {"alpha"}) {
  std::ifstream f(std::string(NICSIM_SOURCE_DIR) + "/tests/fidelity/tolerances.json");
  REQUIRE(f.good());
  const auto rules = fid::rules_from_json(json::parse(f));
  std::string detailed = args;
  for (auto& h : hosts) detailed += " --set hosts." + h + ".detailed_dma=true";
  Compared c;
  c.fast = nicsim::test::run_json(args);
  const json slow = nicsim::test::run_json(detailed);
  const fid::Report rep = fid::compare(slow, c.fast, rules);
  for (auto& e : rep.entries) {
    ++c.leaves;
    if (e.rel_diff > c.largest) c.largest = e.rel_diff, c.where = e.path;
    if (!e.ok) WARN("outside tolerance: " << e.path << " detailed " << e.base.dump() << " fast " << e.run.dump());
  }
  c.ok = rep.ok();
  INFO("largest relative difference " << c.largest << " at " << c.where << " over " << c.leaves << " values");
  WARN(args << ": trains vs detailed, largest relative difference " << c.largest << " (" << c.where << ")");
  CHECK(c.ok);
  return c;
}

/// A counter of the fast run (0 when absent).
double count(const Compared& c, const std::string& name) {
  const json& k = c.fast.at("counters");
  return k.contains(name) ? k.at(name).get<double>() : 0.0;
}

}  // namespace

TEST_CASE("posted trains vs piece by piece - two DMA masters on one PCI 66 segment - busbench segA", "[bridge][speed][contention]") {
  // The test master and the onboard AIC-7899 both on P64H2 segment A (PCI mode: delayed reads).
  Compared c = fast_vs_detailed("run scenarios/busbench/segA-pci66.toml");
  CHECK(c.leaves > 50);
  CHECK(count(c, "alpha.p64h2.segA.arbitration_wait_ns") > 0);
}

TEST_CASE("posted trains vs piece by piece - two PCI-X masters on one CIOB-X2 segment - PE2650 riser slots 1 and 2", "[bridge][speed][contention]") {
  // Riser bus 1 holds slots 1 and 2 (PCI-X 100 with slot 1 used): both busbench masters there.
  Compared c = fast_vs_detailed(
      "run scenarios/busbench/pe2650-slot3-pcix133.toml --set workload.slot=slot1 --set workload.second_slot=slot2");
  // Contended: the masters waited for each other, and the posted buffer filled (trains cut short).
  CHECK(count(c, "alpha.ciob0.segA.arbitration_wait_ns") > 0);
  CHECK(count(c, "alpha.ciob0.segA.posted_buffer_retries") > 0);
  CHECK(count(c, "alpha.ciob0.segA.posted_buffer_disconnects") > 0);
}

TEST_CASE("posted trains vs piece by piece - a hub link carrying both P64H2 segments - busbench segB", "[bridge][hub][speed][contention]") {
  // PCI-X 100 master on segment B while the AIC-7899 loads segment A: they share only the HI 2.0 link.
  Compared c = fast_vs_detailed("run scenarios/busbench/segB-pcix100.toml");
  // Both segments wrote through the one link, and its drain rate filled both posted buffers.
  for (const char* seg : {"alpha.p64h2.segA", "alpha.p64h2.segB"}) {
    CHECK(count(c, std::string(seg) + ".data_bytes") > 0);
    CHECK(count(c, std::string(seg) + ".posted_buffer_retries") > 0);
  }
}

TEST_CASE("posted trains vs piece by piece - an IMBus carrying both CIOB-X2 segments - busbench PE2650 slot 3", "[bridge][hub][speed][contention]") {
  Compared c = fast_vs_detailed("run scenarios/busbench/pe2650-slot3-pcix133.toml");
  CHECK(count(c, "alpha.ciob0.segA.data_bytes") > 0);
  CHECK(count(c, "alpha.ciob0.segB.data_bytes") > 0);
}

TEST_CASE("posted trains vs piece by piece - both ports of an 82546EB receiving full-size frames", "[bridge][e1000][speed][contention]") {
  // The flood bench with 1514-byte frames at line rate into both ports: both ports' RX DMA (256-byte
  // bursts, two ADB pieces each) and descriptor traffic share the NIC's bus master, the segment
  // and the hub link.
  Compared c = fast_vs_detailed("run bench/rx-flood-64b.toml --set workload.frame_bytes=1514 --set workload.duration_s=0.02");
  CHECK(count(c, "alpha.eth1.GPRC") > 100);
  CHECK(count(c, "alpha.eth1:1.GPRC") > 100);
}

}  // namespace bus_dma_train_contention_test
