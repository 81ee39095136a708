// Bad and edge-case input found by adversarial use of the real binary: each case is refused at load
// (exit 2, file:line:key, what to do) or handled, never a run that loads and then fails with exit 1,
// a silently wrong result, or a stale file left beside new ones.
#include "cli/check.h"
#include "cli/check_refs.h"
#include "cli/sweep.h"
#include "platforms/busbench.h"
#include "platforms/scenario.h"
#include "tests/support/run_nicsim.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>
#include <csignal>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

// This file's own names, apart from the other files of a unity batch.
namespace bad_input_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

BinResult nicsim_bin(const TempDir& tmp, const std::vector<std::string>& args) { return run_nicsim_bin(tmp.path, args); }

std::string load_error(const std::string& path, const std::vector<std::string>& sets = {}) {
  try {
    load_scenario(path, sets);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

/// `text` with the first `from` replaced by `to` (REQUIREs that `from` occurs).
std::string with(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

const std::string kSeed000 = "scenarios/seed000/82544gc-pci66.toml";
const std::string kGmac = "scenarios/seed001/gmac.toml";
const std::string kTg3 = "scenarios/bcm5701/p4dpr-pcix100-netpipe.toml";
/// Makes seed 000's NetPIPE run one size (a few seconds instead of half a minute).
const std::string kShort = "workload.upper=1";
/// ... and two 2 ms trials per size instead of the scenario's (a tenth of a second, not seconds;
/// the sanitizer job runs these tests too).
const std::string kFewTrials[2] = {"workload.trials=2", "workload.runtm_s=0.002"};
/// Seed 000's scenario text with NetPIPE stopping at 1 byte, two 2 ms trials per size.
std::string short_seed000() {
  return with(read_text(kSeed000), "upper = 24 ", "upper = 1\ntrials = 2\nruntm_s = 0.002 ");
}

}  // namespace

TEST_CASE("bad input: a driver without cost entries for the host's cost profile is refused at load, not at run",
          "[bad_input][validation]") {
  TempDir tmp;
  // An e1000 card in a Power Mac G4's PCI slot: e1000 is costed on the P4 Xeon profiles only.
  const std::string g4 = (tmp / "g4-e1000.toml").string();
  write_text(g4, with(read_text(kGmac), "device = \"GMAC\"\nslot = \"onboard-gmac\"\ndriver = \"gmac\"",
                      "device = \"82544EI\"\nslot = \"slot1\"\ndriver = \"e1000-4.4.12-k1\""));
  auto r = nicsim_bin(tmp, {"run", g4});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith(g4 + ":"));
  CHECK_THAT(r.err, Catch::Contains("key 'hosts.tx.nics.eth0.driver': driver e1000-4.4.12-k1 has no cost entries for "
                                    "host tx's cost profile linux-2.4-ppc7450"));
  CHECK_THAT(r.err, Catch::Contains("e1000 is costed only under linux-2.4.20-p4xeon, linux-2.6-p4xeon"));
  CHECK_THAT(r.err, Catch::Contains("the drivers costed under linux-2.4-ppc7450 are gmac, sungem"));
  CHECK(r.out.empty());
  // tg3 under the 2.6 cost profile (an explicit cost_profile): the key and --set origin are named.
  r = nicsim_bin(tmp, {"run", kTg3, "--set", "hosts.*.cost_profile=linux-2.6-p4xeon"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("driver tg3-0.99 has no cost entries for host"));
  CHECK_THAT(r.err, Catch::Contains("(its cost_profile)"));
  // A sweep refuses it before any point runs.
  r = nicsim_bin(tmp, {"sweep", kTg3, "--vary", "hosts.*.cost_profile=linux-2.4.20-p4xeon,linux-2.6-p4xeon",
                       "--metric", "latency_us", "--out", (tmp / "sw").string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("has no cost entries"));
  // Every shipped pairing still loads.
  CHECK(load_error(kGmac) == "no error");
  CHECK(load_error(kTg3) == "no error");
  CHECK(load_error("scenarios/seed000/82546eb-pcix100-e1000-5.toml") == "no error");
}

TEST_CASE("bad input: netperf_rr ports past 65535 are refused at load, not wrapped to port 0",
          "[bad_input][validation]") {
  TempDir tmp;
  const std::string rr = "scenarios/seed002/e1000-82544gc-pci66.toml";
  auto sizes = [](int n) {
    std::string s;
    for (int i = 1; i <= n; ++i) s += (i > 1 ? "," : "") + std::to_string(i);
    return "workload.sizes=\"" + s + "\"";
  };
  // 601 invocations from port 65000 would reach 65600: ports 0, 1, 2, ... after the wrap.
  auto r = nicsim_bin(tmp, {"run", rr, "--set", "workload.port=65000", "--set", sizes(601)});
  CHECK(r.code == 2);
  CHECK(r.err == "--set: key 'workload.port': port 65000 with 601 sizes: invocation i uses port + i, so the last "
                 "would use port 65600, past the largest port 65535; set port to at most 64935\n");
  CHECK(load_error(rr, {"workload.port=65000", sizes(536)}) == "no error");  // the last one is 65535
  CHECK_THAT(load_error(rr, {"workload.port=65000", sizes(537)}), Catch::Contains("would use port 65536"));
}

TEST_CASE("bad input: host and NIC names are bounded at load (IFNAMSIZ, HOST_NAME_MAX)", "[bad_input][validation]") {
  TempDir tmp;
  const std::string base = read_text(kSeed000);
  const std::string nic16 = (tmp / "nic16.toml").string();
  write_text(nic16, with(with(with(base, "[hosts.alpha.nics.eth0]", "[hosts.alpha.nics.eth0123456789abc]"),
                              "transmitter = \"alpha.eth0\"", "transmitter = \"alpha.eth0123456789abc\""),
                         "a = \"alpha.eth0\"", "a = \"alpha.eth0123456789abc\""));
  auto r = nicsim_bin(tmp, {"run", nic16});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains(":16:"));
  CHECK_THAT(r.err, Catch::EndsWith("key 'hosts.alpha.nics.eth0123456789abc': 'eth0123456789abc' has 16 characters: "
                                    "an interface name has at most 15 (IFNAMSIZ 16)\n"));
  const std::string long_host(232, 'h');
  const std::string host232 = (tmp / "host232.toml").string();
  std::string t = base;
  for (std::string from : {"[hosts.alpha]", "[hosts.alpha.nics.eth0]", "a = \"alpha.eth0\"", "transmitter = \"alpha.eth0\""})
    t = with(t, from, std::string(from).replace(from.find("alpha"), 5, long_host));
  write_text(host232, t);
  r = nicsim_bin(tmp, {"run", host232});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("has 232 characters: a host name has at most 64 (Linux HOST_NAME_MAX)"));
  // The longest names allowed load.
  std::string ok = base;
  const std::string h64(64, 'h');
  for (std::string from : {"[hosts.alpha]", "[hosts.alpha.nics.eth0]", "a = \"alpha.eth0\"", "transmitter = \"alpha.eth0\""})
    ok = with(ok, from, std::string(from).replace(from.find("alpha"), 5, h64));
  write_text(tmp / "ok.toml", ok);
  CHECK(load_error((tmp / "ok.toml").string()) == "no error");
}

TEST_CASE("bad input: a run that cannot write its files leaves no stale ok result.json in --out",
          "[bad_input][validation]") {
  TempDir tmp;
  const fs::path out = tmp / "out";
  // A previous run's result.json, and a directory where this run's NetPIPE.out must go: writing
  // the side file fails after the simulation.
  write_text(out / "result.json", R"({"status": "ok", "metrics": {"latency_us": 1}})");
  write_text(out / "NetPIPE.out" / "x", "in the way\n");
  auto r = nicsim_bin(tmp, {"run", kSeed000, "--set", kShort, "--set", kFewTrials[0], "--set", kFewTrials[1], "--out", out.string()});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("NetPIPE.out"));
  CHECK_FALSE(fs::exists(out / "result.json"));
}

