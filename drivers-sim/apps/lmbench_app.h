// lmbench 2.0 latency benchmarks as processes on the kernel model, on one host, with no NIC in the
// path: lat_syscall null, lat_pipe, lat_ctx -s 0 2, lat_tcp localhost and lat_udp localhost, run
// one after another as a shell script would, each printing lmbench 2's output line (lmbench_logic.h).
// Source: GitHub ricarkol/lmbench2 src/SCCS/s.lat_syscall.c, s.lat_pipe.c, s.lat_tcp.c,
// s.lat_udp.c (the SCCS histories; the latest deltas are lmbench 2.0's), src/lat_ctx.c,
// src/lib_timing.c, doc/lat_*.8.
//
// What each program does here, as in lmbench 2.0:
//  * lat_syscall null: BENCH(getppid(), 0); "Simple syscall: ...".
//  * lat_pipe: two pipes, a forked child that reads p1 and writes p2 forever; the parent goes
//    round once to start both, then BENCH(doit(p2[0], p1[1])) (write 1 byte, read 1 byte); "Pipe
//    latency: ..."; kill(pid, 15) (here: the child's pipe gets EOF and it exits).
//  * lat_ctx -s 0 2: two pipes as a ring; pipe_cost = BENCH(doit_cost) (write and read one's own
//    pipe TRIPS = 5 times, no switch) / TRIPS; a forked child doit(p, 0, 1); one round to start;
//    BENCH(ctx(2, 2)) of TRIPS rounds, time / N / procs / TRIPS - overhead; prints the
//    "size=0k ovr=" header and "2 <us>" (sumit(0) touches no data).
//  * lat_tcp localhost: `lat_tcp -s` forks a server that accepts and forks a child per connection
//    (doserver: read 1 byte, write it back); the client connects to 127.0.0.1, BENCH(doclient):
//    write 1 byte, read 1 byte; "TCP latency using localhost: ...". SOCKOPT_NONE: no TCP_NODELAY.
//  * lat_udp localhost: `lat_udp -s` binds and answers with recvfrom/sendto; the client
//    connect()s and BENCH(doit(sock, ++seq)): send 4 bytes, recv 4; "UDP latency using localhost".
// Timing (lib_timing.c / bench.h BENCH): one warm-up call of the body, then `tries` timed loops of
// `iterations` calls each, each loop's time in whole microseconds (gettimeofday), and the median
// (save_median) over get_n(). lmbench sizes N so a loop lasts ENOUGH and takes TRIES = 11 loops;
// the model is deterministic, so a fixed N and a few tries give the same median (results vary
// only with the tick interrupts a loop catches). The timer and loop overheads lmbench subtracts
// (t_overhead, l_overhead) are user-space time the model does not run, so they are 0 here; user
// space itself (libc wrappers, the loop) costs no time in the model.
// Processes are started with Kernel::spawn_process(name, task): the CPU they run on is the
// kernel's placement, not this program's.
#pragma once
#include "drivers-sim/apps/lmbench_logic.h"
#include "drivers-sim/kernel/pipe.h"
#include "drivers-sim/net/inet.h"
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nicsim {

/// The lmbench programs the workload runs (the order is the run order).
enum class LmbenchTest { lat_syscall, lat_pipe, lat_ctx, lat_tcp, lat_udp };
/// "lat_syscall", ...; lmbench_test_of("lat_tcp") -> lat_tcp, nullopt for an unknown name.
const char* lmbench_test_name(LmbenchTest t);
std::optional<LmbenchTest> lmbench_test_of(const std::string& name);
/// Every test name, in run order.
std::vector<std::string> lmbench_test_names();

struct LmbenchHost {
  Kernel* kernel = nullptr;
  InetHost* inet = nullptr;
  std::function<Task<void>()> wait_network_up;
};

/// One program's result.
struct LmbenchResult {
  LmbenchTest test = LmbenchTest::lat_syscall;
  double us = 0;          ///< the printed value (µs per operation; lat_ctx: per switch)
  double overhead_us = 0; ///< lat_ctx's ovr (pipe cost per pass), 0 for the others
  std::string output;     ///< the program's output lines
};

/// The whole run, shared by the benchmark processes.
struct LmbenchRun {
  std::vector<LmbenchTest> tests;
  long iterations = 1000;   ///< calls of the body per timed loop (get_n())
  int tries = 3;            ///< timed loops per BENCH (median)
  uint16_t tcp_port = 31234, udp_port = 31235;
  std::vector<LmbenchResult> results;
  std::string error;
  bool finished = false;
  // state of the benchmarks' processes (pipes outlive the processes that sleep on them)
  std::vector<std::unique_ptr<Pipe>> pipes;
};

/// The `lmbench` script process: runs run->tests in order, appends each result (and calls
/// on_result with its index), then on_done.
Task<void> lmbench_main(LmbenchHost host, LmbenchRun* run, std::function<void(size_t)> on_result,
                        std::function<void()> on_done);

}  // namespace nicsim
