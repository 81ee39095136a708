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
          r.host = host, r.cpu = cpu, r.symbol = sym, r.context = ctx, r.level = e.value("level", "");
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

namespace {

/// "5.9 k" from 1000 cycles up, "850" below; sign when `sign`.
std::string kcycles(double v, bool sign = false) {
  if (std::fabs(v) >= 999.5) return sign ? fmt::format("{:+.1f} k", v / 1000.0) : fmt::format("{:.1f} k", v / 1000.0);
  return sign ? fmt::format("{:+.0f}", v) : fmt::format("{:.0f}", v);
}

struct HostTotals {
  double busy = 0, wall_cycles = 0, mhz = 0;
  uint64_t wall_ps = 0, packets = 0;
};

HostTotals totals_of(const json& cpus) {
  HostTotals t;
  size_t n = 0;
  for (auto& kv : cpus.items()) {
    const json& c = kv.value();
    const double mhz = c.value("mhz", 0.0);
    t.busy += busy_cycles(c);
    t.wall_cycles += cycles_of(c.value("wall_ps", uint64_t(0)), mhz);
    t.wall_ps = std::max(t.wall_ps, c.value("wall_ps", uint64_t(0)));
    t.packets = std::max(t.packets, c.value("packets", uint64_t(0)));
    t.mhz += mhz;
    ++n;
  }
  if (n) t.mhz /= static_cast<double>(n);
  return t;
}

/// Interrupts per /proc/interrupts label of `host`, summed over CPUs.
std::map<std::string, double> irq_counts(const json& counters, const std::string& host) {
  std::map<std::string, double> m;
  const std::string prefix = host + ".interrupts.CPU";
  for (auto& kv : counters.items()) {
    const std::string& k = kv.key();
    if (k.rfind(prefix, 0) != 0 || !kv.value().is_number()) continue;
    const size_t dot = k.find('.', prefix.size());
    if (dot == std::string::npos) continue;
    m[k.substr(dot + 1)] += kv.value().get<double>();
  }
  return m;
}

std::string level_of(const std::string& context) { return context.substr(0, context.find(' ')); }

}  // namespace

