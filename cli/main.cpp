// nicsim command-line entry point: dispatches to the verbs registered in cli/verbs.h.
#include "cli/executor.h"
#include "cli/verbs.h"
#include <cstdlib>
#include <systemc>

// SystemC prints its copyright banner from static initialisers (the API-version check each TU
// that includes <systemc> instantiates), before sc_main runs, unless SYSTEMC_DISABLE_COPYRIGHT_MESSAGE
// is set (SystemC 2.3.4 sc_ver.cpp, pln()). A priority constructor runs before every default-priority
// static initialiser of this executable, so nicsim's output is exactly the tool's own.
__attribute__((constructor(101))) static void nicsim_no_systemc_banner() {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
}

int sc_main(int argc, char** argv) {
  nicsim::die_with_parent_from_env();
  return nicsim::cli_main(argc, argv);
}
