// Every frame accounted for: every shipped scenario, run short, ends with a balanced
// frame accounting in result.json: per link direction, the frames the sending port put on the
// wire = frames in flight + accepted by the receiving port + held in it + consumed by its MAC +
// dropped with a counted reason. `nicsim run` itself fails a run that does not balance; this
// test also checks the numbers it wrote.
#include "platforms/scenario.h"
#include "tests/support/run_nicsim.h"
#include "tests/support/short_runs.h"
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <string>

// This file's own names, apart from the other files of a unity batch.
namespace accounting_test {

namespace fs = std::filesystem;

namespace {
const auto& kShort = nicsim::test::short_run_sets();

uint64_t sum(const nlohmann::json& reasons) {
  uint64_t s = 0;
  for (auto& [k, v] : reasons.items()) s += v.get<uint64_t>();
  return s;
}
}  // namespace

TEST_CASE("accounting: every shipped scenario ends with every frame accounted for") {
  size_t scenarios = 0, with_links = 0;
  for (auto& e : fs::recursive_directory_iterator("scenarios")) {
    std::string p = e.path().string();
    if (e.path().extension() != ".toml" || (p.size() > 9 && p.substr(p.size() - 9) == ".ref.toml")) continue;
    INFO("scenario " << p);
    auto sc = nicsim::load_scenario(p);
    REQUIRE(kShort.count(sc.workload.type));  // a new workload type needs its short settings here
    ++scenarios;
    // Exit 0 is required: a run whose frames do not balance exits 1.
    auto j = nicsim::test::run_json("run " + p + " " + kShort.at(sc.workload.type));
    const auto& a = j["accounting"];
    CHECK(a["balanced"] == true);
    CHECK(a["problems"].empty());
    // Both directions of every scenario link, and of the links a workload cables itself
    // (rx_flood's and forwarding's testers, rx_flood's switch: Testbed::cable_equipment,
    // cable_equipment_pair).
    const size_t workload_links = sc.workload.type == "rx_flood" || sc.workload.type == "forwarding" ? 1 : 0;
    if (workload_links)
      REQUIRE(a["directions"].size() > 2 * sc.links.size());
    else
      REQUIRE(a["directions"].size() == 2 * sc.links.size());
    REQUIRE(a["directions"].size() % 2 == 0);
    if (!sc.links.empty()) ++with_links;
    uint64_t accepted = 0;
    for (auto& d : a["directions"]) {
      INFO(d.dump());
      uint64_t sent = d["sent"];
      CHECK(sent == d["carried"].get<uint64_t>());
      // lost_on_wire: frames sent into a dead line (scenarios/faults/: a cable pulled).
      const uint64_t lost = d.contains("lost_on_wire") ? d["lost_on_wire"].get<uint64_t>() : 0;
      CHECK(sent == d["in_flight"].get<uint64_t>() + d["accepted"].get<uint64_t>() + sum(d["held"]) +
                         sum(d["consumed"]) + sum(d["dropped"]) + lost);
      CHECK(d["unaccounted"] == 0);
      accepted += d["accepted"].get<uint64_t>();
    }
    if (!sc.links.empty()) CHECK(accepted > 0);  // frames really crossed
    // Counters that stayed zero are listed (the drop counters above come from them), and
    // Tcp.MaxConn shows Linux's -1 ("dynamic"), not 2^64-1.
    size_t mpc = 0, maxconn = 0;
    for (auto& [key, v] : j["counters"].items()) {
      const std::string& k = key;  // clang 14 cannot capture a structured binding (docs/developers.md)
      auto ends = [&k](const std::string& suffix) {
        return k.size() > suffix.size() && k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0;
      };
      // 8254x MPC/RNBC; the 8255x's counters for the same drops: rcv_oruns (RX FIFO overrun) and
      // rcv_rsrc_err (RU not ready); the BCM5701's: rx_discards (mbuf pool full) and rxbds_empty; the
      // GMAC's: rx_overflow (MAC_RXSTAT_OFLW, RX FIFO full) and rx_nobuf (RXNOBUF, like RNBC).
      if (ends(".MPC") || ends(".RNBC") || ends(".rcv_oruns") || ends(".rcv_rsrc_err") || ends(".rx_discards") ||
          ends(".rxbds_empty") || ends(".rx_overflow") || ends(".rx_nobuf"))
        ++mpc;
      if (ends(".Tcp.MaxConn")) {
        ++maxconn;
        CHECK(v.get<int64_t>() == -1);
      }
    }
    if (!sc.links.empty()) CHECK(mpc >= 2 * 2 * sc.links.size());  // two drop counters of each linked port
    if (sc.workload.type != "busbench") CHECK(maxconn == sc.hosts.size());
  }
  CHECK(scenarios >= 7);
  CHECK(with_links >= 5);
}

}  // namespace accounting_test
