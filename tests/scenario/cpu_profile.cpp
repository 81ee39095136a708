// `nicsim explain --cpu` on the seed-000 TCP stream: every host's CPUs balance (contexts
// sum to the wall time, entries to their level's busy time, exactly) and the profile names the
// paths a bulk TCP transfer runs: the kernel's TCP/IP entries, the e1000 driver's own paths, MMIO
// stalls by register offset on the NIC's BAR, and cache misses on DMA'd lines by kind.
#include "core/cpu_report.h"
#include "tests/support/run_nicsim.h"
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <string>

// This file's own names, apart from the other files of a unity batch.
namespace cpu_profile_test {

namespace {
namespace fs = std::filesystem;
const std::string kStream = fs::absolute("scenarios/seed000/82546eb-pcix100-stream.toml").string();
}  // namespace

TEST_CASE("explain --cpu: the seed-000 TCP stream's CPU profile balances and names kernel, driver, MMIO and cache-miss rows",
          "[cpu][explain]") {
  const nlohmann::json j = nicsim::test::run_json("explain --cpu " + kStream + " --set workload.duration_s=0.02");
  const nlohmann::json& prof = j.at("cpu_profile");
  for (auto& p : nicsim::cpu_profile_problems(prof)) FAIL_CHECK(p);
  REQUIRE(prof.contains("alpha"));
  REQUIRE(prof.contains("beta"));
  for (const char* host : {"alpha", "beta"}) {
    INFO(host);
    const nlohmann::json& c = prof.at(host).at("cpu0");
    CHECK(c.at("packets").get<uint64_t>() > 1000);
    std::set<std::string> syms, ctxs;
    for (auto& e : c.at("entries")) syms.insert(e.at("symbol").get<std::string>()), ctxs.insert(e.at("context").get<std::string>());
    CHECK(syms.count("tcp_v4_rcv"));
    CHECK(syms.count("syscall_entry"));
    CHECK(syms.count("e1000_intr [e1000]"));
    CHECK(!syms.count("(untagged)"));  // every burn of the kernel and the driver is a cost entry
    bool mmio = false, miss = false;
    for (auto& s : syms) {
      mmio = mmio || s.rfind("MMIO read eth1+0x", 0) == 0;
      miss = miss || s.rfind("cache miss: RX descriptor", 0) == 0;
    }
    CHECK(mmio);
    CHECK(miss);
    CHECK(ctxs.count("hardirq eth1"));
    CHECK(ctxs.count("softirq NET_RX"));
  }
  // The receiver copies to user space in netserver, the sender from it in netperf.
  std::set<std::string> beta_ctx;
  for (auto& x : prof.at("beta").at("cpu0").at("contexts")) beta_ctx.insert(x.at("context").get<std::string>());
  CHECK(beta_ctx.count("process netserver"));
  const std::string text = nicsim::format_cpu_profile(prof, 10);
  CHECK(text.find("beta.cpu0") != std::string::npos);
  CHECK(text.find("Flat profile") != std::string::npos);
}

}  // namespace cpu_profile_test