TEST_CASE("bad input: a reused --out loses the previous run's side files", "[bad_input][validation]") {
  TempDir tmp;
  const fs::path out = tmp / "out";
  auto r = nicsim_bin(tmp, {"run", kSeed000, "--set", kShort, "--set", kFewTrials[0], "--set", kFewTrials[1], "--out", out.string()});
  REQUIRE(r.code == 0);
  REQUIRE(fs::exists(out / "NetPIPE.out"));
  REQUIRE(fs::exists(out / "netstat-s.alpha.txt"));
  write_text(out / "mine.txt", "not the run's\n");  // not the run's: it stays
  r = nicsim_bin(tmp, {"run", "scenarios/seed002/e1000-82544gc-pci66.toml", "--set", "workload.sizes=16", "--set",
                       "workload.duration_s=0.01", "--out", out.string()});
  REQUIRE(r.code == 0);
  CHECK(fs::exists(out / "result.json"));
  CHECK_FALSE(fs::exists(out / "NetPIPE.out"));
  CHECK_FALSE(fs::exists(out / "netstat-s.alpha.txt"));
  CHECK(fs::exists(out / "mine.txt"));  // only what a run wrote goes
}

TEST_CASE("bad input: a point whose child dies of Ctrl-C before the sweep sees the signal is not failed",
          "[bad_input][sweep]") {
  // The terminal's SIGINT reaches the child and the sweep together; the child may exit 130 and be
  // reaped before the sweep's handler has set the stop flag. Here the flag follows 50 ms later.
  TempDir tmp;
  SweepRunOptions o;
  o.plan.scenario = "/nonexistent/scenario.toml";
  o.plan.axes = {{"x", parse_range("0:3:1")}};
  o.plan.metrics = {"y"};
  o.dir = tmp.path;
  o.jobs = 1;
  o.plots = false;
  std::atomic<bool> stop{false};
  o.stop = &stop;
  std::vector<std::thread> late;
  Runner runner = [&](const RunJob&) -> RunOutcome {
    late.emplace_back([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      stop = true;
    });
    return {128 + SIGINT, "killed by signal 2 (Interrupt)"};
  };
  const int rc = run_sweep(o, runner);
  for (auto& t : late) t.join();
  CHECK(rc == 128 + SIGINT);
  for (auto& p : cartesian(o.plan.axes)) CHECK_FALSE(fs::exists(point_dir(tmp.path, p) / "error.json"));
  // A child killed by a signal from elsewhere (no stop follows) is still a failed point.
  TempDir tmp2;
  o.dir = tmp2.path;
  stop = false;
  Runner killed = [](const RunJob&) -> RunOutcome { return {128 + SIGTERM, "killed by signal 15 (Terminated)"}; };
  CHECK(run_sweep(o, killed) == kExitRunFailed);
  for (auto& p : cartesian(o.plan.axes)) CHECK(fs::exists(point_dir(tmp2.path, p) / "error.json"));
}

