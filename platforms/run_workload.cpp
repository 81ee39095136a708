#include "platforms/run_workload.h"
#include "core/events.h"
#include "platforms/fault_timeline.h"
#include "platforms/host_software.h"
#include "platforms/pcap_capture.h"
#include "platforms/testbed.h"
#include "platforms/transfer_report.h"
#include "core/fidelity.h"
#include "core/sim_context.h"
#include <stdexcept>
#include <systemc>

namespace nicsim {

void set_model_error_reporting() {
  using sc_core::sc_report_handler;
  sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_THROW);
  sc_report_handler::set_actions(sc_core::SC_FATAL, sc_core::SC_THROW);
  sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

int run_workload(const Scenario& scenario, std::ostream& out, nlohmann::json& result, const RunOptions& opts) {
  // The models read the run's fidelity as they are built (core/fidelity.h); results say which.
  set_run_fidelity(scenario.fidelity);
  result["fidelity"] = fidelity_name(scenario.fidelity);
  Testbed tb(scenario);
  result["hardware"] = tb.hardware_json();
  // What each kernel actually runs with, not the "profile's value" placeholders of the echo.
  for (auto& h : tb.hosts()) {
    const nlohmann::json kj = kernel_params_json(h);  // a local: items() of a temporary dangles
    for (auto& [k, v] : kj.items()) result["hardware"][h.name()][k] = v;
  }
  const WorkloadEntry* w = Registry<WorkloadEntry>::instance().find(scenario.workload.type);
  if (!w) throw std::runtime_error("unknown workload '" + scenario.workload.type + "'");
  std::unique_ptr<RunSeries> series;
  if (opts.series_interval_s > 0 || sim().trace.enabled())
    series = std::make_unique<RunSeries>(
        tb, sc_core::sc_time(opts.series_interval_s > 0 ? opts.series_interval_s : 1e-3, sc_core::SC_SEC),
        opts.series_max_samples ? opts.series_max_samples : kMaxSeriesSamples);
  // Captures: one per link, owned here; detached from the links before they go.
  struct Capture {
    std::string link, a, b;
    std::unique_ptr<PcapLinkCapture> pcap;
  };
  std::vector<Capture> captures;
  if (!opts.pcap_dir.empty()) {
    auto bad = tb.tap_links([&](const std::string& link, const std::string& a, const std::string& b) -> EthTap* {
      captures.push_back({link, a, b, std::make_unique<PcapLinkCapture>(opts.pcap_dir, link, a, b)});
      return captures.back().pcap.get();
    });
    if (!bad.empty()) throw std::runtime_error("--pcap: link " + bad.front() + " is not an Ethernet link model that can be captured");
  }
  int rc = w->run(tb, out, result);
  if (!opts.pcap_dir.empty()) {
    tb.tap_links([](const std::string&, const std::string&, const std::string&) -> EthTap* { return nullptr; });
    nlohmann::json files = nlohmann::json::array();
    for (auto& c : captures) {
      c.pcap->close();
      for (unsigned d = 0; d < 2; ++d)
        files.push_back({{"link", c.link},
                         {"from", d == 0 ? c.a : c.b},
                         {"to", d == 0 ? c.b : c.a},
                         {"file", c.pcap->file(d).filename().string()},
                         {"frames", c.pcap->frames(d)}});
    }
    result["pcap"] = files;
  }
  // Segment modes as the run had them (a workload such as busbench plugs its devices itself).
  const nlohmann::json after = tb.hardware_json();  // a local: items() of a temporary dangles
  for (auto& [host, hw] : after.items())
    if (hw.contains("segments")) result["hardware"][host]["segments"] = hw["segments"];
  // Where each host's CPUs spent the run (nicsim explain --cpu reads it).
  if (TestbedSoftware* sw = built_software(tb))
    for (auto& h : tb.hosts()) {
      result["cpu_profile"][h.name()] = cpu_profile_json(*sw->host(h.name()).kernel, host_frames(h));
      // Where each TCP connection's time went, and each NIC's frames per interrupt (explain --transfer).
      result["transfer"][h.name()] =
          transfer_json(sw->host(h.name()), static_cast<uint64_t>(sc_core::sc_time_stamp().value() / 1000));
    }
  if (series) {
    if (opts.series_interval_s > 0) result["series"] = series->to_json();
    if (auto at = series->stopped_at_s()) result["series_stopped_at_s"] = *at;
    if (sim().trace.enabled()) series->to_trace();
  }
  // Every retransmission timeout of each socket, named with its RTO and backoff and the faults
  // its wait spanned (nicsim explain --transfer prints them).
  if (result.contains("transfer")) attach_tcp_timeouts(result["transfer"], run_events(), scenario);
  result["accounting"] = tb.frame_accounting();
  // /proc/net/bondN/info, ethtool -S and the e1000 proc file as they read at the end of the run;
  // with --out each is also a file beside result.json.
  if (TestbedSoftware* sw = built_software(tb)) {
    nlohmann::json views = host_views_json(*sw);
    if (!views.empty()) {
      result["host_views"] = views;
      for (auto& [host, vs] : views.items())
        for (auto& [path, text] : vs.items()) result["files"][host_view_file_name(host, path)] = text;
    }
  }
  if (!scenario.faults.empty()) {
    result["faults"] = fault_timeline_json(scenario, run_events(), &tb);
    // Where frames stopped above the wire: each interface's qdisc (pfifo_fast drops, and frames
    // still queued at the end: a stopped queue holds them), next to the counters of the drivers,
    // bonding and NICs that free or hold frames on a fault (docs/faults.md).
    nlohmann::json sw_losses = nlohmann::json::object();
    if (TestbedSoftware* sw = built_software(tb))
      for (auto& [hn, hs] : sw->hosts)
        for (auto& [dn, dev] : hs->netdevs)
          sw_losses[hn + "." + dn] = {{"qdisc_drops", dev->qdisc_drops()}, {"qdisc_backlog", dev->qdisc_len()}};
    result["fault_losses"] = sw_losses;
    // Numbers a sweep over the faults plots (nicsim sweep --metric): TCP's timeouts, frames given a
    // bad FCS and frames lost on dead wires over the whole run.
    uint64_t rtos = 0, bad = 0, lost = 0;
    for (const RunEvent& e : run_events().events()) rtos += e.what == "TCP retransmission timeout";
    for (const auto& f : result["faults"])
      if (f.contains("frames_corrupted")) bad += f["frames_corrupted"].get<uint64_t>();
    for (const auto& d : result["accounting"]["directions"])
      if (d.contains("lost_on_wire")) lost += d["lost_on_wire"].get<uint64_t>();
    result["metrics"]["tcp_timeouts"] = rtos;
    result["metrics"]["frames_bad_fcs"] = bad;
    result["metrics"]["frames_lost_on_wire"] = lost;
    print_fault_timeline(out, result["faults"]);
    // The throughput plot marks each fault and what the layers noted after it (TCP's own events
    // are drawn from the socket series).
    if (result.contains("series")) result["series"]["marks"] = fault_marks_json(result["faults"]);
  }
  return rc;
}

}  // namespace nicsim
