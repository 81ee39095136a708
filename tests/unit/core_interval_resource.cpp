#include "core/interval_resource.h"
#include <catch2/catch.hpp>

using namespace nicsim;

TEST_CASE("IntervalResource fills gaps and never overlaps", "[core]") {
  IntervalResource r("bus");
  auto a = r.reserve(ns(100), ns(50));  // [100,150)
  auto b = r.reserve(ns(300), ns(50));  // [300,350)
  CHECK(a.start == ns(100));
  CHECK(b.start == ns(300));
  // A later caller whose occupancy fits before the first reservation gets that gap.
  auto c = r.reserve(ns(0), ns(100));
  CHECK(c.start == ns(0));
  CHECK(c.waited == SC_ZERO_TIME);
  // One that does not fit in [150,300) goes after 350.
  auto d = r.reserve(ns(120), ns(200));
  CHECK(d.start == ns(350));
  CHECK(d.waited == ns(230));
  // One that fits in [150,300) takes it.
  auto e = r.reserve(ns(120), ns(150));
  CHECK(e.start == ns(150));
  CHECK(r.busy_at(ns(299)));
  CHECK_FALSE(r.busy_at(ns(600)));
  CHECK(r.free_at() == ns(550));
  CHECK(r.busy_total() == ns(550));
  CHECK(r.first_fit(ns(0), ns(1)) == ns(550));
}
