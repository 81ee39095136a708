// nuttcp (platforms/nuttcp_workload.cpp, nuttcp_format.*, proc_interrupts.*) and the tick-charged
// process times it reads (Kernel::local_timer_irq, Process::utime_ticks/stime_ticks).
#include "core/sim_context.h"
#include "kernel_fake_host.h"
#include "platforms/nuttcp_format.h"
#include "platforms/proc_interrupts.h"
#include "platforms/run_workload.h"
#include "platforms/scenario.h"
#include <catch2/catch.hpp>
#include <regex>
#include <sstream>

// This file's own names, apart from the other files of a unity batch.
namespace workload_nuttcp_test {
using namespace nicsim;
using namespace nicsim::test;


TEST_CASE("nuttcp: prusage's %P and line from tick-charged times, with nuttcp's integer truncation", "[nuttcp]") {
  NuttcpUsage a, b;
  a.t = sc_time(1.0, sc_core::SC_SEC);
  b.t = sc_time(61.01, sc_core::SC_SEC);
  b.utime = 10;    // 0.10 s at HZ 100
  b.stime = 3770;  // 37.70 s
  // t = 10 + 3770 = 3780 cs, ms = 6001 cs -> 3780 * 100 / 6001 = 62.99 -> 62 (truncated, not rounded)
  const NuttcpPrusage r = nuttcp_prusage(a, b, 100);
  CHECK(r.cpu_pct == 62);
  CHECK(r.line == "0.1user 37.7sys 1:00real 62% 0i+0d 0maxrss 0+0pf 0+0csw");
  // HZ 1024 (Alpha): ticks are converted as the kernel does, (ticks % HZ) * 10^6 / HZ µs.
  NuttcpUsage c = a;
  c.t = sc_time(2.0, sc_core::SC_SEC);
  c.stime = 512;  // 0.5 s
  CHECK(nuttcp_prusage(a, c, 1024).cpu_pct == 50);
  // Beyond an hour psecs prints h:mm:ss.
  c.t = sc_time(1.0 + 3725.0, sc_core::SC_SEC);
  CHECK(nuttcp_prusage(a, c, 100).line.find(" 1:02:05real ") != std::string::npos);
  CHECK_THROWS_AS(nuttcp_prusage(a, b, 0), std::invalid_argument);
}

TEST_CASE("nuttcp: result lines in nuttcp's units (MB = 2^20 B, Mbps = 10^6 bit/s, msec/call with 1024)",
          "[nuttcp]") {
  NuttcpPrusage ru;
  ru.line = "X";
  const std::string s = nuttcp_result_lines("t", 100ull << 20, 10.0, 1600, ru);
  CHECK(s == "nuttcp-t: 100.000 MB in 10.00 real seconds = 10240.00 KB/sec = 83.8861 Mbps\n"
             "nuttcp-t: 1600 I/O calls, msec/call = 6.40, calls/sec = 160.00\n"
             "nuttcp-t: X\n");
}

TEST_CASE("proc_interrupts: Linux 2.4/PPC get_irq_list format with OpenPIC, device lines only", "[nuttcp]") {
  std::vector<Kernel::IrqRow> rows = {{41, "eth0", false, {191}}, {0xef, "LOC", true, {6000}}};
  auto t = proc_interrupts(rows, "ppc", "OpenPIC");
  REQUIRE(t);
  // The line as seed 001 quotes it (research seeds §1.1), column for column.
  CHECK(*t == "           CPU0       \n"
              " 41:        191   OpenPIC   Level     eth0\n"
              "BAD:          0\n");
  CHECK_FALSE(proc_interrupts(rows, "i386", "IO-APIC"));
}

TEST_CASE("kernel: the timer tick charges the current task, user or system, and idle time to nobody", "[kernel][nuttcp]") {
  FakeHost hw;
  Kernel k(hw, bench_params(1, true));
  // A hardirq that runs 10 ms with interrupts enabled (no SA_INTERRUPT): a tick that lands inside
  // it finds the process current but the CPU in kernel mode.
  k.request_irq(0x41, [&](unsigned) -> Task<void> { co_await cpu_work(2000.0 * 10000); }, SA_SHIRQ, "eth1");
  uint64_t jiffies_at_exit = 0;
  WaitQueue never;
  auto burner = [&]() -> Task<void> {
    co_await cpu_work(2000.0 * 100000);  // 100 ms of user-mode work (2000 cycles per µs)
    jiffies_at_exit = k.jiffies();
  };
  auto sleeper = [&]() -> Task<void> { co_await never.wait(); };
  Process& a = k.spawn_process("burner", 0, burner());
  Process& b = k.spawn_process("sleeper", 0, sleeper());
  k.cpu(0).apic_message(0x41, ms(25));
  sc_core::sc_start(ms(300));
  INFO("utime " << a.utime_ticks() << " stime " << a.stime_ticks() << " jiffies at exit " << jiffies_at_exit);
  CHECK(a.stime_ticks() == 1);  // the tick near 30 ms, inside the 25-35 ms handler
  // Every tick while it lived went to it (LOC and the timer line tick together, ±1 at the edges).
  CHECK(a.utime_ticks() + a.stime_ticks() >= jiffies_at_exit - 1);
  CHECK(a.utime_ticks() + a.stime_ticks() <= jiffies_at_exit + 1);
  CHECK(jiffies_at_exit >= 10);
  // Asleep throughout; and the 190 ms of idle ticks after the burner exited went to nobody.
  CHECK(b.utime_ticks() == 0);
  CHECK(b.stime_ticks() == 0);
}

TEST_CASE("nuttcp: a short -T run on seed 000's 82546EB pair: both sides' lines, consistent metrics",
          "[workload][nuttcp]") {
  Scenario s = load_scenario(std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed000/82546eb-pcix100-stream.toml",
                             {"workload.type=\"nuttcp\"", "workload.time_limit_s=0.3"});
  nlohmann::json result = nlohmann::json::object();
  std::ostringstream out;
  REQUIRE(run_workload(s, out, result) == 0);
  const std::string text = out.str();
  INFO(text);
  CHECK(text.find("nuttcp-t: buflen=65536, nstream=1, port=5001 tcp -> ") != std::string::npos);
  CHECK(text.find("nuttcp-t: time limit = 0.30 seconds\n") != std::string::npos);
  const auto& m = result["metrics"];
  // The receiver's line: MB and Mbps agree with the bytes and its realt.
  const double mb = m["megabytes"].get<double>(), realt = m["rx_realt_s"].get<double>();
  CHECK(m["throughput_mbps"].get<double>() == Approx(mb * 1048576 * 8 / 1e6 / realt).epsilon(1e-9));
  CHECK(m["tx_realt_s"].get<double>() == Approx(0.3).margin(0.01));
  CHECK(m["megabytes"].get<double>() == Approx(m["tx_megabytes"].get<double>()));  // all read by EOF
  std::smatch g;
  const std::regex rline("nuttcp-r: ([0-9.]+) MB in ([0-9.]+) real seconds = [0-9.]+ KB/sec = ([0-9.]+) Mbps");
  REQUIRE(std::regex_search(text, g, rline));
  CHECK(std::stod(g[1]) == Approx(mb).margin(0.0005));
  // %TX/%RX are tick-charged: 0..100 (one CPU's worth per tick at most; 2 CPUs here).
  for (const char* k : {"tx_cpu_pct", "rx_cpu_pct"}) {
    INFO(k);
    CHECK(m[k].get<int>() >= 0);
    CHECK(m[k].get<int>() <= 100);
  }
  const std::regex tline("nuttcp-t: [0-9.]+user [0-9.]+sys 0:00real ([0-9]+)% 0i\\+0d 0maxrss 0\\+0pf 0\\+0csw");
  REQUIRE(std::regex_search(text, g, tline));
  CHECK(std::stoi(g[1]) == m["tx_cpu_pct"].get<int>());
  CHECK(m["rx_interrupts"].get<uint64_t>() > 0);
  // An i386 kernel: no /proc/interrupts text (its IRQ numbers are not the model's vectors).
  const nlohmann::json files = result.value("files", nlohmann::json::object());  // a local: items() of a temporary dangles
  for (auto& [name, text] : files.items()) CHECK(name.rfind("proc_interrupts.", 0) == std::string::npos);
}

}  // namespace workload_nuttcp_test
