// Units and time helpers: ns / µs / clocks <-> sc_time.
// SystemC's default time resolution is 1 ps; every helper here rounds to that resolution.
#pragma once
#include <systemc>
#include <cstdint>

namespace nicsim {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace detail {
/// Ticks of the SystemC time resolution per ns, µs, ms and s (1000, 1e6, 1e9, 1e12 at the default
/// 1 ps), derived once from the ticks in one second (the first read fixes the resolution, as any
/// sc_time construction would).
struct TickScale {
  double ns, us, ms, s;
};
inline const TickScale& tick_scale() {
  static const TickScale k = [] {
    const double per_s = double(sc_time(1.0, sc_core::SC_SEC).value());
    return TickScale{per_s / 1e9, per_s / 1e6, per_s / 1e3, per_s};
  }();
  return k;
}
/// `v` units of `ticks_per_unit` ticks, rounded exactly as sc_time(double, sc_time_unit) rounds
/// (v * scale + 0.5, truncated; SystemC 2.3 sc_time.cpp) without its per-call simcontext lookup.
inline sc_time from_scaled(double v, double ticks_per_unit) {
  if (v == 0) return SC_ZERO_TIME;
  // One tick times the count: sc_time's inline operator*= rounds (ticks * 1.0 * x + 0.5,
  // truncated), the same as the constructor, without an out-of-line call.
  static const sc_time one_tick = sc_time::from_value(1);
  return one_tick * (v * ticks_per_unit);
}
}  // namespace detail

/// A duration of `v` nanoseconds (rounded to the 1 ps resolution like sc_time(v, SC_NS)).
inline sc_time ns(double v) { return detail::from_scaled(v, detail::tick_scale().ns); }
/// A duration of `v` microseconds.
inline sc_time us(double v) { return detail::from_scaled(v, detail::tick_scale().us); }
/// A duration of `v` milliseconds.
inline sc_time ms(double v) { return detail::from_scaled(v, detail::tick_scale().ms); }
/// A duration of `v` seconds.
inline sc_time sec(double v) { return detail::from_scaled(v, detail::tick_scale().s); }

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
/// (The simulation context is created once per process; its pointer is read once.)
inline sc_time now() {
  static const sc_core::sc_simcontext* const ctx = sc_core::sc_get_curr_simcontext();
  return ctx->time_stamp();
}

}  // namespace nicsim
