#include "cli/calibration_file.h"
#include "drivers-sim/kernel/profiles.h"
#include "platforms/calibration_fit.h"
#include "platforms/testbed.h"
#include "platforms/toml_input.h"
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>

namespace nicsim {
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTop = {"description", "platform", "kernel_profile", "cpu_profile", "seeds",
                                       "parameter",   "train",    "validate"};
const std::vector<std::string> kParamKeys = {"set", "bounds"};
const std::vector<std::string> kSelectionKeys = {"ref", "metrics", "group", "short"};

template <typename Entry>
std::vector<std::string> names_of() {
  std::vector<std::string> v;
  for (auto& [k, _] : Registry<Entry>::instance().all()) v.push_back(k);
  return v;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string near = nearest_name(word, candidates);
  return near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near);
}

const toml::array& array_or_fail(const fs::path& file, const toml::node& n, const std::string& key) {
  if (!n.is_array()) fail_at(file, n.source(), key, fmt::format("must be an array, got {}", node_type(n)));
  return *n.as_array();
}

/// The schema entry `set` names for `platform`: "hosts.*.KEY" (a platform parameter) or
/// "hosts.*.nics.*.KEY" (a device's or driver's), with its owner's name.
std::pair<ParamSpec, std::string> resolve_param(const fs::path& file, const toml::node& n, const std::string& key,
                                                const std::string& set, const PlatformEntry& plat) {
  std::vector<std::pair<ParamSpec, std::string>> found;
  std::vector<std::string> names;
  std::string pkey;
  if (set.rfind("hosts.*.nics.*.", 0) == 0 && set.size() > 15 && set.find('.', 15) == std::string::npos) {
    pkey = set.substr(15);
    for (auto& [dn, d] : Registry<DeviceEntry>::instance().all())
      for (auto& p : d.params) {
        names.push_back(p.name);
        if (p.name == pkey) found.emplace_back(p, "device " + dn);
      }
    for (auto& [dn, d] : Registry<DriverEntry>::instance().all())
      for (auto& p : d.params) {
        names.push_back(p.name);
        if (p.name == pkey) found.emplace_back(p, "driver " + dn);
      }
  } else if (set.rfind("hosts.*.", 0) == 0 && set.size() > 8 && set.find('.', 8) == std::string::npos) {
    pkey = set.substr(8);
    for (auto& p : plat.params) {
      names.push_back(p.name);
      if (p.name == pkey) found.emplace_back(p, "platform " + plat.name);
    }
  } else {
    fail_at(file, n.source(), key,
            fmt::format("'{}' is not a parameter path a calibration fits: write \"hosts.*.KEY\" for a platform "
                        "parameter or \"hosts.*.nics.*.KEY\" for a device's or driver's (nicsim list calibratable)",
                        set));
  }
  if (found.empty())
    fail_at(file, n.source(), key,
            fmt::format("'{}' is not a parameter of {}{}", pkey,
                        set.rfind("hosts.*.nics.", 0) == 0 ? "any device or driver" : "platform " + plat.name,
                        did_you_mean(pkey, names)));
  for (auto& f : found)
    if (calib_bounds(f.first)) return f;
  const ParamSpec& p = found.front().first;
  if (p.source.rfind("estimate", 0) != 0)
    fail_at(file, n.source(), key,
            fmt::format("{} of {} is a sourced constant ({}): sourced values are never fitted", pkey,
                        found.front().second, p.source.empty() ? "its schema entry" : p.source));
  fail_at(file, n.source(), key,
          fmt::format("{} of {} is an estimate without declared calibration bounds: a parameter is fitted only "
                      "within hard bounds argued from physics (calibratable(), core/params.h; nicsim list "
                      "calibratable lists those that have them)",
                      pkey, found.front().second));
}

