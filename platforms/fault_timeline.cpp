#include "platforms/fault_timeline.h"
#include "core/result_names.h"
#include "models/ether/link_faults.h"
#include "platforms/testbed.h"
#include <fmt/format.h>
#include <limits>

namespace nicsim {

nlohmann::json fault_timeline_json(const Scenario& s, const EventLog& log, Testbed* tb) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < s.faults.size(); ++i) {
    const FaultConfig& f = s.faults[i];
    const LinkConfig& l = s.links.at(f.link);
    // The window: until the next fault on the same link that starts later (events of a replug
    // belong to the replug).
    // A frame error rate's events are those of its window (TCP's timeouts, mostly).
    double end = std::numeric_limits<double>::infinity();
    if (f.type == "frame_error_rate") {
      if (f.until_s > 0) end = f.until_s;
    } else {
      for (const FaultConfig& g : s.faults)
        if (g.link == f.link && g.at_s > f.at_s && g.type != "frame_error_rate") end = std::min(end, g.at_s);
    }
    nlohmann::json j = {{"fault", i}, {"type", f.type}, {"at_s", f.at_s}, {"link", fmt::format("links.{}", f.link)},
                        {"a", l.a}, {"b", l.b}};
    if (!f.port.empty()) j["port"] = f.port;
    nlohmann::json evs = nlohmann::json::array();
    nlohmann::json milestones = nlohmann::json::object();
    {
      for (const RunEvent& e : log.events()) {
        const double t = to_s(e.at);
        // The fault's own instant counts (an event noted at exactly at_s); a tiny epsilon keeps
        // a binary rounding of at_s from dropping it.
        if (t + 1e-12 < f.at_s || t >= end) continue;
        const double after_ms = (t - f.at_s) * 1e3;
        nlohmann::json ej = {{"t_s", t}, {"after_ms", after_ms}, {"where", result_names()(e.where)}, {"what", e.what}};
        if (!e.detail.empty()) ej["detail"] = e.detail;
        evs.push_back(ej);
        if (!milestones.contains(e.what)) milestones[e.what] = after_ms;
      }
    }
    j["events"] = evs;
    j["milestones"] = milestones;
    if (f.type == "frame_error_rate") {
      j["rate"] = f.rate;
      j["until_s"] = f.until_s;
      if (tb) {
        auto* link = dynamic_cast<const EthLink*>(tb->links().at(f.link).get());
        if (link) j["frames_corrupted"] = LinkFaults::corrupted(*link, f.side == 1 ? 0 : 1);
      }
    }
    out.push_back(j);
  }
  return out;
}

void print_fault_timeline(std::ostream& out, const nlohmann::json& faults) {
  for (const auto& f : faults) {
    out << fmt::format("\nFault {}: {} on {} ({} <-> {}) at {:.3f} s", f["fault"].get<size_t>(),
                       f["type"].get<std::string>(), f["link"].get<std::string>(), f["a"].get<std::string>(),
                       f["b"].get<std::string>(), f["at_s"].get<double>());
    if (f.contains("port")) out << fmt::format(", port {}", f["port"].get<std::string>());
    out << "\n";
    if (f.contains("frames_corrupted"))
      out << fmt::format("  frame error rate {:g}: {} frames arrived with a bad FCS\n", f["rate"].get<double>(),
                         f["frames_corrupted"].get<uint64_t>());
    for (const auto& e : f["events"]) {
      out << fmt::format("  +{:>10.3f} ms  {:<18} {}", e["after_ms"].get<double>(), e["where"].get<std::string>(),
                         e["what"].get<std::string>());
      if (e.contains("detail")) out << "  (" << e["detail"].get<std::string>() << ")";
      out << "\n";
    }
  }
}

}  // namespace nicsim
