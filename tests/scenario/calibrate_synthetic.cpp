// `nicsim calibrate` on the real model with a known answer: references produced by the model itself
// at a chosen Hub Interface crossing latency (a short NetPIPE between the onboard 82544GC of two
// P4DPR-6GM+, whose one-way latency pays the crossing on every MMIO read, descriptor fetch and
// completion: about +1 µs over the bounds' 100 ns); the fit must recover that latency within 2 %.
#include "cli/calibrate.h"
#include "platforms/calibration_fit.h"
#include "tests/support/run_nicsim.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace calibrate_synthetic_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

constexpr double kTrueCrossingNs = 121.0;  // the answer; nominal 100, bounds 50-150

const char* kScenario = R"(name = "synthetic-netpipe"
seed = 1
[hosts.alpha]
platform = "supermicro-p4dpr-6gm+"
cpu_mhz = 2000
[hosts.alpha.nics.eth1]
device = "82544GC"
slot = "onboard-gbe"
driver = "e1000-4.4.12-k1"
[hosts.beta]
platform = "supermicro-p4dpr-6gm+"
cpu_mhz = 2000
[hosts.beta.nics.eth1]
device = "82544GC"
slot = "onboard-gbe"
driver = "e1000-4.4.12-k1"
[[links]]
a = "alpha.eth1"
b = "beta.eth1"
[workload]
type = "netpipe"
transmitter = "alpha.eth1"
receiver = "beta.eth1"
lower = 1
upper = 64
trials = 2
runtm_s = 0.002
)";

}  // namespace

TEST_CASE("calibrate recovers a hub crossing latency from references the model made at it", "[calibrate][scenario]") {
  TempDir tmp;
  const fs::path sc = tmp / "bench" / "np.toml";
  write_text(sc, kScenario);
  // The references: the model's own figures at the true value (both hosts are on the platform).
  const std::string v = fmt::format("{}", kTrueCrossingNs);
  const nlohmann::json r = run_json("run " + shell_quote(sc.string()) + " --set hosts.alpha.hub_crossing_ns=" + v +
                                    " --set hosts.beta.hub_crossing_ns=" + v);
  std::string refs;
  size_t n = 0;
  for (const char* m : {"one_way_us.1B", "one_way_us.16B", "one_way_us.32B", "one_way_us.64B"}) {
    INFO(m);
    REQUIRE(r["metrics"].contains(m));
    refs += fmt::format("[[reference]]\nmetric = \"{}\"\nexpected = {}\ntolerance = 0.02\nsource = \"the model at "
                        "hub_crossing_ns {}\"\n",
                        m, r["metrics"][m].get<double>(), v);
    ++n;
  }
  write_text(tmp / "bench" / "np.ref.toml", refs);
  write_text(tmp / "calibrations" / "synthetic.toml",
             "platform = \"supermicro-p4dpr-6gm+\"\nseeds = [1]\n[[parameter]]\nset = \"hosts.*.hub_crossing_ns\"\n"
             "[[train]]\nref = \"../bench/np.ref.toml\"\n");
  CalibrateOptions o;
  o.file = tmp / "calibrations" / "synthetic.toml";
  o.out = tmp / "runs";
  o.jobs = 2;
  o.max_evals = 20;
  o.binary = NICSIM_BIN;
  CalibrateStats stats;
  REQUIRE(run_calibrate(o, process_runner(NICSIM_BIN), &stats) == 0);
  const FitFile fit = read_fit_file(tmp / "calibrations" / "synthetic.fit.toml");
  REQUIRE(fit.params.size() == 1);
  INFO("fitted " << fit.params[0].fitted << " after " << fit.evaluations << " evaluations, " << stats.runs_started << " runs");
  CHECK(fit.params[0].fitted == Approx(kTrueCrossingNs).epsilon(0.02));
  CHECK(fit.ok);
  CHECK(fit.train.count == n);
  CHECK(fit.objective < fit.nominal_objective);
}

}  // namespace calibrate_synthetic_test
