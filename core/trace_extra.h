// Counter tracks and instants for the Chrome/Perfetto trace (core/trace.h TraceLog::to_chrome_json
// writes them after the spans): CPU utilisation per context over time, a TCP socket's cwnd,
// retransmissions and other TCP events (platforms/transfer_report.h RunSeries::to_trace fills
// them after a run). Kept beside TraceLog rather than in it so that adding them did not touch the
// header every model includes.
#pragma once
#include "core/units.h"
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nicsim {

/// A counter sample (Chrome "C" event): `name`'s value from `t` on (e.g. "alpha.cpu0 softirq NET_RX %").
struct TraceCounter {
  std::string name;
  sc_time t;
  double value;
};
/// A point event on a track (Chrome "i" event), e.g. "retrans" on "alpha tcp 10.0.1.1:32768 > ...".
struct TraceInstant {
  std::string track, name;
  sc_time t;
  nlohmann::json args;
};

struct TraceExtras {
  std::vector<TraceCounter> counters;
  std::vector<TraceInstant> instants;
  void counter(const std::string& name, const sc_time& t, double value) { counters.push_back({name, t, value}); }
  void instant(const std::string& track, const std::string& name, const sc_time& t, nlohmann::json args = {}) {
    instants.push_back({track, name, t, std::move(args)});
  }
};

/// The process's counters and instants (one run = one process, as sim()).
TraceExtras& trace_extras();

}  // namespace nicsim
