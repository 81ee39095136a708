// Clock domains with a ppm offset (802.3 allows ±100 ppm for an Ethernet reference clock).
// A device's timers tick from its own ClockDomain, so two NICs drift against each other.
#pragma once
#include "core/units.h"
#include <cmath>
#include <string>

namespace nicsim {

class ClockDomain {
 public:
  /// `nominal_hz`: the crystal's nominal frequency (Hz). `ppm`: its offset in parts per million
  /// (positive = runs fast, so its period is shorter).
  ClockDomain(std::string name = "clk", double nominal_hz = 25e6, double ppm = 0.0)
      : name_(std::move(name)), nominal_hz_(nominal_hz), ppm_(ppm) {}

  const std::string& name() const { return name_; }
  double nominal_hz() const { return nominal_hz_; }
  double ppm() const { return ppm_; }
  /// Actual frequency in Hz: nominal × (1 + ppm·10⁻⁶).
  double actual_hz() const { return nominal_hz_ * (1.0 + ppm_ * 1e-6); }
  /// Real duration of one period of this clock.
  sc_time period() const { return sec(1.0 / actual_hz()); }
  /// Real duration of `n` periods of this clock.
  sc_time cycles(double n) const { return sec(n / actual_hz()); }
  /// Real duration of an interval that the device believes lasts `nominal` (e.g. a timer of
  /// 128 × 1.024 µs counted in this clock's ticks).
  sc_time scale(const sc_time& nominal) const { return sec(nominal.to_seconds() / (1.0 + ppm_ * 1e-6)); }
  /// Whole periods elapsed in real duration `t` (floor).
  uint64_t cycles_in(const sc_time& t) const {
    // + 1e-4 periods tolerates the 1 ps rounding of sc_time.
    return static_cast<uint64_t>(std::floor(t.to_seconds() * actual_hz() + 1e-4));
  }
  /// First clock edge at or after absolute time `t` (edges at k·period from time 0).
  sc_time next_edge(const sc_time& t) const {
    double p = 1.0 / actual_hz();
    double k = std::ceil(t.to_seconds() / p - 1e-9);
    return sec(k * p);
  }

 private:
  std::string name_;
  double nominal_hz_;
  double ppm_;
};

}  // namespace nicsim
