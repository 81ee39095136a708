// What a user sees of a scenario's [[faults]] (docs/faults.md): per fault, the events the layers
// noted in the run's event log (core/events.h) from the fault's time until the next fault on the
// same link (or the end of the run; a frame error rate: its window), each with its delay after
// the fault, and the milestones of the recovery: signal lost, PHY link down, driver carrier off,
// bond switched, first frame on the new path, TCP's first retransmission timeout and its first
// new data acknowledged; the same for a replug. result.json "faults" and the run's text output.
#pragma once
#include "core/events.h"
#include "platforms/scenario.h"
#include <nlohmann/json.hpp>
#include <ostream>

namespace nicsim {

class Testbed;

/// [{"fault": i, "type", "at_s", "link", "a", "b", "events": [{"t_s", "after_ms", "where", "what",
/// "detail"}], "milestones": {what: after_ms of its first occurrence}, plus for frame_error_rate
/// "frames_corrupted"}]. Names are the scenario's (result_names()).
nlohmann::json fault_timeline_json(const Scenario& s, const EventLog& log, Testbed* tb);
/// The same as text, one block per fault; under an "active slave changed" event, the bond's
/// /proc/net/bondN/info as it read at that moment.
void print_fault_timeline(std::ostream& out, const nlohmann::json& faults);

/// Vertical marks for the throughput-over-time plot (result.json "series.marks"): [{"t_s",
/// "label", "kind": "fault" | "event"}], each fault's start ("fault 0: cable_pull links.0") and, for
/// a frame error rate with an end, its end; every event of its timeline but TCP's (the plot marks
/// those from the socket series) and the link's own at the fault's instant; events at the same
/// instant share one mark, their labels joined.
nlohmann::json fault_marks_json(const nlohmann::json& faults);

/// Each socket of `transfer` (result.json "transfer", platforms/transfer_report.h) that had
/// retransmission timeouts gets, from the run's event log (the events InetHost notes for
/// "<host>.tcp<id>"):
///   "timeouts": [{"t_s" (the timer fired), "rto_ms" (the timeout that expired: the RTO armed at
///                 the episode's previous timeout, or half the next one at its first, 2.4's
///                 tcp_retransmit_timer doubling it), "armed_s" (t_s - rto_ms), "backoff"
///                 (tp->backoff after it), "next_rto_ms" (a local drop: the retry),
///                 "local_drop": true when the retransmission met a full device queue (the RTO
///                 and backoff kept, the timer re-armed at min(RTO, 500 ms)),
///                 "faults": [{"fault", "type", "at_s", "link"}] (the scenario's faults in force
///                 during the wait: a pull or a partner's loss from its time to the next fault
///                 on its link, a frame error rate over its window, a replug when it fell inside)}],
///   "resumed": [{"t_s", "after_timeouts"}] (the first ACK of new data after an episode).
void attach_tcp_timeouts(nlohmann::json& transfer, const EventLog& log, const Scenario& s);

struct TestbedSoftware;
/// What a user of each host reads from its drivers now, in the era's formats (result.json
/// "host_views": {host: {path or command: text}}):
///  "/proc/net/bondN/info" per bond (2.4.20 bond_get_info, bonding::proc_net_bond_info);
///  "ethtool -S ethN" per e1000 port whose driver version's answer was read (5.0.43-k1: the 21
///    net_device_stats; 4.4.12-k1: "no stats available") and per tg3 port (0.99 / 1.0 answer no
///    ETHTOOL_GSTATS: "no stats available");
///  "/proc/net/PRO_LAN_Adapters/ethN.info" per e1000 4.4.12-k1 port (from its "Link" line on).
/// A driver's counters are what it last read from the NIC (e1000: every 2 s in the watchdog).
nlohmann::json host_views_json(TestbedSoftware& sw);
/// A plain file name for host `host`'s view `path` ("alpha", "/proc/net/bond0/info" ->
/// "alpha.proc_net_bond0_info.txt"; "ethtool -S eth1" -> "alpha.ethtool_-S_eth1.txt").
std::string host_view_file_name(const std::string& host, const std::string& path);

}  // namespace nicsim
