#include "drivers-sim/apps/tcp_stream_app.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace nicsim {

namespace {

/// The receiver has read everything: mark the end once.
void check_finished(TcpStreamChannel& ch) {
  if (ch.finished || !ch.sender_done || ch.bytes_received < ch.bytes_sent) return;
  ch.finished = true;
  ch.end = sc_core::sc_time_stamp();
  if (ch.on_finish) ch.on_finish();
}

/// Add a read of `n` bytes that returned now to its interim bin.
void add_interim(TcpStreamChannel& ch, uint64_t n) {
  if (ch.interim_interval == sc_core::SC_ZERO_TIME) return;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  // Bins are closed on the right, so the last read (at ch.end) lands in the bin that ends the run.
  const double q = now > ch.start ? (now - ch.start) / ch.interim_interval : 0.0;
  const size_t i = q > 0 ? static_cast<size_t>(std::ceil(q)) - 1 : size_t{0};
  if (ch.interim_bytes.size() <= i) ch.interim_bytes.resize(i + 1, 0);
  ch.interim_bytes[i] += n;
}

}  // namespace

std::vector<double> interim_mbps(const std::vector<uint64_t>& bytes, double interval_s, double elapsed_s) {
  if (!(interval_s > 0)) throw std::invalid_argument("interim_mbps: interval_s must be > 0");
  // Whole bins inside the run; the rest of the run (a partial bin: the drain after the timed loop)
  // is merged into the last whole bin.
  const size_t whole = static_cast<size_t>(std::floor(elapsed_s / interval_s * (1 + 1e-12)));
  const size_t n = std::max<size_t>(1, std::min(whole, bytes.size() > 0 ? bytes.size() : size_t{1}));
  std::vector<double> r;
  for (size_t i = 0; i < n; ++i) {
    uint64_t b = i < bytes.size() ? bytes[i] : 0;
    double width = interval_s;
    if (i + 1 == n) {  // the last reported bin runs to the end of the test
      for (size_t k = n; k < bytes.size(); ++k) b += bytes[k];
      width = elapsed_s - static_cast<double>(i) * interval_s;
    }
    r.push_back(width > 0 ? static_cast<double>(b) * 8.0 / 1e6 / width : 0.0);
  }
  return r;
}

std::string tcp_stream_error(const TcpStreamSide& tx, const TcpStreamSide& rx, const TcpStreamChannel& ch,
                             double drain_limit_s, const std::string& tx_label) {
  if (!tx.error.empty()) return tx_label + ": " + tx.error;
  if (!rx.error.empty()) return "receiver: " + rx.error;
  if (!ch.finished)
    return fmt::format("the receiver had not read every byte drain_limit_s = {} s after the send loop", drain_limit_s);
  return "";
}

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
    side->other_buffer_bytes = inet.tcp_sock(s).tp.rcvbuf;
    int rc = co_await inet.connect(s, side->peer_ip, side->port);
    if (rc != 0) {
      side->error = fmt::format("connect failed: {}", rc);
      side->finished = true;
      co_return;
    }
    ch.start = sc_core::sc_time_stamp();
    if (ch.on_start) ch.on_start();
    const sc_core::sc_time stop = ch.start + sc_core::sc_time(side->duration_s, sc_core::SC_SEC);
    while ((side->duration_s <= 0 || sc_core::sc_time_stamp() < stop) &&
           (side->max_writes == 0 || ch.writes < side->max_writes)) {
      long n = co_await k.sys_write(s, side->message_bytes);
      if (n <= 0) {
        side->error = fmt::format("write of {} bytes returned {}", side->message_bytes, n);
        break;
      }
      ch.bytes_sent += static_cast<uint64_t>(n);
      ++ch.writes;
    }
    ch.sender_end = sc_core::sc_time_stamp();
    ch.sender_done = true;
    if (ch.on_sender_done) ch.on_sender_done();
    check_finished(ch);
  } else {
    Socket* s = co_await inet.listen_accept(side->port, "netserver", false);
    side->socket_buffer_bytes = inet.tcp_sock(*s).tp.rcvbuf;
    side->other_buffer_bytes = inet.tcp_sock(*s).tp.sndbuf;
    while (!ch.finished) {
      long n = co_await k.sys_read(*s, side->message_bytes);
      if (n <= 0) {
        side->error = fmt::format("read returned {} after {} bytes", n, ch.bytes_received);
        break;
      }
      ch.bytes_received += static_cast<uint64_t>(n);
      ++ch.reads;
      add_interim(ch, static_cast<uint64_t>(n));
      check_finished(ch);
    }
  }
  side->finished = true;
}

}  // namespace nicsim
