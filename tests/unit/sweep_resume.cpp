// Sweep execution with a fake runner injected (no models): resume, interruption, failures, merge.
#include "cli/sweep.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace sweep_resume_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {
SweepRunOptions options(const fs::path& dir, std::vector<Axis> axes) {
  SweepRunOptions o;
  o.plan.scenario = "/nonexistent/scenario.toml";  // the fake runner does not read it
  o.plan.axes = std::move(axes);
  o.plan.metrics = {"y", "seed"};
  o.dir = dir;
  o.jobs = 2;
  o.plots = false;
  o.log = stderr;
  return o;
}

nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(read_text(p)); }
}  // namespace

TEST_CASE("sweep: resume plans only the points without result.json and runs each once", "[sweep]") {
  TempDir tmp;
  auto o = options(tmp.path, {{"x", parse_range("0:9:1")}, {"seed", {"1", "2"}}});
  auto pts = cartesian(o.plan.axes);
  REQUIRE(pts.size() == 20);
  // An earlier sweep finished points 0..6 (result.json) and failed point 7 (error.json only).
  write_plan(tmp.path, o.plan);
  FakeRunner earlier;
  for (size_t i = 0; i < 7; ++i) earlier.runner()(job_for(o.plan, pts[i], tmp.path));
  write_error_json(point_dir(tmp.path, pts[7]), pts[7].id, 1, "boom");

  auto todo = pending_points(tmp.path, pts);
  REQUIRE(todo.size() == 13);
  CHECK(todo.front().index == 7);  // the failed point is retried
  for (auto& p : todo) CHECK(p.index >= 7);

  FakeRunner now;
  CHECK(run_sweep(o, now.runner()) == kExitOk);
  std::set<std::string> ran(now.ran.begin(), now.ran.end());
  CHECK(now.ran.size() == 13);
  CHECK(ran.size() == 13);
  for (auto& p : todo) CHECK(ran.count(p.id) == 1);
  CHECK_FALSE(fs::exists(point_dir(tmp.path, pts[7]) / "error.json"));  // stale error removed on retry

  auto j = read_json(tmp.path / "sweep.json");
  CHECK(j["counts"]["ok"] == 20);
  for (auto& p : j["points"]) {
    CHECK(p["status"] == "ok");
    CHECK(p["metrics"]["y"] == 2 * p["values"]["x"].get<int>());
    CHECK(p["metrics"]["seed"] == p["values"]["seed"]);
  }
  auto pj = read_json(point_dir(tmp.path, pts[10]) / "point.json");  // written before the point ran
  CHECK(pj["index"] == 10);
  CHECK(pj["values"] == nlohmann::json{{"x", 5}, {"seed", 1}});
  CHECK(pending_points(tmp.path, pts).empty());
  // A third run has nothing to do.
  FakeRunner again;
  CHECK(run_sweep(o, again.runner()) == kExitOk);
  CHECK(again.calls == 0);
}

