#include "core/sim_context.h"

namespace nicsim {
SimContext& sim() {
  static SimContext ctx;
  return ctx;
}
}  // namespace nicsim
