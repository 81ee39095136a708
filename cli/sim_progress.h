// Progress of one simulation while it runs (`nicsim run`, and `nicsim explain` for its runs): the
// simulated time against the workload's length, the simulation rate and the ETA, as one line
// rewritten in place on a terminal. A watcher thread reads the simulated time; it adds no SystemC
// process or event, so showing progress cannot change what the simulation computes (the same
// scenario and seed give the same result on a terminal and in CI).
#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <condition_variable>
#include <cstdio>
#include <mutex>

namespace nicsim {

/// "simulated 12.40/61.00 s (20%), 0.91 sim-s/s, ETA 53s". `length_s` is the workload's simulated
/// length (workload_length_s); without it (e.g. NetPIPE, which runs until its last size) the line
/// says "simulated 12.40 s" and the rate, with no percentage or ETA.
/// `wall_s` is the wall-clock time the simulation has run.
std::string sim_progress_line(double sim_s, std::optional<double> length_s, double wall_s);

struct Scenario;

/// The simulated length of `scenario`'s workload as its parameters give it, for the progress line:
/// start_s (rx_flood's flood start) plus duration_s (tcp_stream's -l, rx_flood's flood), times the
/// number of `sizes` entries (netperf_rr runs one -l per size). Empty for a workload that runs
/// until it is done (NetPIPE, lmbench, busbench): the line then shows the time and rate only.
std::optional<double> workload_length_s(const Scenario& scenario);

class SimProgress {
 public:
  /// Every `period` (first after one period), call `show` with sim_progress_line of the current
  /// simulated time (sc_time_stamp, read from the watcher thread) until destruction. `show` runs on
  /// the watcher thread.
  SimProgress(std::function<void(const std::string&)> show, std::optional<double> length_s,
              std::chrono::milliseconds period = std::chrono::milliseconds(250));
  ~SimProgress();
  SimProgress(const SimProgress&) = delete;
  SimProgress& operator=(const SimProgress&) = delete;

 private:
  std::function<void(const std::string&)> show_;
  std::optional<double> length_s_;
  std::chrono::milliseconds period_;
  std::chrono::steady_clock::time_point start_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread th_;
};

/// One line of a terminal stream, rewritten in place ("\r" + clear to end of line) by show(), and
/// cleared by clear() before other output goes to the same terminal (the workload's stdout), so the
/// two never mix on one line; the next show() draws it again below that output.
class TerminalLine {
 public:
  explicit TerminalLine(std::FILE* stream) : out_(stream) {}
  void show(const std::string& line);  ///< "" clears the line
  void clear();

 private:
  std::FILE* out_;
  std::mutex m_;
  bool shown_ = false;
};

/// A `show` for SimProgress that rewrites `path` with the line (nicsim explain reads it).
std::function<void(const std::string&)> progress_file_writer(const std::string& path);

}  // namespace nicsim
