// `nicsim describe PLATFORM`: a platform's topology as a tree (buses, clocks, widths, slots, what
// sits where), from its PlatformEntry with default parameters.
#include "cli/verbs.h"
#include "platforms/testbed.h"
#include <fmt/core.h>
#include <iostream>

namespace nicsim {
namespace {

namespace po = boost::program_options;

const char* kDescribeUsage =
    "usage: nicsim describe PLATFORM\n\n"
    "Print PLATFORM's topology as a tree: buses, clocks, widths, slots and what sits where, with\n"
    "the platform's default parameters ('nicsim list platforms' names the platforms).";

int describe_main(int argc, char** argv) {
  po::options_description opts("options");
  std::string name;
  opts.add_options()("platform", po::value<std::string>(&name)->required(), "platform name; also positional");
  po::positional_options_description pos;
  pos.add("platform", 1);
  po::variables_map vm;
  if (auto rc = parse_verb_args(argc, argv, kDescribeUsage, opts, pos, vm)) return *rc;

  auto& reg = Registry<PlatformEntry>::instance();
  const PlatformEntry* p = reg.find(name);
  if (!p) {
    auto near = nearest_name(name, reg.names());
    fmt::print(stderr, "nicsim describe: unknown platform '{}'{}\n(see 'nicsim list platforms')\n", name,
               near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near));
    return kExitUsage;
  }
  ParamValues defaults(p->params);
  if (p->describe) {
    std::string tree = p->describe(defaults);
    say("{}{}", tree, !tree.empty() && tree.back() == '\n' ? "" : "\n");
  } else {
    say("{} — {}\n", p->name, p->summary);
    for (auto& s : p->slots)
      say("  slot {}: {}{}\n", s.name, s.segment, s.description.empty() ? "" : " — " + s.description);
  }
  return kExitOk;
}

Registrar<VerbEntry> describe_verb{VerbEntry{"describe", "print a platform's topology (buses, clocks, slots)", describe_main}};

}  // namespace
}  // namespace nicsim
