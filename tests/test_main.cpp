// Catch2 v2 runner. SystemC requires sc_main to exist when linking libsystemc; tests never call
// sc_elab_and_sim, they drive sc_start() directly from a TEST_CASE.
#define CATCH_CONFIG_RUNNER
#include "core/sim_context.h"
#include <catch2/catch.hpp>
#include <cstdlib>
#include <systemc>

int sc_main(int, char**) { return 0; }

// As cli/main.cpp: no SystemC banner in test logs (set before SystemC's static initialisers run).
__attribute__((constructor(101))) static void nicsim_no_systemc_banner() {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
}

int main(int argc, char** argv) {
  // Tests look at single marks of journeys (finished(), find()): keep them all. The folding that
  // runs keep (core/journey.h) is computed alongside and tested on its own (core_journey.cpp).
  nicsim::sim().journeys.set_keep_marks(true);
  return Catch::Session().run(argc, argv);
}
