// The real process runner, signal forwarding and plotting, with a fake `nicsim` shell script as the
// child (so no models are needed).
#include "cli/sweep.h"
#include "cli/sweep_plot.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>
#include <csignal>
#include <fmt/format.h>
#include <thread>

// This file's own names, apart from the other files of a unity batch.
namespace sweep_process_test {
using namespace nicsim;
using namespace nicsim::test;


TEST_CASE("sweep: the process runner passes the arguments and reports exit codes and stderr", "[sweep]") {
  TempDir tmp;
  Runner run = process_runner(write_fake_nicsim(tmp.path));
  RunJob ok{"ok", "scen.toml", {"x=21"}, 5, tmp / "ok", {}};
  RunOutcome r = run(ok);
  CHECK(r.exit_code == 0);
  auto j = nlohmann::json::parse(read_text(tmp / "ok" / "result.json"));
  CHECK(j["metrics"]["y"] == 42);
  CHECK(j["seed"] == 5);
  CHECK(read_text(tmp / "ok" / "run.out") == "fake run of scen.toml\n");

  RunJob bad{"bad", "scen.toml", {"x=13"}, std::nullopt, tmp / "bad", {}};
  r = run(bad);
  CHECK(r.exit_code == 3);
  CHECK(r.stderr_tail == "fake-nicsim: x=13 is unlucky");
  CHECK_FALSE(fs::exists(tmp / "bad" / "result.json"));

  Runner missing = process_runner(tmp / "no-such-binary");
  r = missing(ok);
  CHECK(r.exit_code == 127);
  CHECK_THAT(r.stderr_tail, Catch::Contains("cannot start"));
}

TEST_CASE("sweep: SIGTERM kills the running children, keeps finished points, and the rerun resumes", "[sweep]") {
  TempDir tmp;
  fs::path bin = write_fake_nicsim(tmp.path);
  ::setenv("FAKE_SLEEP", "0.3", 1);
  SweepRunOptions o;
  o.plan.scenario = (tmp / "scen.toml").string();
  o.plan.axes = {{"x", parse_range("0:9:1")}};
  o.plan.metrics = {"y"};
  o.dir = tmp / "sweep";
  o.jobs = 2;
  o.plots = false;
  auto pts = cartesian(o.plan.axes);
  auto count_done = [&] {
    size_t n = 0;
    for (auto& p : pts) n += point_finished(o.dir, p);
    return n;
  };
  int rc = -1;
  {
    InterruptGuard guard;
    o.stop = &InterruptGuard::flag();
    std::thread killer([&] {
      for (int i = 0; i < 400 && count_done() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // children mid-run
      ::kill(::getpid(), SIGTERM);
    });
    rc = run_sweep(o, process_runner(bin));
    killer.join();
  }
  CHECK(rc == 128 + SIGTERM);
  size_t done = count_done();
  CHECK(done >= 3);
  CHECK(done < pts.size());
  for (auto& p : pts) CHECK_FALSE(fs::exists(point_dir(o.dir, p) / "error.json"));
  auto j = nlohmann::json::parse(read_text(o.dir / "sweep.json"));
  CHECK(j["counts"]["ok"] == done);

  ::setenv("FAKE_SLEEP", "0", 1);
  o.stop = nullptr;
  std::atomic<int> runs{0};
  Runner counting = [&, inner = process_runner(bin)](const RunJob& job) {
    ++runs;
    return inner(job);
  };
  CHECK(run_sweep(o, counting) == kExitOk);
  CHECK(runs == static_cast<int>(pts.size() - done));
  CHECK(count_done() == pts.size());
}

TEST_CASE("sweep: plots are SVG files drawn by gnuplot, or skipped with a message", "[sweep]") {
  TempDir tmp;
  SweepPlan plan;
  plan.scenario = "/s.toml";
  plan.axes = {{"x", {"0", "1", "2"}}, {"seed", {"1", "2"}}};
  plan.metrics = {"y_us.1B"};
  std::vector<PointRow> rows;
  for (auto& p : cartesian(plan.axes)) rows.push_back({p, "ok", {std::stod(p.values[0]) * 2}, {}, "", {}});

  PlotReport none = write_plots(tmp.path, plan, rows, std::nullopt);
  CHECK(none.svgs.empty());
  REQUIRE(none.messages.size() == 1);
  CHECK_THAT(none.messages[0], Catch::Contains("gnuplot not found") && Catch::Contains("gnuplot-nox"));
  CHECK(fs::exists(tmp / "plots" / "y_us.1B.gp"));  // the script is still there to plot by hand

  auto gp = find_in_path("gnuplot");
  if (!gp) {
    WARN("gnuplot is not installed: SVG drawing not exercised");
    return;
  }
  PlotReport rep = write_plots(tmp.path, plan, rows, gp);
  INFO(fmt::format("{}", fmt::join(rep.messages, "\n")));
  REQUIRE(rep.svgs.size() == 1);
  std::string svg = read_text(rep.svgs[0]);
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("seed=2") != std::string::npos);   // legend of the second line
  CHECK(svg.find("y_us.1B") != std::string::npos);  // title/ylabel, not subscripted
  for (auto& e : fs::directory_iterator(tmp / "plots"))
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
}

}  // namespace sweep_process_test
