#include "drivers-sim/apps/netperf_rr_app.h"
#include "core/sim_context.h"
#include <fmt/format.h>

namespace nicsim {

namespace {

/// recv() until `len` bytes have arrived (the rsp_bytes_left / request_bytes_remaining loops of
/// send_tcp_rr and recv_tcp_rr). Returns the bytes read; fewer than `len` on an error (sets *err).
/// Finishes the journey of the data read, if any (the message reached the application).
Task<size_t> read_all(Kernel& k, Socket& s, size_t len, std::string* err) {
  size_t got = 0;
  while (got < len) {
    long n = co_await k.sys_read(s, len - got);
    if (n <= 0) {
      *err = fmt::format("recv returned {} after {} of {} bytes", n, got, len);
      co_return got;
    }
    got += static_cast<size_t>(n);
    if (s.rx_journey) {
      sim().journeys.finish(s.rx_journey, sc_core::sc_time_stamp());
      s.rx_journey = 0;
    }
  }
  co_return got;
}

}  // namespace

Task<void> netperf_tcp_rr_main(NetperfRrHost host, uint32_t peer_ip, std::vector<NetperfRrRun>* runs, long gap_jiffies,
                               std::function<void(size_t)> on_run_done, std::function<void()> on_all_done) {
  Kernel& k = *host.kernel;
  InetHost& inet = *host.inet;
  co_await host.wait_network_up();
  const std::string where = k.host();
  bool failed = false;
  for (size_t i = 0; i < runs->size(); ++i) {
    NetperfRrRun& run = (*runs)[i];
    if (failed) {
      run.error = "not run: an earlier netperf invocation failed";
      run.finished = true;
      continue;
    }
    WaitQueue nap;
    co_await k.schedule_timeout(nap, gap_jiffies);
    // create_data_socket: TCP_NODELAY only with -D (loc_nodelay); socket buffers at the system
    // defaults (-s not given), read back with getsockopt for the report.
    const bool udp = run.test == NetperfRrTest::UDP_RR;
    Socket& s = udp ? inet.udp_socket("netperf") : inet.tcp_socket("netperf", run.nodelay);
    int rc = 0;
    if (udp) {
      run.local_send_socket_bytes = static_cast<int>(inet.udp_sock(s).sndbuf);
      run.local_recv_socket_bytes = static_cast<int>(inet.udp_sock(s).rcvbuf);
      inet.udp_connect(s, peer_ip, run.port);  // send_udp_rr: connect() sets the default destination
    } else {
      run.local_send_socket_bytes = static_cast<int>(inet.tcp_sock(s).tp.sndbuf);
      run.local_recv_socket_bytes = static_cast<int>(inet.tcp_sock(s).tp.rcvbuf);
      rc = co_await inet.connect(s, peer_ip, run.port);
    }
    if (rc != 0) {
      run.error = fmt::format("connect failed: {}", rc);
    } else {
      run.start = sc_core::sc_time_stamp();
      run.end = run.start + sc_core::sc_time(run.duration_s, sc_core::SC_SEC);
      const size_t req = static_cast<size_t>(run.sizes.request_bytes);
      const size_t rsp = static_cast<size_t>(run.sizes.response_bytes);
      int traced = 0;
      for (;;) {
        JourneyId j = 0;
        if (traced < run.journeys) {
          ++traced;
          j = sim().journeys.begin(run.journey_kind, sc_core::sc_time_stamp(), "app write", where);
        }
        long n = co_await k.sys_write(s, req, j);
        if (n != static_cast<long>(req)) {
          run.error = fmt::format("send of {} bytes returned {}", req, n);
          break;
        }
        const size_t got = co_await read_all(k, s, rsp, &run.error);
        if (got != rsp) break;
        // SIGALRM at run.end interrupts the transaction in flight: it is not counted.
        if (sc_core::sc_time_stamp() > run.end) break;
        ++run.transactions;
        if (sc_core::sc_time_stamp() == run.end) break;
      }
    }
    run.finished = true;
    failed = !run.error.empty();
    if (on_run_done) on_run_done(i);
  }
  if (on_all_done) on_all_done();
}

Task<void> netserver_tcp_rr_main(NetperfRrHost host, NetperfRrRun* run) {
  Kernel& k = *host.kernel;
  InetHost& inet = *host.inet;
  Socket* s = nullptr;
  if (run->test == NetperfRrTest::UDP_RR) {
    // recv_udp_rr: bind the data socket to the port before the test starts.
    s = &inet.udp_socket("netserver");
    inet.udp_bind(*s, run->port);
    run->remote_send_socket_bytes = static_cast<int>(inet.udp_sock(*s).sndbuf);
    run->remote_recv_socket_bytes = static_cast<int>(inet.udp_sock(*s).rcvbuf);
    co_await host.wait_network_up();
  } else {
    co_await host.wait_network_up();
    // recv_tcp_rr: TCP_NODELAY when the request says so (rem_nodelay = -D).
    s = co_await inet.listen_accept(run->port, "netserver", run->nodelay);
    run->remote_send_socket_bytes = static_cast<int>(inet.tcp_sock(*s).tp.sndbuf);
    run->remote_recv_socket_bytes = static_cast<int>(inet.tcp_sock(*s).tp.rcvbuf);
  }
  const std::string where = k.host();
  const size_t req = static_cast<size_t>(run->sizes.request_bytes);
  const size_t rsp = static_cast<size_t>(run->sizes.response_bytes);
  int traced = 0;
  std::string err;
  for (;;) {
    const size_t got = co_await read_all(k, *s, req, &err);
    if (got != req) break;
    JourneyId j = 0;
    if (traced < run->journeys && sc_core::sc_time_stamp() <= run->end) {
      ++traced;
      j = sim().journeys.begin(run->journey_kind, sc_core::sc_time_stamp(), "app write", where);
    }
    long n = co_await k.sys_write(*s, rsp, j);
    if (n != static_cast<long>(rsp)) {
      err = fmt::format("send of {} bytes returned {}", rsp, n);
      break;
    }
  }
  if (run->error.empty() && !run->finished) run->error = "netserver: " + err;
}

}  // namespace nicsim
