#include "core/calib.h"
#include <map>
#include <stdexcept>

namespace nicsim {
namespace {

std::string key_of(const ParamSpec& s) { return s.name + '\n' + s.source + '\n' + s.doc; }

/// Declarations are made while the registries are filled (static initialisation): a function-local
/// map is constructed on first use.
std::map<std::string, CalibBounds>& declared() {
  static std::map<std::string, CalibBounds> m;
  return m;
}

}  // namespace

ParamSpec calibratable(ParamSpec s, double lo, std::string lo_why, double hi, std::string hi_why,
                       std::string mechanism) {
  auto bad = [&](const std::string& why) { throw std::logic_error("calibratable parameter " + s.name + ": " + why); };
  if (s.source.rfind("estimate", 0) != 0) bad("its source is not an estimate (sourced constants are never fitted)");
  if (s.kind != ParamKind::Int && s.kind != ParamKind::Real) bad("only integer and number parameters can be fitted");
  if (lo_why.empty() || hi_why.empty() || mechanism.empty()) bad("each bound needs its argument, and the mechanism");
  const double def = s.kind == ParamKind::Int ? static_cast<double>(std::get<int64_t>(s.def)) : std::get<double>(s.def);
  if (!(lo < hi) || def < lo || def > hi) bad("the bounds must satisfy lo < hi and lo <= default <= hi");
  if ((s.min && lo < *s.min) || (s.max && hi > *s.max)) bad("the bounds must lie inside the parameter's range");
  declared()[key_of(s)] = CalibBounds{lo, hi, std::move(lo_why), std::move(hi_why), std::move(mechanism)};
  return s;
}

const CalibBounds* calib_bounds(const ParamSpec& spec) {
  auto it = declared().find(key_of(spec));
  return it == declared().end() ? nullptr : &it->second;
}

}  // namespace nicsim
