// NetPIPE 2.4 (ISU, netpipe.c / TCP.c), TCP ping-pong mode, as pure logic: the message-size
// schedule with +-PERT perturbations, the repeat count from the run-time target, the minimum over
// TRIALS, the `Latency:` line, the per-size progress line and NetPIPE.out, and the exact sequence
// of socket writes/reads each side performs (so an application model can drive real sockets).
// Source: research/tg3-bonding-tcp-gmac-formats.md §4 (NetPIPE 2.4), checked against the seed
// 000 output (../shared/seeds/000_*.txt, reference/seed000_netpipe_latency.csv).
//
// What each side does (TCP.c, netpipe.c):
//   Sync            = write "SyncMe" (6 B), then read 6 B (both sides write first)
//   latency         = Sync; LATENCYREPS x {T: write 1, read 1 | R: read 1, write 1};
//                     latency = elapsed / (2 LATENCYREPS); T: SendTime (4 B) -> R: RecvTime
//   per size        = T: SendRepeat (4 B) -> R: RecvRepeat;
//                     TRIALS x {Sync; nrepeat x {T: write len, read len | R: read len, write len}}
//                     t = min over trials of elapsed / (2 nrepeat); T: SendTime (4 B) -> R
//   SendTime sends (uint32)(t * 1e6); the receiver's copy of tlast is therefore in whole µs.
#pragma once
#include <climits>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace nicsim {

struct NetpipeOptions {
  int start_bytes = 1;        ///< -l: first message size (netpipe.c default start = 1)
  int end_bytes = INT_MAX;    ///< -u: upper size limit (default MAXINT)
  int inc_bytes = 0;          ///< -i: fixed increment, no doubling, no perturbation (0 = off)
  int trials = 7;             ///< TRIALS (netpipe.h); fewer trials = a shorter run
  double runtm_s = 0.25;      ///< RUNTM: target seconds per trial; smaller = a shorter run
  double stoptm_s = 1.0;      ///< STOPTM: stop once a message takes this long (one way)
  int nsamp = 8000;           ///< NSAMP: bwdata[] size; the loop stops at n = NSAMP - 3
  int pert = 3;               ///< PERT: +-perturbation when inc > PERT + 1
  int latency_reps = 100;     ///< LATENCYREPS
  int port = 5002;            ///< DEFPORT
  int sock_buf_bytes = 0;     ///< -b: SO_SNDBUF/SO_RCVBUF request (0 = system default)
  bool tcp_nodelay = true;    ///< TCP.c Setup sets TCP_NODELAY on both sockets
};

/// Repeat count for the next size (netpipe.c main loop): nrepeat =
/// (int) MAX(RUNTM / ((double)prev_bufflen / (prev_bufflen - inc + 1.0) * tlast), TRIALS).
/// `prev_bufflen`: bytes of the previous measurement (1 before the first, from the latency
/// test); `inc`: the increment of the current size group; `tlast_s`: the previous one-way time.
int netpipe_nrepeat(double runtm_s, int prev_bufflen, int inc, double tlast_s, int trials);

/// NetPIPE's Mbps: bits / (t * 1024 * 1024) (M = 2^20, reference/README.md).
double netpipe_mbps(int bytes, double t_s);

/// "Latency: %f\nNow starting main loop\n" (netpipe.c, printed with -P).
std::string netpipe_latency_lines(double latency_s);
/// The progress line for one size: "%3d: %9d bytes %4d times -->  %6.2f Mbps in %f sec\n"
/// (printed in two parts: "%3d: %9d bytes %4d times --> " then " %6.2f Mbps in %f sec\n").
std::string netpipe_progress_line(int n, int bytes, int nrepeat, double mbps, double t_s);
/// One NetPIPE.out line: "%f\t%f\t%d\t%d\t%f\n" = t, Mbps, bits, bytes, variance.
std::string netpipe_out_line(double t_s, double mbps, int bits, int bytes, double variance);

