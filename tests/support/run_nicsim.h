// Running the real nicsim binary from scenario tests (NICSIM_BIN, compiled in by CMake).
#pragma once
#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>

namespace nicsim::test {

/// Run shell command `cmd` and return its stdout; REQUIREs that it exits with code 0.
inline std::string run_stdout(const std::string& cmd) {
  std::string out;
  FILE* f = ::popen(cmd.c_str(), "r");
  REQUIRE(f != nullptr);
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int st = ::pclose(f);
  INFO("command: " << cmd);
  REQUIRE(WIFEXITED(st));
  REQUIRE(WEXITSTATUS(st) == 0);
  return out;
}

/// `nicsim ARGS --format json` (stderr discarded): the run's result JSON; REQUIREs exit code 0.
inline nlohmann::json run_json(const std::string& args) {
  return nlohmann::json::parse(run_stdout(std::string(NICSIM_BIN) + " " + args + " --format json 2>/dev/null"));
}

}  // namespace nicsim::test
