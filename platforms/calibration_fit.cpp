#include "platforms/calibration_fit.h"
#include "platforms/testbed.h"
#include "platforms/toml_input.h"
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nicsim {
namespace fs = std::filesystem;

std::string FitParam::key() const {
  const size_t p = set.rfind('.');
  return p == std::string::npos ? set : set.substr(p + 1);
}

namespace {
constexpr uint64_t kFnvBasis = 1469598103934665603ull;
uint64_t fnv1a_more(uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}
}  // namespace

std::string content_hash(std::string_view bytes) { return fmt::format("fnv1a64:{:016x}", fnv1a_more(kFnvBasis, bytes)); }

std::string file_hash(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path.string() + ": cannot be read");
  uint64_t h = kFnvBasis;
  std::vector<char> buf(1 << 20);
  while (f) {
    f.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h = fnv1a_more(h, std::string_view(buf.data(), static_cast<size_t>(f.gcount())));
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

std::string calibration_value_text(double v, bool integer) {
  if (integer) return fmt::format("{}", static_cast<int64_t>(std::llround(v)));
  std::string s = fmt::format("{}", v);  // shortest round-trip form
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // stays a TOML float
  return s;
}

std::optional<fs::path> find_fit_file(const std::string& name, const fs::path& scenario_file) {
  const std::string leaf = name + ".fit.toml";
  std::error_code ec;
  fs::path dir = fs::absolute(scenario_file, ec).parent_path();
  if (ec) dir.clear();
  while (!dir.empty()) {
    fs::path p = dir / "calibrations" / leaf;
    // A directory without the file sets ec (ENOENT): that ends nothing, the walk goes on upwards.
    if (fs::is_regular_file(p, ec)) return p;
    if (dir == dir.root_path()) break;
    dir = dir.parent_path();
  }
  fs::path here = fs::path("calibrations") / leaf;
  if (fs::is_regular_file(here, ec)) return here;
  return std::nullopt;
}

// ---- applying a fit to a scenario tree ------------------------------------------------------

namespace {

const ParamSpec* find_spec(const ParamSchema& s, const std::string& key) {
  for (auto& p : s)
    if (p.name == key) return &p;
  return nullptr;
}

/// The host's value of profile key `key` ("kernel_profile"/"cpu_profile"): its own, else the
/// platform's default.
std::string host_profile(const toml::table& host, const PlatformEntry& plat, const std::string& key) {
  if (auto v = host[key].value<std::string>()) return *v;
  if (const ParamSpec* p = find_spec(plat.params, key))
    if (auto s = std::get_if<std::string>(&p->def)) return *s;
  return "";
}

bool nic_has_param(const toml::table& nic, const std::string& key) {
  if (auto d = nic["device"].value<std::string>())
    if (const DeviceEntry* e = Registry<DeviceEntry>::instance().find(*d); e && find_spec(e->params, key)) return true;
  if (auto d = nic["driver"].value<std::string>())
    if (const DriverEntry* e = Registry<DriverEntry>::instance().find(*d); e && find_spec(e->params, key)) return true;
  return false;
}

}  // namespace

std::vector<CalibrationTarget> calibration_targets(const toml::table& root, const std::string& platform,
                                                   const std::string& kernel_profile, const std::string& cpu_profile,
                                                   const std::vector<FitParam>& values, std::vector<std::string>* given,
                                                   size_t* hosts_matched) {
  std::vector<CalibrationTarget> out;
  size_t matched = 0;
  const PlatformEntry* plat = Registry<PlatformEntry>::instance().find(platform);
  const toml::table* hosts = root["hosts"].as_table();
  if (plat && hosts)
    for (auto&& [hk, hv] : *hosts) {
      const toml::table* host = hv.as_table();
      if (!host || host->get("platform") == nullptr || (*host)["platform"].value<std::string>() != platform) continue;
      if (!kernel_profile.empty() && host_profile(*host, *plat, "kernel_profile") != kernel_profile) continue;
      if (!cpu_profile.empty() && host_profile(*host, *plat, "cpu_profile") != cpu_profile) continue;
      ++matched;
      const std::string hname(hk.str());
      for (auto& fp : values) {
        const std::string key = fp.key();
        if (fp.set.rfind("hosts.*.nics.*.", 0) == 0) {
          const toml::table* nics = (*host)["nics"].as_table();
          if (!nics) continue;
          for (auto&& [nk, nv] : *nics) {
            const toml::table* nic = nv.as_table();
            if (!nic || !nic_has_param(*nic, key)) continue;
            const std::string full = fmt::format("hosts.{}.nics.{}.{}", hname, nk.str(), key);
            if (nic->get(key)) {
              if (given) given->push_back(full);
            } else {
              out.push_back({full, fp.fitted, fp.integer});
            }
          }
        } else {
          const std::string full = fmt::format("hosts.{}.{}", hname, key);
          if (host->get(key)) {
            if (given) given->push_back(full);
          } else {
            out.push_back({full, fp.fitted, fp.integer});
          }
        }
      }
    }
  if (hosts_matched) *hosts_matched = matched;
  return out;
}

// ---- the fit file -----------------------------------------------------------------------------

namespace {

toml::array num_array(const std::vector<double>& v) {
  toml::array a;
  for (double x : v) a.push_back(x);
  return a;
}

toml::table summary_table(const FitSummary& s) {
  return toml::table{{"count", static_cast<int64_t>(s.count)},  {"within_tolerance", static_cast<int64_t>(s.within)},
                     {"mean_abs_error", s.mean_abs},           {"mean_signed_error", s.mean_signed},
                     {"worst_error", s.worst},                 {"worst_reference", s.worst_ref}};
}

[[noreturn]] void bad(const std::string& path, const std::string& key, const std::string& why) {
  throw std::runtime_error(fmt::format("{}: key '{}': {}", path, key, why));
}

struct Reader {
  std::string path;
  const toml::table& t;
  std::string prefix;
  std::string key(const char* k) const { return prefix.empty() ? std::string(k) : prefix + "." + k; }
  const toml::node& need(const char* k) const {
    const toml::node* n = t.get(k);
    if (!n) bad(path, key(k), "missing");
    return *n;
  }
  /// Key `k` as a T, or an error "must be ..." naming it.
  template <class T>
  T typed(const char* k, const char* must_be) const {
    auto v = need(k).template value<T>();
    if (!v) bad(path, key(k), must_be);
    return *v;
  }
  std::string str(const char* k, bool required = true) const {
    if (!t.get(k) && !required) return "";
    return typed<std::string>(k, "must be a string");
  }
  double num(const char* k) const { return typed<double>(k, "must be a number"); }
  std::optional<double> opt_num(const char* k) const {
    if (!t.get(k)) return std::nullopt;
    return num(k);
  }
  int64_t integer(const char* k) const { return typed<int64_t>(k, "must be an integer"); }
  bool boolean(const char* k) const { return typed<bool>(k, "must be a boolean"); }
  std::vector<double> nums(const char* k) const {
    const toml::array* a = need(k).as_array();
    if (!a) bad(path, key(k), "must be an array of numbers");
    std::vector<double> out;
    for (auto& e : *a) {
      auto v = e.value<double>();
      if (!v) bad(path, key(k), "must be an array of numbers");
      out.push_back(*v);
    }
    return out;
  }
  const toml::table& table(const char* k) const {
    const toml::table* x = need(k).as_table();
    if (!x) bad(path, key(k), "must be a table");
    return *x;
  }
  std::vector<const toml::table*> tables(const char* k) const {
    std::vector<const toml::table*> out;
    if (!t.get(k)) return out;
    const toml::array* a = t.get(k)->as_array();
    if (!a) bad(path, key(k), "must be an array of tables");
    for (auto& e : *a) {
      if (!e.as_table()) bad(path, key(k), "must be an array of tables");
      out.push_back(e.as_table());
    }
    return out;
  }
  Reader sub(const toml::table& x, const std::string& p) const { return Reader{path, x, p}; }
};

FitSummary read_summary(const Reader& r) {
  FitSummary s;
  s.count = static_cast<size_t>(r.integer("count"));
  s.within = static_cast<size_t>(r.integer("within_tolerance"));
  s.mean_abs = r.num("mean_abs_error");
  s.mean_signed = r.num("mean_signed_error");
  s.worst = r.num("worst_error");
  s.worst_ref = r.str("worst_reference");
  return s;
}

// A fit file's TOML text (fit_toml_table_text), written here rather than by toml++'s formatter:
// toml++ 3.3's column estimate for an inline array casts log10 of a float below 1 to size_t
// (toml_formatter.inl, toml_formatter_count_inline_columns), undefined behaviour the sanitizer job
// stops on, and a fit file's errors and sensitivities are such floats.

std::string fit_toml_string(std::string_view v) {
  std::string out = "\"";
  for (char c : v) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += fmt::format("\\u{:04X}", static_cast<unsigned>(c));
        else out += c;
    }
  }
  return out + "\"";
}

std::string fit_toml_key(std::string_view k) {
  const bool bare = !k.empty() && std::all_of(k.begin(), k.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  return bare ? std::string(k) : fit_toml_string(k);
}

std::string fit_toml_inline(const toml::node& n) {
  if (auto v = n.as_string()) return fit_toml_string(v->get());
  if (auto v = n.as_integer()) return fmt::format("{}", v->get());
  if (auto v = n.as_floating_point()) return calibration_value_text(v->get(), false);
  if (auto v = n.as_boolean()) return v->get() ? "true" : "false";
  std::string out;
  if (auto a = n.as_array()) {
    out = "[";
    for (size_t i = 0; i < a->size(); ++i) out += (i ? ", " : "") + fit_toml_inline(*a->get(i));
    return out + "]";
  }
  if (auto t = n.as_table()) {
    out = "{";
    bool first = true;
    for (auto&& [k, v] : *t) {
      out += (first ? " " : ", ") + fit_toml_key(k.str()) + " = " + fit_toml_inline(v);
      first = false;
    }
    return out + (first ? "}" : " }");
  }
  throw std::logic_error("fit file: a TOML value of a kind the writer does not know");
}

bool fit_array_of_tables(const toml::node& n) {
  const toml::array* a = n.as_array();
  return a && !a->empty() && a->is_array_of_tables();
}

/// Appends table `t` (at `path`) to `out`: plain values and inline arrays first, then sub-tables,
/// then arrays of tables, as toml++ orders them; toml::parse reads it back.
void fit_toml_table_text(std::string& out, const toml::table& t, const std::string& path) {
  auto child = [&](const toml::key& k) { return (path.empty() ? "" : path + ".") + fit_toml_key(k.str()); };
  for (auto&& [k, v] : t)
    if (!v.is_table() && !fit_array_of_tables(v)) out += fit_toml_key(k.str()) + " = " + fit_toml_inline(v) + "\n";
  for (auto&& [k, v] : t)
    if (v.is_table()) {
      out += "\n[" + child(k) + "]\n";
      fit_toml_table_text(out, *v.as_table(), child(k));
    }
  for (auto&& [k, v] : t)
    if (fit_array_of_tables(v))
      for (auto&& e : *v.as_array()) {
        out += "\n[[" + child(k) + "]]\n";
        fit_toml_table_text(out, *e.as_table(), child(k));
      }
}

}  // namespace

std::string fit_file_text(const FitFile& f) {
  toml::table t;
  t.insert("calibration", f.name);
  t.insert("calibration_file", f.calibration_file);
  t.insert("calibration_hash", f.calibration_hash);
  t.insert("nicsim_version", f.nicsim_version);
  t.insert("binary_hash", f.binary_hash);
  t.insert("platform", f.platform);
  t.insert("kernel_profile", f.kernel_profile);
  t.insert("cpu_profile", f.cpu_profile);
  t.insert("status", f.ok ? "ok" : "failed");
  t.insert("failure", f.failure);
  t.insert("objective", f.objective);
  t.insert("nominal_objective", f.nominal_objective);
  t.insert("evaluations", static_cast<int64_t>(f.evaluations));
  toml::array seeds;
  for (uint64_t s : f.seeds) seeds.push_back(static_cast<int64_t>(s));
  t.insert("seeds", seeds);
  toml::array params;
  for (auto& p : f.params)
    params.push_back(toml::table{{"set", p.set},
                                 {"integer", p.integer},
                                 {"fitted", p.fitted},
                                 {"nominal", p.nominal},
                                 {"bounds", num_array({p.lo, p.hi})},
                                 {"declared_bounds", num_array({p.declared_lo, p.declared_hi})},
                                 {"unit", p.unit},
                                 {"mechanism", p.mechanism},
                                 {"at_bound", p.at_bound}});
  t.insert("parameter", params);
  toml::array refs;
  for (auto& r : f.refs) {
    toml::table x{{"role", r.role},           {"ref_file", r.ref_file}, {"metric", r.metric},
                  {"group", r.group},         {"reference", r.reference}, {"error", r.error},
                  {"error_in_tolerances", r.error_in_tolerances}, {"within_tolerance", r.within}};
    if (r.simulated) x.insert("simulated", *r.simulated);
    refs.push_back(std::move(x));
  }
  t.insert("reference", refs);
  t.insert("train", summary_table(f.train));
  t.insert("validate", summary_table(f.validate));
  toml::table cv{{"note", f.cv_note}};
  if (f.cv_mean_abs) cv.insert("mean_abs_error", *f.cv_mean_abs);
  toml::array groups;
  for (auto& g : f.cv)
    groups.push_back(toml::table{{"group", g.group},
                                 {"fitted", num_array(g.fitted)},
                                 {"count", static_cast<int64_t>(g.count)},
                                 {"mean_abs_error", g.mean_abs}});
  cv.insert("group", groups);
  t.insert("cross_validation", cv);
  toml::array figs, rows;
  for (auto& s : f.sensitivity_figures) figs.push_back(s);
  for (auto& row : f.sensitivity) rows.push_back(num_array(row));
  t.insert("sensitivity", toml::table{{"figures", figs}, {"matrix", rows}});
  std::ostringstream ss;
  ss << "# Written by `nicsim calibrate " << f.calibration_file
     << "` (docs/calibration.md): the fit, its errors\n# on the training and validation references, and the "
        "sensitivities. Do not edit: a scenario naming\n# calibration = \""
     << f.name << "\" uses the fitted values only while " << f.calibration_file << " is unchanged.\n\n";
  std::string body;
  fit_toml_table_text(body, t, "");
  ss << body;
  return ss.str();
}

FitFile parse_fit_text(std::string_view text, const std::string& path) {
  if (auto p = check_toml_input(text))
    throw std::runtime_error(fmt::format("{}:{}:{}: {}", path, p->line, p->column, p->message));
  toml::table root;
  try {
    root = toml::parse(text, std::string_view(path));
  } catch (const toml::parse_error& e) {
    throw std::runtime_error(fmt::format("{}:{}:{}: {}", path, e.source().begin.line, e.source().begin.column,
                                         e.description()));
  }
  const Reader r{path, root, ""};
  FitFile f;
  f.name = r.str("calibration");
  f.calibration_file = r.str("calibration_file");
  f.calibration_hash = r.str("calibration_hash");
  f.nicsim_version = r.str("nicsim_version");
  f.binary_hash = r.str("binary_hash");
  f.platform = r.str("platform");
  f.kernel_profile = r.str("kernel_profile");
  f.cpu_profile = r.str("cpu_profile");
  const std::string status = r.str("status");
  if (status != "ok" && status != "failed") bad(path, "status", "must be \"ok\" or \"failed\"");
  f.ok = status == "ok";
  f.failure = r.str("failure");
  f.objective = r.num("objective");
  f.nominal_objective = r.num("nominal_objective");
  f.evaluations = static_cast<size_t>(r.integer("evaluations"));
  for (double s : r.nums("seeds")) f.seeds.push_back(static_cast<uint64_t>(s));
  size_t i = 0;
  for (auto* pt : r.tables("parameter")) {
    const Reader p = r.sub(*pt, fmt::format("parameter[{}]", i++));
    FitParam fp;
    fp.set = p.str("set");
    fp.integer = p.boolean("integer");
    fp.fitted = p.num("fitted");
    fp.nominal = p.num("nominal");
    auto b = p.nums("bounds"), d = p.nums("declared_bounds");
    if (b.size() != 2 || d.size() != 2) bad(path, p.key("bounds"), "must be [lo, hi]");
    fp.lo = b[0], fp.hi = b[1], fp.declared_lo = d[0], fp.declared_hi = d[1];
    fp.unit = p.str("unit");
    fp.mechanism = p.str("mechanism");
    fp.at_bound = p.boolean("at_bound");
    f.params.push_back(std::move(fp));
  }
  i = 0;
  for (auto* rt : r.tables("reference")) {
    const Reader x = r.sub(*rt, fmt::format("reference[{}]", i++));
    FitRef fr;
    fr.role = x.str("role");
    fr.ref_file = x.str("ref_file");
    fr.metric = x.str("metric");
    fr.group = x.str("group");
    fr.reference = x.str("reference");
    fr.simulated = x.opt_num("simulated");
    fr.error = x.num("error");
    fr.error_in_tolerances = x.boolean("error_in_tolerances");
    fr.within = x.boolean("within_tolerance");
    f.refs.push_back(std::move(fr));
  }
  f.train = read_summary(r.sub(r.table("train"), "train"));
  f.validate = read_summary(r.sub(r.table("validate"), "validate"));
  const Reader cv = r.sub(r.table("cross_validation"), "cross_validation");
  f.cv_note = cv.str("note");
  f.cv_mean_abs = cv.opt_num("mean_abs_error");
  i = 0;
  for (auto* gt : cv.tables("group")) {
    const Reader g = cv.sub(*gt, fmt::format("cross_validation.group[{}]", i++));
    f.cv.push_back({g.str("group"), g.nums("fitted"), static_cast<size_t>(g.integer("count")), g.num("mean_abs_error")});
  }
  const Reader sens = r.sub(r.table("sensitivity"), "sensitivity");
  if (const toml::array* figs = sens.need("figures").as_array())
    for (auto& e : *figs) f.sensitivity_figures.push_back(e.value<std::string>().value_or(""));
  if (const toml::array* rows = sens.need("matrix").as_array())
    for (auto& row : *rows) {
      std::vector<double> v;
      if (const toml::array* a = row.as_array())
        for (auto& e : *a) v.push_back(e.value<double>().value_or(0.0));
      f.sensitivity.push_back(std::move(v));
    }
  return f;
}

FitFile read_fit_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot be read");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_fit_text(ss.str(), path.string());
}

}  // namespace nicsim
