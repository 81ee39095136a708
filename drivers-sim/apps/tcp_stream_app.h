// netperf 2.2 TCP_STREAM as two processes on the kernel model: `netperf` (the sender) connects and
// writes `send_size_bytes` messages for `duration_s`; `netserver` (the receiver) accepts and reads
// `recv_size_bytes` at a time. research/tg3-bonding-tcp-gmac-formats.md §4 (netperf 2.2pl2).
//
// Approximation: netperf ends its timed phase with shutdown(SHUT_WR) and waits for netserver's
// close; the model has no close() in InetHost yet, so the test ends when the receiver has read
// every byte the sender wrote (the FIN exchange, one round trip of ~0.1 ms, is left out).
#pragma once
#include "drivers-sim/net/inet.h"
#include <functional>
#include <string>
#include <vector>

namespace nicsim {

/// What both sides share (netperf's control connection carries this in the real program).
struct TcpStreamChannel {
  bool sender_done = false;     ///< the timed send loop is over; bytes_sent is final
  uint64_t bytes_sent = 0;      ///< bytes the sender's write() calls accepted
  uint64_t bytes_received = 0;  ///< bytes the receiver's read() calls returned
  uint64_t writes = 0, reads = 0;
  sc_core::sc_time start, end;  ///< first write; last byte read
  sc_core::sc_time sender_end;  ///< the send loop's last write() returned
  /// Width of the interim bins (netperf -D style time series); zero: no bins are kept.
  sc_core::sc_time interim_interval = sc_core::SC_ZERO_TIME;
  /// Bytes the receiver's read() calls returned, binned by the time each read returned:
  /// interim_bytes[i] holds the reads that returned in (start + i·interval, start + (i+1)·interval]
  /// (bin 0 also takes reads at or before start).
  std::vector<uint64_t> interim_bytes;
  bool finished = false;        ///< every byte sent has been read
  /// Called at `start` (before the first write) and at `end` (e.g. to snapshot CPU time, stop).
  std::function<void()> on_start, on_finish;
  /// Called when the sender's loop has ended (at sender_end, before the receiver has read all).
  std::function<void()> on_sender_done;
};

struct TcpStreamSide {
  Kernel* kernel = nullptr;
  InetHost* inet = nullptr;
  std::function<Task<void>()> wait_network_up;  ///< returns when the host's interfaces are up
  TcpStreamChannel* channel = nullptr;
  bool sender = false;
  uint32_t peer_ip = 0;        ///< the receiver's address (sender only)
  uint16_t port = 12866;       ///< data port
  size_t message_bytes = 0;    ///< send size (sender) or receive size (receiver) per call
  double duration_s = 10.0;    ///< length of the timed send loop (sender only; netperf -l); 0: untimed
  uint64_t max_writes = 0;     ///< sender only: stop after this many write() calls (nuttcp -n); 0: no limit
  uint32_t socket_buffer_bytes = 0;  ///< SO_SNDBUF (sender) / SO_RCVBUF (receiver) after socket()
  uint32_t other_buffer_bytes = 0;   ///< the other one: SO_RCVBUF (sender) / SO_SNDBUF (receiver)
  bool finished = false;
  std::string error;           ///< set when a socket call failed
};

/// Throughput per interim bin in 10^6 bits/s (netperf -f m). `bytes[i]` is what was read in bin
/// i of width `interval_s` (s) counted from the start of the test, which lasted `elapsed_s` (s).
/// Returns one value per whole bin inside the test (at least one); whatever lies beyond the last
/// whole bin (the partial tail: the drain after the timed loop) is merged into it, which is then
/// divided by its real width (elapsed_s - i·interval_s). Throws std::invalid_argument when
/// interval_s <= 0.
std::vector<double> interim_mbps(const std::vector<uint64_t>& bytes, double interval_s, double elapsed_s);

/// Why a run of the two sides failed, "" when it did not: a side's socket error ("<tx_label>: ...",
/// "receiver: ..."), else the receiver not having read every byte sent (`drain_limit_s` after the
/// send loop, the workload's limit, in the message).
std::string tcp_stream_error(const TcpStreamSide& tx, const TcpStreamSide& rx, const TcpStreamChannel& ch,
                             double drain_limit_s, const std::string& tx_label = "sender");

/// The process body of one side. The sender waits `start_delay_jiffies` (netserver is started
/// first), connects, then writes `message_bytes` per write() until `duration_s` has passed since
/// its first write (when > 0) or `max_writes` writes were made (when > 0), whichever comes first. The receiver accepts and reads until the channel says every byte sent has
/// been read, then calls channel->on_finish.
Task<void> tcp_stream_main(TcpStreamSide* side, long start_delay_jiffies);

}  // namespace nicsim
