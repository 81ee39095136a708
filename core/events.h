// The run's event log: the few state changes a user follows through a fault (a cable pulled, a
// PHY declaring link down, a driver's carrier going off, a bond changing its active slave, TCP's
// retransmission timer firing and the first new data acknowledged after it). Each layer notes
// its own events where they happen; the run prints them per fault as a timeline (result.json
// "faults"). Recording costs nothing on the frame paths: only state changes are noted.
// (A separate singleton, not a SimContext member: every model includes core/sim_context.h.)
#pragma once
#include "core/units.h"
#include <string>
#include <vector>

namespace nicsim {

struct RunEvent {
  sc_time at;         ///< simulated time of the event
  std::string where;  ///< scenario-style name of who noted it: "links.0", "alpha.eth1", "alpha.bond0"
  std::string what;   ///< a short fixed phrase ("PHY link down", "carrier off", ...): see docs/faults.md
  std::string detail; ///< free text (the timer that fired, the slave chosen, the RTO)
  /// What the noting layer's status file showed right after the event, as the era's kernel printed
  /// it (bonding: the text of /proc/net/bondN/info), and that file's path; both empty when none.
  std::string view_path, view;
};

class EventLog {
 public:
  void note(const sc_time& at, std::string where, std::string what, std::string detail = "") {
    events_.push_back({at, std::move(where), std::move(what), std::move(detail), {}, {}});
  }
  /// The same with a snapshot of the layer's status file (RunEvent::view).
  void note(const sc_time& at, std::string where, std::string what, std::string detail, std::string view_path,
            std::string view) {
    events_.push_back({at, std::move(where), std::move(what), std::move(detail), std::move(view_path), std::move(view)});
  }
  const std::vector<RunEvent>& events() const { return events_; }
  void clear() { events_.clear(); }

 private:
  std::vector<RunEvent> events_;
};

/// The process's event log (one run per process, as sim()).
EventLog& run_events();

}  // namespace nicsim
