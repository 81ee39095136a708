#include "cli/verbs.h"
#include "core/results.h"
#include <fmt/core.h>
#include <string>

namespace nicsim {

static void top_help() {
  fmt::print("nicsim {} — full-system NIC + chipset simulator (SystemC/TLM-2.0)\n\n", version());
  fmt::print("usage: nicsim <verb> [options]   (nicsim <verb> --help for details)\n\nverbs:\n");
  for (auto& [name, v] : Registry<VerbEntry>::instance().all()) fmt::print("  {:<10} {}\n", name, v.summary);
}

int cli_main(int argc, char** argv) {
  if (argc < 2) {
    top_help();
    return kExitUsage;
  }
  std::string verb = argv[1];
  if (verb == "--help" || verb == "-h" || verb == "help") {
    top_help();
    return kExitOk;
  }
  if (verb == "--version") {
    fmt::print("nicsim {}\n", version());
    return kExitOk;
  }
  auto* v = Registry<VerbEntry>::instance().find(verb);
  if (!v) {
    auto near = nearest_name(verb, Registry<VerbEntry>::instance().names());
    fmt::print(stderr, "nicsim: unknown verb '{}'{}\n", verb, near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near));
    top_help();
    return kExitUsage;
  }
  return v->main(argc - 1, argv + 1);
}

}  // namespace nicsim
