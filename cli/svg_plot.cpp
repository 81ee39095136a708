#include "cli/svg_plot.h"
#include "cli/check_refs.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace nicsim {
namespace {

// Plot area inside an 800 x 400 chart: room for the y ticks on the left, the legend on the right.
constexpr double kW = 800, kH = 400, kLeft = 70, kRight = 250, kTop = 36, kBottom = 52;
constexpr double kPlotW = kW - kLeft - kRight, kPlotH = kH - kTop - kBottom;

std::string svg_esc(const std::string& s) { return xml_escape(s); }
/// Coordinates with two decimals: stable text for the same input.
std::string c2(double v) { return fmt::format("{:.2f}", v); }

/// A number for a tick label: integers without decimals, others with up to 3 significant digits.
std::string tick_text(double v) {
  if (std::fabs(v) >= 1e6 || (std::fabs(v) < 1e-3 && v != 0)) return fmt::format("{:.0e}", v);
  if (std::fabs(v - std::round(v)) < 1e-9 * std::max(1.0, std::fabs(v))) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

/// One axis: maps values to [0, 1] and gives its ticks.
struct PlotAxis {
  double lo = 0, hi = 1;
  bool log = false;
  double frac(double v) const {
    if (log) return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    return (v - lo) / (hi - lo);
  }
  std::vector<double> ticks() const {
    std::vector<double> t;
    if (log) {
      const int d0 = int(std::floor(std::log10(lo) + 1e-9)), d1 = int(std::ceil(std::log10(hi) - 1e-9));
      const bool few = d1 - d0 <= 2;  // short ranges get 1-2-5 ticks
      for (int d = d0; d <= d1; ++d)
        for (double m : few ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
          double v = m * std::pow(10.0, d);
          if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.push_back(v);
        }
      return t;
    }
    const double span = hi - lo;
    const double raw = span / 6;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0})
      if (m * mag >= raw) {
        step = m * mag;
        break;
      }
    for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
    return t;
  }
};

/// An axis covering [mn, mx] (data range): log axes snap to decades (or 1-2-5 steps), linear ones
/// start at 0 when the data are positive and pad 8% above.
PlotAxis make_axis(double mn, double mx, bool log) {
  PlotAxis a;
  a.log = log;
  if (!(mn <= mx)) mn = mx = log ? 1 : 0;
  if (log) {
    double lo = std::pow(10.0, std::floor(std::log10(mn) + 1e-9));
    double hi = std::pow(10.0, std::ceil(std::log10(mx) - 1e-9));
    // Tighter ends when the data sit well inside the decade: 2 and 5 steps.
    for (double m : {5.0, 2.0})
      if (lo * m <= mn * (1 + 1e-9)) {
        lo *= m;
        break;
      }
    for (double m : {0.2, 0.5})
      if (hi * m >= mx * (1 - 1e-9)) {
        hi *= m;
        break;
      }
    if (hi <= lo) hi = lo * 10;
    a.lo = lo;
    a.hi = hi;
    return a;
  }
  double lo = mn >= 0 ? 0 : mn, hi = mx;
  if (hi <= lo) hi = lo + 1;
  hi += (hi - lo) * 0.08;
  a.lo = lo;
  a.hi = hi;
  return a;
}

