// CLI verbs register themselves (VerbEntry) so `nicsim --help` lists what the binary has.
#pragma once
#include "core/registry.h"
#include <functional>
#include <string>
#include <vector>

namespace nicsim {

/// Exit codes shared by every verb.
enum ExitCode : int { kExitOk = 0, kExitRunFailed = 1, kExitUsage = 2 };

struct VerbEntry {
  std::string name, summary;
  /// argv[0] is the verb name; returns an ExitCode.
  std::function<int(int argc, char** argv)> main;
};

/// Parses the verb and dispatches; prints top-level help.
int cli_main(int argc, char** argv);

}  // namespace nicsim
