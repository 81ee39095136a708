// What a run's TCP connections and NICs did over their lifetime, for `nicsim explain --transfer`
// and for pictures: result.json `transfer` (per host: each data-carrying socket's transfer-time
// attribution, drivers-sim/net/tcp_transfer.h, and each NIC's frames per interrupt / per poll),
// and, when asked, time series sampled while the run goes (`series`: CPU time per context per
// interval, bytes read/acknowledged per socket, the TCP time-sequence record) that
// `nicsim run --plots` draws and `--trace` carries as Perfetto counter tracks and instants.
#pragma once
#include "platforms/host_software.h"
#include "platforms/testbed.h"
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

namespace nicsim {

/// result.json `transfer.<host>`, after TcpStack::transfer_finish(now):
///   {"sockets": [{"socket" ("10.0.1.1:32768 > 10.0.1.2:12866"), "lifetime_ns", "first_ns",
///                 "bytes_written", "bytes_read", "bytes_acked",
///                 "send": {state: ns} (every TcpSendState, summing to lifetime_ns),
///                 "recv": {state: ns} (every TcpRecvState, summing to lifetime_ns),
///                 "events": {dupacks, recoveries, fast_retrans, timeouts, retrans_segs,
///                            undo_full, undo_partial, undo_dsack, undo_loss, undone, reordering,
///                            dsacks_received, ofo_segs, delayed_acks, backlogged},
///                 "id" (the socket's index in its host's stack: the event log's "<host>.tcp<id>"),
///                 and, from the run's event log (attach_tcp_timeouts, platforms/fault_timeline.h),
///                 "timeouts" and "resumed" when it had retransmission timeouts}]
///                (sockets that carried data),
///    "rx_batches": {"<host>.<nic>": {"per_irq": {"count", "frames", "mean", "max", "histogram"},
///                                    "per_poll": {...}}}}
/// `histogram` is [[frames, count], ...] for the frame counts that occurred. Times in integer ns.
nlohmann::json transfer_json(HostSoftware& h, uint64_t now_ns);

/// The most samples a run's series takes. Each sample reads every CPU's time profile and every
/// socket's counters (0.3 ms of CPU or more on a two-host testbed: 400,000 samples of a 0.4 s run
/// took over 120 s, far more than its simulated frames) and
/// adds one value per context to the series: beyond this a run spends its time sampling and its
/// series.json grows past what gnuplot draws usefully (a 100 s run at the 1 ms default stays under).
constexpr size_t kMaxSeriesSamples = 100000;

/// The time series of a run, sampled every `interval` from the moment the workload's software
/// exists (a SystemC thread spawned before the workload runs; it changes no model state). After
/// `max_samples` samples it stops sampling (stopped_at_s() says when).
class RunSeries {
 public:
  RunSeries(Testbed& tb, sc_core::sc_time interval, size_t max_samples = kMaxSeriesSamples);
  /// The simulated time of the last sample when the series stopped at max_samples, else nullopt.
  std::optional<double> stopped_at_s() const;
  ~RunSeries();
  /// result["series"]: {"interval_s", "t_s": [sample times],
  ///   "cpu": {"<host>.cpu<N>": {"<context>": [busy fraction of each interval, 0..1]}}  (+ "idle"),
  ///   "sockets": {"<host> <socket>": {"bytes_read": [...], "bytes_acked": [...]}} (cumulative at each sample),
  ///   "tcp": {"<host> <socket>": [[t_ns, kind, a, b], ...]}  (TcpSeqEvent, kind by name)}
  nlohmann::json to_json() const;
  /// The same as Perfetto counter tracks ("<host>.cpu<N> <context> %" per interval, cwnd per
  /// socket) and instants (retransmissions, dupacks, recoveries, timeouts, undos, reordering).
  void to_trace() const;  ///< into core/trace_extra.h trace_extras()

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nicsim
