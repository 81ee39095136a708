#include "cli/transfer_plot.h"
#include "cli/sweep_plot.h"
#include <algorithm>
#include <fmt/core.h>
#include <map>
#include <sstream>

namespace nicsim {
namespace fs = std::filesystem;

namespace {

constexpr const char* kSvg = "@SVG@";

std::string plot_q(const std::string& s) { return gnuplot_quote(s); }

std::string plot_header(const std::string& title, const std::string& xlabel, const std::string& ylabel) {
  std::ostringstream s;
  s << "# gnuplot script written by nicsim (cli/transfer_plot.cpp); rerun with: gnuplot <this file>\n";
  s << "set terminal svg size 1000,560 dynamic noenhanced font \"sans,12\" background rgb \"white\"\n";
  s << "set output " << kSvg << "\n";
  s << "set title " << plot_q(title) << "\nset xlabel " << plot_q(xlabel) << "\nset ylabel " << plot_q(ylabel) << "\n";
  s << "set grid\nset key below\n";
  return s.str();
}

/// Sequence numbers relative to the ISN (uint32) unwrapped into a 64-bit line.
struct Unwrap {
  bool any = false;
  int64_t last = 0;
  int64_t operator()(uint32_t v) {
    if (!any) {
      any = true;
      last = int64_t(v);
      return last;
    }
    last += int32_t(v - uint32_t(last));
    return last;
  }
};

// The sending socket with the most data segments sent, and its events.
const nlohmann::json* busiest_sender(const nlohmann::json& tcp, std::string* name) {
  const nlohmann::json* best = nullptr;
  size_t most = 0;
  for (auto& [k, ev] : tcp.items()) {
    size_t n = 0;
    for (auto& e : ev)
      if (e[1] == "tx" || e[1] == "retrans") ++n;
    if (n > most) {
      most = n;
      best = &ev;
      *name = k;
    }
  }
  return best;
}

std::optional<TransferPlot> throughput_plot(const nlohmann::json& series) {
  const auto& t = series.value("t_s", nlohmann::json::array());
  const nlohmann::json socks = series.value("sockets", nlohmann::json::object());
  if (t.size() < 2) return std::nullopt;
  std::ostringstream s;
  const bool marked = !series.value("marks", nlohmann::json::array()).empty();
  s << plot_header(marked ? "Throughput per interval (bytes read by the receiver), faults and retransmission events marked"
                          : "Throughput per interval (bytes read by the receiver), retransmission events marked",
                   "time (ms)", "Mb/s");
  std::vector<std::string> plots;
  size_t k = 0;
  double ymax = 0;
  for (auto& [name, v] : socks.items()) {
    const auto& rd = v["bytes_read"];
    if (rd.empty() || rd.back().get<uint64_t>() == 0) continue;
    s << "$tp" << k << " << EOD\n";
    for (size_t i = 1; i < rd.size() && i < t.size(); ++i) {
      const double w = t[i].get<double>() - t[i - 1].get<double>();
      const double mbps = w > 0 ? double(rd[i].get<uint64_t>() - rd[i - 1].get<uint64_t>()) * 8 / w / 1e6 : 0;
      ymax = std::max(ymax, mbps);
      s << fmt::format("{:.6f} {:.3f}\n", t[i].get<double>() * 1e3, mbps);
    }
    s << "EOD\n";
    plots.push_back(fmt::format("$tp{} using 1:2 with steps lw 2 title {}", k, plot_q(name + " (read)")));
    ++k;
  }
  if (plots.empty()) return std::nullopt;
  // Events of every sender, as points along the top.
  const char* kinds[] = {"retrans", "recovery", "timeout", "undo"};
  const char* colours[] = {"red", "orange", "black", "dark-green"};
  const nlohmann::json tcp = series.value("tcp", nlohmann::json::object());
  for (size_t i = 0; i < 4; ++i) {
    std::ostringstream d;
    size_t n = 0;
    for (auto& [name, ev] : tcp.items())
      for (auto& e : ev)
        if (e[1] == kinds[i]) {
          d << fmt::format("{:.6f} {:.3f}\n", e[0].get<double>() / 1e6, ymax * (1.04 + 0.03 * double(i)));
          ++n;
        }
    if (!n) continue;
    s << "$ev" << i << " << EOD\n" << d.str() << "EOD\n";
    plots.push_back(fmt::format("$ev{} using 1:2 with points pt 9 ps 0.8 lc rgb {} title {}", i, plot_q(colours[i]),
                                plot_q(fmt::format("{} ({})", kinds[i], n))));
  }
  // Faults and what the layers noted after them (series "marks", platforms/fault_timeline.h):
  // a vertical line each (faults solid blue, events dashed grey). Marks closer than 1/60 of the
  // time axis share one label (rotated along the first line), so that labels do not overprint:
  // "0.650 s beta.eth1 PHY link down, carrier off; beta.bond0 slave link down, ...".
  const nlohmann::json marks = series.value("marks", nlohmann::json::array());
  const double span_ms = t.back().get<double>() * 1e3;
  size_t m = 0;
  for (size_t i = 0; i < marks.size();) {
    const double x0 = marks[i]["t_s"].get<double>() * 1e3;
    bool fault = false;
    std::string label = fmt::format("{:.3f} s", x0 / 1e3), last_where;
    size_t j = i;
    for (; j < marks.size() && marks[j]["t_s"].get<double>() * 1e3 - x0 <= span_ms / 60; ++j) {
      const double x = marks[j]["t_s"].get<double>() * 1e3;
      const bool f = marks[j]["kind"] == "fault";
      fault = fault || f;
      ++m;
      s << fmt::format("set arrow {} from {:.6f}, graph 0 to {:.6f}, graph 1 nohead lw {} dt {} lc rgb {}\n", m, x, x,
                       f ? 2 : 1, f ? 1 : 2, plot_q(f ? "blue" : "gray40"));
      // One mark's label is "where what[; where what ...]": a repeated `where` is said once.
      const std::string text = marks[j]["label"].get<std::string>();
      for (size_t b = 0, e; b < text.size(); b = e + 2) {
        e = text.find("; ", b);
        if (e == std::string::npos) e = text.size();
        const std::string part = text.substr(b, e - b);
        const size_t sp = part.find(' ');
        const std::string where = sp == std::string::npos ? "" : part.substr(0, sp);
        if (!where.empty() && where == last_where) label += ", " + part.substr(sp + 1);
        else label += (last_where.empty() && label.back() == 's' ? " " : "; ") + part;
        last_where = where;
      }
    }
    s << fmt::format("set label {} {} at {:.6f}, graph 0.02 rotate by 90 left offset -0.6,0 font \",7\" tc rgb {}\n",
                     m, plot_q(label), x0, plot_q(fault ? "blue" : "gray30"));
    i = j;
  }
  if (m) plots.push_back("NaN with lines lw 2 lc rgb \"blue\" title \"fault\"");
  if (m) plots.push_back("NaN with lines dt 2 lc rgb \"gray40\" title \"link, driver, bonding events\"");
  s << fmt::format("set yrange [0:{:.3f}]\n", std::max(1.0, ymax * 1.2));
  s << "plot ";
  for (size_t i = 0; i < plots.size(); ++i) s << (i ? ", \\\n     " : "") << plots[i];
  s << "\n";
  return TransferPlot{"throughput", s.str()};
}

std::optional<TransferPlot> tseq_plot(const nlohmann::json& series, size_t max_segments) {
  std::string name;
  const nlohmann::json tcp = series.value("tcp", nlohmann::json::object());  // a local: the pointer below points into it
  const nlohmann::json* evp = busiest_sender(tcp, &name);
  if (!evp) return std::nullopt;
  const nlohmann::json& ev = *evp;
  // The window: from a little before the first retransmission (or the start), max_segments long.
  size_t first_tx = ev.size(), first_re = ev.size();
  for (size_t i = 0; i < ev.size(); ++i) {
    if (first_tx == ev.size() && ev[i][1] == "tx") first_tx = i;
    if (first_re == ev.size() && ev[i][1] == "retrans") first_re = i;
  }
  size_t begin = first_tx;
  if (first_re < ev.size()) {  // back up a quarter of the window before it
    size_t back = 0;
    begin = first_re;
    while (begin > first_tx && back < max_segments / 4) {
      --begin;
      if (ev[begin][1] == "tx") ++back;
    }
  }
  Unwrap uw;
  std::ostringstream tx, re, ack, win, sack, dup;
  size_t segs = 0;
  double t0 = -1, t1 = 0;
  // Unwrap from the start so numbers stay continuous; draw only the window.
  for (size_t i = 0; i < ev.size(); ++i) {
    const auto& e = ev[i];
    const std::string kind = e[1];
    if (kind == "cwnd" || kind == "reorder") continue;
    const int64_t a = uw(e[2].get<uint32_t>());
    const int64_t b = a + int32_t(e[3].get<uint32_t>() - e[2].get<uint32_t>());
    if (i < begin) continue;
    const double tms = e[0].get<double>() / 1e6;
    if (kind == "tx" || kind == "retrans") {
      if (++segs > max_segments) break;
      (kind == "tx" ? tx : re) << fmt::format("{:.6f} {} 0 {}\n", tms, a, b - a);
    } else if (kind == "ack") {
      ack << fmt::format("{:.6f} {}\n", tms, a);
      win << fmt::format("{:.6f} {}\n", tms, b);
    } else if (kind == "sack") {
      sack << fmt::format("{:.6f} {} 0 {}\n", tms, a, b - a);
    } else if (kind == "dupack") {
      dup << fmt::format("{:.6f} {}\n", tms, a);
    }
    if (t0 < 0) t0 = tms;
    t1 = tms;
  }
  if (segs == 0) return std::nullopt;
  std::ostringstream s;
  s << plot_header(fmt::format("Time-sequence of {} ({:.3f} to {:.3f} ms, {} segments)", name, t0, t1,
                          std::min(segs, max_segments)),
              "time (ms)", "sequence number (bytes from the ISN)");
  s << "set format y \"%.0f\"\n";
  std::vector<std::string> plots;
  auto block = [&](const char* id, const std::ostringstream& d, const std::string& style, const std::string& title) {
    if (d.str().empty()) return;
    s << "$" << id << " << EOD\n" << d.str() << "EOD\n";
    plots.push_back(fmt::format("${} {} title {}", id, style, plot_q(title)));
  };
  block("win", win, "using 1:2 with steps lc rgb \"goldenrod\"", "receive window edge");
  block("ack", ack, "using 1:2 with steps lc rgb \"dark-green\"", "ACK");
  block("tx", tx, "using 1:2:3:4 with vectors nohead lc rgb \"black\"", "segment sent");
  block("re", re, "using 1:2:3:4 with vectors nohead lw 2 lc rgb \"red\"", "retransmission");
  block("sack", sack, "using 1:2:3:4 with vectors nohead lw 2 lc rgb \"purple\"", "SACK block");
  block("dup", dup, "using 1:2 with points pt 2 ps 0.6 lc rgb \"orange\"", "duplicate ACK");
  s << "plot ";
  for (size_t i = 0; i < plots.size(); ++i) s << (i ? ", \\\n     " : "") << plots[i];
  s << "\n";
  return TransferPlot{"tseq", s.str()};
}

std::vector<TransferPlot> cpu_plots(const nlohmann::json& series) {
  std::vector<TransferPlot> out;
  const auto& t = series.value("t_s", nlohmann::json::array());
  if (t.size() < 2) return out;
  const nlohmann::json cpus = series.value("cpu", nlohmann::json::object());  // a local: items() of a temporary dangles
  for (auto& [cpu, ctxs] : cpus.items()) {
    // Contexts by mean share, the small ones folded; idle last (on top).
    std::vector<std::pair<double, std::string>> order;
    for (auto& [ctx, v] : ctxs.items()) {
      if (ctx == "idle") continue;
      double sum = 0;
      for (auto& x : v) sum += x.get<double>();
      order.push_back({sum / double(std::max<size_t>(1, v.size() - 1)), ctx});
    }
    std::sort(order.rbegin(), order.rend());
    std::vector<std::string> cols;
    for (auto& [m, ctx] : order)
      if (m >= 0.005) cols.push_back(ctx);
    const bool other = cols.size() < order.size();
    std::ostringstream s;
    s << plot_header("CPU utilisation of " + cpu + " by context (stacked)", "time (ms)", "% of the interval");
    s << "set yrange [0:100]\nset style fill solid 0.6 noborder\n";
    s << "$cpu << EOD\n";
    for (size_t i = 1; i < t.size(); ++i) {
      s << fmt::format("{:.6f}", t[i].get<double>() * 1e3);
      double cum = 0;
      for (auto& ctx : cols) {
        cum += 100 * ctxs[ctx][i].get<double>();
        s << fmt::format(" {:.4f}", cum);
      }
      if (other) {
        double o = 0;
        for (auto& [m, ctx] : order)
          if (std::find(cols.begin(), cols.end(), ctx) == cols.end()) o += 100 * ctxs[ctx][i].get<double>();
        cum += o;
        s << fmt::format(" {:.4f}", cum);
      }
      if (ctxs.contains("idle")) cum += 100 * ctxs["idle"][i].get<double>();
      s << fmt::format(" {:.4f}\n", cum);
    }
    s << "EOD\n";
    std::vector<std::string> names = cols;
    if (other) names.push_back("other");
    names.push_back("idle");
    s << "plot ";
    for (size_t c = 0; c < names.size(); ++c) {
      const std::string lower = c == 0 ? "(0)" : fmt::format("{}", c + 1);
      s << (c ? ", \\\n     " : "")
        << fmt::format("$cpu using 1:{}:{} with filledcurves title {}", lower, c + 2, plot_q(names[c]));
    }
    s << "\n";
    out.push_back({"cpu_" + cpu, s.str()});
  }
  return out;
}

}  // namespace

std::vector<TransferPlot> transfer_plot_scripts(const nlohmann::json& series, size_t max_segments) {
  std::vector<TransferPlot> out;
  if (auto p = throughput_plot(series)) out.push_back(std::move(*p));
  if (auto p = tseq_plot(series, max_segments)) out.push_back(std::move(*p));
  for (auto& p : cpu_plots(series)) out.push_back(std::move(p));
  return out;
}

std::vector<fs::path> write_transfer_plots(const fs::path& dir, const nlohmann::json& series,
                                           std::vector<std::string>* messages) {
  std::vector<fs::path> svgs;
  fs::create_directories(dir);
  const auto gnuplot = find_in_path("gnuplot");
  if (!gnuplot)
    messages->push_back(fmt::format("gnuplot not found in PATH: only the scripts were written (install Debian "
                                    "package gnuplot-nox, then `cd {} && gnuplot *.gp`)",
                                    dir.string()));
  const auto plots = transfer_plot_scripts(series);
  if (plots.empty()) messages->push_back("nothing to plot: the run has no time series");
  for (const TransferPlot& p : plots) {
    auto script = [&](const fs::path& svg) {
      std::string s = p.script;
      const std::string q = plot_q(svg.string());
      for (size_t at = s.find(kSvg); at != std::string::npos; at = s.find(kSvg, at + q.size())) s.replace(at, 5, q);
      return s;
    };
    const std::string why = render_gnuplot(dir, p.stem, script, gnuplot);
    if (!why.empty()) messages->push_back(p.stem + ": " + why);
    else if (gnuplot) svgs.push_back(dir / (p.stem + ".svg"));
  }
  return svgs;
}

}  // namespace nicsim
