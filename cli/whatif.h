// `nicsim explain --what-if SCENARIO --metric M`: which knob a user of that hardware could turn,
// and what it would do. The knobs are the settings a real user has (docs/cli.md "The report page, what-if and packet captures"):
//   - driver module parameters of every NIC (e1000 InterruptThrottleRate, RxIntDelay, ...; tg3's
//     `ethtool -C` coalescing settings rx-usecs, rx-frames, ...) and bonding's parameters,
//     set alike on every NIC that runs the driver (both ends of a cable, both slaves of a bond);
//   - TCP sysctls (net.ipv4.tcp_reordering, tcp_sack, ...), alike on every host;
//   - CPU placement per host: cpus_allowed (every mask of the host's CPUs) and irq_dest_cpu;
//   - the slot of each add-in NIC (every other slot of its platform that takes it).
// Alternatives come from the schema (core/params.h): a boolean's other value, a string's other
// choices, the values a unit lists ("0/1", "0-3, 255"), else half and double the value and the
// ends of its range (1 instead of half and double for a value of 0), within the range. Each alternative must load
// (load_scenario: ranges and cross-parameter rules), else it is left out with the reason.
// Parameters the model documents as "validated only", bit masks and the model's own what-ifs (a doc
// starting "what-if": no real driver has them) are not knobs.
//
// The runs are a sweep: DIR/sweep-plan.json (cli/sweep_plan.h: one axis per knob, so a directory
// holding another scenario's runs is refused), DIR/points/<id>/ per run, the executor (cli/
// executor.h) in parallel, finished points reused (resumable). Ranking by the largest |change of M|
// over a knob's alternatives; DIR/whatif.csv, DIR/whatif.json, DIR/tornado.svg.
#pragma once
#include "cli/executor.h"
#include "platforms/scenario.h"
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace nicsim {

struct Knob {
  std::string name;     ///< "InterruptThrottleRate [e1000-4.4.12-k1]", "alpha cpus_allowed", "alpha.eth1 slot"
  std::string kind;     ///< "driver parameter", "sysctl", "CPU placement", "slot"
  std::string current;  ///< the value the scenario runs with
  std::string unit;
  std::vector<std::string> keys;  ///< the dotted keys it sets (one per NIC / host it applies to)
  struct Alt {
    std::string value;
    std::vector<std::string> sets;  ///< "key=value" for every key
  };
  std::vector<Alt> alts;
  std::vector<std::string> dropped;  ///< alternatives that do not load: "value: why"
};

/// The alternatives the schema gives for `spec` at `current` (see the file comment), in ascending
/// order without `current`; empty when the parameter is not a knob.
std::vector<std::string> knob_alternatives(const ParamSpec& spec, const ParamValue& current);

/// Every knob of `s` (loaded with `sets`), each alternative checked with load_scenario(s.path, sets
/// + the alternative's sets). Knobs without a loadable alternative are left out.
std::vector<Knob> enumerate_knobs(const Scenario& s, const std::vector<std::string>& sets);

struct WhatIfOptions {
  std::filesystem::path scenario;
  std::vector<std::string> sets;
  std::optional<uint64_t> seed;
  std::string metric;   ///< a result.json metric or expression (cli/check_refs.h metric_value)
  /// Only the knobs whose name contains one of these, or whose kind is one ("sysctl", "driver
  /// parameter", "CPU placement", "slot"); all when empty. One that matches no knob is a usage error.
  std::vector<std::string> knobs;
  size_t top = 5;
  unsigned jobs = 1;
  std::filesystem::path out;  ///< DIR
  std::string kind;           ///< explain --kind for the gap breakdown ("" = all messages)
  const std::atomic<bool>* stop = nullptr;
  std::FILE* log = stderr;
  bool tty = false;
  std::string format = "text";  ///< text or json (stdout)
};

/// One alternative's run, ranked.
struct WhatIfRow {
  const Knob* knob = nullptr;
  std::string value;
  std::string status;              ///< "ok", "failed", "no metric"
  std::optional<double> metric;    ///< M with this alternative
  std::filesystem::path result;    ///< its result.json
};

/// Run the what-if: returns an ExitCode (0 ok, 1 the base run or every alternative failed, 2 usage:
/// the scenario does not load, no knob, M is not in the base result, DIR holds another sweep).
int run_whatif(const WhatIfOptions& o, const Runner& runner);

}  // namespace nicsim
