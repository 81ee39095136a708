// netperf TCP_STREAM on the seed-000 82546EB testbed through the real binary: a short bulk
// transfer must run near gigabit line rate and never above the wire's goodput ceiling.
#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>

namespace {

/// Run `cmd`, return its stdout; REQUIREs exit code 0.
std::string run_stdout(const std::string& cmd) {
  std::string out;
  FILE* f = ::popen(cmd.c_str(), "r");
  REQUIRE(f != nullptr);
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int st = ::pclose(f);
  REQUIRE(WIFEXITED(st));
  REQUIRE(WEXITSTATUS(st) == 0);
  return out;
}

}  // namespace

TEST_CASE("tcp_stream: 82546EB PCI-X bulk transfer runs near GbE line rate", "[scenario][tcp_stream]") {
  // Goodput ceiling of 1000BASE-T with MTU 1500 and TCP timestamps: per full segment the MSS
  // (1500 - 20 IP - 20 TCP - 12 timestamp option = 1448 B) of a wire slot of 1448 + 66 headers
  // (14 Ethernet + 20 IP + 32 TCP) + 4 FCS + 8 preamble/SFD + 12 inter-frame gap = 1538 B.
  // research/e7500-p64h2-pcix.md §6: 941.5 Mb/s.
  const double mss = 1500 - 20 - 20 - 12;
  const double slot = mss + 14 + 20 + 32 + 4 + 8 + 12;
  const double ceiling_mbps = 1000.0 * mss / slot;
  REQUIRE(ceiling_mbps == Approx(941.5).margin(0.05));

  std::string cmd = std::string("'") + NICSIM_BIN + "' run scenarios/seed000/82546eb-pcix100-stream.toml"
                    " --set workload.duration_s=0.2 --format json 2>/dev/null";
  auto j = nlohmann::json::parse(run_stdout(cmd));
  REQUIRE(j["status"] == "ok");
  const auto& m = j["metrics"];
  const double mbps = m["throughput_mbps"].get<double>();
  INFO("throughput " << mbps << " Mb/s, tx CPU " << m["cpu_util_tx_pct"] << " %, rx CPU " << m["cpu_util_rx_pct"]
                     << " %, rx interrupts/s " << m["interrupts_per_s_rx"]);
  CHECK(mbps > 850.0);
  CHECK(mbps <= ceiling_mbps);
  // netperf's elapsed time covers the timed send loop plus the drain of what was still queued.
  CHECK(m["elapsed_s"].get<double>() >= 0.2);
  // The result block netperf 2.2 prints (research/tg3-bonding-tcp-gmac-formats.md §4).
  const std::string out = j["output"];
  CHECK(out.find("TCP STREAM TEST to ") == 0);
  CHECK(out.find("bytes  bytes   bytes    secs.    10^6bits/sec\n\n 87380  16384  16384    ") != std::string::npos);
}
