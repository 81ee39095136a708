#include "platforms/fault_timeline.h"
#include "core/result_names.h"
#include "models/ether/link_faults.h"
#include "drivers-sim/drivers/bonding/bonding.h"
#include "drivers-sim/drivers/e1000/e1000.h"
#include "drivers-sim/drivers/tg3/tg3.h"
#include "drivers-sim/kernel/ethtool_text.h"
#include "platforms/host_software.h"
#include "platforms/testbed.h"
#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>
#include <tuple>

namespace nicsim {

namespace {
/// The end of fault `f`'s window: until the next fault on the same link that starts later (the
/// events of a replug belong to the replug); a frame error rate's: its own window.
double window_end(const Scenario& s, const FaultConfig& f) {
  double end = std::numeric_limits<double>::infinity();
  if (f.type == "frame_error_rate") {
    if (f.until_s > 0) end = f.until_s;
  } else {
    for (const FaultConfig& g : s.faults)
      if (g.link == f.link && g.at_s > f.at_s && g.type != "frame_error_rate") end = std::min(end, g.at_s);
  }
  return end;
}
}  // namespace

nlohmann::json fault_timeline_json(const Scenario& s, const EventLog& log, Testbed* tb) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < s.faults.size(); ++i) {
    const FaultConfig& f = s.faults[i];
    const LinkConfig& l = s.links.at(f.link);
    const double end = window_end(s, f);
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
        if (!e.view_path.empty()) ej["view"] = {{"path", e.view_path}, {"text", e.view}};
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
      if (e.contains("view") && e["what"] == "active slave changed") {
        out << fmt::format("{:16}$ cat {}\n", "", e["view"]["path"].get<std::string>());
        const std::string text = e["view"]["text"].get<std::string>();
        for (size_t b = 0, n; b < text.size(); b = n + 1) {
          n = text.find('\n', b);
          if (n == std::string::npos) n = text.size();
          out << (n == b ? std::string("\n") : fmt::format("{:16}{}\n", "", text.substr(b, n - b)));
        }
      }
    }
  }
}

