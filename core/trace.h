// Spans for Chrome/Perfetto trace-event JSON (one track per CPU, NIC, bus segment, hub link).
// Recording is off unless a run asks for --trace; models call span() unconditionally and pay one
// branch when it is off.
#pragma once
#include "core/units.h"
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nicsim {

struct TraceSpan {
  std::string track;  ///< e.g. "alpha/cpu0", "alpha/P64H2 seg B", "beta/eth1"
  std::string name;   ///< e.g. "hardirq e1000_intr", "MW 1518 B", "RDTR"
  sc_time start, end;
};

class TraceLog {
 public:
  void set_enabled(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  void span(const std::string& track, const std::string& name, const sc_time& start, const sc_time& end) {
    if (enabled_) spans_.push_back({track, name, start, end});
  }
  const std::vector<TraceSpan>& spans() const { return spans_; }
  /// Chrome trace-event JSON ("X" complete events, µs timestamps, one tid per track).
  nlohmann::json to_chrome_json() const;

 private:
  bool enabled_ = false;
  std::vector<TraceSpan> spans_;
};

}  // namespace nicsim