std::string frame_and_axes(const std::string& id, const std::string& title, const PlotAxis& x, const PlotAxis& y,
                           const std::string& x_label, const std::string& y_label, bool x_ticks) {
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" id=\"{}\" role=\"img\" aria-label=\"{}\" "
      "width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" font-family=\"sans-serif\" font-size=\"12\">\n",
      svg_esc(id), svg_esc(title), kW, kH, kW, kH);
  s += fmt::format("<title>{}</title>\n", svg_esc(title));
  s += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", kW, kH);
  s += fmt::format("<text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
                   c2(kLeft + kPlotW / 2), svg_esc(title));
  s += "<g class=\"axes\" stroke=\"#999999\" fill=\"none\">\n";
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", kLeft, kTop, kPlotW, kPlotH);
  s += "</g>\n<g class=\"ticks\">\n";
  for (double v : y.ticks()) {
    double py = kTop + kPlotH * (1 - y.frac(v));
    s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e5e5e5\"/>", kLeft, c2(py),
                     kLeft + kPlotW, c2(py));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLeft - 6, c2(py + 4), tick_text(v));
  }
  if (x_ticks)
    for (double v : x.ticks()) {
      double px = kLeft + kPlotW * x.frac(v);
      s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e5e5e5\"/>", c2(px), kTop, c2(px),
                       kTop + kPlotH);
      s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", c2(px), kTop + kPlotH + 16,
                       tick_text(v));
    }
  s += "</g>\n";
  s += fmt::format("<text class=\"x-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                   c2(kLeft + kPlotW / 2), kH - 12, svg_esc(x_label));
  s += fmt::format(
      "<text class=\"y-label\" x=\"16\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {})\">{}</text>\n",
      c2(kTop + kPlotH / 2), c2(kTop + kPlotH / 2), svg_esc(y_label));
  return s;
}

std::string legend_entry(size_t i, const std::string& name, unsigned color, bool reference) {
  const double ly = kTop + 8 + 18 * double(i), lx = kLeft + kPlotW + 14;
  std::string s;
  if (reference)
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"18\" height=\"10\" fill=\"{}\" fill-opacity=\"0.18\"/>"
                     "<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"#ffffff\" stroke=\"{}\" stroke-width=\"2\"/>",
                     c2(lx), c2(ly - 5), plot_color(color), c2(lx + 9), c2(ly), plot_color(color));
  else
    s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>", c2(lx),
                     c2(ly), c2(lx + 18), c2(ly), plot_color(color));
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>\n", c2(lx + 24), c2(ly + 4), svg_esc(name));
  return s;
}

}  // namespace

const char* plot_color(unsigned i) {
  // Okabe & Ito's colour-blind safe palette.
  static const char* k[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442"};
  return k[i % (sizeof k / sizeof k[0])];
}

std::string svg_line_plot(const LinePlot& p) {
  auto drawable = [&](const PlotPoint& q) { return (!p.log_x || q.x > 0) && (!p.log_y || q.y > 0) && std::isfinite(q.y); };
  double xmn = std::numeric_limits<double>::infinity(), xmx = -xmn, ymn = xmn, ymx = -xmn;
  for (auto& s : p.series)
    for (auto& q : s.points) {
      if (!drawable(q)) continue;
      xmn = std::min(xmn, q.x);
      xmx = std::max(xmx, q.x);
      for (double v : {q.y, q.lo.value_or(q.y), q.hi.value_or(q.y)}) {
        if (p.log_y && v <= 0) continue;
        ymn = std::min(ymn, v);
        ymx = std::max(ymx, v);
      }
    }
  PlotAxis x = make_axis(xmn, xmx, p.log_x), y = make_axis(ymn, ymx, p.log_y);
  auto px = [&](double v) { return kLeft + kPlotW * x.frac(v); };
  auto py = [&](double v) { return kTop + kPlotH * (1 - y.frac(std::clamp(v, y.lo, y.hi))); };
  std::string s = frame_and_axes(p.id, p.title, x, y, p.x_label, p.y_label, true);
  size_t li = 0;
  for (auto& se : p.series) {
    s += fmt::format("<g class=\"series\" data-series=\"{}\" data-kind=\"{}\">\n", svg_esc(se.name),
                     se.reference ? "reference" : "model");
    const char* col = plot_color(se.color);
    if (se.reference) {
      for (auto& q : se.points) {
        if (!drawable(q)) continue;
        if (q.lo && q.hi)  // the tolerance band: a shaded bar around the point
          s += fmt::format("<rect class=\"band\" x=\"{}\" y=\"{}\" width=\"12\" height=\"{}\" fill=\"{}\" fill-opacity=\"0.18\"/>",
                           c2(px(q.x) - 6), c2(py(*q.hi)), c2(std::max(1.0, py(*q.lo) - py(*q.hi))), col);
        s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"#ffffff\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                         c2(px(q.x)), c2(py(q.y)), col);
      }
    } else {
      std::vector<PlotPoint> pts;
      for (auto& q : se.points)
        if (drawable(q)) pts.push_back(q);
      std::sort(pts.begin(), pts.end(), [](auto& a, auto& b) { return a.x < b.x; });
      std::string d;
      for (auto& q : pts) d += fmt::format("{}{},{}", d.empty() ? "" : " ", c2(px(q.x)), c2(py(q.y)));
      if (!pts.empty())
        s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", d, col);
      for (auto& q : pts)  // small marks where the model has a value
        s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"1.8\" fill=\"{}\"/>", c2(px(q.x)), c2(py(q.y)), col);
      s += "\n";
    }
    s += legend_entry(li++, se.name, se.color, se.reference);
    s += "</g>\n";
  }
  s += "</svg>\n";
  return s;
}

