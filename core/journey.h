// Journeys: per-message stage timestamps with a cause for each wait (DESIGN.md "Observability").
//
// A journey is a list of marks in time order; each mark says "from time t the message is in stage S
// (because of cause C)". The time a message spends in a stage is the gap to the next mark, so the
// stages of a journey always sum to its end-to-end time. Marks are written where the event happens,
// by the model that knows the cause (the NIC knows a frame waits for RDTR; the CPU model knows a
// softirq waits because the CPU is busy in another context).
#pragma once
#include "core/units.h"
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace nicsim {

using JourneyId = uint64_t;  ///< 0 means "no journey" (e.g. an ACK nobody measures)

struct JourneyMark {
  // As Journey below: sc_time has no move, so without these a growing std::vector<JourneyMark>
  // copied every mark and its three strings (3.2 % of NetPIPE's instructions, bench/README.md).
  JourneyMark() = default;
  JourneyMark(const sc_time& t_, std::string s, std::string c, std::string w)
      : t(t_), stage(std::move(s)), cause(std::move(c)), where(std::move(w)) {}
  JourneyMark(const JourneyMark&) = default;
  JourneyMark(JourneyMark&&) noexcept = default;
  JourneyMark& operator=(const JourneyMark&) = default;
  JourneyMark& operator=(JourneyMark&&) noexcept = default;

  sc_time t;          ///< absolute simulated time the stage starts
  std::string stage;  ///< e.g. "TCP tx", "doorbell", "data DMA", "moderation wait"
  std::string cause;  ///< e.g. "ITR", "RDTR", "bus arbitration", "CPU busy: softirq"; may be empty
  std::string where;  ///< the model that wrote it, e.g. "beta.eth1" or "alpha.cpu0"
};

struct Journey {
  // sc_time declares a copy constructor and no move, so the implicit move of Journey is not
  // noexcept and std::vector<Journey> copied every journey (and its marks) when it grew: a
  // noexcept move (nothing in it throws on a move) lets it move them instead.
  Journey() = default;
  Journey(const Journey&) = default;
  Journey(Journey&&) noexcept = default;
  Journey& operator=(const Journey&) = default;
  Journey& operator=(Journey&&) noexcept = default;

  JourneyId id = 0;
  std::string kind;            ///< e.g. "netpipe message 24 B"
  std::vector<JourneyMark> marks;
  sc_time end = SC_ZERO_TIME;  ///< set by finish(); 0 while in flight
  bool finished = false;
  /// End-to-end time from the first mark to finish().
  sc_time total() const { return marks.empty() || !finished ? SC_ZERO_TIME : end - marks.front().t; }
};

class JourneyLog {
 public:
  /// Start a journey at absolute time `t` in `stage`. Returns its id (never 0), or 0 when the log
  /// is disabled (then every other call with that id is a no-op).
  JourneyId begin(std::string kind, const sc_time& t, std::string stage, std::string where = "",
                  std::string cause = "") {
    if (!enabled_) return 0;
    JourneyId id = ++last_;
    Journey& j = live_[id];
    j.id = id;
    j.kind = std::move(kind);
    j.marks.push_back({t, std::move(stage), std::move(cause), std::move(where)});
    return id;
  }
  /// The message `id` enters `stage` at absolute time `t`. Marks may arrive slightly out of order
  /// (models run with annotated delays); they are kept sorted by time.
  /// Views, not strings: most calls carry no journey (id 0) and must cost no allocation.
  void mark(JourneyId id, const sc_time& t, std::string_view stage, std::string_view where = {},
            std::string_view cause = {}) {
    if (id == 0) return;
    auto it = live_.find(id);
    if (it == live_.end()) return;
    auto& m = it->second.marks;
    JourneyMark jm{t, std::string(stage), std::string(cause), std::string(where)};
    auto pos = m.end();
    while (pos != m.begin() && (pos - 1)->t > t) --pos;
    m.insert(pos, std::move(jm));
  }
  /// The message `id` has arrived (e.g. the application's read returned) at absolute time `t`.
  void finish(JourneyId id, const sc_time& t) {
    if (id == 0) return;
    auto it = live_.find(id);
    if (it == live_.end()) return;
    it->second.end = t;
    it->second.finished = true;
    done_.push_back(std::move(it->second));
    live_.erase(it);
  }
  /// The journey `id` while it is in flight (its marks so far), or nullptr when `id` is 0, unknown,
  /// finished or discarded. Lets a model that picks a message up decide how to attribute the wait
  /// before it (e.g. whether an interrupt was raised for this frame or before it arrived).
  const Journey* find(JourneyId id) const {
    auto it = live_.find(id);
    return it == live_.end() ? nullptr : &it->second;
  }
  /// Drop a journey without recording it (e.g. a warm-up message).
  void discard(JourneyId id) { live_.erase(id); }

  void set_enabled(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  const std::vector<Journey>& finished() const { return done_; }
  void clear() { live_.clear(); done_.clear(); }

 private:
  bool enabled_ = true;
  JourneyId last_ = 0;
  std::unordered_map<JourneyId, Journey> live_;
  std::vector<Journey> done_;
};

}  // namespace nicsim