CalibrationRefs read_refs(const fs::path& file, const toml::table& t, const std::string& base) {
  CalibrationRefs r;
  r.line = static_cast<int>(t.source().begin.line);
  for (auto&& [k, v] : t)
    if (std::find(kSelectionKeys.begin(), kSelectionKeys.end(), k.str()) == kSelectionKeys.end())
      unknown_key(file, k, base + "." + std::string(k.str()), kSelectionKeys, "a reference selection");
  const toml::node* ref = t.get("ref");
  if (!ref) fail_at(file, t.source(), base + ".ref", "missing (the .ref.toml file, relative to this file)");
  r.ref_text = string_or_fail(file, *ref, base + ".ref");
  if (r.ref_text.size() < 9 || r.ref_text.compare(r.ref_text.size() - 9, 9, ".ref.toml") != 0)
    fail_at(file, ref->source(), base + ".ref", fmt::format("'{}' is not a reference file (X.ref.toml)", r.ref_text));
  r.ref_file = (file.parent_path() / r.ref_text).lexically_normal();
  if (!fs::is_regular_file(r.ref_file))
    fail_at(file, ref->source(), base + ".ref",
            fmt::format("no such file {} (paths are relative to the calibration file's directory)", r.ref_file.string()));
  try {
    r.file = parse_ref_file(r.ref_file);
  } catch (const RefFileError& e) {
    fail_at(file, ref->source(), base + ".ref", e.what());
  }
  if (const toml::node* m = t.get("metrics")) {
    const toml::array& a = array_or_fail(file, *m, base + ".metrics");
    if (a.empty()) fail_at(file, m->source(), base + ".metrics", "is empty (leave it out to take every reference)");
    std::vector<std::string> have;
    for (auto& ref_ : r.file.refs) have.push_back(metric_text(ref_));  // "m", or "m - [other]" for a vs
    std::set<size_t> chosen;
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string mk = fmt::format("{}.metrics[{}]", base, i);
      const std::string name = string_or_fail(file, *a.get(i), mk);
      bool any = false;
      for (size_t j = 0; j < r.file.refs.size(); ++j)
        if (metric_text(r.file.refs[j]) == name) chosen.insert(j), any = true;
      if (!any)
        fail_at(file, a.get(i)->source(), mk,
                fmt::format("{} has no reference on metric '{}'{}", r.ref_file.string(), name, did_you_mean(name, have)));
    }
    r.selected.assign(chosen.begin(), chosen.end());
  } else {
    for (size_t j = 0; j < r.file.refs.size(); ++j) r.selected.push_back(j);
  }
  if (const toml::node* sh = t.get("short")) {
    // The seeds' convention: NAME.full.toml is the published method, NAME.toml beside it the short
    // variant of the same set-up. Every scenario the figures run (their own, each `vs`) is replaced.
    const auto* b = sh->as_boolean();
    if (!b) fail_at(file, sh->source(), base + ".short", "expects true or false, not " + node_type(*sh));
    if (b->get()) {
      auto short_of = [&](const fs::path& full) {
        const std::string name = full.filename().string();
        const std::string tail = ".full.toml";
        if (name.size() <= tail.size() || name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
          fail_at(file, sh->source(), base + ".short",
                  fmt::format("{} is not a NAME.full.toml scenario, so it has no short variant", full.string()));
        const fs::path s = full.parent_path() / (name.substr(0, name.size() - tail.size()) + ".toml");
        if (!fs::is_regular_file(s))
          fail_at(file, sh->source(), base + ".short",
                  fmt::format("no short variant {} beside {}", s.string(), full.string()));
        return s;
      };
      r.file.scenario = short_of(r.file.scenario);
      for (size_t j : r.selected)
        if (r.file.refs[j].vs) r.file.refs[j].vs = short_of(*r.file.refs[j].vs);
    }
  }
  if (const toml::node* g = t.get("group")) r.group = string_or_fail(file, *g, base + ".group");
  else r.group = r.ref_file.parent_path().filename().string();
  return r;
}

}  // namespace

