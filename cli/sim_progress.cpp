#include "cli/sim_progress.h"
#include "cli/executor.h"
#include "platforms/scenario.h"
#include <algorithm>
#include <cstdio>
#include <fmt/core.h>
#include <sys/ioctl.h>
#include <systemc>
#include <unistd.h>

namespace nicsim {

std::string sim_progress_line(double sim_s, std::optional<double> length_s, double wall_s) {
  const double rate = wall_s > 0 ? sim_s / wall_s : 0;
  std::string s = fmt::format("simulated {:.2f}", sim_s);
  if (length_s && *length_s > 0) {
    const double frac = std::min(1.0, sim_s / *length_s);
    s += fmt::format("/{:.2f} s ({:.0f}%)", *length_s, 100 * frac);
  } else {
    s += " s";
  }
  s += fmt::format(", {:.3g} sim-s/s", rate);
  if (length_s && *length_s > 0)
    s += ", ETA " + (rate > 0 ? format_duration(std::max(0.0, *length_s - sim_s) / rate) : std::string("?"));
  return s;
}

std::optional<double> workload_length_s(const Scenario& scenario) {
  const ParamValues& p = scenario.workload.params;
  if (!p.has("duration_s")) return std::nullopt;
  double n = 1;
  if (p.has("sizes") && !p.s("sizes").empty()) {
    n = 0;
    for (char c : p.s("sizes")) n += c == ',';
    n += 1;
  }
  return (p.has("start_s") ? p.r("start_s") : 0.0) + n * p.r("duration_s");
}

SimProgress::SimProgress(std::function<void(const std::string&)> show, std::optional<double> length_s,
                         std::chrono::milliseconds period)
    : show_(std::move(show)), length_s_(length_s), period_(period), start_(std::chrono::steady_clock::now()) {
  // The simulation context exists before the watcher reads it (sc_get_curr_simcontext creates it
  // on first use, which must not happen on two threads at once).
  (void)sc_core::sc_get_curr_simcontext();
  th_ = std::thread([this] {
    std::unique_lock<std::mutex> lk(m_);
    while (!cv_.wait_for(lk, period_, [this] { return stop_; })) {
      // The simulation thread advances the time while this one reads it: an aligned 64-bit load
      // (sc_time's value), at worst one step old. Nothing here touches the simulation.
      const double sim_s = sc_core::sc_time_stamp().to_seconds();
      const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      show_(sim_progress_line(sim_s, length_s_, wall_s));
    }
  });
}

SimProgress::~SimProgress() {
  {
    std::lock_guard<std::mutex> lk(m_);
    stop_ = true;
  }
  cv_.notify_all();
  th_.join();
  show_("");
}

void TerminalLine::show(const std::string& line) {
  std::lock_guard<std::mutex> lk(m_);
  // Cut to the terminal's width: a line that wraps cannot be rewritten with "\r".
  struct winsize ws {};
  const size_t cols = ::ioctl(::fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1 : 79;
  fmt::print(out_, "\r\033[K{}", line.size() > cols ? line.substr(0, cols) : line);
  std::fflush(out_);
  shown_ = !line.empty();
}

void TerminalLine::clear() {
  std::lock_guard<std::mutex> lk(m_);
  if (!shown_) return;
  fmt::print(out_, "\r\033[K");
  std::fflush(out_);
  shown_ = false;
}

std::function<void(const std::string&)> progress_file_writer(const std::string& path) {
  return [path](const std::string& line) {
    // Written whole and renamed over the old one, so a reader never sees half a line.
    const std::string tmp = path + ".tmp";
    if (std::FILE* f = std::fopen(tmp.c_str(), "w")) {
      std::fputs(line.c_str(), f);
      std::fclose(f);
      std::rename(tmp.c_str(), path.c_str());
    }
  };
}

}  // namespace nicsim
