// The core of `nicsim run`, shared with bench/nicsim_bench: build a scenario's Testbed and run its
// workload (which runs the simulation).
#pragma once
#include "platforms/scenario.h"
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace nicsim {

/// Make SystemC errors throw (reported once by the caller) and silence its info messages, so a
/// model error does not print into the benchmark's output. Call before building modules.
void set_model_error_reporting();

/// What a run records beyond its results. `series_interval_s` > 0: sample time series every that
/// many seconds (platforms/transfer_report.h RunSeries) into result["series"]; a run with tracing
/// on (sim().trace) samples them too (every 1 ms unless given) and adds them to the trace.
/// `pcap_dir` not empty: capture every link direction's frames into pcap files there
/// (platforms/pcap_capture.h) and list them in result["pcap"].
/// The series stops after `series_max_samples` samples (0: kMaxSeriesSamples of
/// platforms/transfer_report.h), and result["series_stopped_at_s"] says when.
struct RunOptions {
  double series_interval_s = 0;
  size_t series_max_samples = 0;
  std::string pcap_dir;
};

/// Build the Testbed of `scenario` (elaboration: once per process), store its hardware
/// description in result["hardware"] and run the scenario's workload, which prints its own
/// output to `out` and fills result["metrics"], then store the frame accounting of its links in
/// result["accounting"] (Testbed::frame_accounting), each host's CPU profile (cpu_profile) and
/// TCP transfer attribution and NIC batch sizes (transfer). With opts.pcap_dir, result["pcap"] is
/// [{link, from, to, file (name in pcap_dir), frames}] per link direction; a link whose model
/// cannot be captured is a std::runtime_error before the run. Returns the workload's code (0 ok,
/// 1 failed). Throws what the models throw (std::exception), std::runtime_error for an unknown
/// workload.
int run_workload(const Scenario& scenario, std::ostream& out, nlohmann::json& result, const RunOptions& opts = {});

}  // namespace nicsim
