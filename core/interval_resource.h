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
#include <map>
#include <string>

namespace nicsim {

class IntervalResource {
 public:
  explicit IntervalResource(std::string name = "resource") : name_(std::move(name)) {}

  /// Earliest absolute start >= `earliest` at which an occupancy of `duration` fits without
  /// overlapping an existing reservation (no reservation is made).
  sc_time first_fit(const sc_time& earliest, const sc_time& duration) const {
    sc_time t = earliest;
    auto it = busy_.upper_bound(t);
    if (it != busy_.begin()) {
      auto prev = std::prev(it);
      if (prev->second > t) t = prev->second;
    }
    while (it != busy_.end() && it->first < t + duration) {
      if (it->second > t) t = it->second;
      ++it;
    }
    return t;
  }

  /// Reserve `duration` at the first fit at or after absolute time `earliest`. Returns the grant;
  /// `waited` is the contention (start - earliest). Reservations that ended before the current
  /// simulated time are forgotten (nobody can ask for the past: annotated delays are >= 0).
  Grant reserve(const sc_time& earliest, const sc_time& duration) {
    prune(now());
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
    auto it = busy_.upper_bound(t);
    if (it == busy_.begin()) return false;
    return std::prev(it)->second > t;
  }
  /// End of the last reservation (the resource is free from then on).
  sc_time free_at() const { return busy_.empty() ? last_end_ : std::max(last_end_, busy_.rbegin()->second); }
  /// Forget reservations that ended at or before absolute time `t`.
  void prune(const sc_time& t) {
    while (!busy_.empty() && busy_.begin()->second <= t) {
      if (busy_.begin()->second > last_end_) last_end_ = busy_.begin()->second;
      busy_.erase(busy_.begin());
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
  Grant place(const sc_time& earliest, const sc_time& start, const sc_time& duration) {
    Grant g{start, start + duration, start > earliest ? start - earliest : SC_ZERO_TIME};
    if (duration > SC_ZERO_TIME) {
      // Merge with a touching neighbour so back-to-back occupancy stays one interval.
      auto next = busy_.find(g.end);
      sc_time end = g.end;
      if (next != busy_.end()) {
        end = next->second;
        busy_.erase(next);
      }
      auto it = busy_.lower_bound(start);
      if (it != busy_.begin() && std::prev(it)->second == start)
        std::prev(it)->second = end;
      else
        busy_.emplace(start, end);
    }
    busy_total_ += duration;
    wait_total_ += g.waited;
    ++grants_;
    return g;
  }

  std::string name_;
  std::map<sc_time, sc_time> busy_;  ///< start -> end, non-overlapping
  sc_time last_end_ = SC_ZERO_TIME;
  sc_time busy_total_ = SC_ZERO_TIME;
  sc_time wait_total_ = SC_ZERO_TIME;
  uint64_t grants_ = 0;
};

}  // namespace nicsim
