// Kernel and CPU profiles as named data (drivers-sim/kernel/profiles.h): the first profiles are the
// model's former constants, scenario names are checked with suggestions, overrides apply.
#include "drivers-sim/kernel/kernel.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace kernel_profiles_test {
using namespace nicsim;


TEST_CASE("profiles: linux-2.4.20-i386 on xeon-prestonia gives the KernelParams defaults (the former constants)",
          "[kernel][profiles]") {
  const KernelParams d;
  const KernelParams p = kernel_params_of(kernel_profile("linux-2.4.20-i386"), cpu_profile("xeon-prestonia"));
  CHECK(p.kernel_profile == d.kernel_profile);
  CHECK(p.cpu_profile == d.cpu_profile);
  CHECK(p.cost_profile == "linux-2.4.20-p4xeon");
  CHECK(p.hz == 100);
  CHECK(p.napi == false);
  CHECK(p.rx_budget == RxBudget::netdev_max_backlog);
  CHECK(p.netdev_max_backlog == 300);
  CHECK(p.rx_time_limit_jiffies == 1);
  CHECK(p.tx_queue_len == 100);
  CHECK(p.cache_line_bytes == 64);
  CHECK(p.hz == d.hz);
  CHECK(p.napi == d.napi);
  CHECK(p.netdev_max_backlog == d.netdev_max_backlog);
  CHECK(p.netdev_budget == d.netdev_budget);
  CHECK(p.weight_p == d.weight_p);
  CHECK(p.rx_time_limit_jiffies == d.rx_time_limit_jiffies);
  CHECK(p.tx_queue_len == d.tx_queue_len);
  CHECK(p.cache_line_bytes == d.cache_line_bytes);
}

TEST_CASE("profiles: scenario values resolve through the named profiles, set overrides win", "[kernel][profiles]") {
  ParamValues v(kernel_param_schema("linux-2.4.20-i386", "xeon-prestonia"));
  KernelParams p = kernel_params_from(v, "h", 2, 2200);
  CHECK(p.hz == 100);
  CHECK(p.netdev_max_backlog == 300);
  CHECK(p.cost_profile == "linux-2.4.20-p4xeon");
  v.set("hz", int64_t{1000});
  v.set("netdev_max_backlog", int64_t{1000});
  p = kernel_params_from(v, "h", 2, 2200);
  CHECK(p.hz == 1000);
  CHECK(p.netdev_max_backlog == 1000);
  v.set("kernel_profile", std::string("linux-2.4.2O-i386"));
  CHECK_THROWS_AS(kernel_params_from(v, "h", 2, 2200), std::invalid_argument);
}

TEST_CASE("profiles: unknown names are ParamProblems with the nearest name, cpu_mhz within the CPU profile",
          "[kernel][profiles]") {
  ParamValues v(kernel_param_schema("linux-2.4.20-i386", "xeon-prestonia"));
  v.set("cpu_mhz", 2400.0);
  CHECK(profile_problems("alpha", v).empty());
  v.set("kernel_profile", std::string("linux-2.4.2-i386"));
  v.set("cpu_profile", std::string("xeon-prestona"));
  auto probs = profile_problems("alpha", v);
  REQUIRE(probs.size() == 2);
  CHECK(probs[0].key == "hosts.alpha.kernel_profile");
  CHECK(probs[0].suggestion == "linux-2.4.20-i386");
  CHECK(probs[1].key == "hosts.alpha.cpu_profile");
  CHECK(probs[1].suggestion == "xeon-prestonia");
  v.set("cpu_profile", std::string("xeon-prestonia"));
  v.set("kernel_profile", std::string("linux-2.4.20-i386"));
  v.set("cpu_mhz", 3200.0);
  probs = profile_problems("alpha", v);
  REQUIRE(probs.size() == 1);
  CHECK(probs[0].key == "hosts.alpha.cpu_mhz");
  try {
    kernel_profile("linux-2.4.2-i386");
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("did you mean 'linux-2.4.20-i386'") != std::string::npos);
  }
  CHECK(describe_profiles(ParamValues(kernel_param_schema())).find("HZ 100, no NAPI") != std::string::npos);
}

