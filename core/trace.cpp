#include "core/trace.h"
#include "core/result_names.h"
#include "core/trace_extra.h"
#include <map>

namespace nicsim {

TraceExtras& trace_extras() {
  static TraceExtras x;
  return x;
}

nlohmann::json TraceLog::to_chrome_json() const {
  nlohmann::json events = nlohmann::json::array();
  std::map<std::string, int> tids;
  auto tid = [&](const std::string& track) {
    auto [it, fresh] = tids.emplace(track, static_cast<int>(tids.size()) + 1);
    if (fresh)  // the track under the scenario's names (core/result_names.h)
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", it->second},
                        {"args", {{"name", result_names()(track)}}}});
    return it->second;
  };
  for (auto& s : spans_) {
    const int t = tid(s.track);
    events.push_back({{"ph", "X"}, {"name", s.name}, {"pid", 1}, {"tid", t},
                      {"ts", to_us(s.start)}, {"dur", to_us(s.end - s.start)}});
  }
  for (auto& c : trace_extras().counters)  // one counter track per name (Perfetto groups "C" events by pid and name)
    events.push_back({{"ph", "C"}, {"name", c.name}, {"pid", 1}, {"ts", to_us(c.t)}, {"args", {{"value", c.value}}}});
  for (auto& i : trace_extras().instants) {
    const int t = tid(i.track);
    nlohmann::json e = {{"ph", "i"}, {"s", "t"}, {"name", i.name}, {"pid", 1}, {"tid", t}, {"ts", to_us(i.t)}};
    if (!i.args.is_null()) e["args"] = i.args;
    events.push_back(std::move(e));
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
}

}  // namespace nicsim
