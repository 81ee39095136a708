// Test support for the sweep and check verbs: temporary directories, fake runners (no models
// needed), a fake `nicsim` executable script, a small XML well-formedness checker, and the
// end-to-end entry points (real binary, real scenario) for when workloads exist.
#pragma once
#include "cli/check.h"
#include "cli/executor.h"
#include "cli/sweep.h"
#include "cli/verbs.h"
#include "core/results.h"
#include <atomic>
#include <cctype>
#include <map>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace nicsim::test {

namespace fs = std::filesystem;

/// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
struct TempDir {
  fs::path path;
  TempDir() {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = (fs::path(t && *t ? t : "/tmp") / "nicsim-test-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path operator/(const std::string& s) const { return path / s; }
};

inline void write_text(const fs::path& p, const std::string& s) {
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f << s;
}

inline std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// The value of `--set key=value` in a job, or "".
inline std::string set_value(const RunJob& j, const std::string& key) {
  for (auto& s : j.sets)
    if (s.rfind(key + "=", 0) == 0) return s.substr(key.size() + 1);
  return "";
}

/// A fake runner standing in for `nicsim run`: writes result.json atomically with metrics computed
/// from the job ("y" = 2*x where x is `--set x=...`, "seed" = the seed, "z" = 7), records every
/// label it ran, and fails (exit 1, stderr "boom") when x is in `fail_x`.
struct FakeRunner {
  std::mutex mu;
  std::vector<std::string> ran;       ///< labels, in completion order
  std::set<std::string> fail_x;
  std::set<std::string> fail_stem;          ///< scenario file stems whose run fails
  std::map<std::string, double> y_offset;   ///< scenario file stem -> added to y
  std::atomic<int> calls{0};
  Runner runner() {
    return [this](const RunJob& j) -> RunOutcome {
      ++calls;
      std::string x = set_value(j, "x");
      const std::string stem = j.scenario.stem().string();
      if (fail_x.count(x) || fail_stem.count(stem)) {
        std::lock_guard lk(mu);
        ran.push_back(j.label);
        return {1, "loading...\nboom: x=" + x + " is unlucky"};
      }
      double xv = x.empty() ? 0 : std::stod(x);
      nlohmann::json r = results_envelope(j.scenario.string(), j.seed.value_or(1), nlohmann::json::object());
      const auto off = y_offset.find(stem);
      r["metrics"] = {{"y", 2 * xv + (off == y_offset.end() ? 0.0 : off->second)}, {"seed", j.seed.value_or(1)}, {"z", 7}};
      write_json_atomic(j.out_dir / "result.json", r);
      std::lock_guard lk(mu);
      ran.push_back(j.label);
      return {0, ""};
    };
  }
};

/// A fake `nicsim` executable (POSIX shell) in `dir`: `fake run SCEN --out DIR [--seed N] [--set
/// x=V ...]` sleeps $FAKE_SLEEP seconds (if set), fails with exit 3 and a stderr message when
/// x = 13, else writes DIR/result.json (via a temporary file and mv) with metrics y = 2x, seed.
inline fs::path write_fake_nicsim(const fs::path& dir) {
  fs::path p = dir / "fake-nicsim";
  write_text(p, R"SH(#!/bin/sh
[ "$1" = run ] || { echo "fake-nicsim: expected 'run'" >&2; exit 2; }
shift; scen=$1; shift
out=""; seed=1; x=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --set) case "$2" in x=*) x=${2#x=} ;; esac; shift 2 ;;
    *) echo "fake-nicsim: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$FAKE_SLEEP" ] && sleep "$FAKE_SLEEP"
echo "fake run of $scen"
if [ "$x" = 13 ]; then echo "fake-nicsim: x=13 is unlucky" >&2; exit 3; fi
printf '{"scenario":"%s","seed":%s,"metrics":{"y":%s,"seed":%s}}\n' "$scen" "$seed" "$((x * 2))" "$seed" > "$out/result.json.tmp"
mv "$out/result.json.tmp" "$out/result.json"
)SH");
  fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  return p;
}

