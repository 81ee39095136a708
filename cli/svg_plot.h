// Self-contained SVG charts for `nicsim report` and `nicsim explain --what-if`: inline-able <svg>
// elements (no script, no external font or stylesheet: presentation attributes only), the same
// input giving the same bytes. Conventions of the field's published figures: message sizes on a
// log x axis, measured (reference) values as points with their tolerance band, the model as a line,
// units in the axis titles.
//
// Every series is one <g class="series" data-series="NAME" data-kind="reference|model|bar"> so a
// reader (or a browser test) can find each one in the DOM; the chart is <svg class="plot"
// id="ID" role="img" aria-label="TITLE">.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace nicsim {

struct PlotPoint {
  double x = 0, y = 0;
  std::optional<double> lo, hi;  ///< the tolerance band around y (reference points), in y units
};

struct PlotSeries {
  std::string name;       ///< legend text
  bool reference = false; ///< true: points with bands; false: a line through the points (model)
  unsigned color = 0;     ///< index into the palette (a reference and its model share one)
  std::vector<PlotPoint> points;
};

struct LinePlot {
  std::string id, title, x_label, y_label;  ///< labels carry the unit: "message size (bytes)"
  bool log_x = true;
  bool log_y = false;
  std::vector<PlotSeries> series;
};

/// The chart as one <svg> element, 800 x 400 px. Points with x <= 0 (log x) or y <= 0 (log y) are
/// left out. An empty plot (no drawable point) still has its frame, axes and title.
std::string svg_line_plot(const LinePlot& p);

/// A grouped bar chart: per category (x), one bar per series; a reference bar carries its band as a
/// whisker.
struct BarChart {
  std::string id, title, y_label;
  std::vector<std::string> categories;
  struct Series {
    std::string name;
    bool reference = false;
    unsigned color = 0;
    std::vector<std::optional<PlotPoint>> values;  ///< one per category (x ignored); nullopt = no bar
  };
  std::vector<Series> series;
};
std::string svg_bar_chart(const BarChart& c);

/// A tornado chart (sensitivity ranking): one row per knob, a bar from the base value to each
/// alternative's value, largest effect on top.
struct TornadoChart {
  std::string id, title, x_label;  ///< x_label: the metric with its unit
  double base = 0;                 ///< the metric in the unchanged scenario
  struct Row {
    std::string knob;
    struct Alt {
      std::string label;  ///< e.g. "InterruptThrottleRate=0"
      double value = 0;
    };
    std::vector<Alt> alts;
  };
  std::vector<Row> rows;  ///< in the order drawn, top first
};
std::string svg_tornado(const TornadoChart& c);

/// The palette's colour `i` (wraps), "#rrggbb".
const char* plot_color(unsigned i);

}  // namespace nicsim
