// nicsim command-line entry point: dispatches to the verbs registered in cli/verbs.h.
#include "cli/verbs.h"
#include <systemc>

int sc_main(int argc, char** argv) { return nicsim::cli_main(argc, argv); }
