// Journeys: per-message stage timestamps with a cause for each wait (DESIGN.md "Observability").
//
// A journey is a list of marks in time order; each mark says "from time t the message is in stage S
// (because of cause C)". The time a message spends in a stage is the gap to the next mark, so the
// stages of a journey always sum to its end-to-end time. Marks are written where the event happens,
// by the model that knows the cause (the NIC knows a frame waits for RDTR; the CPU model knows a
// softirq waits because the CPU is busy in another context).
//
// Memory stays flat in message size and run length: a journey in flight keeps only its latest
// marks (at most 2 × JourneyLog::kWindow); older ones are folded, in time order, into the journey's
// time per (stage, cause) and per (stage, cause, where). A finished journey keeps only those sums
// (JourneyTotals), which is all the latency breakdown (core/breakdown.h) reads, computed in the
// order and arithmetic the breakdown of the whole mark list uses, so its numbers are the same.
// Tests that look at individual marks ask for them with set_keep_marks(true).
#pragma once
#include "core/units.h"
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace nicsim {

using JourneyId = uint64_t;  ///< 0 means "no journey" (e.g. an ACK nobody measures)

struct JourneyMark {
  // As Journey below: sc_time has no move, so without these a growing std::vector<JourneyMark>
  // copied every mark and its three strings.
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

/// A journey with every mark (kept only with JourneyLog::set_keep_marks(true), and built by tests).
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

/// Finished journeys reduced to what their latency breakdown needs (core/breakdown.h). Strings
/// (kinds, stages, causes, places) are stored once and named by index into `names`.
struct JourneyTotals {
  std::vector<std::string> names;
  /// (stage, cause) pairs as indexes into `names`; a stage key is an index into this.
  std::vector<std::pair<uint32_t, uint32_t>> keys;
  struct Finished {
    uint32_t kind = 0;    ///< index into names
    double total_us = 0;  ///< end-to-end time, µs
    /// µs in each (stage, cause) key, in order of first appearance along the journey; each the sum
    /// of the journey's intervals in it, added in time order.
    std::vector<std::pair<uint32_t, double>> stage_us;
  };
  std::vector<Finished> finished;  ///< in finish order
  /// Time in sc_time ticks (exact integers) per (kind, stage key, where) over the finished journeys;
  /// a place marked only with zero-length intervals has an entry of 0.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t> where_ticks;
};

class JourneyLog {
 public:
  /// Marks a journey in flight keeps unfolded (it holds between kWindow and 2 × kWindow). A mark
  /// may arrive after later ones (models run with annotated delays); it is placed exactly as long
  /// as it is not older than the journey's oldest unfolded mark (late_marks() counts those that
  /// are; a model's annotated delay puts a mark a few places back, not hundreds).
  static constexpr size_t kWindow = 256;

  JourneyLog();
  ~JourneyLog();
  JourneyLog(const JourneyLog&) = delete;
  JourneyLog& operator=(const JourneyLog&) = delete;

  /// Start a journey at absolute time `t` in `stage`. Returns its id (never 0), or 0 when the log
  /// is disabled (then every other call with that id is a no-op).
  JourneyId begin(std::string_view kind, const sc_time& t, std::string_view stage, std::string_view where = {},
                  std::string_view cause = {});
  /// The message `id` enters `stage` at absolute time `t`. Marks may arrive slightly out of order
  /// (models run with annotated delays); they are kept sorted by time.
  /// Views, not strings: most calls carry no journey (id 0) and must cost no allocation.
  void mark(JourneyId id, const sc_time& t, std::string_view stage, std::string_view where = {},
            std::string_view cause = {}) {
    if (id != 0) mark_impl(id, t, stage, where, cause);
  }
  /// The message `id` has arrived (e.g. the application's read returned) at absolute time `t`.
  void finish(JourneyId id, const sc_time& t);
  /// Drop a journey without recording it (e.g. a warm-up message).
  void discard(JourneyId id);

  /// The time of the latest mark of journey `id` while it is in flight; nullopt when `id` is 0,
  /// unknown, finished or discarded. Lets a model that picks a message up decide how to attribute
  /// the wait before it (e.g. whether an interrupt was raised for this frame or before it arrived).
  std::optional<sc_time> last_mark_time(JourneyId id) const;

  /// Finished journeys as the breakdown reads them.
  const JourneyTotals& totals() const;
  /// Every kind of the finished journeys, sorted.
  std::vector<std::string> finished_kinds() const;
  /// Marks that arrived older than their journey's oldest unfolded mark: each is placed at that
  /// oldest mark's time, so the time between is attributed to the stage before.
  uint64_t late_marks() const;
  /// Marks held unfolded now over all journeys in flight (each at most 2 × kWindow).
  size_t held_marks() const;

  /// Keep every mark (finished() and find() then work): for tests that look at single marks.
  /// Memory then grows with the marks, as it did before folding.
  void set_keep_marks(bool on);
  /// Finished journeys with all their marks (throws std::logic_error unless set_keep_marks(true)
  /// was called before they began).
  const std::vector<Journey>& finished() const;
  /// The journey `id` with its marks while it is in flight (set_keep_marks(true) only), or nullptr.
  const Journey* find(JourneyId id) const;

  void set_enabled(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  void clear();

 private:
  void mark_impl(JourneyId id, const sc_time& t, std::string_view stage, std::string_view where,
                 std::string_view cause);
  bool enabled_ = true;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nicsim