TEST_CASE("profiles: ppc7450 is the MPC7450 as the research gives it: big-endian, 32-byte lines, 32 KB L1d, 256 KB "
          "L2, 667-867 MHz", "[kernel][profiles]") {
  const CpuProfile& c = cpu_profile("ppc7450");
  CHECK(c.byte_order == ByteOrder::big);
  CHECK(c.cache_line_bytes == 32u);
  CHECK(c.l1d_kb == 32u);
  CHECK(c.l2_kb == 256u);
  CHECK(c.l3_kb == 0u);
  CHECK(c.min_mhz == 667.0);
  CHECK(c.max_mhz == 867.0);
  CHECK(c.cost_profile == "linux-2.4-ppc7450");
  const KernelParams p = kernel_params_of(kernel_profile("linux-2.4.20-i386"), c);
  CHECK(p.byte_order == ByteOrder::big);
  CHECK(p.cache_line_bytes == 32u);
  ParamValues v(kernel_param_schema("linux-2.4.20-i386", "ppc7450"));
  const std::string d = describe_profiles(v);
  CHECK(d.find("cpu: ppc7450 (PowerPC 32-bit (AltiVec), MPX bus ≤133 MHz, big-endian, 667-867 MHz, 32-byte lines, "
               "L1d 32 KB, L2 256 KB)") != std::string::npos);
  v.set("cpu_mhz", 1000.0);
  auto probs = profile_problems("g4", v);
  bool clock = false;
  for (auto& pr : probs) clock |= pr.key == "hosts.g4.cpu_mhz";
  CHECK(clock);
}

TEST_CASE("profiles: a CPU profile whose cost table is not in the build is a load-time problem naming it, unless "
          "cost_profile picks one that is", "[kernel][profiles]") {
  ParamValues v(kernel_param_schema("linux-2.4.20-i386", "ppc7450"));
  const auto names = cost_profile_names();
  const bool have = std::find(names.begin(), names.end(), "linux-2.4-ppc7450") != names.end();
  bool named = false;
  for (auto& pr : profile_problems("g4", v))
    named |= pr.key == "hosts.g4.cpu_profile" && pr.message.find("'linux-2.4-ppc7450'") != std::string::npos &&
             pr.message.find("cost_profile") != std::string::npos;
  CHECK(named == !have);
  v.set("cost_profile", std::string("linux-2.4.20-p4xeon"));
  for (auto& pr : profile_problems("g4", v)) CHECK(pr.key != "hosts.g4.cpu_profile");
  ParamValues x(kernel_param_schema("linux-2.4.20-i386", "xeon-prestonia"));
  CHECK(profile_problems("alpha", x).empty());
}

TEST_CASE("profiles: linux-2.4.16-ppc is Linux 2.4.16 on PowerPC as its tree has it: HZ 100, non-NAPI, backlog 300, "
          "txqueuelen 100, IRQs to CPU0, and a powermac-g4 host's profiles resolve with no problem",
          "[kernel][profiles]") {
  const KernelProfile& k = kernel_profile("linux-2.4.16-ppc");
  CHECK(k.version == "2.4.16");
  CHECK(k.arch == "ppc");
  CHECK(k.hz == 100u);                       // include/asm-ppc/param.h
  CHECK_FALSE(k.napi);                       // net/core/dev.c 2.4.16: no poll_list
  CHECK(k.rx_budget == RxBudget::netdev_max_backlog);
  CHECK(k.netdev_max_backlog == 300u);
  CHECK(k.rx_time_limit_jiffies == 1u);
  CHECK(k.tx_queue_len == 100u);             // drivers/net/net_init.c ether_setup
  CHECK(k.qdisc == "pfifo_fast");
  CHECK(k.irq_policy == IrqPolicy::single_cpu);  // open_pic.c openpic_init: openpic_mapirq(i, 1<<0)
  CHECK(k.copy_routine.find("__copy_tofrom_user") != std::string::npos);
  CHECK(k.csum_routine.find("arch/ppc/lib/checksum.S") != std::string::npos);
  const KernelParams p = kernel_params_of(k, cpu_profile("ppc7450"));
  CHECK(p.cost_profile == "linux-2.4-ppc7450");
  CHECK(p.byte_order == ByteOrder::big);
  CHECK(p.cache_line_bytes == 32u);
  ParamValues v(kernel_param_schema("linux-2.4.16-ppc", "ppc7450"));
  v.set("cpu_mhz", 733.0);
  for (auto& pr : profile_problems("g4", v)) FAIL(pr.key << ": " << pr.message);
  const std::string d = describe_profiles(v);
  INFO(d);
  CHECK(d.find("kernel: linux-2.4.16-ppc (Linux 2.4.16 ppc, HZ 100, no NAPI, NET_RX budget netdev_max_backlog = 300, "
               "1 jiffy limit, pfifo_fast txqueuelen 100, IRQs single_cpu)") != std::string::npos);
  CHECK(d.find("cost table linux-2.4-ppc7450") != std::string::npos);
}

}  // namespace kernel_profiles_test