nlohmann::json fault_marks_json(const nlohmann::json& faults) {
  std::vector<std::tuple<double, std::string, std::string>> marks;  // t_s, kind, label
  for (const auto& f : faults) {
    const double at = f["at_s"].get<double>();
    marks.emplace_back(at, "fault",
                       fmt::format("fault {}: {} {}", f["fault"].get<size_t>(), f["type"].get<std::string>(),
                                   f.contains("port") ? f["port"].get<std::string>() : f["link"].get<std::string>()));
    if (f.contains("until_s") && f["until_s"].get<double>() > 0)
      marks.emplace_back(f["until_s"].get<double>(), "fault", fmt::format("fault {} ends", f["fault"].get<size_t>()));
    for (const auto& e : f["events"]) {
      const std::string where = e["where"].get<std::string>();
      if (where.find(".tcp") != std::string::npos) continue;
      if (where.rfind("links.", 0) == 0 && std::abs(e["after_ms"].get<double>()) < 1e-6) continue;
      marks.emplace_back(e["t_s"].get<double>(), "event", where + " " + e["what"].get<std::string>());
    }
  }
  std::stable_sort(marks.begin(), marks.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  nlohmann::json out = nlohmann::json::array();
  for (auto& [t, kind, label] : marks) {
    if (!out.empty() && std::abs(out.back()["t_s"].get<double>() - t) < 1e-9) {  // one mark per instant
      out.back()["label"] = out.back()["label"].get<std::string>() + "; " + label;
      if (kind == "fault") out.back()["kind"] = "fault";
      continue;
    }
    out.push_back({{"t_s", t}, {"label", label}, {"kind", kind}});
  }
  return out;
}

void attach_tcp_timeouts(nlohmann::json& transfer, const EventLog& log, const Scenario& s) {
  // Each fault's span: [at_s, end) as fault_timeline_json windows it; a replug is an instant.
  struct Span {
    size_t i;
    double from, to;
  };
  std::vector<Span> spans;
  for (size_t i = 0; i < s.faults.size(); ++i) {
    const FaultConfig& f = s.faults[i];
    spans.push_back({i, f.at_s, f.type == "cable_replug" ? f.at_s : window_end(s, f)});
  }
  for (auto& [host, h] : transfer.items()) {
    if (!h.contains("sockets")) continue;
    for (auto& sk : h["sockets"]) {
      if (!sk.contains("id")) continue;
      const std::string where = fmt::format("{}.tcp{}", host, sk["id"].get<size_t>());
      nlohmann::json timeouts = nlohmann::json::array(), resumed = nlohmann::json::array();
      double prev_next_ms = 0;
      bool in_episode = false;  // a timeout since the last "new data acked"
      for (const RunEvent& e : log.events()) {
        if (e.where != where) continue;
        const double t = to_s(e.at);
        unsigned n = 0;
        double next_ms = 0;
        // The details InetHost writes (drivers-sim/net/inet.cpp): "backoff N, next RTO X ms",
        // "local drop (NET_XMIT_DROP): backoff N kept, retry in X ms" and "first ACK of new data
        // after N timeout(s)".
        if (e.what == "TCP new data acked" &&
            std::sscanf(e.detail.c_str(), "first ACK of new data after %u", &n) == 1) {
          resumed.push_back({{"t_s", t}, {"after_timeouts", n}});
          in_episode = false;
          continue;
        }
        if (e.what != "TCP retransmission timeout") continue;
        const bool local = std::sscanf(e.detail.c_str(), "local drop (NET_XMIT_DROP): backoff %u kept, retry in %lf",
                                       &n, &next_ms) == 2;
        if (!local && std::sscanf(e.detail.c_str(), "backoff %u, next RTO %lf", &n, &next_ms) != 2) continue;
        // The timer that expired: what the episode's previous timeout armed; at an episode's first,
        // half the doubled RTO (a local drop keeps it: its retry, min(RTO, 500 ms), is the RTO on a LAN).
        const double rto_ms = in_episode ? prev_next_ms : local ? next_ms : next_ms / 2;
        const double armed = t - rto_ms * 1e-3;
        nlohmann::json in = nlohmann::json::array();
        for (const Span& sp : spans) {
          const bool inside = sp.from == sp.to ? (sp.from >= armed && sp.from <= t) : (sp.from < t && sp.to > armed);
          if (!inside) continue;
          const FaultConfig& f = s.faults[sp.i];
          in.push_back({{"fault", sp.i}, {"type", f.type}, {"at_s", f.at_s}, {"link", fmt::format("links.{}", f.link)}});
        }
        nlohmann::json tj = {{"t_s", t}, {"rto_ms", rto_ms}, {"armed_s", armed}, {"backoff", n},
                             {"next_rto_ms", next_ms}, {"faults", in}};
        if (local) tj["local_drop"] = true;
        timeouts.push_back(tj);
        in_episode = true;
        prev_next_ms = next_ms;
      }
      if (!timeouts.empty()) sk["timeouts"] = timeouts;
      if (!resumed.empty()) sk["resumed"] = resumed;
    }
  }
}

nlohmann::json host_views_json(TestbedSoftware& sw) {
  nlohmann::json out = nlohmann::json::object();
  for (auto& [host, hs] : sw.hosts) {
    nlohmann::json views = nlohmann::json::object();
    const auto bonds = bonding::host_bonds(*hs->kernel);
    if (!bonds.empty()) {
      const std::string text = bonding::proc_net_bond_info(bonds);
      for (const bonding::Bonding* b : bonds) views["/proc/net/" + b->name() + "/info"] = text;
    }
    for (auto& [name, dev] : hs->netdevs) {
      if (auto* a = dynamic_cast<const e1000drv::Adapter*>(dev.get())) {
        if (std::string t = a->ethtool_stats_text(); !t.empty()) views["ethtool -S " + name] = t;
        if (std::string t = a->proc_pro_lan_info(); !t.empty())
          views["/proc/net/PRO_LAN_Adapters/" + name + ".info"] = t;
      } else if (dynamic_cast<const tg3drv::Tg3*>(dev.get())) {
        // tg3 0.99 and 1.0 (like 1.2 to 2.6) have no ETHTOOL_GSTATS (research/link-faults-failover.md §A3).
        views["ethtool -S " + name] = ethtool_stats_listing({});
      }
    }
    if (!views.empty()) out[host] = views;
  }
  return out;
}

std::string host_view_file_name(const std::string& host, const std::string& path) {
  std::string f = host + ".";
  for (char c : path.front() == '/' ? path.substr(1) : path) f += (c == '/' || c == ' ') ? '_' : c;
  return f + ".txt";
}

}  // namespace nicsim
