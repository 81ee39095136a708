// The lmbench scenarios (scenarios/lmbench): every program prints lmbench 2.0's line, the UP host's
// numbers are within the references of p4-2400-up.ref.toml (via `nicsim check`), and no NIC is in
// the path (no interrupt but the timer's).
#include "drivers-sim/apps/lmbench_logic.h"
#include "tests/support/run_nicsim.h"
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <map>
#include <sstream>
#include <string>

// This file's own names, apart from the other files of a unity batch.
namespace lmbench_test {
using namespace nicsim;
using namespace nicsim::test;


TEST_CASE("lmbench UP: each program prints its lmbench line and the metrics match them", "[scenario][lmbench]") {
  std::string cmd = std::string("'") + NICSIM_BIN +
                    "' run scenarios/lmbench/p4-2400-up.toml --set workload.iterations=200 --format json 2>/dev/null";
  auto j = nlohmann::json::parse(run_stdout(cmd));
  REQUIRE(j["status"] == "ok");
  const auto& m = j["metrics"];
  std::istringstream out(j["output"].get<std::string>());
  std::string line;
  std::map<std::string, double> micro;
  double ctx2 = -1;
  bool header = false;
  while (std::getline(out, line)) {
    if (auto p = parse_lmbench_micro(line)) micro[p->label] = p->us;
    if (line.rfind("\"size=0k ovr=", 0) == 0) header = true;
    if (auto c = parse_lat_ctx_line(line); c && c->first == 2) ctx2 = c->second;
  }
  CHECK(micro.at("Simple syscall") == Approx(m["lmbench.lat_syscall_us"].get<double>()).margin(5e-5));
  CHECK(micro.at("Pipe latency") == Approx(m["lmbench.lat_pipe_us"].get<double>()).margin(5e-5));
  CHECK(micro.at("TCP latency using localhost") == Approx(m["lmbench.lat_tcp_us"].get<double>()).margin(5e-5));
  CHECK(micro.at("UDP latency using localhost") == Approx(m["lmbench.lat_udp_us"].get<double>()).margin(5e-5));
  CHECK(header);
  CHECK(ctx2 == Approx(m["lmbench.lat_ctx_us"].get<double>()).margin(0.005));
  // The loopback path: a TCP round trip costs more than a UDP one, which costs more than a pipe's.
  CHECK(m["lmbench.lat_tcp_us"].get<double>() > m["lmbench.lat_udp_us"].get<double>());
  CHECK(m["lmbench.lat_udp_us"].get<double>() > m["lmbench.lat_pipe_us"].get<double>());
}

TEST_CASE("lmbench UP: nicsim check passes the lmbench references", "[scenario][lmbench]") {
  std::string cmd = std::string("'") + NICSIM_BIN + "' check scenarios/lmbench/p4-2400-up.ref.toml 2>&1; echo rc=$?";
  const std::string out = run_stdout(cmd);
  INFO(out);
  CHECK(out.find("rc=0") != std::string::npos);
  CHECK(out.find("5 references: 5 passed, 0 known misses, 0 failed") != std::string::npos);
}

}  // namespace lmbench_test
