// Units and time helpers: ns / µs / clocks <-> sc_time.
// SystemC's default time resolution is 1 ps; every helper here rounds to that resolution.
#pragma once
#include <systemc>
#include <cstdint>

namespace nicsim {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

/// A duration of `v` nanoseconds.
inline sc_time ns(double v) { return sc_time(v, sc_core::SC_NS); }
/// A duration of `v` microseconds.
inline sc_time us(double v) { return sc_time(v, sc_core::SC_US); }
/// A duration of `v` milliseconds.
inline sc_time ms(double v) { return sc_time(v, sc_core::SC_MS); }
/// A duration of `v` seconds.
inline sc_time sec(double v) { return sc_time(v, sc_core::SC_SEC); }

/// Duration in ns / µs / s as a double.
inline double to_ns(const sc_time& t) { return t.to_seconds() * 1e9; }
inline double to_us(const sc_time& t) { return t.to_seconds() * 1e6; }
inline double to_s(const sc_time& t) { return t.to_seconds(); }

/// `n` clocks of a `mhz` MHz clock (nominal; for drifting clocks use ClockDomain).
inline sc_time clocks(double n, double mhz) { return ns(n * 1000.0 / mhz); }

/// Bytes per second -> MB/s (10^6), the unit bus and DMA tables use.
inline double mb_per_s(double bytes, const sc_time& t) {
  return t == SC_ZERO_TIME ? 0.0 : bytes / t.to_seconds() / 1e6;
}

/// Current simulated time.
inline sc_time now() { return sc_core::sc_time_stamp(); }

}  // namespace nicsim
