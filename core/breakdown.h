// Latency breakdown: aggregate journeys into per-stage statistics, and attribute the gap between
// two runs to stages and causes. Pure functions over core/journey.h data (JourneyTotals); `nicsim explain` prints
// them. The stages of each journey partition its end-to-end time (each mark lasts until the next
// one), so the stage means always sum to the mean total.
#pragma once
#include "core/journey.h"
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nicsim {

struct StageStats {
  std::string stage;       ///< e.g. "moderation wait"
  std::string cause;       ///< e.g. "ITR"; empty when the stage has no cause
  /// Where the stage happened, in the scenario's names (core/result_names.h): every place that
  /// contributed time, most first, joined by ", " (e.g. "beta.eth1, alpha.eth1" for descriptor
  /// fetches in a ping-pong, where each one-way message is fetched by its sender's NIC).
  std::string where;
  double mean_us = 0;      ///< mean over journeys (journeys without the stage count as 0)
  double p50_us = 0, p99_us = 0;
  double share = 0;        ///< mean_us / mean total
  size_t journeys_with = 0;  ///< journeys in which the stage occurred
};

struct Breakdown {
  size_t journeys = 0;
  double mean_total_us = 0, p50_total_us = 0, p99_total_us = 0;
  std::vector<StageStats> stages;  ///< in order of first appearance along the path
  nlohmann::json to_json() const;
  static Breakdown from_json(const nlohmann::json& j);
};

/// Aggregate finished journeys whose kind starts with `kind_prefix` (all when empty).
/// Each journey's time in a (stage, cause) is the sum of its intervals in it. A stage's places are
/// ordered by their exact total time (ties by name).
Breakdown breakdown(const JourneyTotals& journeys, const std::string& kind_prefix = "");
/// The same over journeys with all their marks (tests).
Breakdown breakdown(const std::vector<Journey>& journeys, const std::string& kind_prefix = "");

struct GapRow {
  std::string stage, cause;
  /// Where the stage happened in run A and in run B (StageStats::where of each side; empty when the
  /// side has no such stage).
  std::string where_a, where_b;
  double a_us = 0, b_us = 0, delta_us = 0;  ///< mean per message in run A, run B, B - A
  /// The places of both runs: one list when they agree (or one side has none), else
  /// "<a_name>: ...; <b_name>: ...".
  std::string where(const std::string& a_name, const std::string& b_name) const;
};

/// Per-stage difference B - A, sorted by |delta| descending (rows with |delta| < 0.005 µs dropped).
std::vector<GapRow> gap(const Breakdown& a, const Breakdown& b);

/// Plain-words summary of a gap table (one paragraph).
std::string gap_summary(const Breakdown& a, const Breakdown& b, const std::vector<GapRow>& rows,
                        const std::string& a_name, const std::string& b_name);

/// Text tables as printed by `nicsim explain`. The stage column is as wide as the longest
/// "stage (cause)" label (at least 44 characters), so long stage names do not push the numbers
/// out of their columns.
std::string format_breakdown(const Breakdown& b);
std::string format_gap(const std::vector<GapRow>& rows, const std::string& a_name, const std::string& b_name);

}  // namespace nicsim
