// The socket lock across simulated time, through the whole stack (InetHost's glue): a writer inside
// tcp_sendmsg and a reader inside tcp_recvmsg hold sk->lock while their copies take CPU time, so
// what arrives meanwhile waits on sk->backlog and is processed by release_sock in the process's own
// time (2.4.20 net/ipv4/tcp.c, net/core/sock.c). On the shipped stream the copies are short beside
// the 82546EB's interrupt spacing and seldom meet an arrival; here they are made slow (a test-only
// cost change, this test's process only) so that every copy spans interrupts.
#include "core/sim_context.h"
#include "drivers-sim/kernel/costs.h"
#include "platforms/run_workload.h"
#include "platforms/scenario.h"
#include <catch2/catch.hpp>
#include <sstream>

// This file's own names, apart from the other files of a unity batch.
namespace inet_socket_lock_test {
using namespace nicsim;

/// Picoseconds the CPU profile of `host` charged to `symbol` in `context`, over its CPUs.
uint64_t charged_ps(const nlohmann::json& result, const std::string& host, const std::string& context,
                    const std::string& symbol) {
  uint64_t ps = 0;
  for (auto& [cpu, prof] : result["cpu_profile"][host].items())
    for (auto& e : prof["entries"])
      if (e["context"] == context && e["symbol"] == symbol) ps += e["ps"].get<uint64_t>();
  return ps;
}

TEST_CASE("sockets: the ACKs that reach a writer copying in tcp_sendmsg, and the segments that reach a reader copying "
          "in tcp_recvmsg, wait on the backlog and are processed in the process's time",
          "[inet][tcp]") {
  auto& prof = const_cast<CostProfile&>(cost_profile("linux-2.4.20-p4xeon"));
  prof.entries[static_cast<size_t>(CostId::copy_user_cached)].cycles_per_byte = 60;    // ~40 MB/s
  prof.entries[static_cast<size_t>(CostId::copy_user_uncached)].cycles_per_byte = 60;
  Scenario s = load_scenario(std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed000/82546eb-pcix100-stream.toml",
                             {"workload.duration_s=0.2"});
  nlohmann::json result = nlohmann::json::object();
  std::ostringstream out;
  const int rc = run_workload(s, out, result);
  INFO(out.str());
  REQUIRE(rc == 0);
  // The stream goes on in every 100 ms interval: no socket stays locked.
  CHECK(result["metrics"]["interim_mbps"].size() == 2);
  CHECK(result["metrics"]["interim_min_mbps"].get<double>() > 0);
  // The writer (netperf on alpha) never reads, so the only way an ACK's tcp_ack runs in its
  // process is off its backlog, at tcp_sendmsg's release_sock.
  CHECK(charged_ps(result, "alpha", "process netperf", "tcp_ack") > 0);
  // The reader (netserver on beta) takes segments that arrived during its copies from the backlog,
  // copied straight to it.
  CHECK(sim().counters.get("beta.netstat.TcpExt.TCPDirectCopyFromBacklog") > 0);
}

}  // namespace inet_socket_lock_test