TEST_CASE("bad input: Ctrl-C to a real sweep's process group at many timings never marks a point failed",
          "[bad_input][sweep]") {
  // From before the sweep's handler is installed to after the first points finished and the next
  // ones started (a point runs a few seconds).
  for (int ms : {50, 300, 800, 1500, 2500, 3500, 4500, 6000}) {
    TempDir tmp;
    const std::string out = (tmp / "sw").string();
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::setpgid(0, 0);  // its own group, as a shell job: the "terminal" signals all of it
      int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::execl(nicsim_bin_path(), nicsim_bin_path(), "sweep", kSeed000.c_str(), "--set", kShort.c_str(), "--set",
              kFewTrials[0].c_str(), "--set", kFewTrials[1].c_str(), "--vary", "seed=1:6:1", "--metric", "latency_us",
              "--jobs", "2", "--no-plot", "--out", out.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::setpgid(pid, pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    ::killpg(pid, SIGINT);
    int st = 0;
    ::waitpid(pid, &st, 0);
    INFO("SIGINT after " << ms << " ms");
    // Before its handler is installed (while checking the scenario) the sweep dies of the signal itself.
    if (WIFSIGNALED(st)) CHECK(WTERMSIG(st) == SIGINT);
    else CHECK((WEXITSTATUS(st) == 130 || WEXITSTATUS(st) == 0));
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(tmp / "sw", ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      CHECK(it->path().filename() != "error.json");
  }
}

TEST_CASE("bad input: a sweep reruns points that ran before the scenario file changed", "[bad_input][sweep]") {
  TempDir tmp;
  const fs::path scen = tmp / "s.toml", out = tmp / "sw";
  const std::string text = short_seed000();
  write_text(scen, text);
  const std::vector<std::string> args = {"sweep", scen.string(), "--vary", "seed=1,2", "--metric", "latency_us",
                                         "--jobs", "2", "--no-plot", "--out", out.string()};
  auto r = nicsim_bin(tmp, args);
  REQUIRE(r.code == 0);
  const std::string csv1 = read_text(out / "sweep.csv");
  // A comment changes nothing a run uses: both points are reused.
  write_text(scen, "# edited\n" + text);
  r = nicsim_bin(tmp, args);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("2 already finished; running 0"));
  // A faster CPU (the board takes up to 2400 MHz): both points ran with the old clock, so both run again.
  write_text(scen, with(text, "cpu_mhz = 2000\n", "cpu_mhz = 2400\n"));
  auto dry = nicsim_bin(tmp, [&] {
    auto a = args;
    a.push_back("--dry-run");
    return a;
  }());
  CHECK(dry.code == 0);
  CHECK_THAT(dry.out, Catch::Contains("stale"));
  CHECK_THAT(dry.out, Catch::Contains("0 finished, 2 to run"));
  r = nicsim_bin(tmp, args);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("2 finished points ran with other parameters"));
  CHECK_THAT(r.err, Catch::Contains("running 2"));
  CHECK(read_text(out / "sweep.csv") != csv1);
  for (auto& p : fs::directory_iterator(out / "points")) CHECK(fs::exists(p.path() / "result.stale.json"));
}

TEST_CASE("bad input: sweep --dry-run refuses the --out the real sweep refuses", "[bad_input][sweep]") {
  TempDir tmp;
  auto dry = [&](const fs::path& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> a = {"sweep", kSeed000, "--vary", "seed=1,2", "--metric", "latency_us", "--dry-run",
                                  "--out", out.string()};
    a.insert(a.end(), extra.begin(), extra.end());
    return nicsim_bin(tmp, a);
  };
  // A file as --out.
  write_text(tmp / "file", "x\n");
  auto r = dry(tmp / "file");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("exists and is not a directory"));
  // Another scenario's sweep.
  SweepPlan other;
  other.scenario = fs::absolute("scenarios/seed000/82546eb-pcix100.toml").lexically_normal().string();
  other.axes = {{"seed", {"1", "2"}}};
  other.metrics = {"latency_us"};
  write_plan(tmp / "other", other);
  r = dry(tmp / "other");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("holds a sweep of"));
  // This scenario's sweep with other --set values.
  other.scenario = fs::absolute(kSeed000).lexically_normal().string();
  write_plan(tmp / "sets", other);
  r = dry(tmp / "sets", {"--set", "workload.upper=16"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("holds a sweep of"));
  CHECK(dry(tmp / "sets").code == 0);  // the same sweep is fine
  // A corrupt sweep-plan.json.
  write_text(tmp / "corrupt" / "sweep-plan.json", "{\"scenario\": ");
  r = dry(tmp / "corrupt");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("sweep-plan.json"));
  // Nothing was created by a dry run.
  CHECK_FALSE(fs::exists(tmp / "new"));
  CHECK(dry(tmp / "new").code == 0);
  CHECK_FALSE(fs::exists(tmp / "new"));
}

