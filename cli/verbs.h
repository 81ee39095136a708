// CLI verbs register themselves (VerbEntry) so `nicsim --help` lists what the binary has.
// One file per verb (cli/run.cpp, cli/list.cpp, cli/describe.cpp, ...), each with
// `static Registrar<VerbEntry> reg{VerbEntry{"name", "summary", verb_main}};`.
#pragma once
#include "core/registry.h"
#include <boost/program_options.hpp>
#include <cstdint>
#include <filesystem>
#include <fmt/core.h>
#include <functional>
#include <iostream>
#include <optional>
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

/// Verbs the top-level help announces even before a build registers them (later issues add them).
inline const std::vector<std::string> kReservedVerbs = {"sweep", "check", "explain"};

/// Print to std::cout (not C stdio), so output ordering and in-process capture follow std::cout.
template <typename... A>
void say(fmt::format_string<A...> f, A&&... a) {
  std::cout << fmt::format(f, std::forward<A>(a)...);
}

/// Parses the verb and dispatches; prints top-level help.
int cli_main(int argc, char** argv);

/// Parse a verb's arguments (argv[0] = verb name) into `vm` with `opts` (which gets a --help
/// option added) and positional arguments `pos`. Returns nullopt when the verb should go on;
/// otherwise the exit code to return: kExitOk after printing `usage` + options for --help,
/// kExitUsage after printing "nicsim VERB: <error>" and a hint to stderr.
/// `usage` is the synopsis and description printed above the options (may be empty when `opts`
/// carries it as its caption). `hidden`: options parsed but not listed (e.g. the one positional
/// arguments map to).
std::optional<int> parse_verb_args(int argc, char** argv, const std::string& usage,
                                   boost::program_options::options_description& opts,
                                   const boost::program_options::positional_options_description& pos,
                                   boost::program_options::variables_map& vm,
                                   const boost::program_options::options_description* hidden = nullptr);

/// A verb's usage error: prints "nicsim VERB: MESSAGE" and "(see 'nicsim VERB --help')" to stderr
/// and returns kExitUsage, so `return usage("...")` ends the verb. `verb` may carry a mode
/// ("explain --what-if"); the hint names the verb alone.
struct UsageError {
  std::string verb;
  int operator()(const std::string& message) const;
};

/// parse_verb_args for a verb whose positional arguments are a list (check's and report's PATHS,
/// sweep's SCENARIO): they are collected under one hidden option and returned in `*positional`
/// (empty when none are given).
std::optional<int> parse_verb_args_listing(int argc, char** argv, const std::string& usage,
                                           boost::program_options::options_description& opts,
                                           boost::program_options::variables_map& vm,
                                           std::vector<std::string>* positional);

/// Most parallel runs `--jobs` accepts (a guard against typos such as 1000000).
inline constexpr unsigned kMaxJobs = 1024;

/// Parse a `--seed N` value: a decimal integer from 0 to 18446744073709551615 (the full 64-bit
/// unsigned range; `nicsim run`, `sweep --vary seed=...` and `explain` accept the same). Returns
/// nullopt and sets `*why` (e.g. "--seed must be an integer from 0 to 18446744073709551615, not
/// '-1'") when it is not.
std::optional<uint64_t> parse_seed_arg(const std::string& text, std::string* why);

/// Parse a `--jobs N` value: a decimal integer from 1 to kMaxJobs. Returns nullopt and sets
/// `*why` otherwise (0, negative, not a number, too large).
std::optional<unsigned> parse_jobs_arg(const std::string& text, std::string* why);

/// For an output option (`--out DIR`): create `dir` (and its parents) if needed and write and
/// remove a probe file in it, so that an unwritable directory is reported before any run starts.
/// Returns "" when files can be written there, else why not ("cannot create directory 'x':
/// Permission denied", "'x' is not a directory", "cannot write in 'x': Read-only file system").
std::string out_dir_problem(const std::filesystem::path& dir);

/// As out_dir_problem for an output FILE (`--trace FILE`, `--junit FILE`): its directory must
/// exist (or be creatable) and be writable, and `file` must not be a directory.
std::string out_file_problem(const std::filesystem::path& file);

/// For `run --out DIR` into a directory used before: remove the previous run's result.json and the
/// side files it lists ("side_files": NetPIPE.out, netstat-s.*.txt, ...), so that nothing of that
/// run stays beside the new one. Returns "" on success, else why a file could not be removed.
std::string clear_previous_run(const std::filesystem::path& dir);

}  // namespace nicsim
