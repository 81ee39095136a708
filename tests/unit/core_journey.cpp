#include "core/breakdown.h"
#include "core/journey.h"
#include <catch2/catch.hpp>
#include <map>

// This file's own names, apart from the other files of a unity batch.
namespace core_journey_test {
using namespace nicsim;

namespace {
/// The breakdown of full mark lists computed directly (each mark lasts until the next, the
/// journey's time per stage summed in time order): what the folded log must reproduce exactly.
struct Reference {
  std::vector<double> totals;
  std::vector<std::map<std::pair<std::string, std::string>, double>> per_journey;
};
Reference reference(const std::vector<Journey>& js) {
  Reference r;
  for (auto& j : js) {
    std::map<std::pair<std::string, std::string>, double> mine;
    for (size_t i = 0; i < j.marks.size(); ++i) {
      const sc_time next = i + 1 < j.marks.size() ? j.marks[i + 1].t : j.end;
      const auto& m = j.marks[i];
      mine[{m.stage, m.cause}] += to_us(next > m.t ? next - m.t : SC_ZERO_TIME);
    }
    r.per_journey.push_back(mine);
    r.totals.push_back(to_us(j.total()));
  }
  return r;
}

/// Stage names cycling through a message's path, with a wait cause on some.
const char* kStages[] = {"TCP tx", "doorbell", "descriptor fetch", "data DMA", "MAC TX", "wire", "RX FIFO",
                         "moderation wait", "ISR", "driver rx", "TCP rx"};
}  // namespace

TEST_CASE("journey log: a journey of 100 k marks holds a bounded number of them and its breakdown is exact",
          "[explain]") {
  // A long message (an 8 MB NetPIPE transfer writes ~100 k marks per journey) used to keep every
  // mark of every journey (strings included): gigabytes. The log now folds all but a window.
  JourneyLog log;  // not the test binary's sim().journeys, which keeps marks
  log.set_keep_marks(false);
  constexpr size_t kMarks = 100000;
  std::vector<Journey> full(2);
  size_t most_held = 0;
  for (int n = 0; n < 2; ++n) {
    const sc_time t0 = us(1000.0 * n);
    const JourneyId id = log.begin("long message", t0, "app write", "alpha");
    full[n].kind = "long message";
    full[n].marks.push_back({t0, "app write", "", "alpha"});
    for (size_t i = 1; i < kMarks; ++i) {
      // Times in ns steps; every 7th mark arrives 3 ns late (behind marks already written), as
      // models running ahead with annotated delays write them.
      const double ns_at = 1000.0 * 1000 * n + double(i) * 10 - (i % 7 == 0 ? 13 : 0);
      const sc_time t = ns(ns_at);
      const char* stage = kStages[i % 11];
      const char* cause = i % 11 == 7 ? "ITR" : "";
      const char* where = i % 2 ? "alpha.eth1" : "beta.eth1";
      log.mark(id, t, stage, where, cause);
      auto& ms = full[n].marks;
      auto pos = ms.end();
      while (pos != ms.begin() && (pos - 1)->t > t) --pos;
      ms.insert(pos, JourneyMark{t, stage, cause, where});
      most_held = std::max(most_held, log.held_marks());
    }
    const sc_time end = ns(1000.0 * 1000 * n + double(kMarks) * 10 + 5);
    log.finish(id, end);
    full[n].end = end;
    full[n].finished = true;
  }
  CHECK(most_held <= 2 * JourneyLog::kWindow);
  CHECK(log.held_marks() == 0);
  CHECK(log.late_marks() == 0);

  const Breakdown b = breakdown(log.totals());
  const Reference ref = reference(full);
  REQUIRE(b.journeys == 2);
  CHECK(b.mean_total_us == (ref.totals[0] + ref.totals[1]) / 2);
  REQUIRE(b.stages.size() == 12);  // "app write" and the 11 stages of the path
  for (auto& st : b.stages) {
    const double a = ref.per_journey[0].count({st.stage, st.cause}) ? ref.per_journey[0].at({st.stage, st.cause}) : 0.0;
    const double c = ref.per_journey[1].count({st.stage, st.cause}) ? ref.per_journey[1].at({st.stage, st.cause}) : 0.0;
    INFO(st.stage << " (" << st.cause << ")");
    CHECK(st.mean_us == (a + c) / 2);  // the same sums in the same order: equal, not approximately
  }
  CHECK(b.stages.front().stage == "app write");
  CHECK(b.stages.front().where == "alpha");
}

TEST_CASE("journey log: a mark older than the unfolded window is counted and the stages still sum to the total",
          "[explain]") {
  JourneyLog log;
  const JourneyId id = log.begin("m", us(0), "a", "x");
  for (size_t i = 1; i <= 4 * JourneyLog::kWindow; ++i) log.mark(id, us(double(i)), "b", "x");
  REQUIRE(log.last_mark_time(id) == us(double(4 * JourneyLog::kWindow)));
  log.mark(id, us(1.5), "late", "x");  // long folded: it cannot go back to 1.5 µs
  CHECK(log.late_marks() == 1);
  log.finish(id, us(10000));
  CHECK_FALSE(log.last_mark_time(id));
  const Breakdown b = breakdown(log.totals());
  double sum = 0;
  for (auto& s : b.stages) sum += s.mean_us;
  CHECK(sum == Approx(b.mean_total_us));
  CHECK(b.mean_total_us == Approx(10000));
}

TEST_CASE("journey log: finished() without kept marks is refused, with them it has every mark", "[explain]") {
  JourneyLog log;
  CHECK_THROWS_AS(log.finished(), std::logic_error);
  log.set_keep_marks(true);
  const JourneyId id = log.begin("m", us(0), "a", "x");
  for (size_t i = 1; i <= 3 * JourneyLog::kWindow; ++i) log.mark(id, us(double(i)), "b", "x");
  REQUIRE(log.find(id));
  log.finish(id, us(5000));
  REQUIRE(log.finished().size() == 1);
  CHECK(log.finished()[0].marks.size() == 3 * JourneyLog::kWindow + 1);
  CHECK(log.held_marks() == 0);
}

}  // namespace core_journey_test
