// The CPU time profile of a run as `nicsim explain --cpu` prints it: per host and CPU a context
// table and a flat profile in the style of OProfile's opreport / `perf report`, read from
// result.json's `cpu_profile` (platforms/host_software.h cpu_profile_json documents its shape).
// Pure functions over that JSON: no SystemC.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace nicsim {

/// The text of `cpu_profile` (result.json's object {host: {"cpu<N>": {...}}}): for each host and
/// CPU the context table (time ms, % of wall, cycles per packet) and the flat profile of its top
/// `top` entries (cycles, % of busy time, cumulative %, cycles per packet, symbol, context), the
/// rest summed in one line. Cycles are time × the CPU's clock.
std::string format_cpu_profile(const nlohmann::json& cpu_profile, size_t top = 25);

/// What does not add up in `cpu_profile`, one line each (empty when it balances): per CPU the
/// contexts must sum to wall_ps, the contexts and the entries of each level to levels.<level>,
/// levels to wall_ps, all exactly (integer picoseconds).
std::vector<std::string> cpu_profile_problems(const nlohmann::json& cpu_profile);

/// One row of the gap between two runs' profiles: cycles per packet of (host, cpu, symbol,
/// context) in A and B (0 where a run lacks the row) and B - A.
struct CpuGapRow {
  std::string host, cpu, symbol, context, level;  // level: the entry's (hardirq, softirq, process)
  double a_per_pkt = 0, b_per_pkt = 0, delta = 0;
};
/// Rows of every (host, cpu, symbol, context) either run has, by |delta| descending; rows
/// with |delta| < 0.05 cycles per packet dropped.
std::vector<CpuGapRow> cpu_gap(const nlohmann::json& a, const nlohmann::json& b);
/// The gap table (top `top` rows) and, per host and CPU, busy cycles per packet in A and B.
std::string format_cpu_gap(const nlohmann::json& a, const nlohmann::json& b, const std::string& a_name,
                           const std::string& b_name, size_t top = 25);

/// The plain-words summary of a `--cpu` comparison, per host, computed from the two runs'
/// result.json (`cpu_profile` and `counters`): busy % and busy cycles per packet of each run,
/// interrupts per second per /proc/interrupts label (`<host>.interrupts.CPU<n>.<label>` summed
/// over CPUs, over the host's profile wall time), the per-packet difference by level and by
/// context with each context's largest entries.
struct CpuSummaryHost {
  struct Irq {
    std::string label;
    double a_per_s = 0, b_per_s = 0;
  };
  struct Entry {
    std::string symbol;
    double delta = 0;
  };
  struct Context {
    std::string context;
    double delta = 0;
    std::vector<Entry> entries;  // largest first, same sign as delta, at most 3
  };
  std::string host;
  double mhz = 0;
  double a_busy_pct = 0, b_busy_pct = 0, a_per_pkt = 0, b_per_pkt = 0;
  std::vector<Irq> irqs;                                 // labels whose rate moved, largest move first
  std::vector<std::pair<std::string, double>> levels;    // hardirq/softirq/process delta, largest |delta| first
  std::vector<Context> contexts;                         // the contexts that carry the difference
  bool no_difference = false;
  std::string text;                                      // one paragraph
};
/// Hosts with packets in both runs, the largest change in busy cycles per packet first.
std::vector<CpuSummaryHost> cpu_gap_summary(const nlohmann::json& result_a, const nlohmann::json& result_b);
/// The paragraphs, one line per host ("(no host ...)" when none).
std::string format_cpu_gap_summary(const std::vector<CpuSummaryHost>& s);
nlohmann::json cpu_gap_summary_json(const std::vector<CpuSummaryHost>& s);

}  // namespace nicsim
