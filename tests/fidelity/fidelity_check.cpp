// nicsim_fidelity: the fidelity guard for one scenario (one ctest entry per scenario
// file, registered in tests/CMakeLists.txt).
//
//   nicsim_fidelity --nicsim BIN --scenario FILE --baseline FILE.json --tolerances FILE.json
//       runs `BIN run FILE --format json` (the shipped scenario, no overrides), compares the
//       result's metrics and counters with the baseline under the tolerance rules and prints the
//       failures and the largest differences. Exit 0 all within tolerance, 1 a difference beyond
//       tolerance (or a baseline value missing from the run), 2 usage error / no baseline / the
//       run failed.
//   nicsim_fidelity --write --nicsim BIN --scenario FILE --baseline FILE.json [--source TEXT]
//       runs the scenario and writes the baseline (tests/fidelity/update-baseline.sh).
#include "core/fidelity_compare.h"
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace {

using nlohmann::json;
namespace fid = nicsim::fidelity;

int usage() {
  std::cerr << "usage: nicsim_fidelity [--write] --nicsim BIN --scenario FILE --baseline FILE.json "
               "[--tolerances FILE.json] [--source TEXT]\n";
  return 2;
}

/// Single-quote `s` for /bin/sh.
std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// `bin run scenario --format json`; nullopt-like empty json on failure (message on stderr).
json run_scenario(const std::string& bin, const std::string& scenario) {
  const std::string cmd = sh_quote(bin) + " run " + sh_quote(scenario) + " --format json";
  FILE* f = ::popen(cmd.c_str(), "r");
  if (!f) return json();
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int st = ::pclose(f);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    std::cerr << "nicsim_fidelity: '" << cmd << "' failed (exit status " << st << ")\n";
    return json();
  }
  try {
    return json::parse(out);
  } catch (const std::exception& e) {
    std::cerr << "nicsim_fidelity: the run's output is not JSON: " << e.what() << "\n";
    return json();
  }
}

std::string short_value(const json& v) {
  std::string s = v.is_null() ? std::string("(none)") : v.dump();
  return s.size() > 24 ? s.substr(0, 21) + "..." : s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string bin, scenario, baseline_path, tolerances_path, source;
  bool write = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&](std::string& dst) {
      if (i + 1 >= argc) return false;
      dst = argv[++i];
      return true;
    };
    if (a == "--write") write = true;
    else if (a == "--nicsim") { if (!next(bin)) return usage(); }
    else if (a == "--scenario") { if (!next(scenario)) return usage(); }
    else if (a == "--baseline") { if (!next(baseline_path)) return usage(); }
    else if (a == "--tolerances") { if (!next(tolerances_path)) return usage(); }
    else if (a == "--source") { if (!next(source)) return usage(); }
    else return usage();
  }
  if (bin.empty() || scenario.empty() || baseline_path.empty() || (!write && tolerances_path.empty())) return usage();

  if (write) {
    json r = run_scenario(bin, scenario);
    if (r.is_null()) return 2;
    json b = json::object();
    b["about"] = "fidelity baseline: metrics and counters of `nicsim run " + scenario +
                 "` as shipped; made by tests/fidelity/update-baseline.sh";
    b["scenario"] = scenario;
    b["seed"] = r.value("seed", json());
    b["nicsim_version"] = r.value("nicsim_version", json());
    if (!source.empty()) b["source"] = source;
    b["metrics"] = r.value("metrics", json::object());
    b["counters"] = r.value("counters", json::object());
    std::filesystem::create_directories(std::filesystem::path(baseline_path).parent_path());
    std::ofstream(baseline_path) << b.dump(1) << "\n";
    std::cout << "wrote " << baseline_path << "\n";
    return 0;
  }

  json baseline, tol;
  try {
    std::ifstream bf(baseline_path);
    if (!bf) {
      std::cerr << "nicsim_fidelity: no baseline " << baseline_path << " for " << scenario
                << " (a new scenario needs one: tests/fidelity/update-baseline.sh " << scenario << ")\n";
      return 2;
    }
    baseline = json::parse(bf);
    tol = json::parse(std::ifstream(tolerances_path));
  } catch (const std::exception& e) {
    std::cerr << "nicsim_fidelity: " << e.what() << "\n";
    return 2;
  }
  const auto rules = fid::rules_from_json(tol);
  json run = run_scenario(bin, scenario);
  if (run.is_null()) return 2;
  const fid::Report rep = fid::compare(baseline, run, rules);

  // Failures first, then the largest differences that passed, so a near miss is visible too.
  std::vector<const fid::Entry*> order;
  for (const auto& e : rep.entries) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](auto* x, auto* y) {
    if (x->ok != y->ok) return !x->ok;
    return x->rel_diff > y->rel_diff;
  });
  fmt::print("fidelity {}: {} values compared, {} beyond tolerance, {} new in the run\n", scenario, rep.entries.size(),
             rep.failures(), rep.added.size());
  size_t shown = 0;
  for (auto* e : order) {
    if (e->ok && (shown >= 12 || e->rel_diff == 0.0)) break;
    fmt::print("  {:4} {:<60} base {:<24} run {:<24} diff {:>9.4f}% tol {:g}%{}\n", e->ok ? "ok" : "FAIL", e->path,
               short_value(e->base), short_value(e->run), 100.0 * e->rel_diff, 100.0 * e->tol,
               e->note.empty() ? "" : "  (" + e->note + ")");
    ++shown;
  }
  if (rep.ok()) fmt::print("fidelity {}: within tolerance\n", scenario);
  return rep.ok() ? 0 : 1;
}
