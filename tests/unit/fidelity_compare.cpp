// The fidelity guard's comparison (core/fidelity_compare.h) with the shipped tolerance rules
// (tests/fidelity/tolerances.json): it must fail on the changes the guard forbids.
#include "core/fidelity_compare.h"
#include <catch2/catch.hpp>
#include <fstream>

// This file's own names, apart from the other files of a unity batch.
namespace fidelity_compare_test {

using nlohmann::json;
namespace fid = nicsim::fidelity;

namespace {

std::vector<fid::Rule> shipped_rules() {
  std::ifstream f(std::string(NICSIM_SOURCE_DIR) + "/tests/fidelity/tolerances.json");
  REQUIRE(f.good());
  return fid::rules_from_json(json::parse(f));
}

json stream_result(double mbps, uint64_t gptc, double one_way) {
  return json{{"metrics", {{"throughput_mbps", mbps}, {"interim_mbps", {940.0, mbps}}, {"one_way_us", {{"1B", one_way}}}}},
              {"counters", {{"alpha.alpha_eth1.port0.GPTC", gptc}, {"alpha.netstat.Tcp.RetransSegs", 0}}}};
}

}  // namespace

TEST_CASE("fidelity compare: a 2% throughput change fails, 0.5% passes") {
  const auto rules = shipped_rules();
  const json base = stream_result(913.0, 868435, 62.46);
  CHECK(fid::compare(base, base, rules).ok());
  const fid::Report worse = fid::compare(base, stream_result(913.0 * 1.02, 868435, 62.46), rules);
  CHECK_FALSE(worse.ok());
  CHECK(worse.failures() == 2);  // the total and the interim bin that carries it
  CHECK(fid::compare(base, stream_result(913.0 * 0.995, 868435, 62.46), rules).ok());
}

TEST_CASE("fidelity compare: NetPIPE one-way 0.5%, frame counts 1%") {
  const auto rules = shipped_rules();
  const json base = stream_result(913.0, 868435, 62.46);
  CHECK_FALSE(fid::compare(base, stream_result(913.0, 868435, 62.46 * 1.006), rules).ok());
  CHECK(fid::compare(base, stream_result(913.0, 868435, 62.46 * 1.004), rules).ok());
  CHECK_FALSE(fid::compare(base, stream_result(913.0, 868435 * 102 / 100, 62.46), rules).ok());
  CHECK(fid::compare(base, stream_result(913.0, 868435 + 8000, 62.46), rules).ok());
}

TEST_CASE("fidelity compare: missing values fail, new counters pass, zero stays zero") {
  const auto rules = shipped_rules();
  const json base = stream_result(913.0, 868435, 62.46);
  json run = base;
  run["counters"]["alpha.alpha_eth1.port0.MPC"] = 0;  // a counter another change adds
  fid::Report rep = fid::compare(base, run, rules);
  CHECK(rep.ok());
  REQUIRE(rep.added.size() == 1);
  CHECK(rep.added[0] == "counters.alpha.alpha_eth1.port0.MPC");

  run = base;
  run["counters"].erase("alpha.alpha_eth1.port0.GPTC");
  rep = fid::compare(base, run, rules);
  CHECK_FALSE(rep.ok());

  run = base;
  run["counters"]["alpha.netstat.Tcp.RetransSegs"] = 1;  // a retransmission where there was none
  CHECK_FALSE(fid::compare(base, run, rules).ok());

  run = base;
  run["metrics"]["interim_mbps"].push_back(900.0);  // one bin more
  CHECK_FALSE(fid::compare(base, run, rules).ok());
}

TEST_CASE("fidelity compare: busbench MB/s 1%, configuration exact") {
  const auto rules = shipped_rules();
  auto bb = [](double mb_s, int bytes) {
    return json{{"metrics", {{"busbench", {{"dma", {{{"bytes", bytes}, {"op", "write"}, {"both", {{"total_mb_s", mb_s}}}}}}}}}}};
  };
  CHECK(fid::compare(bb(772.83, 64), bb(772.83 * 1.009, 64), rules).ok());
  CHECK_FALSE(fid::compare(bb(772.83, 64), bb(772.83 * 1.02, 64), rules).ok());
  CHECK_FALSE(fid::compare(bb(772.83, 64), bb(772.83, 65), rules).ok());
  json other = bb(772.83, 64);
  other["metrics"]["busbench"]["dma"][0]["op"] = "read";
  CHECK_FALSE(fid::compare(bb(772.83, 64), other, rules).ok());
}

}  // namespace fidelity_compare_test