CalibrationFile load_calibration_file(const fs::path& path) {
  CalibrationFile cf;
  cf.path = path;
  std::string name = path.filename().string();
  if (name.size() <= 5 || name.compare(name.size() - 5, 5, ".toml") != 0 ||
      (name.size() > 9 && name.compare(name.size() - 9, 9, ".fit.toml") == 0))
    throw RefFileError(fmt::format("{}: a calibration file is named NAME.toml (NAME.fit.toml is its fit)", path.string()));
  cf.name = name.substr(0, name.size() - 5);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RefFileError(fmt::format("{}: cannot be read", path.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  cf.hash = content_hash(text);
  if (auto p = check_toml_input(text))
    throw RefFileError(fmt::format("{}:{}:{}: {}", path.string(), p->line, p->column, p->message));
  toml::table root;
  try {
    root = toml::parse(text, path.string());
  } catch (const toml::parse_error& e) {
    throw RefFileError(fmt::format("{}:{}:{}: {}", path.string(), e.source().begin.line, e.source().begin.column,
                                   e.description()));
  }
  for (auto&& [k, v] : root)
    if (std::find(kTop.begin(), kTop.end(), k.str()) == kTop.end())
      unknown_key(path, k, std::string(k.str()), kTop, "a calibration file");
  if (const toml::node* d = root.get("description")) cf.description = string_or_fail(path, *d, "description");

  const toml::node* pl = root.get("platform");
  if (!pl) fail_at(path, root.source(), "platform", "missing (the platform this calibration is for; nicsim list platforms)");
  cf.platform = string_or_fail(path, *pl, "platform");
  const PlatformEntry* plat = Registry<PlatformEntry>::instance().find(cf.platform);
  if (!plat)
    fail_at(path, pl->source(), "platform",
            fmt::format("unknown platform '{}'{}", cf.platform, did_you_mean(cf.platform, names_of<PlatformEntry>())));
  if (const toml::node* k = root.get("kernel_profile")) {
    cf.kernel_profile = string_or_fail(path, *k, "kernel_profile");
    if (!Registry<KernelProfile>::instance().find(cf.kernel_profile))
      fail_at(path, k->source(), "kernel_profile",
              fmt::format("unknown kernel profile '{}'{}", cf.kernel_profile,
                          did_you_mean(cf.kernel_profile, names_of<KernelProfile>())));
  }
  if (const toml::node* c = root.get("cpu_profile")) {
    cf.cpu_profile = string_or_fail(path, *c, "cpu_profile");
    if (!Registry<CpuProfile>::instance().find(cf.cpu_profile))
      fail_at(path, c->source(), "cpu_profile",
              fmt::format("unknown CPU profile '{}'{}", cf.cpu_profile, did_you_mean(cf.cpu_profile, names_of<CpuProfile>())));
  }
  if (const toml::node* s = root.get("seeds")) {
    const toml::array& a = array_or_fail(path, *s, "seeds");
    if (a.empty()) fail_at(path, s->source(), "seeds", "is empty (leave it out to use each scenario's own seed)");
    for (size_t i = 0; i < a.size(); ++i) {
      auto v = a.get(i)->value<int64_t>();
      if (!a.get(i)->is_integer() || !v || *v < 0)
        fail_at(path, a.get(i)->source(), fmt::format("seeds[{}]", i), "must be an integer from 0 up");
      cf.seeds.push_back(static_cast<uint64_t>(*v));
    }
  }

  auto tables = [&](const char* key) {
    std::vector<const toml::table*> out;
    const toml::node* n = root.get(key);
    if (!n) return out;
    const toml::array* a = n->as_array();
    if (!a || !a->is_array_of_tables())
      fail_at(path, n->source(), key, fmt::format("must be an array of tables ([[{}]])", key));
    for (auto& e : *a) out.push_back(e.as_table());
    return out;
  };
  size_t i = 0;
  for (const toml::table* t : tables("parameter")) {
    const std::string base = fmt::format("parameter[{}]", i++);
    for (auto&& [k, v] : *t)
      if (std::find(kParamKeys.begin(), kParamKeys.end(), k.str()) == kParamKeys.end())
        unknown_key(path, k, base + "." + std::string(k.str()), kParamKeys, "a [[parameter]]");
    const toml::node* set = t->get("set");
    if (!set) fail_at(path, t->source(), base + ".set", "missing (the parameter's --set path, e.g. \"hosts.*.hub_crossing_ns\")");
    CalibrationParam p;
    p.line = static_cast<int>(t->source().begin.line);
    p.set = string_or_fail(path, *set, base + ".set");
    for (auto& q : cf.params)
      if (q.set == p.set) fail_at(path, set->source(), base + ".set", fmt::format("'{}' is fitted twice (line {})", p.set, q.line));
    std::tie(p.spec, p.owner) = resolve_param(path, *set, base + ".set", p.set, *plat);
    p.lo = p.calib().lo;
    p.hi = p.calib().hi;
    p.nominal = p.spec.kind == ParamKind::Int ? static_cast<double>(std::get<int64_t>(p.spec.def)) : std::get<double>(p.spec.def);
    if (const toml::node* b = t->get("bounds")) {
      const toml::array& a = array_or_fail(path, *b, base + ".bounds");
      if (a.size() != 2) fail_at(path, b->source(), base + ".bounds", "must be [lo, hi]");
      const double lo = number_or_fail(path, *a.get(0), base + ".bounds[0]");
      const double hi = number_or_fail(path, *a.get(1), base + ".bounds[1]");
      if (!(lo < hi)) fail_at(path, b->source(), base + ".bounds", fmt::format("lo {} must be below hi {}", lo, hi));
      if (lo < p.lo || hi > p.hi)
        fail_at(path, b->source(), base + ".bounds",
                fmt::format("bounds may only narrow the declared [{}, {}] {} of {} (their physical arguments: nicsim "
                            "list calibratable)",
                            p.lo, p.hi, p.spec.unit, p.spec.name));
      p.lo = lo;
      p.hi = hi;
    }
    cf.params.push_back(std::move(p));
  }
  if (cf.params.empty()) fail_at(path, root.source(), "parameter", "missing (at least one [[parameter]] to fit)");
  i = 0;
  for (const toml::table* t : tables("train")) cf.train.push_back(read_refs(path, *t, fmt::format("train[{}]", i++)));
  i = 0;
  for (const toml::table* t : tables("validate")) cf.validate.push_back(read_refs(path, *t, fmt::format("validate[{}]", i++)));
  if (cf.train.empty()) fail_at(path, root.source(), "train", "missing (at least one [[train]] reference file)");
  return cf;
}

}  // namespace nicsim
