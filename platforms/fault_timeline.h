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
/// The same as text, one block per fault.
void print_fault_timeline(std::ostream& out, const nlohmann::json& faults);

}  // namespace nicsim
