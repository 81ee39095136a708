#include "core/breakdown.h"
#include <catch2/catch.hpp>

using namespace nicsim;

namespace {
Journey make(std::initializer_list<std::tuple<double, const char*, const char*>> marks, double end_us) {
  Journey j;
  j.finished = true;
  for (auto& [t, st, cause] : marks) j.marks.push_back({us(t), st, cause, "x"});
  j.end = us(end_us);
  return j;
}
}  // namespace

TEST_CASE("breakdown: stages sum to the measured total", "[explain]") {
  std::vector<Journey> js = {make({{0, "TCP tx", ""}, {5, "wire", ""}, {7, "moderation wait", "ITR"}}, 60),
                             make({{100, "TCP tx", ""}, {104, "wire", ""}, {106, "TCP rx", ""}}, 130)};
  auto b = breakdown(js);
  REQUIRE(b.journeys == 2);
  double sum = 0;
  for (auto& s : b.stages) sum += s.mean_us;
  CHECK(sum == Approx(b.mean_total_us));
  CHECK(b.mean_total_us == Approx((60.0 + 30.0) / 2));
  // "moderation wait (ITR)" occurs in one of two journeys: mean = 53/2.
  auto it = std::find_if(b.stages.begin(), b.stages.end(), [](auto& s) { return s.cause == "ITR"; });
  REQUIRE(it != b.stages.end());
  CHECK(it->mean_us == Approx(26.5));
  CHECK(it->journeys_with == 1);
}

TEST_CASE("gap: a difference in one timer lands in that timer's stage", "[explain]") {
  std::vector<Journey> a = {make({{0, "TCP tx", ""}, {5, "wire", ""}, {7, "TCP rx", ""}}, 28)};
  std::vector<Journey> b = {make({{0, "TCP tx", ""}, {5, "wire", ""}, {7, "moderation wait", "ITR"}, {70, "TCP rx", ""}}, 91)};
  auto rows = gap(breakdown(a), breakdown(b));
  REQUIRE(!rows.empty());
  CHECK(rows.front().stage == "moderation wait");
  CHECK(rows.front().cause == "ITR");
  CHECK(rows.front().delta_us == Approx(63.0));
  auto text = gap_summary(breakdown(a), breakdown(b), rows, "A", "B");
  CHECK(text.find("moderation wait (ITR)") != std::string::npos);
}
