#include "core/cpu_report.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <tuple>

namespace nicsim {
namespace {

using json = nlohmann::json;

constexpr const char* kLevels[] = {"hardirq", "softirq", "process", "idle"};

double cycles_of(uint64_t ps, double mhz) { return static_cast<double>(ps) * mhz * 1e-6; }
uint64_t ps_of(const json& j) { return j.value("ps", uint64_t(0)); }

std::string per_pkt(double cycles, uint64_t packets) {
  return packets ? fmt::format("{:.1f}", cycles / static_cast<double>(packets)) : std::string("-");
}

std::string thousands(double v) {
  std::string s = fmt::format("{:.0f}", v);
  for (int i = static_cast<int>(s.size()) - 3; i > (s[0] == '-' ? 1 : 0); i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

/// Busy cycles of one CPU object.
double busy_cycles(const json& cpu) {
  const json& lv = cpu.at("levels");
  const uint64_t busy = lv.value("hardirq", uint64_t(0)) + lv.value("softirq", uint64_t(0)) + lv.value("process", uint64_t(0));
  return cycles_of(busy, cpu.value("mhz", 0.0));
}

}  // namespace

std::string format_cpu_profile(const json& prof, size_t top) {
  std::string out;
  for (auto& [host, cpus] : prof.items()) {
    for (auto& [cpu, c] : cpus.items()) {
      const double mhz = c.value("mhz", 0.0);
      const uint64_t wall = c.value("wall_ps", uint64_t(0)), packets = c.value("packets", uint64_t(0));
      const json& lv = c.at("levels");
      out += fmt::format("{}.{}: {:.0f} MHz, {:.3f} ms simulated, {} packets (frames received + sent by {}'s NICs)\n\n",
                         host, cpu, mhz, static_cast<double>(wall) * 1e-9, packets, host);
      out += fmt::format("  {:<34} {:>11} {:>8} {:>12}\n", "context", "time ms", "% wall", "cycles/pkt");
      for (auto& x : c.at("contexts")) {
        const uint64_t ps = ps_of(x);
        if (ps == 0 && x.value("level", "") != "idle") continue;
        out += fmt::format("  {:<34} {:>11.3f} {:>7.2f}% {:>12}\n", x.value("context", ""), static_cast<double>(ps) * 1e-9,
                           wall ? 100.0 * static_cast<double>(ps) / static_cast<double>(wall) : 0.0,
                           per_pkt(cycles_of(ps, mhz), packets));
      }
      out += fmt::format("  {:<34} {:>11} {:>8} {:>12}\n", "", "", "", "");
      for (const char* l : kLevels) {
        const uint64_t ps = lv.value(l, uint64_t(0));
        out += fmt::format("  {:<34} {:>11.3f} {:>7.2f}% {:>12}\n", std::string("all ") + l, static_cast<double>(ps) * 1e-9,
                           wall ? 100.0 * static_cast<double>(ps) / static_cast<double>(wall) : 0.0,
                           per_pkt(cycles_of(ps, mhz), packets));
      }
      const double busy = busy_cycles(c);
      out += fmt::format("\n  Flat profile: busy time by cost entry or stall, {} cycles at {:.0f} MHz ({:.2f}% of wall)\n",
                         thousands(busy), mhz, wall ? 100.0 * busy / cycles_of(wall, mhz) : 0.0);
      out += fmt::format("  {:>15} {:>7} {:>7} {:>10}  {:<40} {}\n", "cycles", "%", "cum %", "cyc/pkt", "symbol", "context");
      const json& entries = c.at("entries");
      double cum = 0;
      size_t shown = 0;
      double rest = 0;
      size_t rest_n = 0;
      for (auto& e : entries) {
        const double cy = cycles_of(ps_of(e), mhz);
        if (shown >= top) {
          rest += cy;
          ++rest_n;
          continue;
        }
        ++shown;
        cum += cy;
        out += fmt::format("  {:>15} {:>6.2f}% {:>6.2f}% {:>10}  {:<40} {}\n", thousands(cy), busy ? 100.0 * cy / busy : 0.0,
                           busy ? 100.0 * cum / busy : 0.0, per_pkt(cy, packets), e.value("symbol", ""), e.value("context", ""));
      }
      if (rest_n)
        out += fmt::format("  {:>15} {:>6.2f}% {:>7} {:>10}  ({} more entries)\n", thousands(rest), busy ? 100.0 * rest / busy : 0.0,
                           "", per_pkt(rest, packets), rest_n);
      out += "\n";
    }
  }
  if (out.empty()) out = "(no CPU profile: the workload runs no software on modelled CPUs)\n";
  return out;
}

std::vector<std::string> cpu_profile_problems(const json& prof) {
  std::vector<std::string> p;
  for (auto& [host, cpus] : prof.items())
    for (auto& [cpu, c] : cpus.items()) {
      const std::string n = host + "." + cpu;
      const uint64_t wall = c.value("wall_ps", uint64_t(0));
      std::map<std::string, uint64_t> ctx_sum, ent_sum;
      uint64_t all = 0, lsum = 0;
      for (auto& x : c.at("contexts")) ctx_sum[x.value("level", "")] += ps_of(x), all += ps_of(x);
      for (auto& e : c.at("entries")) ent_sum[e.value("level", "")] += ps_of(e);
      if (all != wall) p.push_back(fmt::format("{}: contexts sum to {} ps, wall is {} ps", n, all, wall));
      for (const char* l : kLevels) {
        const uint64_t v = c.at("levels").value(l, uint64_t(0));
        lsum += v;
        if (ctx_sum[l] != v) p.push_back(fmt::format("{}: {} contexts sum to {} ps, levels.{} is {} ps", n, l, ctx_sum[l], l, v));
        if (std::string(l) != "idle" && ent_sum[l] != v)
          p.push_back(fmt::format("{}: {} entries sum to {} ps, levels.{} is {} ps", n, l, ent_sum[l], l, v));
      }
      if (lsum != wall) p.push_back(fmt::format("{}: levels sum to {} ps, wall is {} ps", n, lsum, wall));
    }
  return p;
}

std::vector<CpuGapRow> cpu_gap(const json& a, const json& b) {
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Key, CpuGapRow> rows;
  auto add = [&](const json& prof, bool is_b) {
    for (auto& [host, cpus] : prof.items())
      for (auto& [cpu, c] : cpus.items()) {
        const double mhz = c.value("mhz", 0.0);
        const uint64_t packets = c.value("packets", uint64_t(0));
        if (!packets) continue;
        for (auto& e : c.at("entries")) {
          const std::string sym = e.value("symbol", ""), ctx = e.value("context", "");
          CpuGapRow& r = rows[Key{host, cpu, sym, ctx}];
          r.host = host, r.cpu = cpu, r.symbol = sym, r.context = ctx;
          (is_b ? r.b_per_pkt : r.a_per_pkt) += cycles_of(ps_of(e), mhz) / static_cast<double>(packets);
        }
      }
  };
  add(a, false);
  add(b, true);
  std::vector<CpuGapRow> out;
  for (auto& kv : rows) {
    CpuGapRow r = kv.second;
    r.delta = r.b_per_pkt - r.a_per_pkt;
    if (std::fabs(r.delta) >= 0.05) out.push_back(r);
  }
  std::stable_sort(out.begin(), out.end(), [](const CpuGapRow& x, const CpuGapRow& y) { return std::fabs(x.delta) > std::fabs(y.delta); });
  return out;
}

std::string format_cpu_gap(const json& a, const json& b, const std::string& a_name, const std::string& b_name, size_t top) {
  std::string out = "Busy cycles per packet, per host and CPU:\n";
  out += fmt::format("  {:<16} {:>14} {:>14} {:>12}\n", "cpu", a_name.substr(0, 14), b_name.substr(0, 14), "B - A");
  for (auto& [host, cpus] : a.items())
    for (auto& [cpu, c] : cpus.items()) {
      const uint64_t pa = c.value("packets", uint64_t(0));
      const json* cb = b.contains(host) && b.at(host).contains(cpu) ? &b.at(host).at(cpu) : nullptr;
      const uint64_t pb = cb ? cb->value("packets", uint64_t(0)) : 0;
      const double xa = pa ? busy_cycles(c) / static_cast<double>(pa) : 0, xb = cb && pb ? busy_cycles(*cb) / static_cast<double>(pb) : 0;
      out += fmt::format("  {:<16} {:>14.1f} {:>14.1f} {:>+12.1f}\n", host + "." + cpu, xa, xb, xb - xa);
    }
  auto rows = cpu_gap(a, b);
  out += fmt::format("\nGap in cycles per packet (B - A), largest first:\n  {:<12} {:>10} {:>10} {:>10}  {:<40} {}\n", "cpu", "A",
                     "B", "B - A", "symbol", "context");
  for (size_t i = 0; i < rows.size() && i < top; ++i) {
    const CpuGapRow& r = rows[i];
    out += fmt::format("  {:<12} {:>10.1f} {:>10.1f} {:>+10.1f}  {:<40} {}\n", r.host + "." + r.cpu, r.a_per_pkt, r.b_per_pkt,
                       r.delta, r.symbol, r.context);
  }
  if (rows.size() > top) out += fmt::format("  ({} more rows)\n", rows.size() - top);
  return out;
}

}  // namespace nicsim
