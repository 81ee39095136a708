#include "core/trace.h"
#include "core/result_names.h"
#include <map>

namespace nicsim {

nlohmann::json TraceLog::to_chrome_json() const {
  nlohmann::json events = nlohmann::json::array();
  std::map<std::string, int> tids;
  for (auto& s : spans_) {
    auto [it, fresh] = tids.emplace(s.track, static_cast<int>(tids.size()) + 1);
    if (fresh)  // the track under the scenario's names (core/result_names.h)
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", it->second},
                        {"args", {{"name", result_names()(s.track)}}}});
    events.push_back({{"ph", "X"}, {"name", s.name}, {"pid", 1}, {"tid", it->second},
                      {"ts", to_us(s.start)}, {"dur", to_us(s.end - s.start)}});
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
}

}  // namespace nicsim