TEST_CASE("bad input: check over a directory-symlink cycle or alias runs each scenario once, never a raw filesystem error",
          "[bad_input][check]") {
  TempDir tmp;
  const fs::path d = tmp / "refs";
  write_text(d / "s.toml", short_seed000());
  write_text(d / "s.ref.toml", "[[reference]]\nmetric = \"one_way_us.1B\"\nrange = [1.0, 1000.0]\nsource = \"test\"\n");
  fs::create_directory_symlink(".", d / "loop");        // refs/loop -> refs: a cycle
  fs::create_directory_symlink(d, tmp / "alias");       // another name for refs
  auto r = nicsim_bin(tmp, {"check", d.string(), (tmp / "alias").string(), "--jobs", "1"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out + r.err, !Catch::Contains("filesystem error"));
  CHECK_THAT(r.out + r.err, Catch::Contains("1 references in 1 scenarios"));
  // A link to itself (ELOOP) and a FIFO are named as what they are, exit 2.
  fs::create_symlink("self", tmp / "self");
  r = nicsim_bin(tmp, {"check", (tmp / "self").string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("Too many levels of symbolic links"));
  r = nicsim_bin(tmp, {"run", (tmp / "self").string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("Too many levels of symbolic links"));
  REQUIRE(::mkfifo((tmp / "fifo").c_str(), 0644) == 0);
  r = nicsim_bin(tmp, {"check", (tmp / "fifo").string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("not a regular file or directory (a FIFO, device or socket)"));
}

TEST_CASE("bad input: UDP_RR sizes past the receiving driver's socket-buffer budget are refused at load with the numbers",
          "[bad_input][validation]") {
  TempDir tmp;
  const std::string rr = "scenarios/seed002/e1000-82544gc-pci66.toml";
  // e1000: 29 fragments of 2240 B fit 65535 B; 42913 B needs 30. (These sizes loaded, then always failed.)
  for (const char* size : {"42913", "50000", "56232"}) {
    auto r = nicsim_bin(tmp, {"run", rr, "--set", "workload.test=\"UDP_RR\"", "--set",
                              fmt::format("workload.sizes=\"{}\"", size)});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(fmt::format("a {} B request arrives at beta.eth0 as", size)));
    CHECK_THAT(r.err, Catch::Contains("e1000-4.2.8-k1 receive buffer of 2240 B truesize"));
    CHECK_THAT(r.err, Catch::Contains("more than the socket receive buffer of 65535 B"));
    CHECK_THAT(r.err, Catch::Contains("the largest request this receiver takes is 42912 B (29 fragments)"));
  }
  CHECK(load_error(rr, {"workload.test=\"UDP_RR\"", "workload.sizes=\"42912\""}) == "no error");
  // eepro100's buffers are smaller (dev_alloc_skb(1552): 1728 B): 37 fragments fit.
  const std::string ee = "scenarios/seed002/eepro100-82559-pci33.toml";
  CHECK(load_error(ee, {"workload.test=\"UDP_RR\"", "workload.sizes=\"54752\""}) == "no error");
  CHECK_THAT(load_error(ee, {"workload.test=\"UDP_RR\"", "workload.sizes=\"54753\""}),
             Catch::Contains("the largest request this receiver takes is 54752 B (37 fragments)"));
}

TEST_CASE("bad input: e1000 Speed, Duplex and AutoNeg decide the link as the driver and 802.3 autonegotiation do",
          "[bad_input][validation]") {
  TempDir tmp;
  auto speed_of = [](const std::vector<std::string>& sets) { return load_scenario(kSeed000, sets).links.at(0).speed_mbps; };
  const std::string a = "hosts.alpha.nics.eth0.", b = "hosts.beta.nics.eth0.";
  // Defaults: both advertise 10-1000 (AutoNeg 0x2F): 1000 full, as before.
  CHECK(speed_of({}) == 1000);
  // Speed without Duplex narrows the advertisement: the link negotiates that speed, full duplex.
  CHECK(speed_of({a + "Speed=10"}) == 10);
  CHECK(speed_of({a + "Speed=100"}) == 100);
  CHECK(speed_of({a + "Speed=1000"}) == 1000);
  CHECK(speed_of({a + "AutoNeg=0x0F"}) == 100);
  CHECK(speed_of({a + "Duplex=2"}) == 1000);
  // Both ends forced alike link at that mode.
  CHECK(speed_of({a + "Speed=100", a + "Duplex=2", b + "Speed=100", b + "Duplex=2"}) == 100);
  // 10 half against 100 full: forced to different speeds, no link.
  auto r = nicsim_bin(tmp, {"run", kSeed000, "--set", a + "Speed=10", "--set", a + "Duplex=1", "--set", b + "Speed=100",
                            "--set", b + "Duplex=2"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("forced to different speeds (10 Mb/s half duplex and 100 Mb/s full duplex): real "
                                    "hardware has no link"));
  // AutoNeg 1 (10 half) against 32 (1000 full): nothing in common.
  r = nicsim_bin(tmp, {"run", kSeed000, "--set", a + "AutoNeg=1", "--set", b + "AutoNeg=32"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("advertise nothing in common (10/HD / 1000/FD)"));
  // A forced end against an autonegotiating one: parallel detection, half duplex at the other end.
  std::string e = load_error(kSeed000, {a + "Speed=100", a + "Duplex=2"});
  CHECK_THAT(e, Catch::StartsWith("--set: key 'hosts.alpha.nics.eth0.Speed': links.0:"));
  CHECK_THAT(e, Catch::Contains("duplex mismatch"));
  // Half duplex is refused (the model's links are full duplex).
  CHECK_THAT(load_error(kSeed000, {a + "Duplex=1"}), Catch::Contains("full-duplex links only"));
  // AutoNeg beside Speed is ignored by the driver: refused.
  CHECK_THAT(load_error(kSeed000, {a + "Speed=100", a + "AutoNeg=0x0F"}),
             Catch::Contains("AutoNeg = 0xf is ignored when Speed or Duplex is given"));
  // A cable speed that contradicts the negotiation.
  const std::string given = (tmp / "given.toml").string();
  write_text(given, with(read_text(kSeed000), "length_m = 2", "length_m = 2\nspeed_mbps = 1000"));
  CHECK_THAT(load_error(given, {a + "Speed=100"}),
             Catch::Contains("key 'links.0.speed_mbps': 1000 Mb/s, but the ends' parameters make the link come up at "
                             "100 Mb/s full duplex"));
  // A sweep over Speed is refused where it would be meaningless, not run as identical points.
  r = nicsim_bin(tmp, {"sweep", kSeed000, "--vary", a + "Duplex=1,2", "--metric", "latency_us", "--dry-run", "--out",
                       (tmp / "sw").string()});
  CHECK(r.code == 2);
}

// ---- messages that said too little or the wrong thing ------------------------------------------

TEST_CASE("bad input message: report's errors name report, and a bad vs points at its own line", "[bad_input][check]") {
  TempDir tmp;
  write_text(tmp / "d" / "s.toml", read_text(kSeed000));
  write_text(tmp / "d" / "s.ref.toml",
             "[[reference]]\nmetric = \"one_way_us.1B\"\nrange = [1.0, 2.0]\nsource = \"test\"\nvs = \"nope.toml\"\n");
  auto r = nicsim_bin(tmp, {"report", (tmp / "d").string(), "--out", (tmp / "out").string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("nicsim report: "));
  CHECK_THAT(r.err, !Catch::Contains("nicsim check"));
  CHECK_THAT(r.err, Catch::Contains("s.ref.toml:5:6: key 'vs': no scenario file"));
  r = nicsim_bin(tmp, {"check", (tmp / "d").string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("nicsim check: "));
}

TEST_CASE("bad input message: .ref.toml text with terminal control characters is refused", "[bad_input][check]") {
  TempDir tmp;
  write_text(tmp / "s.ref.toml",
             "[[reference]]\nmetric = \"one_way_us.1B\"\nrange = [1.0, 2.0]\nsource = \"red \\u001b[31mtext\"\n");
  try {
    (void)parse_ref_file(tmp / "s.ref.toml");
    FAIL("an ESC in source was accepted");
  } catch (const RefFileError& e) {
    CHECK_THAT(e.what(), Catch::Contains("s.ref.toml:4:"));
    CHECK_THAT(e.what(), Catch::Contains("contains the control character U+001B at byte 5"));
  }
}

TEST_CASE("bad input message: a relative error against a huge expected value is a number, not -inf", "[bad_input][check]") {
  Reference ref;
  ref.metric = "m";
  ref.expected = 1e308;
  ref.tolerance = 0.1;
  ref.source = "test";
  RefCheck c = evaluate_reference(ref, nlohmann::json{{"m", 1.0}});
  CHECK(c.error_text == "-100.0%");
  CHECK(c.verdict == Verdict::Fail);
}

TEST_CASE("bad input message: an interrupted check writes its unstarted scenarios as not run, not run failed exit 0",
          "[bad_input][check]") {
  TempDir tmp;
  write_text(tmp / "s.toml", "name = \"stand-in\"\n");
  write_text(tmp / "s.ref.toml", "[[reference]]\nmetric = \"y\"\nrange = [1.0, 2.0]\nsource = \"test\"\n");
  std::atomic<bool> stop{true};
  CheckOptions o;
  o.paths = {tmp.path};
  o.stop = &stop;
  o.junit = tmp / "junit.xml";
  o.table = std::tmpfile();
  o.log = std::tmpfile();
  FakeRunner fake;
  CHECK(run_check(o, fake.runner()) == 128 + SIGINT);
  const std::string x = read_text(tmp / "junit.xml");
  CHECK_THAT(x, Catch::Contains("type=\"not_run\""));
  CHECK_THAT(x, Catch::Contains("not run: interrupted (Ctrl-C or SIGTERM) before this scenario started"));
  CHECK_THAT(x, !Catch::Contains("exit 0"));
  std::fclose(o.table);
  std::fclose(o.log);
}

TEST_CASE("bad input message: busbench calls a long size out of range, not a non-number", "[bad_input][validation]") {
  std::vector<uint32_t> out;
  CHECK(parse_busbench_sizes("64,99999999", out) == "size 99999999 is out of range 1..1048576 bytes");
  CHECK(parse_busbench_sizes("64,18446744073709551616", out) == "size 18446744073709551616 is out of range 1..1048576 bytes");
  CHECK(parse_busbench_sizes("000000064", out).empty());
  CHECK(parse_busbench_sizes("6x4", out) == "'6x4' is not a whole number of bytes (1..1048576)");
}

TEST_CASE("bad input message: sweep point ids keep whole values", "[bad_input][sweep]") {
  const std::string long_key = "workload." + std::string(85, 'k');
  const std::string id = point_id({{long_key, {"1"}}, {"hosts.*.nics.eth1.TxIntDelay", {"64"}}}, {"1", "64"});
  CHECK_THAT(id, !Catch::Contains("TxIntDelay=6-"));
  CHECK_THAT(id, Catch::StartsWith("TxIntDelay=64--...--"));  // the long part that does not fit is left out whole
  // Short ids are as before.
  CHECK(point_id({{"hosts.*.nics.eth1.TxIntDelay", {"64"}}}, {"64"}).rfind("TxIntDelay=64--", 0) == 0);
}

TEST_CASE("bad input message: list --verbose gives dma burst minimums the loader accepts", "[bad_input][validation]") {
  TempDir tmp;
  auto r = nicsim_bin(tmp, {"list", "--verbose"});
  REQUIRE(r.code == 0);
  size_t at = r.out.find("dma_read_burst_bytes");
  REQUIRE(at != std::string::npos);
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  INFO(line);
  CHECK_THAT(line, Catch::Contains("range [8, 4096]"));
  CHECK_THAT(load_error(kSeed000, {"hosts.alpha.nics.eth0.dma_read_burst_bytes=4"}),
             Catch::Contains("value 4 is below the minimum 8"));
}

TEST_CASE("bad input message: run refuses an unwritable --progress-file, explain an out-of-range --top", "[bad_input][cli]") {
  TempDir tmp;
  write_text(tmp / "file", "x\n");
  auto r = nicsim_bin(tmp, {"run", kSeed000, "--progress-file", (tmp / "file" / "p").string()});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("nicsim run: --progress-file: "));
  for (const char* top : {"-1", "0", "x"}) {
    r = nicsim_bin(tmp, {"explain", "--cpu", kSeed000, "--top", top});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith(fmt::format("nicsim explain: --top must be a whole number from 1 to 100000, not '{}'", top)));
  }
}

TEST_CASE("bad input message: explain --vs across workloads is refused, and a --kind error names its run",
          "[bad_input][cli]") {
  TempDir tmp;
  auto r = nicsim_bin(tmp, {"explain", kSeed000, "--vs", "scenarios/seed002/e1000-82544gc-pci66.toml"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("runs workload netpipe and B (scenarios/seed002/e1000-82544gc-pci66.toml) runs "
                                    "workload netperf_rr"));
  r = nicsim_bin(tmp, {"explain", kSeed000, "--set", kShort, "--set", kFewTrials[0], "--set", kFewTrials[1], "--kind", "nosuch"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("nicsim explain: " + kSeed000 + ": no traced message of kind 'nosuch'"));
}

}  // namespace bad_input_test
