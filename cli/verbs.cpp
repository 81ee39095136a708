// Top-level dispatch and the option parsing every verb shares.
#include "cli/verbs.h"
#include "core/params.h"
#include "core/results.h"
#include <algorithm>
#include <fmt/core.h>
#include <iostream>
#include <string>

namespace nicsim {

namespace po = boost::program_options;

static void top_help(FILE* to) {
  fmt::print(to, "nicsim {} — full-system NIC + chipset simulator (SystemC/TLM-2.0)\n\n", version());
  fmt::print(to, "usage: nicsim <verb> [options]   (nicsim <verb> --help for details)\n\nverbs:\n");
  auto& reg = Registry<VerbEntry>::instance();
  for (auto& [name, v] : reg.all()) fmt::print(to, "  {:<10} {}\n", name, v.summary);
  for (auto& r : kReservedVerbs)
    if (!reg.find(r)) fmt::print(to, "  {:<10} (reserved: not in this build yet)\n", r);
  fmt::print(to, "\nexit codes: 0 ok, 1 run failed, 2 usage or scenario error\n");
}

int cli_main(int argc, char** argv) {
  if (argc < 2) {
    top_help(stderr);
    return kExitUsage;
  }
  std::string verb = argv[1];
  if (verb == "--help" || verb == "-h" || verb == "help") {
    top_help(stdout);
    return kExitOk;
  }
  if (verb == "--version") {
    fmt::print("nicsim {}\n", version());
    return kExitOk;
  }
  auto* v = Registry<VerbEntry>::instance().find(verb);
  if (!v) {
    if (std::find(kReservedVerbs.begin(), kReservedVerbs.end(), verb) != kReservedVerbs.end()) {
      fmt::print(stderr, "nicsim: verb '{}' is reserved but not in this build yet\n", verb);
      return kExitUsage;
    }
    auto names = Registry<VerbEntry>::instance().names();
    names.insert(names.end(), kReservedVerbs.begin(), kReservedVerbs.end());
    auto near = nearest_name(verb, names);
    fmt::print(stderr, "nicsim: unknown verb '{}'{}\n\n", verb, near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near));
    top_help(stderr);
    return kExitUsage;
  }
  return v->main(argc - 1, argv + 1);
}

std::optional<int> parse_verb_args(int argc, char** argv, const std::string& usage, po::options_description& opts,
                                   const po::positional_options_description& pos, po::variables_map& vm,
                                   const po::options_description* hidden) {
  std::string verb = argc > 0 ? argv[0] : "?";
  opts.add_options()("help,h", "print this help and exit");
  po::options_description all;
  all.add(opts);
  if (hidden) all.add(*hidden);
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    if (vm.count("help")) {
      if (!usage.empty()) std::cout << usage << "\n\n";
      std::cout << opts << "\n";
      return kExitOk;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "nicsim {}: {}\n(see 'nicsim {} --help')\n", verb, e.what(), verb);
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace nicsim
