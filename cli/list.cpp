// `nicsim list [platforms|devices|drivers|workloads|links] [--verbose]`: what this binary contains,
// answered from the registries (never a hand-kept list).
#include "cli/verbs.h"
#include "core/calib.h"
#include "drivers-sim/kernel/costs.h"
#include "drivers-sim/kernel/driver_costs.h"
#include "drivers-sim/kernel/profiles.h"
#include "platforms/testbed.h"
#include <fmt/core.h>
#include <algorithm>
#include <iostream>
#include <string>

namespace nicsim {
namespace {

namespace po = boost::program_options;

std::string param_value_text(const ParamValue& v) {
  return std::visit(
      [](auto&& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>) return "\"" + x + "\"";
        else if constexpr (std::is_same_v<T, double>) return fmt::format("{:.10g}", x);  // no float noise
        else return fmt::format("{}", x);
      },
      v);
}

std::string num_text(double v, ParamKind k) {
  // An int bound at or beyond 2^63 (INT64_MAX stored as a double rounds up) is not representable.
  if (k == ParamKind::Int && v >= 9223372036854775807.0) return fmt::format("{}", INT64_MAX);
  return k == ParamKind::Int ? fmt::format("{}", static_cast<int64_t>(v)) : fmt::format("{:.10g}", v);
}

/// "integer, default 0, range [0, 65535], unit 1.024 µs units"
std::string spec_line(const ParamSpec& p) {
  std::string s = fmt::format("{}, default {}", kind_name(p.kind), param_value_text(p.def));
  if (!p.accepted.empty()) s += ", one of " + accepted_text(p);
  else if (p.min && p.max) s += fmt::format(", range [{}, {}]", num_text(*p.min, p.kind), num_text(*p.max, p.kind));
  else if (p.min) s += fmt::format(", range >= {}", num_text(*p.min, p.kind));
  else if (p.max) s += fmt::format(", range <= {}", num_text(*p.max, p.kind));
  if (!p.choices.empty()) {
    s += ", one of";
    for (size_t i = 0; i < p.choices.size(); ++i) s += (i ? "|" : " ") + p.choices[i];
  }
  if (!p.unit.empty()) s += ", unit " + p.unit;
  return s;
}

std::string calib_lines(const ParamSpec& p, const std::string& indent);

void print_params(const ParamSchema& params) {
  if (params.empty()) {
    say("      (no parameters)\n");
    return;
  }
  for (auto& p : params) {
    say("      {}: {}\n", p.name, spec_line(p));
    if (!p.doc.empty() || !p.source.empty())
      say("          {}{}\n", p.doc, p.source.empty() ? "" : fmt::format("  [source: {}]", p.source));
    if (calib_bounds(p)) say("{}", calib_lines(p, "          "));
  }
}

/// The calibration bounds of `p` (ParamSpec::calib), as `list --verbose` and `list calibratable`
/// print them.
std::string calib_lines(const ParamSpec& p, const std::string& indent) {
  const CalibBounds& c = *calib_bounds(p);
  return fmt::format("{0}calibratable: bounds [{1}, {2}] {3}; sets: {4}\n{0}  lo {1}: {5}\n{0}  hi {2}: {6}\n",
                     indent, num_text(c.lo, p.kind), num_text(c.hi, p.kind), p.unit, c.mechanism, c.lo_why, c.hi_why);
}

/// `nicsim list calibratable`: every estimate a calibration may fit, by the `--set` path a
/// calibration file names it with.
void print_calibratable() {
  say("calibratable (estimates a calibration may fit, docs/calibration.md):\n");
  size_t n = 0;
  auto show = [&](const std::string& owner, const std::string& path_prefix, const ParamSchema& params) {
    for (auto& p : params)
      if (calib_bounds(p)) {
        say("  {}{}  ({}; default {})\n", path_prefix, p.name, owner, param_value_text(p.def));
        say("      {}{}\n", p.doc, p.source.empty() ? "" : fmt::format("  [source: {}]", p.source));
        say("{}", calib_lines(p, "      "));
        ++n;
      }
  };
  for (auto& [name, e] : Registry<PlatformEntry>::instance().all()) show("platform " + name, "hosts.*.", e.params);
  for (auto& [name, e] : Registry<DeviceEntry>::instance().all()) show("device " + name, "hosts.*.nics.*.", e.params);
  for (auto& [name, e] : Registry<DriverEntry>::instance().all()) show("driver " + name, "hosts.*.nics.*.", e.params);
  if (!n) say("  (none in this build)\n");
}

std::string join_names(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

/// Print one category: a line per entry; with `verbose`, `details` and every parameter.
template <typename Entry, typename Details>
void print_category(const char* title, bool verbose, Details details) {
  say("{}:\n", title);
  auto& all = Registry<Entry>::instance().all();
  if (all.empty()) say("  (none in this build)\n");
  for (auto& kv : all) {
    // Not a structured binding: clang 14 cannot name one inside the requires-expression below.
    const auto& e = kv.second;
    say("  {:<24} {}\n", kv.first, e.summary);
    if (verbose) {
      details(e);
      if constexpr (requires { e.params; }) print_params(e.params);
    }
  }
}

const std::vector<std::string> kCategories = {"platforms", "devices", "drivers", "workloads", "links", "kernels", "cpus",
                                              "calibratable"};

const char* kListUsage =
    "usage: nicsim list [platforms|devices|drivers|workloads|links|kernels|cpus|calibratable] [--verbose]\n\n"
    "List what this binary can simulate, from its registries. With --verbose, every parameter a\n"
    "scenario may set: name, type, default, range, unit, meaning and source, and for an estimate a\n"
    "calibration may fit, its bounds with their arguments. `calibratable` lists only those, by the\n"
    "--set path a calibration file names them with (docs/calibration.md).";

int list_main(int argc, char** argv) {
  po::options_description opts("options");
  std::string what;
  opts.add_options()("what", po::value<std::string>(&what), "category (default: all)")(
      "verbose,v", "print every parameter (type, default, range, unit, doc, source)");
  po::positional_options_description pos;
  pos.add("what", 1);
  po::variables_map vm;
  if (auto rc = parse_verb_args(argc, argv, kListUsage, opts, pos, vm)) return *rc;
  const bool verbose = vm.count("verbose") != 0;
  if (!what.empty() && std::find(kCategories.begin(), kCategories.end(), what) == kCategories.end()) {
    auto near = nearest_name(what, kCategories);
    fmt::print(stderr, "nicsim list: unknown category '{}'{}; categories: {}\n", what,
               near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near), join_names(kCategories));
    return kExitUsage;
  }
  auto want = [&](const char* c) { return what.empty() || what == c; };
  bool first = true;
  auto sep = [&] {
    if (!first) say("\n");
    first = false;
  };
  if (want("platforms")) {
    sep();
    print_category<PlatformEntry>("platforms", verbose, [](const PlatformEntry& p) {
      for (auto& s : p.slots)
        say("      slot {}: {}{}{}\n", s.name, s.segment, s.description.empty() ? "" : " — " + s.description,
                   s.onboard ? " (onboard: " + join_names(s.onboard_devices) + ")" : "");
    });
  }
  if (want("devices")) {
    sep();
    print_category<DeviceEntry>("devices", verbose, [](const DeviceEntry& d) {
      say("      {}-bit, {}, up to {} MHz, {} function{}, {} Ethernet port{}{}\n", d.info.width_bits,
                 d.info.pcix_capable ? "PCI-X" : "PCI", d.info.max_mhz, d.info.functions,
                 d.info.functions == 1 ? "" : "s", d.ports, d.ports == 1 ? "" : "s",
                 d.onboard_only ? ", onboard only" : "");
    });
  }
  if (want("drivers")) {
    sep();
    print_category<DriverEntry>("drivers", verbose,
                                [](const DriverEntry& d) { say("      binds: {}\n", join_names(d.devices)); });
  }
  if (want("workloads")) {
    sep();
    print_category<WorkloadEntry>("workloads", verbose, [](const WorkloadEntry&) {});
  }
  if (want("links")) {
    sep();
    print_category<LinkEntry>("links", verbose, [](const LinkEntry&) {
      // The keys every [[links]] entry has (read by the scenario loader, docs/scenarios.md).
      say("      a, b: the two ports, \"host.nic\" or \"host.nic:port\" (required)\n"
          "      length_m: real, default 2, range [0, 100], unit m (cable length: propagation delay)\n"
          "      speed_mbps: 10|100|1000, default the highest speed both ports' devices support "
          "(auto-negotiation); a speed a device lacks is refused\n"
          "      type-specific parameters:\n");
    });
  }
  if (want("kernels")) {
    sep();
    print_category<KernelProfile>("kernels", verbose, [](const KernelProfile& k) {
      say("      Linux {} {}, HZ {}, NAPI {}, NET_RX budget {} (netdev_max_backlog {}, netdev_budget {}), weight_p {}, "
          "time limit {} jiffy\n", k.version, k.arch, k.hz, k.napi ? "yes" : "no", rx_budget_name(k.rx_budget),
          k.netdev_max_backlog, k.netdev_budget, k.weight_p, k.rx_time_limit_jiffies);
      say("      qdisc {}, txqueuelen {}, IRQs {}\n      copy: {}\n      checksum: {}\n          [source: {}]\n", k.qdisc,
          k.tx_queue_len, irq_policy_name(k.irq_policy), k.copy_routine, k.csum_routine, k.source);
    });
  }
  if (what == "calibratable") {
    print_calibratable();
    return kExitOk;
  }
  if (want("cpus")) {
    sep();
    print_category<CpuProfile>("cpus", verbose, [](const CpuProfile& c) {
      std::vector<std::string> drivers;
      for (auto& [_, t] : Registry<DriverCostTable>::instance().all())
        if (t.profile == c.cost_profile) drivers.push_back(t.driver);
      say("      {}, {}, {}-{} MHz, {}-byte cache lines, L1d {} KB, L2 {} KB{}\n      cost table {} (driver tables: {})\n"
          "          [source: {}]\n", c.isa, byte_order_name(c.byte_order), c.min_mhz, c.max_mhz, c.cache_line_bytes,
          c.l1d_kb, c.l2_kb, c.l3_kb ? fmt::format(", L3 {} KB", c.l3_kb) : "", c.cost_profile,
          drivers.empty() ? "none" : join_names(drivers), c.source);
      const std::vector<std::string> tables = cost_profile_names();
      if (std::find(tables.begin(), tables.end(), c.cost_profile) == tables.end())
        say("      (cost table {} is not in this build: a host on this CPU needs cost_profile set)\n", c.cost_profile);
    });
  }
  return kExitOk;
}

Registrar<VerbEntry> list_verb{VerbEntry{"list", "list platforms, devices, drivers, workloads, link types, kernel and CPU profiles", list_main}};

}  // namespace
}  // namespace nicsim
