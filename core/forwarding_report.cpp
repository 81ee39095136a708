#include "core/forwarding_report.h"
#include <algorithm>
#include <fmt/format.h>

namespace nicsim {
namespace {

using json = nlohmann::json;

bool ends_with(const std::string& s, const std::string& t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

double ceiling_of(double ns) { return ns > 0 ? 1e6 / ns : 0; }

}  // namespace

std::vector<ForwardingResources> forwarding_resources(const json& result) {
  std::vector<ForwardingResources> out;
  const json counters = result.value("counters", json::object());
  const json prof = result.value("cpu_profile", json::object());
  const json metrics = result.value("metrics", json::object());
  const std::string fwd_suffix = ".netstat.Ip.ForwDatagrams";
  for (auto& [key, v] : counters.items()) {
    if (!ends_with(key, fwd_suffix) || !v.is_number() || v.get<double>() <= 0) continue;
    ForwardingResources h;
    h.host = key.substr(0, key.size() - fwd_suffix.size());
    h.forwarded = v.get<double>();
    if (metrics.contains("forwarded_kpps") && metrics["forwarded_kpps"].is_number())
      h.forwarded_kpps = metrics["forwarded_kpps"].get<double>();
    auto row = [&](std::string name, double total_ns, bool part) {
      ForwardingResource r;
      r.name = std::move(name);
      r.part = part;
      r.ns_per_packet = total_ns / h.forwarded;
      r.ceiling_kpps = part ? 0 : ceiling_of(r.ns_per_packet);
      r.utilisation = r.ns_per_packet * h.forwarded_kpps * 1e-6;
      return r;
    };
    // CPUs: busy time from the profile (exact picoseconds), split by what the entries are.
    std::vector<ForwardingResource> cpus;
    if (prof.contains(h.host))
      for (auto& [cpu, c] : prof[h.host].items()) {
        const json& lv = c.at("levels");
        const double busy_ps = lv.value("hardirq", 0.0) + lv.value("softirq", 0.0) + lv.value("process", 0.0);
        if (busy_ps <= 0) continue;
        double desc = 0, line = 0, mmio = 0;
        for (auto& e : c.at("entries")) {
          const std::string sym = e.value("symbol", "");
          const double ps = e.value("ps", 0.0);
          if (sym.rfind("cache miss", 0) == 0) (sym.find("descriptor") != std::string::npos ? desc : line) += ps;
          else if (sym.rfind("MMIO ", 0) == 0 || sym.rfind("I/O ", 0) == 0) mmio += ps;
        }
        cpus.push_back(row(cpu, busy_ps * 1e-3, false));
        cpus.push_back(row(cpu + ": instruction work (cost entries)", (busy_ps - desc - line - mmio) * 1e-3, true));
        cpus.push_back(row(cpu + ": DMA'd-line stalls, descriptors", desc * 1e-3, true));
        cpus.push_back(row(cpu + ": DMA'd-line stalls, frame data and other lines", line * 1e-3, true));
        cpus.push_back(row(cpu + ": MMIO (register reads and writes)", mmio * 1e-3, true));
      }
    // Buses: every `<host>.<...>busy_ns` counter (PCI segments, hub links, DRAM).
    // A CPU's split only where the CPU matters: busy at least a tenth of the busiest one's time.
    double top_cpu = 0;
    for (const ForwardingResource& r : cpus)
      if (!r.part) top_cpu = std::max(top_cpu, r.ns_per_packet);
    std::vector<ForwardingResource> shown;
    bool keep_parts = true;
    for (const ForwardingResource& r : cpus) {
      if (!r.part) keep_parts = r.ns_per_packet >= 0.1 * top_cpu;
      if (!r.part || keep_parts) shown.push_back(r);
    }
    cpus = std::move(shown);
    std::vector<ForwardingResource> buses;
    const std::string pre = h.host + ".";
    for (auto& [k, c] : counters.items())
      if (k.rfind(pre, 0) == 0 && ends_with(k, "busy_ns") && c.is_number() && c.get<double>() > 0) {
        std::string n = k.substr(pre.size(), k.size() - pre.size() - std::string("busy_ns").size());
        while (!n.empty() && (n.back() == '.' || n.back() == '_')) n.pop_back();
        buses.push_back(row(n, c.get<double>(), false));
      }
    std::stable_sort(buses.begin(), buses.end(),
                     [](const ForwardingResource& a, const ForwardingResource& b) { return a.ns_per_packet > b.ns_per_packet; });
    h.rows = cpus;
    h.rows.insert(h.rows.end(), buses.begin(), buses.end());
    double best = 0;
    for (const ForwardingResource& r : h.rows)
      if (!r.part && r.ceiling_kpps > 0 && (best == 0 || r.ceiling_kpps < best)) best = r.ceiling_kpps, h.binding = r.name;
    out.push_back(std::move(h));
  }
  return out;
}

std::string format_forwarding_resources(const std::vector<ForwardingResources>& rs) {
  std::string out;
  for (const ForwardingResources& h : rs) {
    out += fmt::format("{}: per forwarded packet ({:.0f} forwarded{}), busy time of each resource and the rate at which it "
                       "alone would be 100 % busy\n",
                       h.host, h.forwarded,
                       h.forwarded_kpps > 0 ? fmt::format(", {:.1f} kpps measured", h.forwarded_kpps) : std::string());
    out += fmt::format("  {:<58} {:>10} {:>12} {:>12}\n", "resource", "ns/pkt", "ceiling kpps",
                       h.forwarded_kpps > 0 ? "busy at rate" : "");
    for (const ForwardingResource& r : h.rows) {
      const std::string name = r.part ? "  " + r.name.substr(r.name.find(": ") + 2) : r.name;
      out += fmt::format("  {:<58} {:>10.1f} {:>12} {:>12}\n", name, r.ns_per_packet,
                         r.part ? std::string() : fmt::format("{:.0f}", r.ceiling_kpps),
                         h.forwarded_kpps > 0 ? fmt::format("{:.1f}%", 100 * r.utilisation) : std::string());
    }
    if (!h.binding.empty()) out += fmt::format("  lowest ceiling: {}\n", h.binding);
    out += "\n";
  }
  return out;
}

json forwarding_resources_json(const std::vector<ForwardingResources>& rs) {
  json a = json::array();
  for (const ForwardingResources& h : rs) {
    json rows = json::array();
    for (const ForwardingResource& r : h.rows)
      rows.push_back({{"resource", r.name}, {"part", r.part}, {"ns_per_packet", r.ns_per_packet},
                      {"ceiling_kpps", r.ceiling_kpps}, {"utilisation", r.utilisation}});
    a.push_back({{"host", h.host}, {"forwarded", h.forwarded}, {"forwarded_kpps", h.forwarded_kpps},
                 {"resources", rows}, {"lowest_ceiling", h.binding}});
  }
  return a;
}

}  // namespace nicsim
