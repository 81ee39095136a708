#include "platforms/nuttcp_format.h"
#include "platforms/workload_counters.h"
#include <fmt/format.h>
#include <stdexcept>
#include <utility>

namespace nicsim {

NuttcpUsage nuttcp_sample(Kernel& k, const Process& p) {
  return {sc_core::sc_time_stamp(), p.utime_ticks(), p.stime_ticks(), busy_time(k)};
}

NuttcpPrusage nuttcp_prusage(const NuttcpUsage& a, const NuttcpUsage& b, unsigned hz) {
  if (hz == 0) throw std::invalid_argument("nuttcp_prusage: hz must be > 0");
  auto tv = [&](uint64_t ticks) {  // jiffies -> timeval (sec, usec)
    const uint64_t us = ticks * 1000000ull / hz;
    return std::pair<long, long>{static_cast<long>(us / 1000000), static_cast<long>(us % 1000000)};
  };
  auto [us0, uu0] = tv(a.utime);
  auto [us1, uu1] = tv(b.utime);
  auto [ss0, su0] = tv(a.stime);
  auto [ss1, su1] = tv(b.stime);
  // gettimeofday at both ends, in whole microseconds
  const long long e0 = static_cast<long long>(a.t.to_seconds() * 1e6);
  const long long e1 = static_cast<long long>(b.t.to_seconds() * 1e6);
  const long es0 = static_cast<long>(e0 / 1000000), eu0 = static_cast<long>(e0 % 1000000);
  const long es1 = static_cast<long>(e1 / 1000000), eu1 = static_cast<long>(e1 % 1000000);
  // prusage: t and ms in 1/100 s, each microsecond difference truncated toward zero (C division)
  const long t = (us1 - us0) * 100 + (uu1 - uu0) / 10000 + (ss1 - ss0) * 100 + (su1 - su0) / 10000;
  const long ms = (es1 - es0) * 100 + (eu1 - eu0) / 10000;
  NuttcpPrusage r;
  r.cpu_pct = static_cast<int>(t * 100 / (ms ? ms : 1));
  auto sub = [](long s1, long u1, long s0, long u0) {  // tvsub, then "%d.%01d" of the tenths
    long s = s1 - s0, u = u1 - u0;
    if (u < 0) --s, u += 1000000;
    return fmt::format("{}.{}", s, u / 100000);
  };
  const long secs = ms / 100;  // psecs(ms / 100): "m:ss" or "h:mm:ss"
  const std::string e = secs / 3600 ? fmt::format("{}:{:02d}:{:02d}", secs / 3600, (secs % 3600) / 60, secs % 60)
                                    : fmt::format("{}:{:02d}", secs / 60, secs % 60);
  r.line = fmt::format("{}user {}sys {}real {}% 0i+0d 0maxrss 0+0pf 0+0csw", sub(us1, uu1, us0, uu0),
                       sub(ss1, su1, ss0, su0), e, r.cpu_pct);
  return r;
}

std::string nuttcp_result_lines(const char* who, uint64_t nbytes, double realt_s, uint64_t calls,
                                const NuttcpPrusage& ru) {
  const double n = static_cast<double>(nbytes);
  std::string s = fmt::format("nuttcp-{}: {:.3f} MB in {:.2f} real seconds = {:.2f} KB/sec = {:.4f} Mbps\n", who,
                              n / (1024 * 1024), realt_s, n / realt_s / 1024, n / realt_s / 125000);
  s += fmt::format("nuttcp-{}: {} I/O calls, msec/call = {:.2f}, calls/sec = {:.2f}\n", who, calls,
                   calls ? 1024.0 * realt_s / static_cast<double>(calls) : 0.0, static_cast<double>(calls) / realt_s);
  s += fmt::format("nuttcp-{}: {}\n", who, ru.line);
  return s;
}

}  // namespace nicsim
