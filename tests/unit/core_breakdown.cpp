#include "core/breakdown.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace core_breakdown_test {
using namespace nicsim;

namespace {
Journey make(std::initializer_list<std::tuple<double, const char*, const char*>> marks, double end_us,
             const char* where = "x") {
  Journey j;
  j.finished = true;
  for (auto& [t, st, cause] : marks) j.marks.push_back({us(t), st, cause, where});
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

namespace {
/// The column at which `needle` starts on the line of `text` that begins with `line_start`.
size_t column_of(const std::string& text, const std::string& line_start, const std::string& needle) {
  size_t b = text.find(line_start);
  REQUIRE(b != std::string::npos);
  size_t e = text.find('\n', b);
  std::string line = text.substr(b, e - b);
  size_t at = line.find(needle);
  REQUIRE(at != std::string::npos);
  size_t n = 0;  // code points, as a terminal shows them
  for (size_t i = 0; i < at; ++i) n += (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80;
  return n;
}
}  // namespace

TEST_CASE("explain tables: a stage name longer than the column keeps every number in its column, the gap's where "
          "shows both runs' places when they differ (bugs: the row was pushed right, only B's place was shown)",
          "[explain]") {
  const char* kLong = "a very long stage name from a future model that needs more room";
  std::vector<Journey> a = {make({{0, "TCP tx", ""}, {5, kLong, "some cause"}, {7, "TCP rx", ""}}, 28, "alpha.eth0")};
  std::vector<Journey> b = {make({{0, "TCP tx", ""}, {5, kLong, "some cause"}, {9, "TCP rx", ""}}, 40, "beta.eth1")};
  const std::string t = format_breakdown(breakdown(a));
  // "mean µs" is right-aligned over the numbers: the decimal point of every row sits at one column.
  const size_t dot = column_of(t, "TCP tx", ".");
  CHECK(column_of(t, kLong, "2.00") + 1 == dot);  // "2.00": the '.' one after the '2'
  CHECK(column_of(t, "total", "28.00") + 2 == dot);
  CHECK(column_of(t, "stage (cause)", "mean µs") + 7 == dot + 3);  // header ends over the last digit

  auto rows = gap(breakdown(a), breakdown(b));
  const std::string g = format_gap(rows, "A µs", "B µs");
  CHECK(column_of(g, kLong, "+2.00") == column_of(g, "TCP rx", "+10.00") + 1);
  REQUIRE(!rows.empty());
  for (auto& r : rows) {
    CHECK(r.where_a == "alpha.eth0");
    CHECK(r.where_b == "beta.eth1");
    CHECK(r.where("A", "B") == "A: alpha.eth0; B: beta.eth1");
  }
  CHECK_THAT(g, Catch::Contains("A: alpha.eth0; B: beta.eth1"));
  GapRow same;
  same.where_a = same.where_b = "alpha.eth0";
  CHECK(same.where("A", "B") == "alpha.eth0");
  same.where_b.clear();
  CHECK(same.where("A", "B") == "alpha.eth0");
}

}  // namespace core_breakdown_test
