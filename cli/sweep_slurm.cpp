#include "cli/sweep_slurm.h"
#include "cli/sweep_plot.h"
#include "core/results.h"
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>

extern char** environ;

namespace nicsim {
namespace fs = std::filesystem;

std::string shell_quote(const std::string& s) {
  bool safe = !s.empty();
  for (char c : s) safe &= std::isalnum(static_cast<unsigned char>(c)) || std::strchr("@%+=:,./_-", c);
  if (safe) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

namespace {

fs::path slurm_dir(const SlurmSweep& s) { return s.dir / "slurm"; }

std::string command_line(const std::vector<std::string>& args) {
  std::string out;
  for (auto& a : args) out += (out.empty() ? "" : " ") + shell_quote(a);
  return out;
}

struct Captured {
  int exit_code = 0;
  std::string out, err;
};

/// Run `args` (args[0] looked up in PATH), stdout and stderr captured through files in `tmp_dir`.
Captured capture(const std::vector<std::string>& args, const fs::path& tmp_dir) {
  fs::path out = tmp_dir / ".sbatch.out", err = tmp_dir / ".sbatch.err";
  std::vector<std::string> a = args;
  std::vector<char*> argv;
  for (auto& x : a) argv.push_back(x.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  Captured c;
  if (rc != 0) {
    c.exit_code = 127;
    c.err = fmt::format("cannot start {}: {}", args[0], std::strerror(rc));
    return c;
  }
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  c.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  auto slurp = [](const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  c.out = slurp(out);
  c.err = slurp(err);
  std::error_code ec;
  fs::remove(out, ec);
  fs::remove(err, ec);
  return c;
}

std::string trim_output(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
  return s;
}

std::string script_header(const SlurmSweep& s, const std::string& what) {
  return fmt::format(
      "#!/bin/bash\n"
      "# Written by `nicsim sweep --slurm {}` for the sweep in {}: {}.\n"
      "# Rerun that nicsim command to resubmit the shards with unfinished points and the merge.\n",
      s.tasks, s.dir.string(), what);
}

}  // namespace

std::string slurm_array_script(const SlurmSweep& s) {
  std::vector<std::string> args = {s.binary.string()};
  args.insert(args.end(), s.sweep_args.begin(), s.sweep_args.end());
  std::string log = (slurm_dir(s) / "logs" / "shard-%a-job%A.log").string();
  return script_header(s, "one shard of its points per array task") +
         fmt::format("# One task by hand: sbatch --array=I {}\n", (slurm_dir(s) / "sweep.sbatch").string()) +
         "#SBATCH --job-name=nicsim-sweep\n" + fmt::format("#SBATCH --array=0-{}\n", s.tasks - 1) +
         fmt::format("#SBATCH --cpus-per-task={}\n", s.cpus_per_task) + "#SBATCH --output=" + shell_quote(log) +
         "\n" + "exec " + command_line(args) +
         fmt::format(" --shard \"$SLURM_ARRAY_TASK_ID/{}\" --jobs \"${{SLURM_CPUS_PER_TASK:-{}}}\"\n", s.tasks,
                     s.cpus_per_task);
}

std::string slurm_merge_script(const SlurmSweep& s) {
  std::vector<std::string> args = {s.binary.string(), "sweep", "--merge", s.dir.string(), "--out", s.dir.string()};
  if (!s.plots) args.push_back("--no-plot");
  std::string log = (slurm_dir(s) / "logs" / "merge-job%j.log").string();
  return script_header(s, "the merge of its shards into sweep.csv, sweep.json and the plots") +
         "#SBATCH --job-name=nicsim-merge\n#SBATCH --output=" + shell_quote(log) + "\nexec " + command_line(args) + "\n";
}

std::vector<unsigned> pending_shards(const fs::path& dir, const std::vector<Point>& all, unsigned tasks) {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < tasks; ++i)
    if (!pending_points(dir, shard_points(all, Shard{i, tasks})).empty()) out.push_back(i);
  return out;
}

std::string array_spec(const std::vector<unsigned>& idx) {
  std::string out;
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && idx[j + 1] == idx[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + (j == i ? std::to_string(idx[i]) : fmt::format("{}-{}", idx[i], idx[j]));
    i = j + 1;
  }
  return out;
}

int submit_slurm_sweep(const SlurmSweep& s, const std::vector<unsigned>& pending, std::FILE* log) {
  if (!find_in_path("sbatch")) {
    fmt::print(log, "nicsim sweep --slurm: sbatch is not in PATH (Debian package slurm-client; the cluster's "
                    "Slurm module)\n");
    return 1;
  }
  fs::path sd = slurm_dir(s);
  fs::create_directories(sd / "logs");
  write_file_atomic(sd / "sweep.sbatch", slurm_array_script(s));
  write_file_atomic(sd / "merge.sbatch", slurm_merge_script(s));
  auto sbatch = [&](std::vector<std::string> opts, const fs::path& script, std::string* job) {
    std::vector<std::string> a = {"sbatch", "--parsable"};
    a.insert(a.end(), s.sbatch_args.begin(), s.sbatch_args.end());
    a.insert(a.end(), opts.begin(), opts.end());
    a.push_back(script.string());
    Captured c = capture(a, sd);
    std::string id = trim_output(c.out);
    if (auto semi = id.find(';'); semi != std::string::npos) id = id.substr(0, semi);  // "jobid;cluster"
    *job = id;
    return c;
  };

  std::string array_job;
  if (!pending.empty()) {
    Captured c = sbatch({"--array=" + array_spec(pending)}, sd / "sweep.sbatch", &array_job);
    if (c.exit_code != 0 || array_job.empty()) {
      fmt::print(log, "nicsim sweep --slurm: sbatch refused the array job (exit {}): {}\n", c.exit_code, trim_output(c.err));
      return 1;
    }
    fmt::print(log, "sweep: submitted array job {} ({} of {} shards: --array={}), script {}\n", array_job,
               pending.size(), s.tasks, array_spec(pending), (sd / "sweep.sbatch").string());
  } else {
    fmt::print(log, "sweep: every point is finished; submitting only the merge\n");
  }
  std::vector<std::string> mopts;
  if (!array_job.empty()) mopts.push_back("--dependency=afterany:" + array_job);
  if (s.wait) mopts.push_back("--wait");
  std::fflush(log);
  std::string merge_job;
  Captured m = sbatch(mopts, sd / "merge.sbatch", &merge_job);
  if (merge_job.empty()) {
    fmt::print(log, "nicsim sweep --slurm: sbatch refused the merge job (exit {}): {}\n", m.exit_code, trim_output(m.err));
    return 1;
  }
  fmt::print(log, "sweep: merge job {} runs after it: nicsim sweep --merge {} --out {} (log {})\n", merge_job,
             s.dir.string(), s.dir.string(), (sd / "logs" / ("merge-job" + merge_job + ".log")).string());
  if (!s.wait) {
    fmt::print(log, "sweep: results in {} when the merge job ends (squeue -j {},{})\n", (s.dir / "sweep.csv").string(),
               array_job.empty() ? merge_job : array_job, merge_job);
    return 0;
  }
  // sbatch --wait exits with the merge job's exit code.
  std::ifstream ml(sd / "logs" / ("merge-job" + merge_job + ".log"));
  std::string line;
  while (std::getline(ml, line)) fmt::print(log, "  {}\n", line);
  fmt::print(log, "sweep: merge job {} ended with exit code {}\n", merge_job, m.exit_code);
  return m.exit_code == 0 ? 0 : 1;
}

}  // namespace nicsim