/// Checks that `xml` is well-formed enough for JUnit consumers: one root element, every start tag
/// closed in order, attributes quoted, only the five predefined entities or numeric ones. Returns
/// "" when fine, else what is wrong. Counts elements by name into `counts` when given.
inline std::string xml_problem(const std::string& xml, std::map<std::string, int>* counts = nullptr) {
  std::vector<std::string> stack;
  size_t i = 0, roots = 0;
  auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.'; };
  auto check_text = [&](const std::string& t) -> std::string {
    for (size_t k = 0; k < t.size(); ++k) {
      if (t[k] == '<') return "raw '<' in text";
      if (t[k] == '&') {
        size_t semi = t.find(';', k);
        if (semi == std::string::npos) return "unterminated entity";
        std::string ent = t.substr(k + 1, semi - k - 1);
        static const std::set<std::string> ok = {"amp", "lt", "gt", "quot", "apos"};
        if (!ok.count(ent) && !(ent.size() > 1 && ent[0] == '#')) return "unknown entity &" + ent + ";";
      }
    }
    return "";
  };
  if (xml.rfind("<?xml", 0) == 0) i = xml.find("?>") + 2;
  while (i < xml.size()) {
    size_t lt = xml.find('<', i);
    std::string text = xml.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    if (auto e = check_text(text); !e.empty()) return e;
    if (stack.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos) return "text outside the root";
    if (lt == std::string::npos) break;
    size_t gt = xml.find('>', lt);
    if (gt == std::string::npos) return "unterminated tag";
    std::string tag = xml.substr(lt + 1, gt - lt - 1);
    i = gt + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '/') {
      std::string n = tag.substr(1);
      if (stack.empty() || stack.back() != n) return "mismatched </" + n + ">";
      stack.pop_back();
      continue;
    }
    bool self_close = tag.back() == '/';
    if (self_close) tag.pop_back();
    size_t k = 0;
    while (k < tag.size() && name_char(tag[k])) ++k;
    std::string name = tag.substr(0, k);
    if (name.empty()) return "tag without a name: <" + tag + ">";
    // attributes: name="value"
    while (k < tag.size()) {
      while (k < tag.size() && std::isspace(static_cast<unsigned char>(tag[k]))) ++k;
      if (k >= tag.size()) break;
      size_t a = k;
      while (k < tag.size() && name_char(tag[k])) ++k;
      if (a == k || k >= tag.size() || tag[k] != '=') return "bad attribute in <" + name + ">";
      ++k;
      if (k >= tag.size() || (tag[k] != '"' && tag[k] != '\'')) return "unquoted attribute in <" + name + ">";
      char q = tag[k++];
      size_t end = tag.find(q, k);
      if (end == std::string::npos) return "unterminated attribute in <" + name + ">";
      if (auto e = check_text(tag.substr(k, end - k)); !e.empty()) return e + " in an attribute of <" + name + ">";
      k = end + 1;
    }
    if (stack.empty()) ++roots;
    if (counts) ++(*counts)[name];
    if (!self_close) stack.push_back(name);
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return "expected one root element, found " + std::to_string(roots);
  return "";
}

#ifdef NICSIM_BIN
/// End-to-end: `nicsim check` of the scenario at `scenario` (its X.ref.toml beside it) with the real
/// nicsim binary. Returns the exit code; `checks` receives each reference's outcome.
inline int e2e_check(const fs::path& scenario, std::vector<RefCheck>* checks = nullptr,
                     std::vector<std::string> sets = {}, const fs::path& binary = NICSIM_BIN) {
  CheckOptions o;
  o.paths = {scenario};
  o.sets = std::move(sets);
  o.jobs = 2;
  return run_check(o, process_runner(binary), checks);
}

/// End-to-end: `nicsim sweep` of `scenario` over `axes` into `dir` with the real nicsim binary
/// (no plots). Returns the exit code; read dir/"sweep.json" for the points.
inline int e2e_sweep(const fs::path& scenario, std::vector<Axis> axes, std::vector<std::string> metrics,
                     const fs::path& dir, const fs::path& binary = NICSIM_BIN) {
  SweepRunOptions o;
  o.plan.scenario = fs::absolute(scenario).lexically_normal().string();
  o.plan.axes = std::move(axes);
  o.plan.metrics = std::move(metrics);
  o.dir = dir;
  o.jobs = 2;
  o.plots = false;
  return run_sweep(o, process_runner(binary));
}
#endif

}  // namespace nicsim::test
