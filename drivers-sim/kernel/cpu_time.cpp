#include "drivers-sim/kernel/cpu_time.h"
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace nicsim {
namespace {

struct WhatTable {
  std::vector<std::string> names;
  std::unordered_map<std::string, uint16_t> index;
  uint16_t intern(const std::string& n) {
    auto it = index.find(n);
    if (it != index.end()) return it->second;
    if (names.size() >= 0xffff) throw std::length_error("CPU profile: more than 65535 'what' names");
    names.push_back(n);
    return index[n] = static_cast<uint16_t>(names.size() - 1);
  }
};

WhatTable& table() {
  static WhatTable t = [] {
    WhatTable w;
    w.intern("(untagged)");
    for (size_t i = 0; i < kCostCount; ++i) w.intern(cost_name(static_cast<CostId>(i)));  // tag 1 + i
    return w;
  }();
  return t;
}

}  // namespace

uint16_t what_tag(const std::string& name) { return table().intern(name); }

const std::string& what_name(uint16_t tag) { return table().names.at(tag); }

const char* what_kind(uint16_t tag) {
  if (tag == kWhatUntagged) return "untagged";
  const std::string& n = what_name(tag);
  if (n.rfind("MMIO ", 0) == 0 || n.rfind("I/O ", 0) == 0 || n.rfind("cache miss", 0) == 0) return "stall";
  return "cost";
}

}  // namespace nicsim
