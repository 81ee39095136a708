// lmbench 2.0 output lines and result arithmetic (drivers-sim/apps/lmbench_logic.h) against
// lib_timing.c micro()/save_median() and lat_ctx.c's format strings (GitHub ricarkol/lmbench2).
#include "drivers-sim/apps/lmbench_app.h"
#include "drivers-sim/apps/lmbench_logic.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace lmbench_logic_test {
using namespace nicsim;


TEST_CASE("lmbench: micro() lines as lmbench 2.0 prints them, and they parse back", "[lmbench]") {
  // micro(s, n): fprintf("%s: %.4f microseconds\n", s, usecs / n)
  CHECK(lmbench_micro_line("Simple syscall", 670, 1000) == "Simple syscall: 0.6700 microseconds\n");
  CHECK(lmbench_micro_line("Pipe latency", 49012, 10000) == "Pipe latency: 4.9012 microseconds\n");
  CHECK(lmbench_micro_line("TCP latency using localhost", 14300, 1000) ==
        "TCP latency using localhost: 14.3000 microseconds\n");
  auto m = parse_lmbench_micro("UDP latency using localhost: 12.8000 microseconds\n");
  REQUIRE(m);
  CHECK(m->label == "UDP latency using localhost");
  CHECK(m->us == Approx(12.8));
  CHECK_FALSE(parse_lmbench_micro("UDP latency using localhost: 12.8 ms"));
  CHECK_FALSE(parse_lmbench_micro("no number: microseconds"));
  CHECK_FALSE(parse_lmbench_micro("UDP latency: 1.2x microseconds"));
}

TEST_CASE("lmbench: lat_ctx prints its size/overhead header and one line per process count", "[lmbench]") {
  // lat_ctx.c: fprintf(stderr, "\n\"size=%dk ovr=%.2f\n", ...); fprintf(stderr, "%d %.2f\n", procs, time)
  CHECK(lat_ctx_header(0, 1.6789) == "\n\"size=0k ovr=1.68\n");
  CHECK(lat_ctx_line(2, 0.734) == "2 0.73\n");
  auto l = parse_lat_ctx_line("2 0.73\n");
  REQUIRE(l);
  CHECK(l->first == 2);
  CHECK(l->second == Approx(0.73));
  CHECK_FALSE(parse_lat_ctx_line("\"size=0k ovr=1.68"));
  CHECK_FALSE(parse_lat_ctx_line("2 0.73 x"));
}

TEST_CASE("lmbench: save_median over the timed loops, times in whole microseconds", "[lmbench]") {
  CHECK(lmbench_median_usecs({5, 9, 7}) == 7);
  CHECK(lmbench_median_usecs({5, 9, 7, 8}) == 7);  // (8 + 7) / 2 in integers, as save_median
  CHECK(lmbench_median_usecs({4}) == 4);
  CHECK_THROWS_AS(lmbench_median_usecs({}), std::invalid_argument);
  CHECK(lmbench_whole_usecs(0.0049999) == 4999);  // gettimeofday: whole microseconds
  CHECK(lmbench_whole_usecs(0.005) == 5000);
}

TEST_CASE("lmbench: program names round-trip, unknown ones are refused", "[lmbench]") {
  for (const auto& n : lmbench_test_names()) {
    auto t = lmbench_test_of(n);
    REQUIRE(t);
    CHECK(lmbench_test_name(*t) == n);
  }
  CHECK_FALSE(lmbench_test_of("lat_tpc"));
}

}  // namespace lmbench_logic_test
