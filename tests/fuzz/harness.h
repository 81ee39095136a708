// What the fuzz targets (tests/fuzz/fuzz_*.cpp) and the regression corpus test
// (tests/unit/fuzz_regressions.cpp) run on one input. A ScenarioError is the expected answer to bad
// input; anything else escaping (another exception, a crash, a sanitizer report) is a finding.
#pragma once
#include "platforms/scenario.h"
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace nicsim::fuzz {

enum class Outcome { Loaded, Refused };

/// `bytes` as a scenario file.
inline Outcome scenario_text(std::string_view bytes) {
  try {
    (void)load_scenario_text(std::string(bytes), "fuzz.toml");
    return Outcome::Loaded;
  } catch (const ScenarioError&) {
    return Outcome::Refused;
  }
}

/// The scenario every `--set` input is applied to (scenarios/default.toml, read once).
inline const std::string& base_scenario() {
  static const std::string text = [] {
    std::ifstream in(std::string(NICSIM_SOURCE_DIR) + "/scenarios/default.toml", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  return text;
}

/// `bytes` as `--set` arguments, separated by NUL bytes (a command-line argument cannot hold one),
/// on the default scenario.
inline Outcome set_args(std::string_view bytes) {
  std::vector<std::string> sets;
  size_t from = 0;
  while (from <= bytes.size()) {
    size_t nl = bytes.find('\0', from);
    if (nl == std::string_view::npos) nl = bytes.size();
    sets.emplace_back(bytes.substr(from, nl - from));
    from = nl + 1;
  }
  try {
    (void)load_scenario_text(base_scenario(), "default.toml", sets);
    return Outcome::Loaded;
  } catch (const ScenarioError&) {
    return Outcome::Refused;
  }
}

}  // namespace nicsim::fuzz