TEST_CASE("sweep: an interrupted sweep loses no finished point and resumes the rest", "[sweep]") {
  TempDir tmp;
  auto o = options(tmp.path, {{"x", parse_range("0:11:1")}});
  auto pts = cartesian(o.plan.axes);
  std::atomic<bool> stop{false};
  o.stop = &stop;
  std::mutex mu;
  std::set<std::string> finished, killed;
  FakeRunner fake;
  Runner inner = fake.runner();
  // Points finish normally until the 4th completion; then "Ctrl-C" arrives while two more are
  // running: those are killed mid-write (a temporary file, never renamed) and report signal exit.
  Runner runner = [&](const RunJob& j) -> RunOutcome {
    {
      std::lock_guard lk(mu);
      if (finished.size() >= 4) {
        stop = true;
        killed.insert(j.label);
        write_text(j.out_dir / "result.json.tmp.999", "{\"metrics\": {\"y\":");  // half a file
        return {128 + 15, "killed by signal 15"};
      }
    }
    RunOutcome r = inner(j);
    std::lock_guard lk(mu);
    finished.insert(j.label);
    return r;
  };
  int rc = run_sweep(o, runner);
  CHECK(rc == 128 + 2);  // stop flag set without a caught signal: reported as SIGINT
  REQUIRE(finished.size() >= 4);
  REQUIRE_FALSE(killed.empty());
  for (auto& p : pts) {
    fs::path d = point_dir(tmp.path, p);
    if (finished.count(p.id)) {
      CHECK(fs::exists(d / "result.json"));
    } else {
      CHECK_FALSE(fs::exists(d / "result.json"));
      CHECK_FALSE(fs::exists(d / "error.json"));  // interrupted is not "failed": it will be rerun
    }
  }
  auto j = read_json(tmp.path / "sweep.json");
  CHECK(j["counts"]["ok"] == finished.size());
  CHECK(j["counts"]["missing"] == pts.size() - finished.size());

  // Resume: exactly the unfinished points run, none of the finished ones again.
  auto todo = pending_points(tmp.path, pts);
  CHECK(todo.size() == pts.size() - finished.size());
  FakeRunner resume;
  o.stop = nullptr;
  CHECK(run_sweep(o, resume.runner()) == kExitOk);
  CHECK(resume.ran.size() == todo.size());
  for (auto& id : resume.ran) CHECK(finished.count(id) == 0);
  CHECK(read_json(tmp.path / "sweep.json")["counts"]["ok"] == pts.size());
}

TEST_CASE("sweep: a failing point records its exit code and stderr and does not stop the others", "[sweep]") {
  TempDir tmp;
  auto o = options(tmp.path, {{"x", parse_range("10:15:1")}});
  auto pts = cartesian(o.plan.axes);
  FakeRunner fake;
  fake.fail_x = {"13"};
  CHECK(run_sweep(o, fake.runner()) == kExitRunFailed);
  CHECK(fake.calls == 6);
  auto bad = std::find_if(pts.begin(), pts.end(), [](auto& p) { return p.values[0] == "13"; });
  auto err = read_json(point_dir(tmp.path, *bad) / "error.json");
  CHECK(err["exit_code"] == 1);
  CHECK(err["stderr_tail"] == "loading...\nboom: x=13 is unlucky");
  auto j = read_json(tmp.path / "sweep.json");
  CHECK(j["counts"]["ok"] == 5);
  CHECK(j["counts"]["failed"] == 1);
  CHECK(j["points"][3]["status"] == "failed");
  CHECK(j["points"][3]["exit_code"] == 1);
  CHECK(read_text(tmp.path / "sweep.csv").find(",13,failed,,\n") != std::string::npos);
  // Resume retries only the failed point.
  FakeRunner retry;
  CHECK(run_sweep(o, retry.runner()) == kExitOk);
  CHECK(retry.ran == std::vector<std::string>{bad->id});
}

TEST_CASE("sweep: exit 0 without result.json is a failure, and a failed run's result is set aside", "[sweep]") {
  TempDir tmp;
  std::vector<RunJob> jobs(2);
  for (size_t i = 0; i < 2; ++i) {
    jobs[i].label = "j" + std::to_string(i);
    jobs[i].out_dir = tmp.path / jobs[i].label;
  }
  Runner r = [](const RunJob& j) -> RunOutcome {
    if (j.label == "j1") {
      write_text(j.out_dir / "result.json", "{}");
      return {1, "run failed after writing"};
    }
    return {0, ""};
  };
  ExecOptions eo;
  eo.jobs = 2;
  auto res = run_jobs(jobs, r, eo);
  CHECK(res[0].status == JobStatus::Failed);
  CHECK_THAT(read_text(tmp.path / "j0" / "error.json"), Catch::Contains("wrote no result.json"));
  CHECK(res[1].status == JobStatus::Failed);
  CHECK_FALSE(fs::exists(tmp.path / "j1" / "result.json"));  // would make resume skip it
  CHECK(fs::exists(tmp.path / "j1" / "result.failed.json"));
}

