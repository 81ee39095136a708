// netperf 2.2 TCP_RR and UDP_RR as processes on the kernel model: `netperf` (send_tcp_rr /
// send_udp_rr) connects and runs the transaction loop; `netserver` (recv_tcp_rr / recv_udp_rr)
// accepts (TCP) or binds (UDP) and answers. UDP_RR: netperf connect()s its datagram socket and
// uses send/recv; netserver uses recvfrom/sendto on its bound socket (nettest_bsd.c). Pure logic (sizes, banner,
// result block, rate arithmetic) is in netperf_rr_logic.h. Source: netperf 2.2pl2 nettest_bsd.c
// (HewlettPackard/netperf@7729293); research/tg3-bonding-tcp-gmac-formats.md §4.
//
// Approximations, each stated where a reader of netperf's output would notice:
//  * netperf's control connection (port 12865: test request, socket sizes, the results message)
//    is not modelled: both sides share a NetperfRrTest object instead, and the data connection
//    is opened at once. Its traffic happens before and after the timed loop in the real program,
//    so it does not touch the transaction rate.
//  * The -l timer (SIGALRM) interrupts the blocking recv() of the transaction in flight; here the
//    loop ends after the transaction that completes past the end of the interval, and that
//    transaction is not counted (the same count netperf reports), elapsed = the interval.
//  * close() of the data socket is not modelled (InetHost has none): a finished test's
//    connection stays established and idle.
//  * UDP_RR has no retransmission (neither has netperf): a lost request or response stalls the
//    loop; the real -l alarm would end the test there, here the run ends at time_limit_s and
//    fails with "did not finish".
#pragma once
#include "drivers-sim/apps/netperf_rr_logic.h"
#include "drivers-sim/net/inet.h"
#include <functional>
#include <string>

namespace nicsim {

/// One netperf invocation (one -r size pair), shared by its two processes.
struct NetperfRrRun {
  NetperfRrTest test = NetperfRrTest::TCP_RR;
  NetperfRrSizes sizes;
  uint16_t port = 12866;          ///< data port netserver listens on (one per invocation)
  double duration_s = 10.0;       ///< netperf -l (s)
  bool nodelay = false;           ///< netperf -D: TCP_NODELAY on both data sockets
  int journeys = 0;               ///< transactions whose request and response get a journey
  std::string journey_kind;       ///< kind of those journeys, e.g. "TCP_RR 64 B"
  // Filled in by the processes.
  int local_send_socket_bytes = 0, local_recv_socket_bytes = 0;    ///< netperf's SO_SNDBUF/SO_RCVBUF
  int remote_send_socket_bytes = 0, remote_recv_socket_bytes = 0;  ///< netserver's
  uint64_t transactions = 0;      ///< completed inside the interval (nummessages)
  sc_core::sc_time start, end;    ///< first send() of the loop; start + duration_s
  bool finished = false;          ///< netperf's loop is over (or failed)
  std::string error;              ///< first failed socket call, if any
};

/// What a netperf or netserver process needs of its host.
struct NetperfRrHost {
  Kernel* kernel = nullptr;
  InetHost* inet = nullptr;
  std::function<Task<void>()> wait_network_up;  ///< returns when the host's interfaces are up
};

/// The netperf process: for each run in `runs`, in order (as a shell loop invoking netperf once
/// per size does), waits `gap_jiffies`, connects to `peer_ip`:run.port, runs the run.test loop for
/// run.duration_s and fills the run. `on_run_done(i)` is called after run i; `on_all_done` at the
/// end. Runs after a failed one are skipped (marked finished with an error).
Task<void> netperf_tcp_rr_main(NetperfRrHost host, uint32_t peer_ip, std::vector<NetperfRrRun>* runs, long gap_jiffies,
                               std::function<void(size_t)> on_run_done, std::function<void()> on_all_done);

/// The netserver child for one run: listens on run->port and accepts (TCP_RR) or binds it
/// (UDP_RR), then forever reads a request of run->sizes.request_bytes and writes a response of
/// run->sizes.response_bytes (UDP: to the request's source).
Task<void> netserver_tcp_rr_main(NetperfRrHost host, NetperfRrRun* run);

}  // namespace nicsim
