// Scenario loader: TOML (toml++) -> --set overrides -> validation against the registries ->
// Scenario. Schema and error classes: docs/scenarios.md.
#include "platforms/scenario.h"
#include "platforms/calibration_fit.h"
#include "platforms/testbed.h"
#include "platforms/toml_input.h"
#include "models/ether/frame.h"
#include "drivers-sim/drivers/bonding/bonding.h"
#include "drivers-sim/driver_traits.h"
#include "drivers-sim/kernel/driver_costs.h"
#include "drivers-sim/kernel/profiles.h"
#include "drivers-sim/net/tcp_sysctl.h"
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fmt/core.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <toml++/toml.h>

namespace nicsim {

// ---------------------------------------------------------------------------------------------
// ScenarioError

/// "key 'k': message (did you mean 'x'?)": the error without where it was found.
static std::string error_body(const std::string& key, const std::string& message, const std::string& suggestion) {
  std::string s;
  if (!key.empty()) s += fmt::format("key '{}': ", key);
  s += message;
  if (!suggestion.empty()) s += fmt::format(" (did you mean '{}'?)", suggestion);
  return s;
}

static std::string format_error(const std::string& file, int line, int column, const std::string& key,
                                const std::string& message, const std::string& suggestion) {
  std::string s = file;
  if (line > 0) s += fmt::format(":{}:{}", line, column);
  return s + ": " + error_body(key, message, suggestion);
}

ScenarioError::ScenarioError(std::string file_, int line_, int column_, std::string key_, std::string message_,
                             std::string suggestion_)
    : std::runtime_error(format_error(file_, line_, column_, key_, message_, suggestion_)),
      file(std::move(file_)),
      line(line_),
      column(column_),
      key(std::move(key_)),
      message(std::move(message_)),
      suggestion(std::move(suggestion_)) {}

std::string ScenarioError::without_set_origin() const {
  return file == "--set" ? error_body(key, message, suggestion) : what();
}

// ---------------------------------------------------------------------------------------------
// Endpoints

/// Longest interface name: IFNAMSIZ 16 with the terminating NUL (include/linux/if.h).
constexpr size_t kMaxIfNameChars = 15;
/// Longest host name: HOST_NAME_MAX 64 (include/linux/limits.h; sethostname refuses more).
constexpr size_t kMaxHostNameChars = 64;

static bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

std::optional<NicEndpoint> parse_endpoint(std::string_view text) {
  NicEndpoint e;
  auto colon = text.find(':');
  std::string_view hn = text.substr(0, colon);
  if (colon != std::string_view::npos) {
    std::string_view p = text.substr(colon + 1);
    if (p.empty() || p.size() > 3 || !std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    e.port = static_cast<unsigned>(std::stoul(std::string(p)));
  }
  auto dot = hn.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  e.host = std::string(hn.substr(0, dot));
  e.nic = std::string(hn.substr(dot + 1));
  if (!valid_name(e.host) || !valid_name(e.nic)) return std::nullopt;
  return e;
}

// ---------------------------------------------------------------------------------------------
// Scenario accessors and JSON

const HostConfig* Scenario::find_host(const std::string& n) const {
  for (auto& h : hosts)
    if (h.name == n) return &h;
  return nullptr;
}

const NicConfig* Scenario::find_nic(const std::string& host, const std::string& nic) const {
  if (auto* h = find_host(host))
    for (auto& n : h->nics)
      if (n.name == nic) return &n;
  return nullptr;
}

const BondConfig* Scenario::find_bond(const std::string& host, const std::string& bond) const {
  if (auto* h = find_host(host))
    for (auto& b : h->bonds)
      if (b.name == bond) return &b;
  return nullptr;
}

const BondConfig* Scenario::bond_of_port(const std::string& host, const std::string& nic, unsigned port) const {
  const std::string want = port == 0 ? nic : fmt::format("{}:{}", nic, port);
  if (auto* h = find_host(host))
    for (auto& b : h->bonds)
      for (auto& sl : b.slaves)
        if (sl == want) return &b;
  return nullptr;
}

nlohmann::json Scenario::to_json() const {
  using nlohmann::json;
  json j = {{"path", path}, {"name", name}, {"description", description}, {"seed", seed},
            {"fidelity", fidelity_name(fidelity)}, {"overrides", overrides}};
  json hs = json::object();
  for (auto& h : hosts) {
    json nics = json::object();
    for (auto& n : h.nics)
      nics[n.name] = {{"device", n.device}, {"slot", n.slot}, {"driver", n.driver},
                      {"device_params", n.device_params.to_json()}, {"driver_params", n.driver_params.to_json()}};
    hs[h.name] = {{"platform", h.platform}, {"params", h.params.to_json()}, {"nics", nics}};
    for (auto& b : h.bonds) hs[h.name]["bonds"][b.name] = {{"slaves", b.slaves}, {"params", b.params.to_json()}};
    if (h.sysctl_given) hs[h.name]["sysctl"] = h.sysctl.to_json();
  }
  j["hosts"] = hs;
  json ls = json::array();
  for (auto& l : links)
    ls.push_back({{"a", l.a}, {"b", l.b}, {"type", l.type}, {"length_m", l.length_m},
                  {"speed_mbps", l.speed_mbps}, {"params", l.params.to_json()}});
  j["links"] = ls;
  if (!faults.empty()) {
    json fs = json::array();
    for (auto& f : faults) {
      json e = {{"type", f.type}, {"at_s", f.at_s}, {"link", f.link}};
      if (!f.port.empty()) e["port"] = f.port;
      if (f.type == "frame_error_rate") {
        e["rate"] = f.rate;
        e["until_s"] = f.until_s;
        e["errors"] = f.errors;
      }
      if (f.type == "partner_link_loss") e["silent_ms"] = f.silent_ms;
      fs.push_back(e);
    }
    j["faults"] = fs;
  }
  j["workload"] = {{"type", workload.type}, {"params", workload.params.to_json()}};
  if (calibration) {
    json applied = json::object();
    for (size_t i = 0; i < calibration->applied.size(); ++i) {
      const auto& [k, v] = calibration->applied[i];
      if (calibration->integer[i]) applied[k] = static_cast<int64_t>(std::llround(v));
      else applied[k] = v;
    }
    j["calibration"] = {{"name", calibration->name}, {"fit_file", calibration->fit_file},
                        {"calibration_hash", calibration->calibration_hash}, {"applied", applied},
                        {"given", calibration->given}};
  }
  return j;
}

// ---------------------------------------------------------------------------------------------
// Loader

namespace {

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

/// `choices` with an empty entry shown as "" (so "one of: , x" reads "one of: \"\", x").
std::vector<std::string> quoted_empty(std::vector<std::string> choices) {
  for (auto& c : choices)
    if (c.empty()) c = "\"\"";
  return choices;
}

std::string path_join(const std::string& prefix, const std::string& k) { return prefix.empty() ? k : prefix + "." + k; }

/// "integer 5", "string \"x\"", "a table", ... — how a value reads in an error message.
std::string describe_node(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::integer: return fmt::format("integer {}", n.as_integer()->get());
    case toml::node_type::floating_point: {
      // As TOML wrote it: a float keeps its point ("number 1.0", not "number 1" beside "expected integer").
      std::string t = fmt::format("{}", n.as_floating_point()->get());
      if (t.find_first_of(".eEn") == std::string::npos) t += ".0";
      return "number " + t;
    }
    case toml::node_type::boolean: return fmt::format("boolean {}", n.as_boolean()->get());
    case toml::node_type::string: return fmt::format("string \"{}\"", n.as_string()->get());
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

/// Copy node `v` into table `t` at key `k` / into array `a` at index `i` (replacing).
void put(toml::table& t, const std::string& k, const toml::node& v) {
  v.visit([&](auto&& x) { t.insert_or_assign(k, x); });
}
void put(toml::array& a, size_t i, const toml::node& v) {
  v.visit([&](auto&& x) { a.replace(a.cbegin() + static_cast<std::ptrdiff_t>(i), x); });
}

/// Number as a scenario author would write it (integers without ".0").
std::string fmt_num(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9.2e18) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

/// The cost profile host `h` charges its paths from: its cost_profile, else its CPU profile's
/// ("" when neither names a registered profile: the platform's check reports that).
std::string host_cost_profile(const HostConfig& h) {
  if (h.params.has("cost_profile") && !h.params.s("cost_profile").empty()) return h.params.s("cost_profile");
  if (!h.params.has("cpu_profile")) return "";
  const CpuProfile* c = Registry<CpuProfile>::instance().find(h.params.s("cpu_profile"));
  return c ? c->cost_profile : "";
}

/// "" when driver family `family` has a cost table for `profile`; else why the NIC (or bond) that
/// uses `driver` cannot run on host `h`, with the cost profiles the family has tables for and the
/// drivers that have one for `profile`.
std::string cost_table_problem(const HostConfig& h, const std::string& driver, const std::string& family,
                               const std::string& profile) {
  auto& reg = Registry<DriverCostTable>::instance();
  if (reg.find(family + "@" + profile)) return "";
  std::vector<std::string> has, here;
  for (auto& [_, t] : reg.all()) {
    if (t.driver == family) has.push_back(t.profile);
    if (t.profile == profile) here.push_back(t.driver);
  }
  const bool own = h.params.has("cost_profile") && !h.params.s("cost_profile").empty();
  return fmt::format("driver {} has no cost entries for host {}'s cost profile {} ({}): {} is costed only under {}; "
                     "the drivers costed under {} are {}. Use a host whose cost profile is one of {}{}",
                     driver, h.name, profile,
                     own ? "its cost_profile" : "the cost profile of its cpu_profile " + h.params.s("cpu_profile"),
                     family, has.empty() ? "no profile" : join(has), profile, here.empty() ? "none" : join(here),
                     has.empty() ? "none" : join(has, " or "),
                     own ? ", or drop cost_profile" : " (e.g. set cpu_profile or cost_profile)");
}

class Loader {
 public:
  explicit Loader(std::string file) : file_(std::move(file)) {}

  Scenario load(toml::table& root, const std::vector<std::string>& sets, std::optional<uint64_t> seed_override);

 private:
  std::string file_;
  std::map<std::string, std::string> set_paths_;  ///< concrete key paths written by --set
  /// `--set seed=N` with N above INT64_MAX (a TOML integer cannot hold it; --seed takes it too).
  std::optional<uint64_t> set_seed_;
  const toml::table* root_ = nullptr;             ///< the tree being loaded (for check_problems)

  /// The deepest node on dotted path `key` below the root (the root itself when none matches):
  /// where an error about `key` points when the key itself is absent (a default value).
  const toml::node* locate(const std::string& key) const {
    const toml::node* at = root_;
    std::istringstream is(key);
    std::string seg;
    while (at && std::getline(is, seg, '.')) {
      const toml::node* next = nullptr;
      if (auto* t = at->as_table()) next = t->get(seg);
      else if (auto* a = at->as_array()) {
        char* end = nullptr;
        unsigned long i = std::strtoul(seg.c_str(), &end, 10);
        if (!seg.empty() && *end == '\0' && i < a->size()) next = a->get(i);
      }
      if (!next) break;
      at = next;
    }
    return at;
  }
  /// Throw the first of `problems` (from a PlatformEntry/WorkloadEntry check) as a ScenarioError.
  void fail_first(const std::vector<ParamProblem>& problems) const {
    if (problems.empty()) return;
    const ParamProblem& p = problems.front();
    fail(p.key, locate(p.key)->source(), p.message, p.suggestion);
  }

  // -- errors ---------------------------------------------------------------------------------
  bool from_set(const std::string& key) const {
    for (auto& [p, _] : set_paths_)
      if (key == p || key.rfind(p + ".", 0) == 0) return true;
    return false;
  }
  /// The error for `key` at `src` (or at "--set" when an override wrote that key).
  ScenarioError error(const std::string& key, const toml::source_region& src, const std::string& msg,
                      const std::string& suggestion = "") const {
    if (from_set(key)) return ScenarioError("--set", 0, 0, key, msg, suggestion);
    return ScenarioError(file_, static_cast<int>(src.begin.line), static_cast<int>(src.begin.column), key, msg,
                         suggestion);
  }
  [[noreturn]] void fail(const std::string& key, const toml::source_region& src, const std::string& msg,
                         const std::string& suggestion = "") const {
    throw error(key, src, msg, suggestion);
  }
  SourceLoc loc(const std::string& key, const toml::node& n) const {
    if (from_set(key)) return {"--set", 0, 0};
    return {file_, static_cast<int>(n.source().begin.line), static_cast<int>(n.source().begin.column)};
  }

  // -- calibration ----------------------------------------------------------------------------
  /// `calibration = "NAME"`: read calibrations/NAME.fit.toml (platforms/calibration_fit.h), refuse a
  /// failed fit or one whose calibrations/NAME.toml changed since, and write the fitted values into
  /// the tree where neither the file nor a --set gives them (they are platform values).
  void apply_calibration(Scenario& s, toml::table& root, const std::string& name, const toml::node& at) {
    auto fail_here = [&](const std::string& why) { fail("calibration", at.source(), why); };
    if (name.empty() || name.find_first_of("/\\") != std::string::npos)
      fail_here("a calibration is named by NAME, the stem of calibrations/NAME.toml");
    auto fit_path = find_fit_file(name, file_);
    if (!fit_path)
      fail_here(fmt::format("no calibrations/{0}.fit.toml beside the scenario, in a directory above it or in the "
                            "current directory (run `nicsim calibrate calibrations/{0}.toml` first)", name));
    FitFile fit;
    try {
      fit = read_fit_file(*fit_path);
    } catch (const std::exception& e) {
      fail_here(e.what());
    }
    const std::filesystem::path cal = fit_path->parent_path() / (name + ".toml");
    std::string hash;
    try {
      hash = file_hash(cal);
    } catch (const std::exception&) {
      fail_here(fmt::format("{} is gone, but its fit {} names it: refit or revert", cal.string(), fit_path->string()));
    }
    if (hash != fit.calibration_hash)
      fail_here(fmt::format("{} changed since its fit {} was made ({} then, {} now): refit or revert", cal.string(),
                            fit_path->string(), fit.calibration_hash, hash));
    if (!fit.ok)
      fail_here(fmt::format("the fit {} failed, its values are not to be used: {}", fit_path->string(), fit.failure));
    ScenarioCalibration c;
    c.name = name;
    c.fit_file = fit_path->string();
    c.calibration_hash = hash;
    size_t matched = 0;
    auto targets = calibration_targets(root, fit.platform, fit.kernel_profile, fit.cpu_profile, fit.params, &c.given,
                                       &matched);
    if (!matched)
      fail_here(fmt::format("calibration {} is for platform {}{}{}, and no host of the scenario is", name, fit.platform,
                            fit.kernel_profile.empty() ? "" : " with kernel profile " + fit.kernel_profile,
                            fit.cpu_profile.empty() ? "" : " and CPU profile " + fit.cpu_profile));
    for (auto& t : targets) {
      toml::table* tab = &root;
      std::istringstream is(t.key);
      std::vector<std::string> segs;
      for (std::string seg; std::getline(is, seg, '.');) segs.push_back(seg);
      for (size_t i = 0; i + 1 < segs.size() && tab; ++i) tab = (*tab)[segs[i]].as_table();
      if (!tab) continue;
      if (t.integer) tab->insert_or_assign(segs.back(), static_cast<int64_t>(std::llround(t.value)));
      else tab->insert_or_assign(segs.back(), t.value);
      c.applied.emplace_back(t.key, t.value);
      c.integer.push_back(t.integer);
    }
    s.calibration = std::move(c);
  }

  // -- --set ----------------------------------------------------------------------------------
  void apply_set(toml::table& root, const std::string& arg);
  /// Apply the value at `segs[i..]` below `at`; returns how many keys were written. Under a `*`
  /// (`wild`), branches that lack the next key are skipped instead of being errors.
  size_t set_walk(toml::node& at, const std::vector<std::string>& segs, size_t i, const std::string& prefix,
                  const toml::node& value, const std::string& arg, bool wild);

  // -- typed reads ----------------------------------------------------------------------------
  const toml::table& need_table(const toml::node& n, const std::string& key) const {
    if (!n.is_table()) fail(key, n.source(), "wrong type: expected a table, got " + describe_node(n));
    return *n.as_table();
  }
  /// A string value; an integer is taken as its decimal text, since part names are numbers
  /// (device = 82559 means "82559", as --set hosts.a.nics.eth0.device=82559 does).
  std::string need_string(const toml::node& n, const std::string& key) const {
    if (n.is_integer()) return std::to_string(n.as_integer()->get());
    if (!n.is_string()) fail(key, n.source(), "wrong type: expected string, got " + describe_node(n));
    return n.as_string()->get();
  }
  /// The string at `t[k]`, which must exist.
  std::string required_string(const toml::table& t, const std::string& prefix, const std::string& k,
                              const std::string& what) const {
    const toml::node* n = t.get(k);
    if (!n) {
      // A misspelling of the missing key ("slto") is the likelier mistake: report that instead.
      // Short keys are left out: "a"/"b" or "tcp"/"type" are too close to tell apart.
      for (auto&& [other, _] : t) {
        std::string o(other.str());
        if (o.size() >= 4 && k.size() >= 4 && edit_distance(o, k) <= 2)
          fail(path_join(prefix, o), other.source(), "unknown key", k);
      }
      fail(path_join(prefix, k), t.source(), "missing (" + what + ")");
    }
    return need_string(*n, path_join(prefix, k));
  }
  /// Check a key against `known`; on failure say "unknown key" with the nearest name.
  void unknown_key(const toml::key& k, const std::string& key_path, const std::vector<std::string>& known,
                   const std::string& what = "unknown key") const {
    auto near = nearest_name(std::string(k.str()), known);
    fail(key_path, k.source(), what, near);
  }
  ParamValue convert(const ParamSpec& spec, const toml::node& n, const std::string& key) const;
  /// A registry name at `t[k]`: must exist in `names`, else "unknown <what> 'x'" + nearest.
  template <typename Entry>
  const Entry& lookup(const toml::table& t, const std::string& prefix, const std::string& k, const std::string& what) const {
    std::string v = required_string(t, prefix, k, what + " name");
    const Entry* e = Registry<Entry>::instance().find(v);
    if (!e) {
      auto names = Registry<Entry>::instance().names();
      std::string msg = fmt::format("unknown {} '{}'", what, v);
      if (names.empty()) msg += fmt::format(" (this build has no {}s)", what);
      fail(path_join(prefix, k), t.get(k)->source(), msg, nearest_name(v, names));
    }
    return *e;
  }
  /// `allow_bond`: the endpoint may name a bond of the host (a workload's, not a link's).
  void check_endpoint_string(const Scenario& s, const std::string& text, const toml::node& n,
                             const std::string& key, NicEndpoint* out = nullptr, bool allow_bond = false) const;

  // -- sections -------------------------------------------------------------------------------
  void read_host(Scenario& s, const std::string& name, const toml::node& n);
  void read_nic(HostConfig& h, const PlatformEntry& plat, const std::string& name, const toml::node& n,
                const std::string& prefix, std::map<std::string, std::string>& slot_users);
  void read_links(Scenario& s, const toml::node& n);
  void read_faults(Scenario& s, const toml::node& n);
  void read_bonds(HostConfig& h, const toml::node& n, const std::string& prefix);
  void read_sysctl(HostConfig& h, const toml::node& n, const std::string& prefix);
  void read_workload(Scenario& s, const toml::node& n);
  /// The mode link `l` comes up in from its ends' driver parameters (DriverTraits::link_modes;
  /// IEEE 802.3 clause 28): sets l.speed_mbps to the negotiated speed when the link does not give
  /// one, and refuses no link, a duplex mismatch, half duplex, or a speed_mbps that contradicts it.
  void resolve_link_modes(const Scenario& s, LinkConfig& l, const toml::table& t, const std::string& prefix) const;
  static bool drv_params_matter(const LinkModes& m) { return !m.key.empty(); }
};

// ---- --set ----------------------------------------------------------------------------------

void Loader::apply_set(toml::table& root, const std::string& arg) {
  auto eq = arg.find('=');
  std::string path = eq == std::string::npos ? arg : arg.substr(0, eq);
  // The argument must be UTF-8 text without control characters before it is echoed in an error,
  // parsed (toml++ 3.3.0, platforms/toml_input.h) or written to result.json (which must be UTF-8).
  if (auto why = check_utf8_text(arg)) {
    if (eq != std::string::npos && why->first > eq) {
      std::string key = path;
      key.erase(0, key.find_first_not_of(" \t"));
      key.erase(key.find_last_not_of(" \t") + 1);
      throw ScenarioError("--set", 0, 0, key,
                          fmt::format("the value is not valid text: {} at byte {} of the value", why->second,
                                      why->first - eq));
    }
    throw ScenarioError("--set", 0, 0, "", fmt::format("the key path is not valid text: {} at byte {}", why->second, why->first + 1));
  }
  auto bad = [&](const std::string& why) {
    throw ScenarioError("--set", 0, 0, "", fmt::format("'{}': {}", arg, why));
  };
  if (eq == std::string::npos) bad("expected PATH=VALUE (e.g. workload.upper=1024)");
  // Trim spaces around the path.
  path.erase(0, path.find_first_not_of(" \t"));
  path.erase(path.find_last_not_of(" \t") + 1);
  if (path.empty()) bad("empty key path before '='");
  std::vector<std::string> segs;
  {
    std::string seg;
    std::istringstream is(path);
    while (std::getline(is, seg, '.')) segs.push_back(seg);
    if (path.back() == '.') segs.push_back("");
  }
  for (auto& seg : segs)
    if (seg.empty()) bad("empty segment in key path '" + path + "'");

  for (unsigned char c : path)
    if (c >= 0x80) bad("the key path must be ASCII (scenario keys are ASCII)");

  // The value: a TOML value, or else a bare string. `holder["v"]` is the node to copy in.
  std::string text = arg.substr(eq + 1);
  constexpr size_t kMaxSetValueBytes = 64u << 10;
  if (text.size() > kMaxSetValueBytes)
    throw ScenarioError("--set", 0, 0, path, fmt::format("the value is {} bytes, more than the limit of 64 KiB", text.size()));
  if (segs.size() == 1 && segs[0] == "seed") {
    set_seed_.reset();  // the seed takes the full 64-bit range, as --seed does
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (!text.empty() && ec == std::errc() && p == text.data() + text.size() && v > uint64_t(INT64_MAX)) {
      root.erase("seed");
      set_seed_ = v;
      set_paths_["seed"] = arg;
      return;
    }
  }
  toml::table holder;
  const std::string doc = "v = " + text;
  if (!check_toml_input(doc)) {  // else it is no TOML value the parser may read: a bare string
    try {
      toml::table t = toml::parse(std::string_view(doc), std::string_view("--set"));
      if (t.size() == 1 && t.get("v")) holder = std::move(t);
    } catch (const toml::parse_error&) {
    }
  }
  if (holder.empty()) holder.insert("v", text);
  const toml::node* value = holder.get("v");

  size_t n = set_walk(root, segs, 0, "", *value, arg, false);
  if (n == 0) bad("the key path matches nothing in the scenario");
}

size_t Loader::set_walk(toml::node& at, const std::vector<std::string>& segs, size_t i, const std::string& prefix,
                        const toml::node& value, const std::string& arg, bool wild) {
  const std::string& seg = segs[i];
  const bool last = i + 1 == segs.size();
  // The children of `at` that `seg` names, as (key, node*) pairs.
  std::vector<std::pair<std::string, toml::node*>> kids;
  std::vector<std::string> existing;
  if (auto* t = at.as_table()) {
    for (auto&& [k, v] : *t) {
      existing.emplace_back(k.str());
      if (seg == "*" || seg == k.str()) kids.emplace_back(std::string(k.str()), &v);
    }
  } else if (auto* a = at.as_array()) {
    for (size_t j = 0; j < a->size(); ++j) {
      existing.push_back(std::to_string(j));
      if (seg == "*" || seg == std::to_string(j)) kids.emplace_back(std::to_string(j), a->get(j));
    }
  } else {
    if (wild) return 0;
    throw ScenarioError("--set", 0, 0, prefix, fmt::format("is {}, not a table", describe_node(at)));
  }

  if (last) {
    if (seg == "*") {
      for (auto& [k, node] : kids) {
        if (auto* t = at.as_table()) put(*t, k, value);
        else put(*at.as_array(), std::stoul(k), value);
        set_paths_[path_join(prefix, k)] = arg;
      }
      return kids.size();
    }
    std::string p = path_join(prefix, seg);
    if (auto* t = at.as_table()) {
      put(*t, seg, value);
    } else {
      if (kids.empty()) {
        if (wild) return 0;
        throw ScenarioError("--set", 0, 0, p, fmt::format("no such element (the array has {})", existing.size()));
      }
      put(*at.as_array(), std::stoul(seg), value);
    }
    set_paths_[p] = arg;
    return 1;
  }

  // A host's [hosts.H.sysctl] table (and its dotted sub-tables) is optional: --set may create it,
  // as `--set hosts.H.sysctl.net.ipv4.tcp_reordering=10` on a file without one means that sysctl.
  const bool in_sysctl = (seg == "sysctl" && prefix.rfind("hosts.", 0) == 0 &&
                          std::count(prefix.begin(), prefix.end(), '.') == 1) ||
                         prefix.find(".sysctl") != std::string::npos;
  if (seg != "*" && kids.empty() && in_sysctl && at.is_table()) {
    at.as_table()->insert(seg, toml::table{});
    kids.emplace_back(seg, at.as_table()->get(seg));
  }
  if (seg != "*" && kids.empty()) {
    if (wild) return 0;
    throw ScenarioError("--set", 0, 0, path_join(prefix, seg), "no such table in the scenario",
                        at.is_table() ? nearest_name(seg, existing) : "");
  }
  size_t n = 0;
  for (auto& [k, node] : kids) {
    if (!node->is_table() && !node->is_array()) {
      if (seg == "*" || wild) continue;  // a wildcard skips scalars
      throw ScenarioError("--set", 0, 0, path_join(prefix, k), fmt::format("is {}, not a table", describe_node(*node)));
    }
    n += set_walk(*node, segs, i + 1, path_join(prefix, k), value, arg, wild || seg == "*");
  }
  return n;
}

// ---- typed values -----------------------------------------------------------------------------

ParamValue Loader::convert(const ParamSpec& spec, const toml::node& n, const std::string& key) const {
  auto wrong = [&]() {
    std::string hint;  // a number where a string is expected: TOML needs the quotes
    if (spec.kind == ParamKind::String && (n.is_integer() || n.is_floating_point()))
      hint = fmt::format(" (a string needs quotes: \"{}\")",
                         n.is_integer() ? std::to_string(n.as_integer()->get()) : fmt_num(n.as_floating_point()->get()));
    return error(key, n.source(),
                 fmt::format("wrong type: expected {}, got {}{}", kind_name(spec.kind), describe_node(n), hint));
  };
  // The value as written: an integer stays an integer however large (a double would print
  // 9223372036854775807 as 9.223372036854776e+18).
  auto given = [&](double v) { return n.is_integer() ? std::to_string(n.as_integer()->get()) : fmt_num(v); };
  auto range = [&](double v) {
    std::string unit = spec.unit.empty() ? "" : " [" + spec.unit + "]";
    if (spec.min && v < *spec.min)
      fail(key, n.source(), fmt::format("value {} is below the minimum {}{}", given(v), fmt_num(*spec.min), unit));
    if (spec.max && v > *spec.max)
      fail(key, n.source(), fmt::format("value {} is above the maximum {}{}", given(v), fmt_num(*spec.max), unit));
  };
  switch (spec.kind) {
    case ParamKind::Int: {
      if (!n.is_integer()) throw wrong();
      int64_t v = n.as_integer()->get();
      range(static_cast<double>(v));
      if (!int_accepted(spec, v))
        fail(key, n.source(),
             fmt::format("value {} is not one of {}{} ({})", v, accepted_text(spec),
                         spec.unit.empty() ? "" : " [" + spec.unit + "]", spec.doc));
      return v;
    }
    case ParamKind::Real: {
      if (!n.is_integer() && !n.is_floating_point()) throw wrong();
      double v = n.is_integer() ? static_cast<double>(n.as_integer()->get()) : n.as_floating_point()->get();
      if (!std::isfinite(v)) fail(key, n.source(), "value must be a finite number");
      range(v);
      return v;
    }
    case ParamKind::Bool:
      if (!n.is_boolean()) throw wrong();
      return n.as_boolean()->get();
    case ParamKind::String: {
      // An integer is taken as its decimal text (sizes = 64, a part number), as need_string does.
      if (!n.is_string() && !n.is_integer()) throw wrong();
      std::string v = n.is_integer() ? std::to_string(n.as_integer()->get()) : n.as_string()->get();
      if (!spec.choices.empty() && std::find(spec.choices.begin(), spec.choices.end(), v) == spec.choices.end())
        fail(key, n.source(), fmt::format("'{}' is not one of: {}", v, join(quoted_empty(spec.choices))),
             nearest_name(v, spec.choices));
      return v;
    }
  }
  throw wrong();
}

void Loader::check_endpoint_string(const Scenario& s, const std::string& text, const toml::node& n,
                                   const std::string& key, NicEndpoint* out, bool allow_bond) const {
  auto ep = parse_endpoint(text);
  if (!ep) fail(key, n.source(), fmt::format("expected \"host.nic\" or \"host.nic:port\", got \"{}\"", text));
  const HostConfig* h = s.find_host(ep->host);
  if (!h) {
    std::vector<std::string> names;
    for (auto& x : s.hosts) names.push_back(x.name);
    fail(key, n.source(), fmt::format("no host '{}' in this scenario", ep->host), nearest_name(ep->host, names));
  }
  if (allow_bond && s.find_bond(ep->host, ep->nic)) {
    if (ep->port != 0)
      fail(key, n.source(), fmt::format("{}.{} is a bond, which has no ports: name it \"{}.{}\"", ep->host, ep->nic,
                                        ep->host, ep->nic));
    if (out) *out = *ep;
    return;
  }
  if (!s.find_nic(ep->host, ep->nic)) {
    std::vector<std::string> names;
    for (auto& x : h->nics) names.push_back(x.name);
    std::string what = "NIC";
    if (!allow_bond && s.find_bond(ep->host, ep->nic)) {
      fail(key, n.source(), fmt::format("{} is a bond of host {}: a cable plugs into one of its slaves' ports", ep->nic,
                                        ep->host));
    }
    if (allow_bond)
      for (auto& b : h->bonds) names.push_back(b.name), what = "NIC or bond";
    fail(key, n.source(), fmt::format("host {} has no {} '{}'", ep->host, what, ep->nic), nearest_name(ep->nic, names));
  }
  if (allow_bond && s.bond_of_port(ep->host, ep->nic, ep->port)) {
    const BondConfig* b = s.bond_of_port(ep->host, ep->nic, ep->port);
    fail(key, n.source(), fmt::format("{} is a slave of {}.{}, which carries its traffic and its address: name the "
                                      "bond \"{}.{}\"", text, ep->host, b->name, ep->host, b->name));
  }
  if (out) *out = *ep;
}

// ---- sections -------------------------------------------------------------------------------

Scenario Loader::load(toml::table& root, const std::vector<std::string>& sets, std::optional<uint64_t> seed_override) {
  Scenario s;
  s.path = file_;
  root_ = &root;  // where errors about absent keys point (locate)
  for (auto& a : sets) apply_set(root, a);
  s.overrides = sets;

  static const std::vector<std::string> kTop = {"name", "description", "seed",   "fidelity", "calibration",
                                                "hosts", "links",      "faults", "workload"};
  for (auto&& [k, v] : root)
    if (std::find(kTop.begin(), kTop.end(), k.str()) == kTop.end())
      unknown_key(k, std::string(k.str()), kTop, "unknown top-level key");

  s.name = required_string(root, "", "name", "the scenario's name");
  if (auto* d = root.get("description")) s.description = need_string(*d, "description");
  if (auto* sd = root.get("seed")) {
    // `--set seed=N` past the 64-bit range arrives as a bare string of digits.
    if (auto* str = sd->as_string(); str && !str->get().empty() &&
                                     str->get().find_first_not_of("0123456789") == std::string::npos) {
      uint64_t v = 0;
      const std::string& t = str->get();
      if (std::from_chars(t.data(), t.data() + t.size(), v).ec == std::errc::result_out_of_range)
        fail("seed", sd->source(), fmt::format("value {} is above the maximum {}", t, UINT64_MAX));
    }
    if (!sd->is_integer()) fail("seed", sd->source(), "wrong type: expected integer, got " + describe_node(*sd));
    int64_t v = sd->as_integer()->get();
    if (v < 0) fail("seed", sd->source(), fmt::format("value {} is below the minimum 0", v));
    s.seed = static_cast<uint64_t>(v);
  }
  if (set_seed_) s.seed = *set_seed_;
  if (auto* fd = root.get("fidelity")) {
    // "exact" (the default) or "fast" (core/fidelity.h; docs/fast-mode.md).
    const std::string f = need_string(*fd, "fidelity");
    auto v = parse_fidelity(f);
    if (!v)
      fail("fidelity", fd->source(),
           fmt::format("unknown fidelity '{}': the accepted values are {} (docs/fast-mode.md)", f,
                       kFidelityValues));
    s.fidelity = *v;
  }
  if (seed_override) s.seed = *seed_override;
  if (auto* cd = root.get("calibration")) apply_calibration(s, root, need_string(*cd, "calibration"), *cd);

  const toml::node* hosts = root.get("hosts");
  if (!hosts) fail("hosts", root.source(), "missing (at least one [hosts.NAME] table)");
  const toml::table& ht = need_table(*hosts, "hosts");
  if (ht.empty()) fail("hosts", hosts->source(), "no hosts (at least one [hosts.NAME] table)");
  for (auto&& [k, v] : ht) {
    std::string hk = path_join("hosts", std::string(k.str()));
    if (!valid_name(k.str())) fail(hk, k.source(), "host names may use only letters, digits, '-' and '_'");
    if (k.str().size() > kMaxHostNameChars)  // HOST_NAME_MAX (include/linux/limits.h, sethostname)
      fail(hk, k.source(),
           fmt::format("'{}...' has {} characters: a host name has at most {} (Linux HOST_NAME_MAX); output file "
                       "names are built from it",
                       k.str().substr(0, 16), k.str().size(), kMaxHostNameChars));
    read_host(s, std::string(k.str()), v);
  }

  if (auto* l = root.get("links")) read_links(s, *l);
  if (auto* f = root.get("faults")) read_faults(s, *f);

  const toml::node* w = root.get("workload");
  if (!w) fail("workload", root.source(), "missing (a [workload] table with its type)");
  read_workload(s, *w);

  // Cross-parameter checks, now that every value is known: what a run would otherwise find only
  // after building (or simulating) the testbed.
  root_ = &root;
  for (auto& h : s.hosts) {
    const PlatformEntry* plat = Registry<PlatformEntry>::instance().find(h.platform);
    if (plat && plat->check) fail_first(plat->check(h));
    for (auto& n : h.nics) {
      const std::string nk = "hosts." + h.name + ".nics." + n.name + ".";
      auto prefixed = [&](std::vector<ParamProblem> v) {
        for (auto& p : v) p.key = nk + p.key;
        return v;
      };
      const DeviceEntry* dev = Registry<DeviceEntry>::instance().find(n.device);
      if (dev && dev->check) fail_first(prefixed(dev->check(n.device_params)));
      const DriverEntry* drv = Registry<DriverEntry>::instance().find(n.driver);
      if (drv && drv->check) fail_first(prefixed(drv->check(n.driver_params)));
      if (drv && drv->needs_napi && h.params.has("kernel_profile")) {
        const std::string kp = h.params.s("kernel_profile");
        bool napi = true;
        try {
          napi = kernel_profile(kp).napi;
        } catch (const std::invalid_argument&) {  // an unknown profile is the platform check's to report
        }
        if (!napi)
          fail_first({{nk + "driver",
                       fmt::format("{} is a NAPI driver (netif_rx_schedule, dev->poll), but host {}'s kernel profile {} "
                                   "has no NAPI: set hosts.{}.kernel_profile to one with napi = true (nicsim list "
                                   "--verbose lists them)",
                                   n.driver, h.name, kp, h.name)}});
      }
    }
  }
  // A driver charges its paths from its cost table for the host's cost profile (DriverCosts at
  // probe): without one the run would fail at elaboration, so the combination is refused here.
  for (auto& h : s.hosts) {
    const std::string profile = host_cost_profile(h);
    if (profile.empty()) continue;
    for (auto& n : h.nics) {
      const DriverTraits* drv = Registry<DriverTraits>::instance().find(n.driver);
      if (!drv || drv->cost_driver.empty()) continue;
      if (std::string why = cost_table_problem(h, n.driver, drv->cost_driver, profile); !why.empty())
        fail_first({{"hosts." + h.name + ".nics." + n.name + ".driver", why}});
    }
    for (auto& b : h.bonds)
      if (std::string why = cost_table_problem(h, "bonding", "bonding", profile); !why.empty())
        fail_first({{"hosts." + h.name + ".bonds." + b.name, why}});
  }
  // An active-backup bond without miimon keeps its first slave for good: 2.4.20 bonding.c changes
  // current_slave only in bond_mii_monitor (and bond_release), bond_enslave makes the first slave
  // active with its link taken as up when miimon is 0, and bond_xmit_activebackup sends on
  // current_slave without the IS_UP (carrier) test that round-robin and XOR make. A first slave
  // without a cable then loses every frame and the run stalls until time_limit_s.
  for (auto& h : s.hosts)
    for (auto& b : h.bonds) {
      if (b.params.s("mode") != "active-backup" || b.params.i("miimon") > 0 || b.slaves.empty()) continue;
      auto first = parse_endpoint(h.name + "." + b.slaves.front());
      if (!first) continue;
      bool cabled = false;
      for (auto& l : s.links)
        for (const std::string* e : {&l.a, &l.b})
          if (auto ep = parse_endpoint(*e); ep && ep->host == first->host && ep->nic == first->nic && ep->port == first->port)
            cabled = true;
      if (cabled) continue;
      const std::string bk = "hosts." + h.name + ".bonds." + b.name;
      std::string others;
      for (size_t i = 1; i < b.slaves.size(); ++i) others += (others.empty() ? "" : ", ") + b.slaves[i];
      fail_first({{bk + ".miimon",
                   fmt::format("active-backup bond {} has miimon = 0 and its first slave {} has no cable: without link "
                               "monitoring 2.4.20's bonding.c keeps the first slave active for good and "
                               "bond_xmit_activebackup sends every frame into it (only balance-rr and balance-xor skip "
                               "a slave without carrier); set miimon (e.g. 100) so bond_mii_monitor fails over{}, or "
                               "cable {}",
                               b.name, b.slaves.front(), others.empty() ? "" : " to " + others, b.slaves.front())}});
    }
  // A station address is unique on the scenario's network (two NICs with one MAC confuse every
  // peer's ARP cache and the cable's frame delivery). Compared as 48-bit values (case and
  // leading zeros do not matter); an empty mac_address is derived from the unique device name.
  {
    std::map<uint64_t, std::string> macs;
    for (auto& h : s.hosts)
      for (auto& n : h.nics) {
        if (!n.device_params.has("mac_address") || n.device_params.s("mac_address").empty()) continue;
        auto m = parse_mac_address(n.device_params.s("mac_address"));
        if (!m) continue;  // the device's check reported it
        uint64_t v = 0;
        for (uint8_t b : *m) v = (v << 8) | b;
        const std::string key = "hosts." + h.name + ".nics." + n.name + ".mac_address";
        if (auto [it, fresh] = macs.emplace(v, key); !fresh)
          fail(key, locate(key)->source(),
               fmt::format("{} is already the station address of {} (each NIC needs its own unicast MAC address)",
                           n.device_params.s("mac_address"), it->second.substr(0, it->second.size() - 12)));
      }
  }
  const WorkloadEntry* we = Registry<WorkloadEntry>::instance().find(s.workload.type);
  if (we && we->check) fail_first(we->check(s));
  return s;
}

void Loader::read_host(Scenario& s, const std::string& name, const toml::node& n) {
  const std::string prefix = "hosts." + name;
  const toml::table& t = need_table(n, prefix);
  HostConfig h;
  h.name = name;
  h.loc = loc(prefix, n);
  const PlatformEntry& plat = lookup<PlatformEntry>(t, prefix, "platform", "platform");
  h.platform = plat.name;
  h.params = ParamValues(plat.params);

  std::vector<std::string> known = {"platform", "nics", "bonds", "sysctl"};
  for (auto& p : plat.params) known.push_back(p.name);
  for (auto&& [k, v] : t) {
    std::string key(k.str()), kp = path_join(prefix, key);
    if (key == "platform" || key == "nics" || key == "bonds" || key == "sysctl") continue;
    auto spec = std::find_if(plat.params.begin(), plat.params.end(), [&](auto& p) { return p.name == key; });
    if (spec == plat.params.end()) {
      auto near = nearest_name(key, known);
      std::string msg = (near == "nics" || near == "bonds" || near == "sysctl") ? "unknown key"
                                                                                : "unknown parameter of platform " + plat.name;
      fail(kp, k.source(), msg, near);
    }
    h.params.set(key, convert(*spec, v, kp));
  }

  std::map<std::string, std::string> slot_users;
  if (auto* nics = t.get("nics")) {
    const toml::table& nt = need_table(*nics, prefix + ".nics");
    for (auto&& [k, v] : nt) {
      std::string nk = prefix + ".nics." + std::string(k.str());
      if (!valid_name(k.str())) fail(nk, k.source(), "NIC names may use only letters, digits, '-' and '_'");
      if (k.str().size() > kMaxIfNameChars)
        fail(nk, k.source(), fmt::format("'{}' has {} characters: an interface name has at most {} (IFNAMSIZ 16)",
                                         k.str(), k.str().size(), kMaxIfNameChars));
      read_nic(h, plat, std::string(k.str()), v, nk, slot_users);
    }
  }
  h.sysctl = ParamValues(tcp_sysctl_schema());
  if (auto* sc = t.get("sysctl")) read_sysctl(h, *sc, prefix + ".sysctl");
  if (auto* b = t.get("bonds")) read_bonds(h, *b, prefix + ".bonds");
  s.hosts.push_back(std::move(h));
}

void Loader::read_nic(HostConfig& h, const PlatformEntry& plat, const std::string& name, const toml::node& n,
                      const std::string& prefix, std::map<std::string, std::string>& slot_users) {
  const toml::table& t = need_table(n, prefix);
  NicConfig c;
  c.host = h.name;
  c.name = name;
  c.loc = loc(prefix, n);

  const DeviceEntry& dev = lookup<DeviceEntry>(t, prefix, "device", "device");
  c.device = dev.name;

  // Slot: must exist on the platform, be free, and accept the device.
  c.slot = required_string(t, prefix, "slot", "the platform slot the device sits in");
  const toml::node& slot_node = *t.get("slot");
  const std::string slot_key = prefix + ".slot";
  auto slot = std::find_if(plat.slots.begin(), plat.slots.end(), [&](auto& sl) { return sl.name == c.slot; });
  std::vector<std::string> slot_names;
  for (auto& sl : plat.slots) slot_names.push_back(sl.name);
  if (slot == plat.slots.end())
    fail(slot_key, slot_node.source(),
         fmt::format("platform {} has no slot '{}' (its slots: {})", plat.name, c.slot,
                     slot_names.empty() ? "none" : join(slot_names)),
         nearest_name(c.slot, slot_names));
  if (slot->onboard) {
    if (std::find(slot->onboard_devices.begin(), slot->onboard_devices.end(), dev.name) == slot->onboard_devices.end())
      fail(slot_key, slot_node.source(),
           fmt::format("slot '{}' is an onboard position of {}; device {} cannot sit there", c.slot,
                       join(slot->onboard_devices, "/"), dev.name));
  } else if (dev.onboard_only) {
    std::vector<std::string> onboard;
    for (auto& sl : plat.slots)
      if (sl.onboard && std::find(sl.onboard_devices.begin(), sl.onboard_devices.end(), dev.name) != sl.onboard_devices.end())
        onboard.push_back(sl.name);
    fail(slot_key, slot_node.source(),
         fmt::format("device {} is a LAN-on-motherboard part and cannot sit in add-in slot '{}'{}", dev.name, c.slot,
                     onboard.empty() ? std::string(" (this platform has no onboard position for it)")
                                     : " (its onboard position: '" + join(onboard) + "')"));
  }
  if (slot->refuse) {
    std::string why = slot->refuse(dev.info);
    if (!why.empty())
      fail(slot_key, slot_node.source(), fmt::format("device {} cannot sit in slot '{}': {}", dev.name, c.slot, why));
  }
  if (auto it = slot_users.find(c.slot); it != slot_users.end())
    fail(slot_key, slot_node.source(), fmt::format("slot '{}' already holds {}", c.slot, it->second));
  slot_users[c.slot] = prefix;

  const DriverEntry& drv = lookup<DriverEntry>(t, prefix, "driver", "driver");
  c.driver = drv.name;
  if (std::find(drv.devices.begin(), drv.devices.end(), dev.name) == drv.devices.end())
    fail(prefix + ".driver", t.get("driver")->source(),
         fmt::format("driver {} does not support device {} (it binds: {})", drv.name, dev.name,
                     drv.devices.empty() ? "nothing" : join(drv.devices)));

  // Other keys: the driver's module parameters or the device's parameters (a name both declare
  // sets both).
  c.device_params = ParamValues(dev.params);
  for (auto& [name, value] : slot->device_params) {  // what the board sets (SlotSpec::device_params)
    const std::string& key = name;  // a structured binding is not captured by a lambda before C++20's P1091
    if (std::any_of(dev.params.begin(), dev.params.end(), [&key](auto& p) { return p.name == key; }))
      c.device_params.set(name, value);
  }
  c.driver_params = ParamValues(drv.params);
  static const std::vector<std::string> kNicKeys = {"device", "slot", "driver"};
  for (auto&& [k, v] : t) {
    std::string key(k.str()), kp = path_join(prefix, key);
    if (std::find(kNicKeys.begin(), kNicKeys.end(), key) != kNicKeys.end()) continue;
    auto find = [&](const ParamSchema& sch) {
      auto it = std::find_if(sch.begin(), sch.end(), [&](auto& p) { return p.name == key; });
      return it == sch.end() ? nullptr : &*it;
    };
    const ParamSpec* ds = find(drv.params);
    const ParamSpec* vs = find(dev.params);
    if (!ds && !vs) {
      std::vector<std::string> drv_names, dev_names;
      for (auto& p : drv.params) drv_names.push_back(p.name);
      for (auto& p : dev.params) dev_names.push_back(p.name);
      std::vector<std::string> all = kNicKeys;
      all.insert(all.end(), drv_names.begin(), drv_names.end());
      all.insert(all.end(), dev_names.begin(), dev_names.end());
      std::string near = nearest_name(key, all);
      std::string msg;
      if (near.empty())
        msg = fmt::format("unknown key: not a NIC key ({}) nor a parameter of driver {} or device {}", join(kNicKeys),
                          drv.name, dev.name);
      else if (std::find(kNicKeys.begin(), kNicKeys.end(), near) != kNicKeys.end())
        msg = "unknown key";
      else if (std::find(drv_names.begin(), drv_names.end(), near) != drv_names.end())
        msg = "unknown parameter of driver " + drv.name;
      else
        msg = "unknown parameter of device " + dev.name;
      fail(kp, k.source(), msg, near);
    }
    if (ds) c.driver_params.set(key, convert(*ds, v, kp));
    if (vs) c.device_params.set(key, convert(*vs, v, kp));
  }
  h.nics.push_back(std::move(c));
}

// ---- bonds and sysctls (drivers-sim/drivers/bonding, drivers-sim/net/tcp_sysctl.h) ---------

void Loader::read_sysctl(HostConfig& h, const toml::node& n, const std::string& prefix) {
  // Both `"net.ipv4.tcp_reordering" = 10` and the nested `net.ipv4.tcp_reordering = 10` (a table
  // per dotted segment) name the same sysctl.
  const ParamSchema schema = tcp_sysctl_schema();
  std::vector<std::string> names;
  for (auto& p : schema) names.push_back(p.name);
  h.sysctl_given = true;
  std::map<std::string, std::string> given;  // sysctl name -> the key that set it (one sysctl, two spellings)
  std::function<void(const toml::node&, const std::string&, const std::string&, bool)> walk =
      [&](const toml::node& node, const std::string& name, const std::string& key, bool nested) {
        if (auto* tbl = node.as_table()) {
          for (auto&& [k, v] : *tbl) {
            const std::string sub = name.empty() ? std::string(k.str()) : name + "." + std::string(k.str());
            walk(v, sub, key + "." + std::string(k.str()), !name.empty());
          }
          return;
        }
        auto spec = std::find_if(schema.begin(), schema.end(), [&](auto& p) { return p.name == name; });
        if (spec == schema.end())
          fail(key, node.source(), fmt::format("unknown or unmodelled sysctl '{}' (modelled: {})", name, join(names)),
               nearest_name(name, names));
        if (auto [it, fresh] = given.emplace(name, key); !fresh) {
          // A --set override (its path is the nested spelling) replaces the file's quoted one.
          if (!from_set(key))
            fail(key, node.source(),
                 fmt::format("sysctl {} is already set by {} (the quoted \"{}\" and the dotted {} name the same "
                             "sysctl): keep one",
                             name, it->second, name, name));
          if (!nested) return;  // the file's quoted spelling, walked after the override: the override stays
        }
        h.sysctl.set(name, convert(*spec, node, key));
      };
  walk(need_table(n, prefix), "", prefix, false);
}

void Loader::read_bonds(HostConfig& h, const toml::node& n, const std::string& prefix) {
  const toml::table& bt = need_table(n, prefix);
  const ParamSchema schema = bonding::bonding_param_schema();
  std::map<std::string, std::string> slave_of;  // "nic:port" -> bond key
  for (auto&& [k, v] : bt) {
    const std::string name(k.str()), bk = prefix + "." + name;
    if (!valid_name(k.str())) fail(bk, k.source(), "bond names may use only letters, digits, '-' and '_'");
    if (name.size() > kMaxIfNameChars)
      fail(bk, k.source(), fmt::format("'{}' has {} characters: an interface name has at most {} (IFNAMSIZ 16)", name,
                                       name.size(), kMaxIfNameChars));
    for (auto& nic : h.nics)
      if (nic.name == name) fail(bk, k.source(), fmt::format("host {} already has a NIC named {}", h.name, name));
    const toml::table& t = need_table(v, bk);
    BondConfig b;
    b.host = h.name;
    b.name = name;
    b.loc = loc(bk, v);
    b.params = ParamValues(schema);
    std::vector<std::string> known = {"slaves"};
    for (auto& p : schema) known.push_back(p.name);
    for (auto&& [pk, pv] : t) {
      const std::string key(pk.str()), kp = bk + "." + key;
      if (key == "slaves") continue;
      auto spec = std::find_if(schema.begin(), schema.end(), [&](auto& p) { return p.name == key; });
      if (spec == schema.end()) fail(kp, pk.source(), "unknown parameter of the bonding driver", nearest_name(key, known));
      if (key == "mode") {  // modprobe bonding mode=0, or the name
        std::string m;
        if (auto* i = pv.as_integer()) m = std::to_string(i->get());
        else if (auto* str = pv.as_string()) m = str->get();
        else fail(kp, pv.source(), "wrong type: expected the mode's number (0..2) or name, got " + describe_node(pv));
        if (std::string why = bonding::bond_mode_problem(m); !why.empty()) {
          std::vector<std::string> modes = {"balance-rr", "active-backup", "balance-xor"};
          fail(kp, pv.source(), why, nearest_name(m, modes));
        }
        bonding::BondMode bm;
        bonding::parse_bond_mode(m, &bm);
        b.params.set("mode", std::string(bonding::bond_mode_name(bm)));
        continue;
      }
      b.params.set(key, convert(*spec, pv, kp));
    }
    // bond_init (2.4.20 bonding.c): "updelay/downdelay must be multiple of miimon": it warns and
    // rounds down (updelay /= miimon); without miimon the delays do nothing. Said here rather than
    // silently rounded.
    for (const char* d : {"updelay", "downdelay"}) {
      const int64_t miimon = b.params.i("miimon"), ms = b.params.i(d);
      if (ms == 0) continue;
      const std::string dk = bk + "." + d;
      if (miimon == 0)
        fail(dk, t.get(d) ? t.get(d)->source() : t.source(),
             fmt::format("{} = {} ms has no effect without miimon (bonding.c applies it in bond_mii_monitor): set "
                         "miimon or drop {}",
                         d, ms, d));
      if (ms % miimon != 0)
        fail(dk, t.get(d) ? t.get(d)->source() : t.source(),
             fmt::format("{} = {} ms is not a multiple of miimon = {} ms: bonding.c would round it down to {} ms "
                         "({} / miimon); write {} or {}",
                         d, ms, miimon, ms / miimon * miimon, d, ms / miimon * miimon, (ms / miimon + 1) * miimon));
    }
    const toml::node* sl = t.get("slaves");
    if (!sl) fail(bk + ".slaves", t.source(), "missing: the slaves to enslave, e.g. slaves = [\"eth1\", \"eth2\"]");
    const toml::array* arr = sl->as_array();
    if (!arr) fail(bk + ".slaves", sl->source(), "wrong type: expected an array of interface names, got " + describe_node(*sl));
    if (arr->empty()) fail(bk + ".slaves", sl->source(), "a bond needs at least one slave");
    std::vector<std::string> nic_names;
    for (auto& nic : h.nics) nic_names.push_back(nic.name);
    for (size_t i = 0; i < arr->size(); ++i) {
      const std::string sk = fmt::format("{}.slaves.{}", bk, i);
      const toml::node& e = *arr->get(i);
      const std::string text = need_string(e, sk);
      auto ep = parse_endpoint(h.name + "." + text);
      if (!ep) fail(sk, e.source(), fmt::format("expected \"nic\" or \"nic:port\", got \"{}\"", text));
      auto nic = std::find_if(h.nics.begin(), h.nics.end(), [&](auto& c) { return c.name == ep->nic; });
      if (nic == h.nics.end())
        fail(sk, e.source(), fmt::format("host {} has no NIC '{}'", h.name, ep->nic), nearest_name(ep->nic, nic_names));
      const DeviceEntry* dev = Registry<DeviceEntry>::instance().find(nic->device);
      if (dev && ep->port >= dev->ports)
        fail(sk, e.source(), fmt::format("device {} has {} Ethernet port{}; port {} does not exist", dev->name, dev->ports,
                                         dev->ports == 1 ? "" : "s", ep->port));
      const std::string canon = fmt::format("{}:{}", ep->nic, ep->port);
      if (auto it = slave_of.find(canon); it != slave_of.end())
        fail(sk, e.source(), fmt::format("{} is already a slave of {} (bond_enslave: -EBUSY)", text, it->second));
      slave_of[canon] = bk;
      b.slaves.push_back(ep->port == 0 ? ep->nic : fmt::format("{}:{}", ep->nic, ep->port));
    }
    h.bonds.push_back(std::move(b));
  }
}

void Loader::read_links(Scenario& s, const toml::node& n) {
  if (!n.is_array()) fail("links", n.source(), "wrong type: expected an array of [[links]] tables, got " + describe_node(n));
  const toml::array& arr = *n.as_array();
  std::map<std::string, std::string> port_users;  // "host.nic:port" -> "links.i"
  // "host.bond" -> (peer host, "links.i") of the first cabled slave: a bond stripes one flow over
  // its slaves, so they must all reach the same peer host (else the peer drops what it is not for).
  std::map<std::string, std::pair<std::string, std::string>> bond_peer;
  static const std::vector<std::string> kLinkKeys = {"a", "b", "type", "length_m", "speed_mbps"};
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string prefix = fmt::format("links.{}", i);
    const toml::table& t = need_table(*arr.get(i), prefix);
    LinkConfig l;
    l.loc = loc(prefix, *arr.get(i));

    if (auto* ty = t.get("type")) l.type = need_string(*ty, prefix + ".type");
    const LinkEntry* le = Registry<LinkEntry>::instance().find(l.type);
    if (!le) {
      auto names = Registry<LinkEntry>::instance().names();
      std::string msg = fmt::format("unknown link type '{}'", l.type);
      if (names.empty()) msg += " (this build has no link models)";
      fail(prefix + ".type", t.get("type") ? t.get("type")->source() : t.source(), msg, nearest_name(l.type, names));
    }
    l.params = ParamValues(le->params);

    for (const char* end : {"a", "b"}) {
      std::string key = prefix + "." + end;
      std::string text = required_string(t, prefix, end, "a port: \"host.nic\" or \"host.nic:port\"");
      const toml::node& en = *t.get(end);
      NicEndpoint ep;
      check_endpoint_string(s, text, en, key, &ep);
      const NicConfig* nic = s.find_nic(ep.host, ep.nic);
      const DeviceEntry* dev = Registry<DeviceEntry>::instance().find(nic->device);
      if (ep.port >= dev->ports)
        fail(key, en.source(),
             fmt::format("device {} has {} Ethernet port{} (0{}); port {} does not exist", dev->name, dev->ports,
                         dev->ports == 1 ? "" : "s", dev->ports > 1 ? fmt::format("..{}", dev->ports - 1) : "",
                         ep.port));
      std::string canon = fmt::format("{}.{}:{}", ep.host, ep.nic, ep.port);
      if (auto it = port_users.find(canon); it != port_users.end())
        fail(key, en.source(),
             it->second == prefix ? "a link cannot join a port to itself"
                                  : fmt::format("port {} is already linked by {}", canon, it->second));
      port_users[canon] = prefix;
      (std::string(end) == "a" ? l.a : l.b) = text;
    }
    for (const char* end : {"a", "b"}) {
      const bool is_a = std::string(end) == "a";
      auto me = parse_endpoint(is_a ? l.a : l.b), peer = parse_endpoint(is_a ? l.b : l.a);
      const BondConfig* b = me && peer ? s.bond_of_port(me->host, me->nic, me->port) : nullptr;
      if (!b) continue;
      const std::string bk = me->host + "." + b->name;
      auto [it, fresh] = bond_peer.try_emplace(bk, peer->host, prefix);
      if (!fresh && it->second.first != peer->host)
        fail(prefix + "." + end, t.get(end)->source(),
             fmt::format("{} is a slave of {}, whose other slaves are cabled to host {} ({}); this cable goes to host {}: "
                         "a bond stripes one flow over its slaves, so all of them must reach the same peer host",
                         is_a ? l.a : l.b, bk, it->second.first, it->second.second, peer->host));
    }

    ParamSpec len = real_param("length_m", 2.0, 0.0, 100.0, "m", "cable length",
                               "IEEE 802.3 §40.7: 1000BASE-T channel up to 100 m");
    ParamSpec spd = int_param("speed_mbps", 1000, 10, 1000, "Mb/s", "link speed");
    if (auto* x = t.get("length_m")) l.length_m = std::get<double>(convert(len, *x, prefix + ".length_m"));
    // The speeds both ends can link at (each DeviceEntry's link_speeds_mbps).
    std::vector<unsigned> common = {10, 100, 1000};
    std::string limiting;  // "82559 (alpha.eth0): 10, 100" for the error
    for (const std::string* e : {&l.a, &l.b}) {
      auto ep = parse_endpoint(*e);
      const NicConfig* nic = ep ? s.find_nic(ep->host, ep->nic) : nullptr;
      const DeviceEntry* dev = nic ? Registry<DeviceEntry>::instance().find(nic->device) : nullptr;
      if (!dev) continue;
      std::vector<unsigned> keep;
      for (unsigned v : common)
        if (std::find(dev->link_speeds_mbps.begin(), dev->link_speeds_mbps.end(), v) != dev->link_speeds_mbps.end())
          keep.push_back(v);
      if (keep.size() < common.size()) {
        std::string list;
        for (unsigned v : dev->link_speeds_mbps) list += (list.empty() ? "" : ", ") + std::to_string(v);
        limiting = fmt::format("the {} at {} links at {} Mb/s only", dev->name, *e, list);
      }
      common = std::move(keep);
    }
    if (auto* x = t.get("speed_mbps")) {
      int64_t v = std::get<int64_t>(convert(spd, *x, prefix + ".speed_mbps"));
      if (v != 10 && v != 100 && v != 1000)
        fail(prefix + ".speed_mbps", x->source(), fmt::format("value {} is not one of: 10, 100, 1000", v));
      if (std::find(common.begin(), common.end(), unsigned(v)) == common.end())
        fail(prefix + ".speed_mbps", x->source(), fmt::format("{} Mb/s: {}", v, limiting));
      l.speed_mbps = static_cast<unsigned>(v);
    } else if (!common.empty()) {
      l.speed_mbps = common.back();  // auto-negotiation: the highest speed both ends have
    }
    resolve_link_modes(s, l, t, prefix);

    std::vector<std::string> known = kLinkKeys;
    for (auto& p : le->params) known.push_back(p.name);
    for (auto&& [k, v] : t) {
      std::string key(k.str()), kp = path_join(prefix, key);
      if (std::find(kLinkKeys.begin(), kLinkKeys.end(), key) != kLinkKeys.end()) continue;
      auto spec = std::find_if(le->params.begin(), le->params.end(), [&](auto& p) { return p.name == key; });
      if (spec == le->params.end()) {
        auto near = nearest_name(key, known);
        bool core = std::find(kLinkKeys.begin(), kLinkKeys.end(), near) != kLinkKeys.end();
        fail(kp, k.source(), core || near.empty() ? "unknown key of a link" : "unknown parameter of link type " + le->name,
             near);
      }
      l.params.set(key, convert(*spec, v, kp));
    }
    s.links.push_back(std::move(l));
  }
}

namespace {
/// Mode bits (LinkModes): bit0 10/HD, bit1 10/FD, bit2 100/HD, bit3 100/FD, bit4 1000/HD, bit5 1000/FD.
unsigned mode_speed(int bit) { return bit < 2 ? 10 : bit < 4 ? 100 : 1000; }
bool mode_full(int bit) { return bit & 1; }
std::string mode_name(int bit) { return fmt::format("{} Mb/s {} duplex", mode_speed(bit), mode_full(bit) ? "full" : "half"); }
/// The highest-priority mode in `bits` (IEEE 802.3 Annex 28B.3: 1000 FD, 1000 HD, 100 FD, 100 HD,
/// 10 FD, 10 HD), or -1.
int best_mode(unsigned bits) {
  for (int b = 5; b >= 0; --b)
    if (bits & (1u << b)) return b;
  return -1;
}
std::string modes_text(unsigned bits) {
  std::string t;
  for (int b = 5; b >= 0; --b)
    if (bits & (1u << b)) t += (t.empty() ? "" : ", ") + fmt::format("{}/{}", mode_speed(b), mode_full(b) ? "FD" : "HD");
  return t.empty() ? "nothing" : t;
}
}  // namespace

void Loader::resolve_link_modes(const Scenario& s, LinkConfig& l, const toml::table& t, const std::string& prefix) const {
  // Each end: the modes its driver's parameters allow (DriverTraits::link_modes), within its device's speeds.
  struct End {
    std::string text, key;  ///< "host.nic[:port]"; the NIC parameter that decided its modes (for errors)
    LinkModes m;
  };
  std::vector<End> ends;
  for (const std::string* e : {&l.a, &l.b}) {
    auto ep = parse_endpoint(*e);
    const NicConfig* nic = ep ? s.find_nic(ep->host, ep->nic) : nullptr;
    const DeviceEntry* dev = nic ? Registry<DeviceEntry>::instance().find(nic->device) : nullptr;
    const DriverTraits* drv = nic ? Registry<DriverTraits>::instance().find(nic->driver) : nullptr;
    if (!dev) return;
    unsigned device_modes = 0;
    for (unsigned v : dev->link_speeds_mbps) device_modes |= v == 10 ? 0x03u : v == 100 ? 0x0Cu : v == 1000 ? 0x30u : 0u;
    const bool declared = drv && drv->link_modes;
    End end{*e, "", declared ? drv->link_modes(nic->driver_params) : LinkModes{}};
    end.key = "hosts." + ep->host + ".nics." + ep->nic + "." + (end.m.key.empty() ? "driver" : end.m.key);
    if (!end.m.problem.empty()) fail(end.key, locate(end.key)->source(), end.m.problem);
    if (declared) end.m.modes &= device_modes;
    else end.m.modes = device_modes;
    ends.push_back(std::move(end));
  }
  if (!drv_params_matter(ends[0].m) && !drv_params_matter(ends[1].m)) return;
  End& a = ends[0];
  End& b = ends[1];
  // The end whose parameters are the cause: a forced or narrowed one.
  End& cause = drv_params_matter(a.m) ? a : b;
  auto refuse = [&](const std::string& why) {
    fail(cause.key, locate(cause.key)->source(),
         fmt::format("{}: {} ({}) against {} ({}): {}", prefix, a.text, a.m.how.empty() ? "autonegotiation" : a.m.how,
                     b.text, b.m.how.empty() ? "autonegotiation" : b.m.how, why));
  };
  for (const End* e : {&a, &b})
    if (!e->m.modes) refuse(fmt::format("{}'s device has none of the modes its parameters allow", e->text));
  int mode = -1;
  if (a.m.autoneg && b.m.autoneg) {
    const unsigned common = a.m.modes & b.m.modes;
    if (!common)
      refuse(fmt::format("the ends advertise nothing in common ({} / {}), so autonegotiation finds no mode and real "
                         "hardware has no link (IEEE 802.3 Annex 28B.3)",
                         modes_text(a.m.modes), modes_text(b.m.modes)));
    mode = best_mode(common);
  } else if (a.m.autoneg != b.m.autoneg) {
    const End& forced = a.m.autoneg ? b : a;
    const int fm = best_mode(forced.m.modes);
    // Parallel detection (IEEE 802.3 28.2.3.1): the autonegotiating end finds the forced end's
    // speed from its signalling and, with no advertisement to read, takes half duplex.
    refuse(mode_full(fm) ? fmt::format("{} forces {}; the autonegotiating end detects {} Mb/s by parallel detection "
                                       "and runs half duplex (IEEE 802.3 28.2.3.1): a duplex mismatch (late "
                                       "collisions, CRC errors), which the model does not run; force both ends alike "
                                       "or let both autonegotiate",
                                       forced.text, mode_name(fm), mode_speed(fm))
                         : fmt::format("{} forces {} and the other end follows it by parallel detection: a half-duplex "
                                       "link, which the model does not run (its links are full duplex)",
                                       forced.text, mode_name(fm)));
  } else {
    const int ma = best_mode(a.m.modes), mb = best_mode(b.m.modes);
    if (mode_speed(ma) != mode_speed(mb))
      refuse(fmt::format("the ends are forced to different speeds ({} and {}): real hardware has no link",
                         mode_name(ma), mode_name(mb)));
    if (ma != mb)
      refuse(fmt::format("the ends are forced to different duplex ({} and {}): a duplex mismatch (late collisions, CRC "
                         "errors), which the model does not run",
                         mode_name(ma), mode_name(mb)));
    mode = ma;
  }
  if (!mode_full(mode))
    refuse(fmt::format("the link comes up at {}, and the model runs full-duplex links only", mode_name(mode)));
  if (mode_speed(mode) != l.speed_mbps) {
    if (t.get("speed_mbps"))
      fail(prefix + ".speed_mbps", t.get("speed_mbps")->source(),
           fmt::format("{} Mb/s, but the ends' parameters make the link come up at {} ({}: {}; {}: {}): set "
                       "speed_mbps = {} or drop it",
                       l.speed_mbps, mode_name(mode), a.text, a.m.how.empty() ? "autonegotiation" : a.m.how, b.text,
                       b.m.how.empty() ? "autonegotiation" : b.m.how, mode_speed(mode)));
    l.speed_mbps = mode_speed(mode);  // the negotiated speed, as the cable's default is the highest common one
  }
}

void Loader::read_faults(Scenario& s, const toml::node& n) {
  if (!n.is_array())
    fail("faults", n.source(), "wrong type: expected an array of [[faults]] tables, got " + describe_node(n));
  const toml::array& arr = *n.as_array();
  // Keys each type takes besides type and at_s (docs/faults.md).
  static const std::map<std::string, std::vector<std::string>> kKeys = {
      {"cable_pull", {"link", "port"}},
      {"cable_replug", {"link", "port"}},
      {"partner_link_loss", {"link", "port", "silent_ms"}},
      {"frame_error_rate", {"link", "port", "rate", "until_s", "errors"}}};
  std::vector<std::string> all = {"type", "at_s", "link", "port", "rate", "until_s", "silent_ms", "errors"};
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string prefix = fmt::format("faults.{}", i);
    const toml::table& t = need_table(*arr.get(i), prefix);
    FaultConfig f;
    f.loc = loc(prefix, *arr.get(i));
    f.type = required_string(t, prefix, "type", "one of " + join(kFaultTypes));
    auto known = kKeys.find(f.type);
    if (known == kKeys.end())
      fail(prefix + ".type", t.get("type")->source(),
           fmt::format("unknown fault type '{}' (the types are {})", f.type, join(kFaultTypes)),
           nearest_name(f.type, kFaultTypes));
    for (auto&& [k, v] : t) {
      const std::string key(k.str());
      if (key == "type" || key == "at_s") continue;
      if (std::find(all.begin(), all.end(), key) == all.end()) unknown_key(k, path_join(prefix, key), all, "unknown key of a fault");
      if (std::find(known->second.begin(), known->second.end(), key) == known->second.end())
        fail(path_join(prefix, key), k.source(),
             fmt::format("a {} fault has no '{}' (its keys: type, at_s, {})", f.type, key, join(known->second)));
    }
    const toml::node* at = t.get("at_s");
    if (!at) fail(prefix + ".at_s", t.source(), "missing (the simulated time of the fault, in seconds)");
    f.at_s = std::get<double>(convert(real_param("at_s", 0, 0.0, 1e6, "s", "fault time", ""), *at, prefix + ".at_s"));

    // The link: `link = N`, or the link that cables `port`.
    const toml::node* ln = t.get("link");
    const toml::node* pn = t.get("port");
    const bool needs_port = f.type == "partner_link_loss" || f.type == "frame_error_rate";
    if (s.links.empty()) fail(prefix, t.source(), "a fault needs a link, and this scenario has no [[links]]");
    if (ln) {
      const int64_t v = std::get<int64_t>(convert(
          int_param("link", 0, 0, double(s.links.size() - 1), "", "index into [[links]]", ""), *ln, prefix + ".link"));
      f.link = static_cast<size_t>(v);
    }
    if (pn) {
      f.port = need_string(*pn, prefix + ".port");
      NicEndpoint ep;
      check_endpoint_string(s, f.port, *pn, prefix + ".port", &ep);
      bool found = false;
      std::vector<std::string> cabled;
      for (size_t li = 0; li < s.links.size(); ++li)
        for (unsigned side = 0; side < 2; ++side) {
          auto e = parse_endpoint(side == 0 ? s.links[li].a : s.links[li].b);
          cabled.push_back(side == 0 ? s.links[li].a : s.links[li].b);
          if (!found && e && e->host == ep.host && e->nic == ep.nic && e->port == ep.port && (!ln || li == f.link)) {
            found = true;
            f.link = li;
            f.side = side;
          }
        }
      if (!found)
        fail(prefix + ".port", pn->source(),
             ln ? fmt::format("{} is not an end of links.{} ({} <-> {})", f.port, f.link, s.links[f.link].a,
                              s.links[f.link].b)
                : fmt::format("no [[links]] entry cables {}", f.port),
             ln ? "" : nearest_name(f.port, cabled));
    } else if (needs_port) {
      fail(prefix + ".port", t.source(),
           f.type == "frame_error_rate" ? "missing (the receiving port: frames toward it arrive with a bad FCS)"
                                        : "missing (the port whose partner PHY restarts auto-negotiation)");
    } else if (!ln) {
      fail(prefix + ".link", t.source(), "missing (the link: `link = N` into [[links]], or `port = \"host.nic\"`)");
    }
    if (f.type == "frame_error_rate") {
      const toml::node* r = t.get("rate");
      if (!r) fail(prefix + ".rate", t.source(), "missing (the probability that a frame arrives with a bad FCS, 0..1)");
      f.rate = std::get<double>(convert(real_param("rate", 0, 0.0, 1.0, "", "frame error rate", ""), *r, prefix + ".rate"));
      if (auto* u = t.get("until_s")) {
        f.until_s =
            std::get<double>(convert(real_param("until_s", 0, 0.0, 1e6, "s", "end of the window", ""), *u, prefix + ".until_s"));
        if (f.until_s != 0 && f.until_s <= f.at_s)
          fail(prefix + ".until_s", u->source(),
               fmt::format("the window ends at {} s, not after it starts (at_s = {} s)", fmt_num(f.until_s), fmt_num(f.at_s)));
      }
      if (auto* e = t.get("errors"))
        f.errors = std::get<std::string>(convert(
            string_param("errors", "fcs", {"fcs", "symbol"},
                         "fcs: bit errors the PHY decodes as valid symbols, caught by the FCS (8254x CRCERRS); symbol: "
                         "invalid symbols the PHY flags with RX_ER (8254x RXERRC)",
                         ""),
            *e, prefix + ".errors"));
    }
    if (auto* sm = t.get("silent_ms"))
      f.silent_ms = std::get<double>(
          convert(real_param("silent_ms", 1250, 1.0, 1e6, "ms", "partner silence", ""), *sm, prefix + ".silent_ms"));
    s.faults.push_back(std::move(f));
  }
}

void Loader::read_workload(Scenario& s, const toml::node& n) {
  const toml::table& t = need_table(n, "workload");
  s.workload.loc = loc("workload", n);
  const WorkloadEntry& w = lookup<WorkloadEntry>(t, "workload", "type", "workload");
  s.workload.type = w.name;
  s.workload.params = ParamValues(w.params);
  std::vector<std::string> known = {"type"};
  for (auto& p : w.params) known.push_back(p.name);
  for (auto&& [k, v] : t) {
    std::string key(k.str()), kp = "workload." + key;
    if (key == "type") continue;
    auto spec = std::find_if(w.params.begin(), w.params.end(), [&](auto& p) { return p.name == key; });
    if (spec == w.params.end()) fail(kp, k.source(), "unknown parameter of workload " + w.name, nearest_name(key, known));
    ParamValue pv = convert(*spec, v, kp);
    // An optional endpoint may be written as "" (none), as its default is.
    if (spec->kind == ParamKind::String && spec->unit == kUnitNicEndpoint &&
        !(std::get<std::string>(pv).empty() && !spec->required))
      check_endpoint_string(s, std::get<std::string>(pv), v, kp, nullptr, true);
    s.workload.params.set(key, std::move(pv));
  }
  // Defaults that name NICs must exist too (e.g. a default transmitter "alpha.eth1").
  for (auto& spec : w.params) {
    if (spec.kind != ParamKind::String || spec.unit != kUnitNicEndpoint || t.get(spec.name)) continue;
    const std::string& v = s.workload.params.s(spec.name);
    auto ep = parse_endpoint(v);
    if (v.empty() && spec.required)
      fail("workload." + spec.name, t.source(),
           fmt::format("missing: workload {} needs {} (a NIC as \"host.nic\")", w.name, spec.name));
    if (!v.empty() && (!ep || (!s.find_nic(ep->host, ep->nic) && !s.find_bond(ep->host, ep->nic))))
      fail("workload." + spec.name, t.source(),
           fmt::format("missing: the default \"{}\" names no NIC of this scenario", v));
  }
}

Scenario load_root(toml::table& root, const std::string& file, const std::vector<std::string>& sets,
                   std::optional<uint64_t> seed_override) {
  return Loader(file).load(root, sets, seed_override);
}

toml::table parse_or_throw(const std::string& text, const std::string& file) {
  try {
    return toml::parse(std::string_view(text), std::string_view(file));
  } catch (const toml::parse_error& e) {
    throw ScenarioError(file, static_cast<int>(e.source().begin.line), static_cast<int>(e.source().begin.column), "",
                        "TOML syntax error: " + std::string(e.description()));
  }
}

}  // namespace

Scenario load_scenario_text(const std::string& toml_text, const std::string& source_name,
                            const std::vector<std::string>& sets, std::optional<uint64_t> seed_override) {
  // What toml++ 3.3.0 cannot read safely is refused before it sees the bytes (platforms/toml_input.h).
  if (auto p = check_toml_input(toml_text)) throw ScenarioError(source_name, p->line, p->column, p->key, p->message);
  toml::table root = parse_or_throw(toml_text, source_name);
  return load_root(root, source_name, sets, seed_override);
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets,
                       std::optional<uint64_t> seed_override) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    // ELOOP (a symbolic link loop), EACCES on a directory on the way, ...: said as it is.
    if (ec && ec != std::errc::no_such_file_or_directory)
      throw ScenarioError(path, 0, 0, "", "cannot read scenario file: " + ec.message());
    if (fs::is_symlink(fs::symlink_status(path, ec)))
      throw ScenarioError(path, 0, 0, "", "cannot read scenario file: a symbolic link to nothing (its target does not exist)");
    throw ScenarioError(path, 0, 0, "", "cannot read scenario file: no such file");
  }
  if (fs::is_directory(path, ec)) throw ScenarioError(path, 0, 0, "", "cannot read scenario file: it is a directory");
  // Devices, FIFOs and sockets: reading them may never end (/dev/zero) or block (a FIFO).
  if (!fs::is_regular_file(path, ec))
    throw ScenarioError(path, 0, 0, "", "cannot read scenario file: not a regular file (a device, FIFO or socket)");
  constexpr std::uintmax_t kMaxScenarioBytes = 16u << 20;
  if (auto size = fs::file_size(path, ec); !ec && size > kMaxScenarioBytes)
    throw ScenarioError(path, 0, 0, "", fmt::format("cannot read scenario file: {} bytes, more than a scenario's limit of 16 MiB", size));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path, 0, 0, "", "cannot read scenario file: permission denied or unreadable");
  std::stringstream ss;
  ss << in.rdbuf();
  return load_scenario_text(ss.str(), path, sets, seed_override);
}

}  // namespace nicsim
