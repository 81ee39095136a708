// Registries of named components (platforms, devices, drivers, workloads). A component registers
// itself from its own .cpp with a static Registrar, so `nicsim list` always answers from what the
// binary really contains, never from a hand-kept list.
#pragma once
#include "core/params.h"
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace nicsim {

/// Registry of entries of type `Entry` (which must have `std::string name` and
/// `std::string summary`), one registry per Entry type.
template <typename Entry>
class Registry {
 public:
  static Registry& instance() {
    static Registry r;
    return r;
  }
  void add(Entry e) {
    std::string n = e.name;
    entries_.insert_or_assign(n, std::move(e));
  }
  /// The entry named `name`, or nullptr.
  const Entry* find(const std::string& name) const {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> v;
    for (auto& [k, _] : entries_) v.push_back(k);
    return v;
  }
  const std::map<std::string, Entry>& all() const { return entries_; }

 private:
  std::map<std::string, Entry> entries_;
};

/// `static Registrar<PlatformEntry> reg{PlatformEntry{...}};` in a component's .cpp.
template <typename Entry>
struct Registrar {
  explicit Registrar(Entry e) { Registry<Entry>::instance().add(std::move(e)); }
};

}  // namespace nicsim
