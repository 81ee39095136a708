// lmbench 2.0's result arithmetic and output lines (pure; no SystemC), for the lmbench workload
// (lmbench_app.h). Source: GitHub ricarkol/lmbench2 (lmbench 2.0 as released): src/lib_timing.c
// micro() ("%s: %.4f microseconds\n" of the saved time over get_n()), save_median(), tvdelta()
// (whole microseconds from gettimeofday), src/lat_ctx.c main() (the "\n\"size=%dk ovr=%.2f\n"
// header and "%d %.2f\n" per process count, both to stderr).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nicsim {

/// micro(s, n): "<label>: <usecs/n with 4 decimals> microseconds\n".
std::string lmbench_micro_line(const std::string& label, double usecs, uint64_t n);
/// lat_ctx's header: "\n\"size=<kb>k ovr=<overhead_us, 2 decimals>\n" (a blank line first).
std::string lat_ctx_header(int size_kb, double overhead_us);
/// lat_ctx's result line: "<procs> <us, 2 decimals>\n".
std::string lat_ctx_line(int procs, double us);

/// A parsed micro() line.
struct LmbenchMicro {
  std::string label;  ///< e.g. "TCP latency using localhost"
  double us = 0;
};
/// Parse "<label>: <number> microseconds" (with or without the newline); nullopt otherwise.
std::optional<LmbenchMicro> parse_lmbench_micro(const std::string& line);
/// Parse lat_ctx's "<procs> <us>" line; nullopt otherwise.
std::optional<std::pair<int, double>> parse_lat_ctx_line(const std::string& line);

/// save_median() over the timed runs of one BENCH (total whole microseconds `u` of `n` iterations
/// each, every run the same n): the middle run, or the mean of the two middle ones for an even
/// count, in lmbench's order (largest time per iteration first). Returns the median total µs.
/// Throws std::invalid_argument for no runs.
double lmbench_median_usecs(std::vector<uint64_t> usecs);

/// tvdelta(): an interval in whole microseconds, as gettimeofday() gives them.
uint64_t lmbench_whole_usecs(double seconds);

}  // namespace nicsim
