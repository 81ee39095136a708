#include "core/result_names.h"

namespace nicsim {

namespace {
bool boundary_after(std::string_view s, size_t pos) {
  return pos == s.size() || s[pos] == '.' || s[pos] == ':' || s[pos] == '/' || s[pos] == ' ';
}
}  // namespace

std::string ResultNames::operator()(std::string_view name) const {
  if (map_.empty()) return std::string(name);
  std::string out;
  out.reserve(name.size());
  size_t i = 0;
  while (i < name.size()) {
    const bool starts_token = i == 0 || name[i - 1] == '/' || name[i - 1] == ' ';
    if (starts_token) {
      // Longest declared model name that is a prefix of name[i..] ending at a boundary.
      const std::string* best_scenario = nullptr;
      size_t best_len = 0;
      for (size_t len = 1; i + len <= name.size(); ++len) {
        if (!boundary_after(name, i + len)) continue;
        auto it = map_.find(name.substr(i, len));
        if (it != map_.end()) {
          best_scenario = &it->second;
          best_len = len;
        }
      }
      if (best_scenario) {
        out += *best_scenario;
        i += best_len;
        continue;
      }
    }
    out += name[i++];
  }
  return out;
}

ResultNames& result_names() {
  static ResultNames names;
  return names;
}

}  // namespace nicsim
