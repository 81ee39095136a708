// A task that sleeps on a socket (tcp_sendmsg waiting for send-buffer space, tcp_recvmsg waiting for
// data) must not lose a wakeup that comes while it is getting ready to sleep. 2.4.20 does
// add_wait_queue, then tests the condition, then schedule(): a wakeup after the add finds it on the
// queue. The model charges add_wait_queue's locked operations as CPU time; when that
// time came AFTER the last test of the condition, an ACK processed by the softirq in that window
// found nobody on the queue, and the writer slept forever with its send buffer empty (seed 000's
// 82544GC at 128 KB stalled with sndbuf_limited for 2 s: the bug this test is for). Here one
// locked operation is made to cost 20,000 cycles (10 us at 2 GHz), which puts nearly every ACK
// inside that window; the run must still finish, and no socket may sit sndbuf_limited for long.
#include "drivers-sim/kernel/costs.h"
#include "platforms/run_workload.h"
#include "platforms/scenario.h"
#include <catch2/catch.hpp>
#include <sstream>

// This file's own names, apart from the other files of a unity batch.
namespace inet_wait_race_test {
using namespace nicsim;


TEST_CASE("sockets: a wakeup during add_wait_queue's locked operations is not lost (tcp_sendmsg, tcp_recvmsg)",
          "[inet][smp][regression]") {
  // Only in this test's own process (one SystemC run per process): a test-only cost profile change.
  auto& prof = const_cast<CostProfile&>(cost_profile("linux-2.4.20-p4xeon"));
  prof.entries[static_cast<size_t>(CostId::locked_op)].cycles_per_call = 20000;
  Scenario s = load_scenario(std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed000/82544gc-pci66.toml",
                             {"workload.lower=131072", "workload.upper=131072", "workload.trials=1",
                              "workload.runtm_s=0.02", "workload.latency_reps=2", "workload.time_limit_s=1"});
  nlohmann::json result = nlohmann::json::object();
  std::ostringstream out;
  const int rc = run_workload(s, out, result);
  INFO(out.str());
  REQUIRE(rc == 0);
  CHECK(result["metrics"]["mbps.131072B"].get<double>() > 0);
  // Nobody waited for send-buffer space for more than a few RTTs' worth of time (the lost wakeup
  // left the writer there until the end of the run).
  for (auto& [host, t] : result["transfer"].items())
    for (auto& sock : t["sockets"]) {
      INFO(host << " " << sock["socket"].get<std::string>());
      CHECK(sock["send"]["sndbuf_limited"].get<uint64_t>() < 100'000'000ull);  // ns
    }
}

}  // namespace inet_wait_race_test