std::vector<CpuSummaryHost> cpu_gap_summary(const json& ra, const json& rb) {
  const json empty = json::object();
  const json& pa = ra.contains("cpu_profile") ? ra.at("cpu_profile") : empty;
  const json& pb = rb.contains("cpu_profile") ? rb.at("cpu_profile") : empty;
  const json& ca = ra.contains("counters") ? ra.at("counters") : empty;
  const json& cb = rb.contains("counters") ? rb.at("counters") : empty;
  const std::vector<CpuGapRow> rows = cpu_gap(pa, pb);
  std::vector<CpuSummaryHost> out;
  for (auto& hv : pa.items()) {
    const std::string& host = hv.key();
    if (!pb.contains(host)) continue;
    const HostTotals ta = totals_of(hv.value()), tb = totals_of(pb.at(host));
    if (!ta.packets || !tb.packets) continue;
    CpuSummaryHost h;
    h.host = host;
    h.mhz = ta.mhz;
    h.a_busy_pct = ta.wall_cycles > 0 ? 100.0 * ta.busy / ta.wall_cycles : 0;
    h.b_busy_pct = tb.wall_cycles > 0 ? 100.0 * tb.busy / tb.wall_cycles : 0;
    h.a_per_pkt = ta.busy / static_cast<double>(ta.packets);
    h.b_per_pkt = tb.busy / static_cast<double>(tb.packets);
    const double total = h.b_per_pkt - h.a_per_pkt;

    // Interrupt rates: every label either run has; those that moved by >= 5% (and >= 1/s).
    const auto ia = irq_counts(ca, host), ib = irq_counts(cb, host);
    std::map<std::string, CpuSummaryHost::Irq> irqs;
    for (auto& kv : ia) irqs[kv.first].a_per_s = ta.wall_ps ? kv.second / (static_cast<double>(ta.wall_ps) * 1e-12) : 0;
    for (auto& kv : ib) irqs[kv.first].b_per_s = tb.wall_ps ? kv.second / (static_cast<double>(tb.wall_ps) * 1e-12) : 0;
    std::vector<CpuSummaryHost::Irq> all;
    for (auto& kv : irqs) {
      CpuSummaryHost::Irq x = kv.second;
      x.label = kv.first;
      all.push_back(x);
    }
    for (auto& x : all) {
      const double d = std::fabs(x.b_per_s - x.a_per_s);
      if (d >= 1.0 && d >= 0.05 * std::max(x.a_per_s, x.b_per_s)) h.irqs.push_back(x);
    }
    std::stable_sort(h.irqs.begin(), h.irqs.end(), [](const CpuSummaryHost::Irq& x, const CpuSummaryHost::Irq& y) {
      return std::fabs(x.b_per_s - x.a_per_s) > std::fabs(y.b_per_s - y.a_per_s);
    });
    if (h.irqs.size() > 2) h.irqs.resize(2);

    // The difference by level and by context, from the gap rows of this host.
    std::map<std::string, double> lv;
    std::map<std::string, CpuSummaryHost::Context> ctx;
    for (auto& r : rows) {
      if (r.host != host) continue;
      lv[r.level.empty() ? level_of(r.context) : r.level] += r.delta;
      CpuSummaryHost::Context& c = ctx[r.context];
      c.context = r.context;
      c.delta += r.delta;
      c.entries.push_back({r.symbol, r.delta});  // rows come largest |delta| first
    }
    for (auto& kv : lv)
      if (std::fabs(kv.second) >= 0.05) h.levels.emplace_back(kv.first, kv.second);
    std::stable_sort(h.levels.begin(), h.levels.end(),
                     [](const std::pair<std::string, double>& x, const std::pair<std::string, double>& y) {
                       return std::fabs(x.second) > std::fabs(y.second);
                     });
    std::vector<CpuSummaryHost::Context> cs;
    for (auto& kv : ctx) cs.push_back(kv.second);
    std::stable_sort(cs.begin(), cs.end(), [](const CpuSummaryHost::Context& x, const CpuSummaryHost::Context& y) {
      return std::fabs(x.delta) > std::fabs(y.delta);
    });
    for (auto& c : cs) {
      if (h.contexts.size() >= 2 || std::fabs(c.delta) < 0.05) break;
      if (!h.contexts.empty() && std::fabs(c.delta) < 0.2 * std::fabs(h.contexts.front().delta)) break;
      std::vector<CpuSummaryHost::Entry> e;
      for (auto& x : c.entries)
        if ((x.delta > 0) == (c.delta > 0) && e.size() < 3) e.push_back(x);
      c.entries = e;
      h.contexts.push_back(c);
    }
    h.no_difference = h.irqs.empty() && h.contexts.empty() && std::fabs(total) < 0.05;

    // The paragraph.
    std::string t = host + ": ";
    auto busy = fmt::format("Busy {:.0f}% vs {:.0f}%.", h.a_busy_pct, h.b_busy_pct);
    if (h.no_difference) {
      std::string irq;
      const CpuSummaryHost::Irq* top_irq = nullptr;
      for (auto& x : all)
        if (!top_irq || x.a_per_s > top_irq->a_per_s) top_irq = &x;
      if (top_irq) irq = fmt::format(" or interrupt rate ({} {} interrupts/s)", thousands(top_irq->a_per_s), top_irq->label);
      t += fmt::format("no difference in CPU per packet ({} cycles in both){}. {}", kcycles(h.a_per_pkt), irq, busy);
    } else {
      for (size_t i = 0; i < h.irqs.size(); ++i)
        t += fmt::format("{}{} vs {} {} interrupts/s", i ? ", " : "", thousands(h.irqs[i].a_per_s), thousands(h.irqs[i].b_per_s),
                         h.irqs[i].label);
      t += h.irqs.empty() ? "interrupt rates unchanged; CPU per packet " : "; CPU per packet ";
      t += fmt::format("{} vs {} cycles ({} = {:+.2f} µs at {:.0f} MHz)", kcycles(h.a_per_pkt), kcycles(h.b_per_pkt),
                       kcycles(total, true), h.mhz > 0 ? total / h.mhz : 0.0, h.mhz);
      for (size_t i = 0; i < h.contexts.size(); ++i) {
        const auto& c = h.contexts[i];
        const bool mostly = (c.delta > 0) == (total > 0) && std::fabs(c.delta) >= 0.5 * std::fabs(total);
        t += i ? "; then " : mostly ? ", mostly " : ", the largest change in ";
        t += fmt::format("{} ({}", c.context, kcycles(c.delta, true));
        for (size_t k = 0; k < c.entries.size(); ++k)
          t += fmt::format("{}{} {}", k ? ", " : ": ", c.entries[k].symbol, kcycles(c.entries[k].delta, true));
        t += ")";
      }
      t += ".";
      if (!h.levels.empty()) {
        t += " By level:";
        for (size_t i = 0; i < h.levels.size(); ++i)
          t += fmt::format("{} {} {}", i ? "," : "", h.levels[i].first, kcycles(h.levels[i].second, true));
        t += ".";
      }
      t += " " + busy;
    }
    h.text = t;
    out.push_back(h);
  }
  std::stable_sort(out.begin(), out.end(), [](const CpuSummaryHost& x, const CpuSummaryHost& y) {
    return std::fabs(x.b_per_pkt - x.a_per_pkt) > std::fabs(y.b_per_pkt - y.a_per_pkt);
  });
  return out;
}

std::string format_cpu_gap_summary(const std::vector<CpuSummaryHost>& s) {
  if (s.empty()) return "(no host has packets in both runs: no CPU per packet to compare)\n";
  std::string out;
  for (auto& h : s) out += h.text + "\n";
  return out;
}

json cpu_gap_summary_json(const std::vector<CpuSummaryHost>& s) {
  json a = json::array();
  for (auto& h : s) {
    json irqs = json::array(), levels = json::object(), ctx = json::array();
    for (auto& x : h.irqs) irqs.push_back({{"label", x.label}, {"a_per_s", x.a_per_s}, {"b_per_s", x.b_per_s}});
    for (auto& l : h.levels) levels[l.first] = l.second;
    for (auto& c : h.contexts) {
      json e = json::array();
      for (auto& x : c.entries) e.push_back({{"symbol", x.symbol}, {"delta", x.delta}});
      ctx.push_back({{"context", c.context}, {"delta", c.delta}, {"entries", e}});
    }
    a.push_back({{"host", h.host},
                 {"mhz", h.mhz},
                 {"a_busy_pct", h.a_busy_pct},
                 {"b_busy_pct", h.b_busy_pct},
                 {"a_cycles_per_packet", h.a_per_pkt},
                 {"b_cycles_per_packet", h.b_per_pkt},
                 {"interrupts_per_s", irqs},
                 {"delta_by_level", levels},
                 {"contexts", ctx},
                 {"no_difference", h.no_difference},
                 {"text", h.text}});
  }
  return a;
}

}  // namespace nicsim