/// One point of the main loop.
struct NetpipeStep {
  int n = 0;      ///< sample index (the "%3d" column)
  int nq = 0;     ///< size-group index
  int len = 0;    ///< group base size
  int pert = 0;   ///< perturbation (-PERT, 0, +PERT or 0)
  int bytes = 0;  ///< len + pert
  int inc = 0;    ///< the group's increment (used by the repeat rule)
};

/// The main loop's size sequence (netpipe.c): inc starts at 1 (start/2 when start > 1) and
/// doubles on every odd group after the third; sizes len-PERT, len, len+PERT when inc > PERT+1.
/// The loop condition (n < NSAMP-3, tlast < STOPTM, len <= end) is checked per group.
class NetpipeSchedule {
 public:
  explicit NetpipeSchedule(const NetpipeOptions& o);
  /// The next point given the previous one-way time `tlast_s`; false when the loop ends.
  bool next(double tlast_s, NetpipeStep* out);

 private:
  NetpipeOptions o_;
  int n_ = 0, nq_ = 0, len_ = 0, inc_ = 1, pert_ = 0;
  bool detail_ = false, in_group_ = false;
};

/// Result of one size.
struct NetpipeResult {
  int n = 0;
  int bytes = 0;
  int nrepeat = 0;
  double t_s = 0;        ///< minimum over trials of elapsed / (2 nrepeat)
  double mbps = 0;
  double variance = 0;   ///< t2/TRIALS - (t1/TRIALS)^2 over the trials
};

/// The in-band values the transmitter writes and the receiver reads (repeat counts and times,
/// 4 bytes each on the wire). Shared by the two NetpipeProgram objects of one run.
struct NetpipeChannel {
  std::deque<uint32_t> values;
};

enum class NetpipeOpKind : uint8_t { Send, Recv, Done };
struct NetpipeOp {
  NetpipeOpKind kind = NetpipeOpKind::Done;
  size_t bytes = 0;
  const char* what = "";  ///< "sync", "latency", "time", "repeat", "data"
};

/// One side of a NetPIPE run as a sequence of socket operations. Call next(now) to get the
/// first operation and again each time the previous one completed (all bytes written / read);
/// `now_s` is the time of that completion (NetPIPE's When()).
class NetpipeProgram {
 public:
  NetpipeProgram(const NetpipeOptions& o, bool transmitter, NetpipeChannel* ch);
  NetpipeOp next(double now_s);
  bool transmitter() const { return tr_; }
  bool done() const { return pc_ == kDone; }
  double latency_s() const { return latency_; }
  /// The step being measured (valid after its "repeat" op).
  const NetpipeStep& step() const { return step_; }
  int nrepeat() const { return nrepeat_; }
  const std::vector<NetpipeResult>& results() const { return results_; }
  /// What the transmitter prints with -P (Latency line, then one line per size).
  const std::string& progress_text() const { return progress_; }
  /// The transmitter's NetPIPE.out.
  const std::string& out_file() const { return out_; }

 private:
  enum Pc {
    kBegin, kSync0, kSync1, kLatStart, kLatLoop, kLatSecond, kLatTime, kLatTimeGot, kSizeStart,
    kRepeatGot, kTrialStart, kTrialTimed, kRepLoop, kRepSecond, kSizeEnd, kTimeGot, kDone
  };
  NetpipeOp op(NetpipeOpKind k, size_t b, const char* w) { return NetpipeOp{k, b, w}; }
  uint32_t pop();

  NetpipeOptions o_;
  bool tr_;
  NetpipeChannel* ch_;
  NetpipeSchedule sched_;
  Pc pc_ = kBegin, sync_ret_ = kLatStart;
  double t0_ = 0, latency_ = 0, tlast_ = 0, t1_ = 0, t2_ = 0, tmin_ = 0;
  int i_ = 0, j_ = 0, trial_ = 0, nrepeat_ = 0, prev_bytes_ = 1;
  NetpipeStep step_;
  std::vector<NetpipeResult> results_;
  std::string progress_, out_;
};

}  // namespace nicsim
