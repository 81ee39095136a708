#include "drivers-sim/apps/lmbench_logic.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <stdexcept>

namespace nicsim {

std::string lmbench_micro_line(const std::string& label, double usecs, uint64_t n) {
  return fmt::format("{}: {:.4f} microseconds\n", label, usecs / static_cast<double>(n ? n : 1));
}

std::string lat_ctx_header(int size_kb, double overhead_us) {
  return fmt::format("\n\"size={}k ovr={:.2f}\n", size_kb, overhead_us);
}

std::string lat_ctx_line(int procs, double us) { return fmt::format("{} {:.2f}\n", procs, us); }

std::optional<LmbenchMicro> parse_lmbench_micro(const std::string& line) {
  std::string s = line;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  const std::string tail = " microseconds";
  if (s.size() <= tail.size() || s.compare(s.size() - tail.size(), tail.size(), tail) != 0) return std::nullopt;
  s.resize(s.size() - tail.size());
  const auto colon = s.rfind(": ");
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  const std::string num = s.substr(colon + 2);
  if (num.empty()) return std::nullopt;
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(num, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != num.size()) return std::nullopt;
  return LmbenchMicro{s.substr(0, colon), v};
}

std::optional<std::pair<int, double>> parse_lat_ctx_line(const std::string& line) {
  int procs = 0;
  double us = 0;
  char extra = 0;
  if (std::sscanf(line.c_str(), "%d %lf %c", &procs, &us, &extra) != 2) return std::nullopt;
  return std::make_pair(procs, us);
}

double lmbench_median_usecs(std::vector<uint64_t> usecs) {
  if (usecs.empty()) throw std::invalid_argument("lmbench_median_usecs: no runs");
  std::sort(usecs.begin(), usecs.end(), std::greater<>());  // insertsort: biggest to smallest
  const size_t i = usecs.size() / 2;
  if (usecs.size() % 2) return static_cast<double>(usecs[i]);
  return static_cast<double>((usecs[i] + usecs[i - 1]) / 2);  // save_median's integer mean
}

uint64_t lmbench_whole_usecs(double seconds) { return static_cast<uint64_t>(std::floor(seconds * 1e6 + 1e-6)); }

}  // namespace nicsim