TEST_CASE("sweep: shards into separate directories merge into the full sweep", "[sweep]") {
  TempDir tmp;
  std::vector<Axis> axes = {{"x", parse_range("0:6:1")}, {"seed", {"1", "2"}}};  // 14 points
  const unsigned n = 3;
  size_t total_runs = 0;
  for (unsigned i = 0; i < n; ++i) {
    auto o = options(tmp / ("shard" + std::to_string(i)), axes);
    o.shard = Shard{i, n};
    FakeRunner f;
    CHECK(run_sweep(o, f.runner()) == kExitOk);
    total_runs += f.ran.size();
    auto j = read_json(o.dir / "sweep.json");  // a shard's summary shows the others as missing
    CHECK(j["counts"]["ok"] == shard_points(cartesian(axes), {i, n}).size());
  }
  CHECK(total_runs == 14);

  // Merging only two shards: the third's points are missing -> exit 1.
  CHECK(run_merge({tmp / "shard0", tmp / "shard1"}, tmp / "partial", false, std::nullopt, stderr) == kExitRunFailed);
  CHECK(read_json(tmp / "partial" / "sweep.json")["counts"]["missing"] == shard_points(cartesian(axes), {2, n}).size());

  CHECK(run_merge({tmp / "shard0", tmp / "shard1", tmp / "shard2"}, tmp / "all", false, std::nullopt, stderr) ==
        kExitOk);
  auto j = read_json(tmp / "all" / "sweep.json");
  CHECK(j["counts"]["ok"] == 14);
  for (auto& p : j["points"]) CHECK(p["metrics"]["y"] == 2 * p["values"]["x"].get<int>());
  // The merged directory is a complete sweep: resuming it runs nothing.
  auto o = options(tmp / "all", axes);
  FakeRunner none;
  CHECK(run_sweep(o, none.runner()) == kExitOk);
  CHECK(none.calls == 0);
  // Merging into one of the inputs works too.
  CHECK(run_merge({tmp / "shard0", tmp / "shard1", tmp / "shard2"}, tmp / "shard0", false, std::nullopt, stderr) ==
        kExitOk);
  CHECK(read_json(tmp / "shard0" / "sweep.json")["counts"]["ok"] == 14);
}

TEST_CASE("sweep: shards sharing one directory need only a rescan to merge", "[sweep]") {
  TempDir tmp;
  std::vector<Axis> axes = {{"x", parse_range("0:4:1")}};
  for (unsigned i = 0; i < 2; ++i) {
    auto o = options(tmp.path, axes);
    o.shard = Shard{i, 2};
    FakeRunner f;
    CHECK(run_sweep(o, f.runner()) == kExitOk);
  }
  CHECK(read_json(tmp / "sweep.json")["counts"]["ok"] == 5);  // the last shard's summary sees all
  CHECK(run_merge({tmp.path}, tmp.path, false, std::nullopt, stderr) == kExitOk);
}

TEST_CASE("sweep: a directory of another sweep, or incompatible merges, are refused", "[sweep]") {
  TempDir tmp;
  auto o = options(tmp / "a", {{"x", {"1", "2"}}});
  FakeRunner f;
  CHECK(run_sweep(o, f.runner()) == kExitOk);
  auto other = o;
  other.plan.sets = {"workload.upper=1024"};
  CHECK_THROWS_WITH(run_sweep(other, f.runner()), Catch::Contains("would not belong to this sweep"));
  // Same scenario and sets, other values: allowed (points are keyed by their values).
  auto more = o;
  more.plan.axes = {{"x", {"1", "2", "3"}}};
  FakeRunner g;
  CHECK(run_sweep(more, g.runner()) == kExitOk);
  CHECK(g.calls == 1);

  auto b = options(tmp / "b", {{"x", {"1", "5"}}});
  CHECK(run_sweep(b, f.runner()) == kExitOk);
  CHECK_THROWS_WITH(merge_dirs({tmp / "a", tmp / "b"}, tmp / "m", nullptr), Catch::Contains("--vary x values"));
  CHECK_THROWS_WITH(merge_dirs({tmp / "nothing"}, tmp / "m", nullptr), Catch::Contains("not a sweep directory"));
}

}  // namespace sweep_resume_test
