// nuttcp's arithmetic and result lines (nuttcp.c v3.6.2, katakk/nuttcp@499a3c4: read_timer,
// prusage, psecs, PERF_FMT_OUT), for the `nuttcp` workload (platforms/nuttcp_workload.cpp).
#pragma once
#include "drivers-sim/kernel/kernel.h"
#include <cstdint>
#include <string>

namespace nicsim {

/// What nuttcp's prep_timer()/read_timer() read: gettimeofday() and getrusage(RUSAGE_SELF).
struct NuttcpUsage {
  sc_core::sc_time t = sc_core::SC_ZERO_TIME;  ///< wall clock (simulated time)
  uint64_t utime = 0, stime = 0;               ///< the process's tick-charged times, in jiffies (1/HZ s)
  sc_core::sc_time busy = sc_core::SC_ZERO_TIME;  ///< exact busy time of the host's CPUs (comparison only)
};

/// Sample `p` on kernel `k` now (utime/stime ticks, busy time of every CPU).
NuttcpUsage nuttcp_sample(Kernel& k, const Process& p);

/// nuttcp's prusage() line and its %P between two samples.
struct NuttcpPrusage {
  /// "%Uuser %Ssys %Ereal %P %Xi+%Dd %Mmaxrss %F+%Rpf %Ccsw", e.g. "0.1user 37.6sys 1:00real 62%
  /// 0i+0d 0maxrss 0+0pf 0+0csw". Linux 2.4 getrusage (kernel/sys.c) fills only the times and the
  /// fault/swap counts, so the memory and switch fields print 0 as on 2.4; page faults are not
  /// modelled (0).
  std::string line;
  /// %P = (int)(t * 100 / ms): t = utime + stime, ms = elapsed real time, both in 1/100 s with
  /// nuttcp's integer truncation of the microsecond parts (the percentage nuttcp prints).
  int cpu_pct = 0;
};

/// prusage() between samples `a` and `b` (b later) on a kernel with `hz` ticks per second
/// (ticks become timevals as the kernel converts them: ticks × 10^6/hz µs). Throws
/// std::invalid_argument when hz is 0.
NuttcpPrusage nuttcp_prusage(const NuttcpUsage& a, const NuttcpUsage& b, unsigned hz);

/// The three result lines of side `who` ("t" or "r"): PERF_FMT_OUT ("%.3f MB in %.2f real seconds =
/// %.2f KB/sec = %.4f Mbps": MB = 2^20 bytes, KB = 1024 bytes, Mbps = bytes/realt/125000 = 10^6
/// bit/s), the I/O-call line (msec/call = 1024.0 × realt / calls, as nuttcp.c writes it), and the
/// prusage line. `nbytes` bytes moved in `realt_s` seconds (> 0) by `calls` write()/read() calls.
std::string nuttcp_result_lines(const char* who, uint64_t nbytes, double realt_s, uint64_t calls,
                                const NuttcpPrusage& ru);

}  // namespace nicsim