std::string svg_bar_chart(const BarChart& c) {
  double ymx = 0, ymn = 0;
  for (auto& se : c.series)
    for (auto& v : se.values)
      if (v)
        for (double q : {v->y, v->lo.value_or(v->y), v->hi.value_or(v->y)}) {
          ymx = std::max(ymx, q);
          ymn = std::min(ymn, q);
        }
  PlotAxis y = make_axis(ymn, ymx, false);
  PlotAxis x;  // unused (categories)
  std::string s = frame_and_axes(c.id, c.title, x, y, "", c.y_label, false);
  auto py = [&](double v) { return kTop + kPlotH * (1 - y.frac(v)); };
  const size_t nc = std::max<size_t>(1, c.categories.size()), ns = std::max<size_t>(1, c.series.size());
  const double group = kPlotW / double(nc), bw = group * 0.8 / double(ns);
  for (size_t k = 0; k < c.categories.size(); ++k) {
    const double gx = kLeft + group * double(k) + group / 2;
    // Category labels under the group: one line per space-separated word (scenario, metric), each
    // shrunk from 11 px to at most 7 px so that it fits the group's width (about 0.6 em a character),
    // so that many categories do not overlap.
    std::vector<std::string> words;
    for (size_t a = 0, b; a <= c.categories[k].size(); a = b + 1) {
      b = c.categories[k].find(' ', a);
      if (b == std::string::npos) b = c.categories[k].size();
      if (b > a) words.push_back(c.categories[k].substr(a, b - a));
    }
    for (size_t w = 0; w < words.size() && w < 3; ++w) {
      const double fs = std::clamp(group / (0.6 * double(std::max<size_t>(1, words[w].size()))), 7.0, 11.0);
      s += fmt::format("<text class=\"category\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"{}\">{}</text>\n",
                       c2(gx), kTop + kPlotH + 14 + 12 * double(w), c2(fs), svg_esc(words[w]));
    }
  }
  size_t li = 0;
  for (size_t si = 0; si < c.series.size(); ++si) {
    auto& se = c.series[si];
    const char* col = plot_color(se.color);
    s += fmt::format("<g class=\"series\" data-series=\"{}\" data-kind=\"{}\">\n", svg_esc(se.name),
                     se.reference ? "reference" : "model");
    for (size_t k = 0; k < se.values.size() && k < c.categories.size(); ++k) {
      if (!se.values[k]) continue;
      const PlotPoint& v = *se.values[k];
      const double bx = kLeft + group * double(k) + group * 0.1 + bw * double(si);
      const double top = py(std::max(v.y, 0.0)), base = py(std::min(v.y, 0.0));
      s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" fill-opacity=\"{}\" stroke=\"{}\"/>",
                       c2(bx), c2(top), c2(bw * 0.92), c2(std::max(0.5, base - top)), col, se.reference ? "0.25" : "0.85", col);
      if (v.lo && v.hi)  // the tolerance band as a whisker
        s += fmt::format("<path class=\"band\" d=\"M{0},{1}H{2}M{3},{1}V{4}M{0},{4}H{2}\" stroke=\"{5}\" stroke-width=\"2\" fill=\"none\"/>",
                         c2(bx + bw * 0.2), c2(py(*v.hi)), c2(bx + bw * 0.72), c2(bx + bw * 0.46), c2(py(*v.lo)), col);
      s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\">{}</text>\n", c2(bx + bw * 0.46),
                       c2(top - 4), tick_text(std::round(v.y * 10) / 10));
    }
    s += legend_entry(li++, se.name, se.color, se.reference);
    s += "</g>\n";
  }
  s += "</svg>\n";
  return s;
}

