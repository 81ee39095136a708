// interim_mbps (drivers-sim/apps/tcp_stream_app.h): the netperf -D style time series of the
// tcp_stream workload, from bytes read per bin to 10^6 bits/s per bin.
#include "drivers-sim/apps/tcp_stream_app.h"
#include <catch2/catch.hpp>
#include <stdexcept>

// This file's own names, apart from the other files of a unity batch.
namespace tcp_stream_interim_test {

using nicsim::interim_mbps;

TEST_CASE("interim_mbps: whole bins are bytes x 8 / width in 10^6 bits/s", "[tcp_stream][interim]") {
  // 0.1 s bins; 12.5e6 bytes in 0.1 s = 1000 Mb/s, 6.25e6 = 500 Mb/s.
  auto r = interim_mbps({12'500'000, 6'250'000, 0, 12'500'000}, 0.1, 0.4);
  REQUIRE(r.size() == 4);
  CHECK(r[0] == Approx(1000.0));
  CHECK(r[1] == Approx(500.0));
  CHECK(r[2] == 0.0);  // a bin without reads (a stall) is reported as 0
  CHECK(r[3] == Approx(1000.0));
}

TEST_CASE("interim_mbps: the partial tail is merged into the last whole bin", "[tcp_stream][interim]") {
  // The run lasted 0.25 s: two whole bins; the tail (0.2..0.25 s, bin 2) joins bin 1, which then
  // spans 0.15 s: (1.25e6 + 0.625e6) B x 8 / 0.15 s = 100 Mb/s.
  auto r = interim_mbps({1'250'000, 1'250'000, 625'000}, 0.1, 0.25);
  REQUIRE(r.size() == 2);
  CHECK(r[0] == Approx(100.0));
  CHECK(r[1] == Approx((1'250'000 + 625'000) * 8.0 / 1e6 / 0.15));
  // Every byte read is in exactly one reported bin: sum(rate x width) = total bytes x 8.
  CHECK(r[0] * 0.1 + r[1] * 0.15 == Approx(3'125'000 * 8.0 / 1e6));
}

TEST_CASE("interim_mbps: a run shorter than one bin gives one bin over the whole run", "[tcp_stream][interim]") {
  auto r = interim_mbps({1'000'000}, 0.1, 0.04);
  REQUIRE(r.size() == 1);
  CHECK(r[0] == Approx(1'000'000 * 8.0 / 1e6 / 0.04));
}

TEST_CASE("interim_mbps: a run of an exact number of bins keeps them all", "[tcp_stream][interim]") {
  // elapsed 0.3 s = 3 bins of 0.1 s (floating point 0.3 / 0.1 is just below 3).
  auto r = interim_mbps({125'000, 125'000, 125'000}, 0.1, 0.3);
  REQUIRE(r.size() == 3);
  for (double x : r) CHECK(x == Approx(10.0));
}

TEST_CASE("interim_mbps: a non-positive interval is rejected", "[tcp_stream][interim]") {
  CHECK_THROWS_AS(interim_mbps({1}, 0.0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(interim_mbps({1}, -0.1, 1.0), std::invalid_argument);
}

}  // namespace tcp_stream_interim_test
