#include "drivers-sim/apps/tcp_stream_app.h"
#include <fmt/format.h>

namespace nicsim {

namespace {

/// The receiver has read everything: mark the end once.
void check_finished(TcpStreamChannel& ch) {
  if (ch.finished || !ch.sender_done || ch.bytes_received < ch.bytes_sent) return;
  ch.finished = true;
  ch.end = sc_core::sc_time_stamp();
  if (ch.on_finish) ch.on_finish();
}

}  // namespace

Task<void> tcp_stream_main(TcpStreamSide* side, long start_delay_jiffies) {
  Kernel& k = *side->kernel;
  InetHost& inet = *side->inet;
  TcpStreamChannel& ch = *side->channel;
  co_await side->wait_network_up();
  if (side->sender) {
    WaitQueue nap;
    co_await k.schedule_timeout(nap, start_delay_jiffies);
    // netperf 2.2 create_data_socket: no TCP_NODELAY unless -D; socket buffers left at the
    // system defaults (-s/-S not given), read back with getsockopt for the report.
    Socket& s = inet.tcp_socket("netperf", false);
    side->socket_buffer_bytes = inet.tcp_sock(s).tp.sndbuf;
    int rc = co_await inet.connect(s, side->peer_ip, side->port);
    if (rc != 0) {
      side->error = fmt::format("connect failed: {}", rc);
      side->finished = true;
      co_return;
    }
    ch.start = sc_core::sc_time_stamp();
    if (ch.on_start) ch.on_start();
    const sc_core::sc_time stop = ch.start + sc_core::sc_time(side->duration_s, sc_core::SC_SEC);
    while (sc_core::sc_time_stamp() < stop) {
      long n = co_await k.sys_write(s, side->message_bytes);
      if (n <= 0) {
        side->error = fmt::format("write of {} bytes returned {}", side->message_bytes, n);
        break;
      }
      ch.bytes_sent += static_cast<uint64_t>(n);
      ++ch.writes;
    }
    ch.sender_done = true;
    check_finished(ch);
  } else {
    Socket* s = co_await inet.listen_accept(side->port, "netserver", false);
    side->socket_buffer_bytes = inet.tcp_sock(*s).tp.rcvbuf;
    while (!ch.finished) {
      long n = co_await k.sys_read(*s, side->message_bytes);
      if (n <= 0) {
        side->error = fmt::format("read returned {} after {} bytes", n, ch.bytes_received);
        break;
      }
      ch.bytes_received += static_cast<uint64_t>(n);
      ++ch.reads;
      check_finished(ch);
    }
  }
  side->finished = true;
}

}  // namespace nicsim
