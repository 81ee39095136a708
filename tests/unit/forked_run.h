// Run a SystemC bench in a forked child and return what it printed: SystemC elaborates and runs
// once per process, so a test that compares two runs of a bench runs each in its own child.
#pragma once
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace nicsim::test {

/// Fork; the child calls `run` and sends back the text it returns (exit status 3 when `run`
/// throws, 4 when the pipe fails); the parent REQUIREs a clean exit and returns the text.
inline std::string run_in_child(const std::function<std::string()>& run) {
  int fd[2];
  REQUIRE(::pipe(fd) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fd[0]);
    std::string s;
    try {
      s = run();
    } catch (const std::exception&) {
      ::_exit(3);
    }
    size_t off = 0;
    while (off < s.size()) {
      const ssize_t n = ::write(fd[1], s.data() + off, s.size() - off);
      if (n <= 0) ::_exit(4);
      off += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fd[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  return text;
}

}  // namespace nicsim::test
