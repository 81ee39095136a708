// A timed resource: something that serves one occupant at a time (a bus segment, a Hub-Link
// direction, a DRAM channel, a wire). Occupants reserve it for a computed duration; a request that
// finds it busy waits, and that wait is contention. Buses, links and memory use this so that
// contention emerges instead of being a parameter.
#pragma once
#include "core/units.h"
#include <string>

namespace nicsim {

struct Grant {
  sc_time start;   ///< when the occupant got the resource (absolute)
  sc_time end;     ///< when it released it (absolute)
  sc_time waited;  ///< start - requested earliest start (contention)
};

class TimedResource {
 public:
  explicit TimedResource(std::string name = "resource") : name_(std::move(name)) {}

  /// Reserve the resource for `duration`, starting no earlier than absolute time `earliest`.
  /// Requests are served in call order (first come, first served). Returns the grant.
  Grant reserve(const sc_time& earliest, const sc_time& duration) {
    sc_time start = earliest > busy_until_ ? earliest : busy_until_;
    Grant g{start, start + duration, start - earliest};
    busy_until_ = g.end;
    busy_total_ += duration;
    wait_total_ += g.waited;
    ++grants_;
    return g;
  }
  /// Earliest time a new occupant could start.
  sc_time free_at() const { return busy_until_; }
  /// True when the resource is occupied at absolute time `t`.
  bool busy_at(const sc_time& t) const { return t < busy_until_; }

  const std::string& name() const { return name_; }
  sc_time busy_total() const { return busy_total_; }
  sc_time wait_total() const { return wait_total_; }
  uint64_t grants() const { return grants_; }
  /// Fraction of [0, t] the resource was occupied.
  double utilisation(const sc_time& t) const {
    return t == SC_ZERO_TIME ? 0.0 : busy_total_.to_seconds() / t.to_seconds();
  }

 private:
  std::string name_;
  sc_time busy_until_ = SC_ZERO_TIME;
  sc_time busy_total_ = SC_ZERO_TIME;
  sc_time wait_total_ = SC_ZERO_TIME;
  uint64_t grants_ = 0;
};

}  // namespace nicsim
