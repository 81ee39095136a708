#include "core/events.h"

namespace nicsim {
EventLog& run_events() {
  static EventLog log;
  return log;
}
}  // namespace nicsim
