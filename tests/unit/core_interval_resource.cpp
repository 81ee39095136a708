#include "core/interval_resource.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace core_interval_resource_test {
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

namespace {

/// A brute-force reference: the live grants as [start, end) in ns and a reproducible random source.
struct Reference {
  std::vector<std::pair<uint64_t, uint64_t>> live;
  uint64_t seed;
  explicit Reference(uint64_t s) : seed(s) {}
  uint64_t rnd(uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  }
  /// Earliest t >= `t` where [t, t + d) overlaps no live grant.
  uint64_t fit(uint64_t t, uint64_t d) const {
    for (bool moved = true; moved;) {
      moved = false;
      for (auto& iv : live)
        if (iv.first < t + d && iv.second > t) {
          t = iv.second;
          moved = true;
        }
    }
    return t;
  }
};

}  // namespace

// The gap-filling placement checked against a brute-force reference: every grant starts at the
// earliest time >= its request where it overlaps no live grant. Many reservations and prunes so
// the vector's merge, insert-in-the-middle and prefix-compaction paths all run.
TEST_CASE("IntervalResource matches a brute-force first fit over many reservations", "[core]") {
  IntervalResource r("bus");
  Reference ref(12345);
  auto& live = ref.live;  // [start, end) in ns, reference copy
  uint64_t floor_ns = 0;
  for (int i = 0; i < 4000; ++i) {
    if (i % 50 == 49) {  // time moves on: forget what ended
      floor_ns += ref.rnd(400);
      r.prune(ns(double(floor_ns)));
      std::erase_if(live, [&](auto& iv) { return iv.second <= floor_ns; });
    }
    uint64_t earliest = floor_ns + ref.rnd(600), dur = 1 + ref.rnd(40);
    uint64_t want = ref.fit(earliest, dur);
    REQUIRE(r.first_fit(ns(double(earliest)), ns(double(dur))) == ns(double(want)));
    Grant g = r.reserve_at(ns(double(earliest)), ns(double(want)), ns(double(dur)));
    REQUIRE(g.start == ns(double(want)));
    REQUIRE(g.waited == ns(double(want - earliest)));
    live.push_back({want, want + dur});
    const uint64_t probe = floor_ns + ref.rnd(700);
    bool busy = false;
    for (auto& iv : live) busy |= iv.first <= probe && probe < iv.second;
    REQUIRE(r.busy_at(ns(double(probe))) == busy);
  }
  uint64_t last = 0;
  for (auto& iv : live) last = std::max(last, iv.second);
  CHECK(r.free_at() == ns(double(last)));
}

// reserve() places an occupant that starts after every live reservation in O(1) (the
// usual in-order case); its grant and statistics must be the general first fit's. Requests mostly
// at or after the last end (back to back or with a gap), some earlier (gap fill).
TEST_CASE("IntervalResource in-order reservations equal a brute-force first fit", "[core][speed]") {
  IntervalResource r("bus");
  Reference ref(777);
  uint64_t t = 0;
  sc_time busy = SC_ZERO_TIME, waited = SC_ZERO_TIME;
  for (int i = 0; i < 3000; ++i) {
    uint64_t earliest = ref.rnd(5) ? t + ref.rnd(3) * ref.rnd(30) : (t > 200 ? t - ref.rnd(200) : 0);
    uint64_t dur = 1 + ref.rnd(40);
    uint64_t want = ref.fit(earliest, dur);
    Grant g = r.reserve(ns(double(earliest)), ns(double(dur)));
    REQUIRE(g.start == ns(double(want)));
    REQUIRE(g.end == ns(double(want + dur)));
    REQUIRE(g.waited == ns(double(want - earliest)));
    busy += ns(double(dur));
    waited += g.waited;
    ref.live.push_back({want, want + dur});
    t = std::max(t, want + dur);
  }
  CHECK(r.free_at() == ns(double(t)));
  CHECK(r.busy_total() == busy);
  CHECK(r.wait_total() == waited);
  CHECK(r.grants() == 3000);
}

}  // namespace core_interval_resource_test