std::string svg_tornado(const TornadoChart& c) {
  double mn = c.base, mx = c.base;
  for (auto& r : c.rows)
    for (auto& a : r.alts) {
      mn = std::min(mn, a.value);
      mx = std::max(mx, a.value);
    }
  const double pad = (mx - mn) * 0.05 + (mx == mn ? std::max(1.0, std::fabs(mx) * 0.05) : 0);
  PlotAxis x{mn - pad, mx + pad, false};
  const double rowh = 26, top = 40, left = 230, w = 460;
  const double h = top + rowh * double(std::max<size_t>(1, c.rows.size())) + 50;
  auto px = [&](double v) { return left + w * x.frac(v); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" id=\"{}\" role=\"img\" aria-label=\"{}\" "
      "width=\"720\" height=\"{}\" viewBox=\"0 0 720 {}\" font-family=\"sans-serif\" font-size=\"12\">\n",
      svg_esc(c.id), svg_esc(c.title), c2(h), c2(h));
  s += fmt::format("<title>{}</title>\n<rect x=\"0\" y=\"0\" width=\"720\" height=\"{}\" fill=\"#ffffff\"/>\n", svg_esc(c.title), c2(h));
  s += fmt::format("<text x=\"360\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
                   svg_esc(c.title));
  s += "<g class=\"ticks\">\n";
  for (double v : x.ticks()) {
    s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#e5e5e5\"/>", c2(px(v)), top - 6,
                     c2(h - 44));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", c2(px(v)), c2(h - 30), tick_text(v));
  }
  s += "</g>\n";
  s += fmt::format("<text class=\"x-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", c2(left + w / 2),
                   c2(h - 10), svg_esc(c.x_label));
  for (size_t i = 0; i < c.rows.size(); ++i) {
    auto& r = c.rows[i];
    const double y0 = top + rowh * double(i);
    s += fmt::format("<g class=\"series\" data-series=\"{}\" data-kind=\"bar\">\n", svg_esc(r.knob));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", c2(left - 8), c2(y0 + 16), svg_esc(r.knob));
    for (size_t k = 0; k < r.alts.size(); ++k) {
      auto& a = r.alts[k];
      const double x0 = px(std::min(a.value, c.base)), x1 = px(std::max(a.value, c.base));
      const bool up = a.value >= c.base;
      s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"18\" fill=\"{}\" fill-opacity=\"0.8\"><title>{}: {}</title></rect>",
                       c2(x0), c2(y0 + 3), c2(std::max(1.0, x1 - x0)), plot_color(up ? 0 : 1), svg_esc(a.label),
                       tick_text(a.value));
      s += "\n";
    }
    s += "</g>\n";
  }
  s += fmt::format("<line class=\"base\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#000000\" stroke-width=\"1.5\"/>\n",
                   c2(px(c.base)), top - 8, c2(h - 44));
  s += "</svg>\n";
  return s;
}

}  // namespace nicsim
