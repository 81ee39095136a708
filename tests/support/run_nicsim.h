// Running the real nicsim binary from tests (NICSIM_BIN, compiled in by CMake): its stdout as a
// string or JSON, or its exit code with stdout and stderr captured in files.
#pragma once
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>

namespace nicsim::test {

/// The nicsim binary the CLI tests run: NICSIM_BIN (the build's), or $NICSIM_TEST_BIN when set (to
/// run the same tests against another build, e.g. an older binary a regression test must fail on).
inline const char* nicsim_bin_path() {
  const char* e = std::getenv("NICSIM_TEST_BIN");
  return e && *e ? e : NICSIM_BIN;
}

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
  return nlohmann::json::parse(run_stdout(std::string(nicsim_bin_path()) + " " + args + " --format json 2>/dev/null"));
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// `s` in single quotes for /bin/sh.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct BinResult {
  int code;
  std::string out, err;
};

/// Run NICSIM_BIN with `args` (each shell-quoted), stdin from /dev/null; `dir` receives the
/// captured stdout and stderr. REQUIREs a normal exit.
inline BinResult run_nicsim_bin(const std::filesystem::path& dir, const std::vector<std::string>& args) {
  std::string cmd = shell_quote(nicsim_bin_path());
  for (auto& a : args) cmd += " " + shell_quote(a);
  auto out = dir / "stdout", err = dir / "stderr";
  cmd += " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string()) + " </dev/null";
  int st = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(st));
  return {WEXITSTATUS(st), slurp(out), slurp(err)};
}

}  // namespace nicsim::test
