// Pictures of a run (`nicsim run --plots DIR`, `nicsim explain --plots DIR`), drawn by gnuplot
// (cli/sweep_plot.h render_gnuplot) from result.json's `series` (platforms/transfer_report.h):
//  * throughput.svg: Mb/s read by each receiving socket per sample interval, with the sender's
//    retransmissions, fast recoveries, timeouts and undos marked along the time axis;
//  * tseq.svg: a tcptrace-style time-sequence plot of the busiest sending socket (segments sent as
//    vertical bars, retransmissions in red, the ACK line, the receive window's right edge, SACK
//    blocks), over a window of at most `max_segments` segments starting a little before the first
//    retransmission (or at the start when there is none);
//  * cpu_<host>.cpu<N>.svg: each CPU's utilisation over time by context, stacked (the contexts
//    under 0.5% of the run folded into "other"), idle on top.
// The .gp scripts (data inline) are kept beside the SVGs so a user can restyle them.
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace nicsim {

struct TransferPlot {
  std::string stem;    ///< file stem: "throughput", "tseq", "cpu_alpha.cpu0"
  std::string script;  ///< the gnuplot script, writing `svg` (the placeholder @SVG@ replaced)
};

/// The scripts for `series` (result.json "series"); empty when it holds nothing to draw.
/// `svg_placeholder` in each script is replaced by render_gnuplot with the output path.
std::vector<TransferPlot> transfer_plot_scripts(const nlohmann::json& series, size_t max_segments = 250);

/// Write the scripts and SVGs into `dir` (created) with gnuplot (PATH lookup when `gnuplot` is
/// nullopt and `search` is true). Returns the SVGs written; `messages` gets a line per plot
/// skipped or failed.
std::vector<std::filesystem::path> write_transfer_plots(const std::filesystem::path& dir, const nlohmann::json& series,
                                                        std::vector<std::string>* messages);

}  // namespace nicsim
