// Top-level dispatch and the option parsing every verb shares.
#include "cli/verbs.h"
#include "core/params.h"
#include "core/results.h"
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <fmt/core.h>
#include <unistd.h>
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

int UsageError::operator()(const std::string& message) const {
  fmt::print(stderr, "nicsim {}: {}\n(see 'nicsim {} --help')\n", verb, message, verb.substr(0, verb.find(' ')));
  return kExitUsage;
}

std::optional<int> parse_verb_args_listing(int argc, char** argv, const std::string& usage,
                                           po::options_description& opts, po::variables_map& vm,
                                           std::vector<std::string>* positional) {
  po::options_description hidden;
  hidden.add_options()("positional-argument", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("positional-argument", -1);
  if (auto rc = parse_verb_args(argc, argv, usage, opts, pos, vm, &hidden)) return rc;
  positional->clear();
  if (vm.count("positional-argument")) *positional = vm["positional-argument"].as<std::vector<std::string>>();
  return std::nullopt;
}

std::optional<uint64_t> parse_seed_arg(const std::string& text, std::string* why) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (!text.empty() && ec == std::errc() && p == text.data() + text.size()) return v;
  *why = fmt::format("--seed must be an integer from 0 to {}, not '{}'", UINT64_MAX, text);
  return std::nullopt;
}

std::optional<unsigned> parse_jobs_arg(const std::string& text, std::string* why) {
  unsigned v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (!text.empty() && ec == std::errc() && p == text.data() + text.size() && v >= 1 && v <= kMaxJobs) return v;
  *why = fmt::format("--jobs must be an integer from 1 to {}, not '{}'", kMaxJobs, text);
  return std::nullopt;
}

std::string out_dir_problem(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (dir.empty()) return "the output directory name is empty";
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) return fmt::format("'{}' exists and is not a directory", dir.string());
  fs::create_directories(dir, ec);
  if (ec) return fmt::format("cannot create directory '{}': {}", dir.string(), ec.message());
  fs::path probe = dir / fmt::format(".nicsim-write-probe.{}", ::getpid());
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return fmt::format("cannot write in '{}': {}", dir.string(), std::strerror(errno));
  bool ok = ::write(fd, "x", 1) == 1;
  int err = errno;
  ::close(fd);
  ::unlink(probe.c_str());
  if (!ok) return fmt::format("cannot write in '{}': {}", dir.string(), std::strerror(err));
  return "";
}

std::string out_file_problem(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (file.empty()) return "the output file name is empty";
  if (fs::is_directory(file, ec)) return fmt::format("'{}' is a directory, not a file", file.string());
  fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::string p = out_dir_problem(dir);
  return p.empty() ? "" : fmt::format("cannot write '{}': {}", file.string(), p);
}

std::string clear_previous_run(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  const fs::path result = dir / "result.json";
  std::error_code ec;
  if (!fs::is_regular_file(result, ec)) return "";
  std::vector<fs::path> gone;
  try {
    std::ifstream in(result);
    nlohmann::json j = nlohmann::json::parse(in);
    if (j.is_object() && j.contains("side_files") && j["side_files"].is_array())
      for (auto& f : j["side_files"]) {
        if (!f.is_string()) continue;
        const fs::path name = f.get<std::string>();
        // Only plain names inside DIR (a hand-edited list must not reach elsewhere).
        if (name.has_parent_path() || name.empty() || name == "." || name == ".." || name == "result.json") continue;
        gone.push_back(dir / name);
      }
  } catch (const std::exception&) {  // unreadable or corrupt: only result.json itself goes
  }
  gone.push_back(result);
  for (auto& p : gone) {
    if (fs::is_directory(fs::symlink_status(p, ec))) continue;
    fs::remove(p, ec);
    if (ec) return fmt::format("cannot remove the previous run's '{}': {}", p.string(), ec.message());
  }
  return "";
}

}  // namespace nicsim
