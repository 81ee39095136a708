#include "core/units.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace core_units_test {
using namespace nicsim;


// ns()/us()/ms()/sec() skip sc_time's per-call simcontext lookup; they must round exactly as
// sc_time(double, sc_time_unit) does (v * scale + 0.5, truncated; SystemC 2.3 sc_time.cpp).
TEST_CASE("time helpers round exactly like sc_time(double, unit)", "[core]") {
  const double values[] = {0.0, 1.0, 15.0, 7.5, 1000.0 / 133, 1000.0 / 100, 1.0 / 3, 0.0004, 0.0005, 0.0015,
                           123456.789, 2.5e-4, 62.4672, 1e6 / 8000, 3.999999999};
  for (double v : values) {
    CAPTURE(v);
    CHECK(ns(v) == sc_time(v, sc_core::SC_NS));
    CHECK(us(v) == sc_time(v, sc_core::SC_US));
    CHECK(ms(v) == sc_time(v, sc_core::SC_MS));
    CHECK(sec(v * 1e-6) == sc_time(v * 1e-6, sc_core::SC_SEC));
  }
  uint64_t s = 7;
  for (int i = 0; i < 100000; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double v = double(s >> 11) / double(1ull << 53) * 1e5;  // [0, 1e5) ns
    REQUIRE(ns(v) == sc_time(v, sc_core::SC_NS));
    REQUIRE(sec(v * 1e-9) == sc_time(v * 1e-9, sc_core::SC_SEC));
  }
}

}  // namespace core_units_test
