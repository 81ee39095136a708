// An interval (gap-filling) timed resource: like TimedResource, but it remembers every reservation
// that has not ended yet and places a new occupant in the first gap that is long enough.
//
// Why it exists: TimedResource keeps a single busy-until time, which is exact when occupants
// arrive in time order. Interconnect models with annotated delays reserve *future* occupancy in
// the same call (a bridge reserves the bus for a split completion ~0.5 µs ahead; a PCI master's
// delayed-read retries are spread over the wait; a hub link carries a read completion after the
// DRAM access). With a busy-until resource such a reservation would block every later caller
// until it ends; here a later caller whose transfer fits in an earlier gap gets that gap, which
// is what the real arbiter would do. Grants use the same Grant struct as TimedResource.
#pragma once
#include "core/timed_resource.h"
#include "core/units.h"
#include <algorithm>
#include <vector>
#include <string>

namespace nicsim {

class IntervalResource {
 public:
  explicit IntervalResource(std::string name = "resource") : name_(std::move(name)) {}

  /// Earliest absolute start >= `earliest` at which an occupancy of `duration` fits without
  /// overlapping an existing reservation (no reservation is made).
  sc_time first_fit(const sc_time& earliest, const sc_time& duration) const {
    sc_time t = earliest;
    size_t i = upper_bound(t);
    if (i != head_) {
      const Busy& prev = busy_[i - 1];
      if (prev.end > t) t = prev.end;
    }
    for (; i < busy_.size() && busy_[i].start < t + duration; ++i)
      if (busy_[i].end > t) t = busy_[i].end;
    return t;
  }

  /// Reserve `duration` at the first fit at or after absolute time `earliest`. Returns the grant;
  /// `waited` is the contention (start - earliest). Reservations that ended before the current
  /// simulated time are forgotten (nobody can ask for the past: annotated delays are >= 0).
  Grant reserve(const sc_time& earliest, const sc_time& duration) {
    prune(now());
    // Nothing live ends after `earliest` (the usual case: reservations come in time order): the
    // occupant starts at once and goes at the back, O(1), the same grant as the general search.
    if (head_ == busy_.size() || busy_.back().end <= earliest) return append(earliest, duration);
    sc_time start = first_fit(earliest, duration);
    return place(earliest, start, duration);
  }

  /// Reserve exactly [start, start + duration); `start` must come from first_fit() with a duration
  /// >= this one, made since the last reservation (plan-then-commit users). `earliest` is what
  /// the occupant asked for, for the wait statistics.
  Grant reserve_at(const sc_time& earliest, const sc_time& start, const sc_time& duration) {
    prune(now());
    return place(earliest, start, duration);
  }

  /// True when some reservation covers absolute time `t`.
  bool busy_at(const sc_time& t) const {
    size_t i = upper_bound(t);
    if (i == head_) return false;
    return busy_[i - 1].end > t;
  }
  /// End of the last reservation (the resource is free from then on).
  sc_time free_at() const { return head_ == busy_.size() ? last_end_ : std::max(last_end_, busy_.back().end); }
  /// Forget reservations that ended at or before absolute time `t`.
  void prune(const sc_time& t) {
    while (head_ < busy_.size() && busy_[head_].end <= t) {
      if (busy_[head_].end > last_end_) last_end_ = busy_[head_].end;
      ++head_;
    }
    // Drop the forgotten prefix once it dominates, so the vector stays short (amortised O(1)).
    if (head_ > 32 && head_ * 2 > busy_.size()) {
      busy_.erase(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

  const std::string& name() const { return name_; }
  sc_time busy_total() const { return busy_total_; }
  sc_time wait_total() const { return wait_total_; }
  uint64_t grants() const { return grants_; }
  /// Fraction of [0, t] the resource was occupied.
  double utilisation(const sc_time& t) const {
    return t == SC_ZERO_TIME ? 0.0 : busy_total_.to_seconds() / t.to_seconds();
  }

 private:
  struct Busy {
    sc_time start, end;
  };

  /// Index of the first live reservation starting after `t` (head_ if none starts at or before).
  size_t upper_bound(const sc_time& t) const {
    auto it = std::upper_bound(busy_.begin() + static_cast<std::ptrdiff_t>(head_), busy_.end(), t,
                               [](const sc_time& v, const Busy& b) { return v < b.start; });
    return static_cast<size_t>(it - busy_.begin());
  }
  /// Index of the first live reservation starting at or after `t`.
  size_t lower_bound(const sc_time& t) const {
    auto it = std::lower_bound(busy_.begin() + static_cast<std::ptrdiff_t>(head_), busy_.end(), t,
                               [](const Busy& b, const sc_time& v) { return b.start < v; });
    return static_cast<size_t>(it - busy_.begin());
  }

  /// place() for a start at or after the end of every live reservation.
  Grant append(const sc_time& start, const sc_time& duration) {
    Grant g{start, start + duration, SC_ZERO_TIME};
    if (duration > SC_ZERO_TIME) {
      if (head_ != busy_.size() && busy_.back().end == start)
        busy_.back().end = g.end;
      else
        busy_.push_back(Busy{start, g.end});
    }
    busy_total_ += duration;
    ++grants_;
    return g;
  }

  Grant place(const sc_time& earliest, const sc_time& start, const sc_time& duration) {
    Grant g{start, start + duration, start > earliest ? start - earliest : SC_ZERO_TIME};
    if (duration > SC_ZERO_TIME) {
      // Merge with touching neighbours so back-to-back occupancy stays one interval.
      size_t i = lower_bound(start);
      sc_time end = g.end;
      const bool join_next = i < busy_.size() && busy_[i].start == g.end;
      if (join_next) end = busy_[i].end;
      if (i != head_ && busy_[i - 1].end == start) {
        busy_[i - 1].end = end;
        if (join_next) busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (join_next) {
        busy_[i].start = start;
      } else {
        busy_.insert(busy_.begin() + static_cast<std::ptrdiff_t>(i), Busy{start, end});
      }
    }
    busy_total_ += duration;
    wait_total_ += g.waited;
    ++grants_;
    return g;
  }

  std::string name_;
  std::vector<Busy> busy_;  ///< live reservations from index head_ on, sorted by start, non-overlapping
  size_t head_ = 0;         ///< reservations before this index ended and are forgotten
  sc_time last_end_ = SC_ZERO_TIME;
  sc_time busy_total_ = SC_ZERO_TIME;
  sc_time wait_total_ = SC_ZERO_TIME;
  uint64_t grants_ = 0;
};

}  // namespace nicsim
