#include "core/clock.h"
#include "core/timed_resource.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace core_timed_resource_test {
using namespace nicsim;


TEST_CASE("TimedResource serves first come first served and counts the wait", "[core]") {
  TimedResource r("bus");
  auto a = r.reserve(ns(0), ns(100));
  auto b = r.reserve(ns(50), ns(100));
  CHECK(a.start == ns(0));
  CHECK(b.start == ns(100));
  CHECK(b.waited == ns(50));
  CHECK(r.busy_total() == ns(200));
  auto c = r.reserve(ns(500), ns(10));
  CHECK(c.waited == SC_ZERO_TIME);
  CHECK(r.utilisation(ns(1000)) == Approx(0.21));
}

TEST_CASE("ClockDomain ppm arithmetic", "[core]") {
  ClockDomain fast("nic", 25e6, +100.0);
  ClockDomain slow("nic", 25e6, -100.0);
  // 1,000,000 nominal 40 ns periods = 40 ms nominal; +100 ppm runs 4 µs short, -100 ppm 4 µs long.
  CHECK(to_us(fast.cycles(1e6)) == Approx(40000.0 / 1.0001).epsilon(1e-9));
  CHECK(to_us(slow.cycles(1e6)) == Approx(40000.0 / 0.9999).epsilon(1e-9));
  CHECK(to_us(fast.scale(ms(40))) < 40000.0);
  CHECK(fast.cycles_in(fast.cycles(1000)) == 1000);
}

}  // namespace core_timed_resource_test
