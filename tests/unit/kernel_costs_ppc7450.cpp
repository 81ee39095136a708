// The Linux 2.4 / MPC7450 cost table (drivers-sim/kernel/costs_linux_2_4_ppc7450.cpp): complete,
// every entry its own (none inherited silently from the P4 table it starts from), the OpenPIC's
// register accesses of one level interrupt counted once, lmbench's programs composed from the
// entries within the estimates' physical bounds, and a powermac-g4 host that loads and runs them
// (the lmbench workload on the kernel model, no NIC).
#include "drivers-sim/kernel/costs.h"
#include "drivers-sim/kernel/cpu_time.h"
#include "platforms/scenario.h"
#include "scenario_run.h"
#include <catch2/catch.hpp>
#include <algorithm>
#include <iostream>
#include <sstream>

// This file's own names, apart from the other files of a unity batch.
namespace kernel_costs_ppc7450_test {
using namespace nicsim;

namespace {

const CostProfile& g4() { return cost_profile("linux-2.4-ppc7450"); }
constexpr double kG4Mhz = 733;  // the table's reference clock (powermac-g4's default cpu_mhz)
double g4_cyc(CostId id, size_t bytes = 0) { return g4().cycles(id, bytes, kG4Mhz); }
double usec(double cycles) { return cycles / kG4Mhz; }
double g4_syscall_round_trip() { return g4_cyc(CostId::syscall_entry) + g4_cyc(CostId::syscall_exit); }

}  // namespace

TEST_CASE("cost table: linux-2.4-ppc7450 is registered at 733 MHz with every entry set and sourced on its own",
          "[kernel][costs][ppc]") {
  const auto names = cost_profile_names();
  REQUIRE(std::find(names.begin(), names.end(), "linux-2.4-ppc7450") != names.end());
  const CostProfile& g = g4();
  const CostProfile& p4 = cost_profile("linux-2.4.20-p4xeon");
  CHECK(g.ref_mhz == 733.0);
  for (size_t i = 0; i < kCostCount; ++i) {
    const CostId id = static_cast<CostId>(i);
    const CostEntry& e = g.at(id);
    INFO(cost_name(id) << ": " << e.source);
    CHECK(e.cycles_per_call > 0);
    CHECK(std::string(e.source).size() > 20);
    // Its own source: a PowerPC reason or the statement that the P4's cycles are kept, never the
    // P4 entry's text (which would mean the entry was not looked at).
    CHECK(std::string(e.source) != std::string(p4.at(id).source));
    CHECK(e.what == what_tag(id));
  }
  // The entries that are not the P4's generic-C cycles: PowerPC's own paths.
  CHECK(g4_syscall_round_trip() < g4_cyc(CostId::syscall_entry) * 3);
  CHECK(g.at(CostId::context_switch).smp_locked_ops == 2u);  // no i386 cpu_vm_mask bitops in switch_mm
  CHECK(g.at(CostId::irq_entry).smp_locked_ops == 2u);       // ppc_irq_dispatch_handler's desc->lock
}

TEST_CASE("cost table ppc7450: a level OpenPIC interrupt charges 2.4.16's six register reads and three writes once",
          "[kernel][costs][ppc]") {
  // irq_entry: openpic_irq (IACK read) + openpic_ack_irq = openpic_disable_irq (read, write, read-back)
  // + openpic_eoi (write, read-back): 4 reads, 2 writes; apic_eoi (the level end): openpic_enable_irq
  // (read, write, read-back): 2 reads, 1 write. A read: the platform model's 686 ns on the slot bus
  // (platform_powermac_g4.cpp) = 503 cycles at 733 MHz (research seeds §1.1: 0.3-1.0 us).
  const double read = 503, write = 40;
  const double entry_cpu = g4_cyc(CostId::irq_entry) - 4 * read - 2 * write;
  const double eoi_cpu = g4_cyc(CostId::apic_eoi) - 2 * read - write;
  CHECK(entry_cpu == Approx(260));  // the exception entry and do_IRQ's own work
  CHECK(eoi_cpu == Approx(0));      // nothing but the register accesses
  // Per interrupt, the controller's share: 6 reads and 3 writes = 4.3 us at 733 MHz, inside
  // 6 x 0.3-1.0 us.
  const double ctl_us = usec(6 * read + 3 * write);
  CHECK(ctl_us >= 6 * 0.3);
  CHECK(ctl_us <= 6 * 1.0 + 1);
  // The ISR's fixed cost (entry + exit, without the driver's own PIO reads) stays under research §1.1's
  // 3-6 us [EST] for entry + 2-3 PIO reads + exit.
  const double fixed_us = usec(g4_cyc(CostId::irq_entry) + g4_cyc(CostId::apic_eoi) + g4_cyc(CostId::irq_return));
  INFO("fixed interrupt cost " << fixed_us << " us");
  CHECK(fixed_us < 6.0);
}

TEST_CASE("cost table ppc7450: lmbench's programs composed from the entries sit in the estimates' bounds",
          "[kernel][costs][ppc]") {
  // lat_syscall null: sc + two rfi + ~180 instructions: 0.2-0.6 us at 733 MHz (150-450 cycles), far
  // below the P4's int 0x80 (0.67 us at 2.4 GHz = 1608 cycles).
  const double sys = g4_syscall_round_trip();
  INFO("lat_syscall " << usec(sys) << " us");
  CHECK(sys >= 150);
  CHECK(sys <= 450);
  CHECK(sys < cost_profile("linux-2.4.20-p4xeon").cycles(CostId::syscall_entry, 0, 2400) +
                  cost_profile("linux-2.4.20-p4xeon").cycles(CostId::syscall_exit, 0, 2400));
  // lat_ctx -s 0 2 = context_switch + wakeup / 2 (the model's lmbench, see the P4 table): without a
  // TLB flush a 7450 switch is cheaper in cycles than the P4's (1908).
  const double ctx = g4_cyc(CostId::context_switch) + g4_cyc(CostId::wakeup) / 2;
  INFO("lat_ctx " << usec(ctx) << " us");
  CHECK(ctx < 1908);
  CHECK(usec(ctx) >= 0.5);
  CHECK(usec(ctx) <= 3.0);
  // lat_pipe = 4 syscalls + 2 (wakeup + switch) + 4 (pipe_rw + a 1-byte copy).
  const double pipe = 4 * sys + 2 * (g4_cyc(CostId::wakeup) + g4_cyc(CostId::context_switch)) +
                      4 * (g4_cyc(CostId::pipe_rw) + g4_cyc(CostId::copy_user_cached, 1));
  INFO("lat_pipe " << usec(pipe) << " us");
  CHECK(usec(pipe) >= 3.0);
  CHECK(usec(pipe) <= 10.0);
}

TEST_CASE("cost table ppc7450: copy and checksum rates follow the 7450's load/store unit and the MPX bus",
          "[kernel][costs][ppc]") {
  // Cache-resident: 8 lwz + 8 stw + dcbt + dcbz per 32-byte line through one load/store unit:
  // at least 18 cycles per line (0.56 cycles/B), so at most 1.3 GB/s at 733 MHz.
  const double cached_mbs = kG4Mhz / g4().at(CostId::copy_user_cached).cycles_per_byte;
  CHECK(g4().at(CostId::copy_user_cached).cycles_per_byte >= 18.0 / 32);
  CHECK(cached_mbs <= 1310);
  // Out of cache: below the 133 MHz x 8 B MPX bus / PC133 peak of 1067 MB/s, and memory-bound (the
  // same time at another core clock).
  const CostEntry& u = g4().at(CostId::copy_user_uncached);
  const double uncached_mbs = kG4Mhz / u.cycles_per_byte;
  CHECK(u.memory_bound);
  CHECK(uncached_mbs < 1067.0 * 0.6);
  CHECK(uncached_mbs > 300);  // the platform's line fills: tests/unit/platform_powermac_g4.cpp
  CHECK(g4().cycles(CostId::copy_user_uncached, 1448, 867) - u.cycles_per_call ==
        Approx(1448 * u.cycles_per_byte * 867 / 733));
  // csum_partial: one adde per 4 bytes on a carry chain: >= 0.25 cycles/B.
  CHECK(g4().at(CostId::csum_partial).cycles_per_byte >= 0.25);
}

namespace {

constexpr const char* kG4Lmbench = R"(
name = "g4-lmbench-load"
description = "powermac-g4 host, Linux 2.4.16 PPC, lmbench lat_syscall/lat_pipe/lat_ctx"
seed = 1

[hosts.g4]
platform = "powermac-g4"
cpu_mhz = 733

[workload]
type = "lmbench"
tests = "lat_syscall,lat_pipe,lat_ctx"
)";

}  // namespace

TEST_CASE("powermac-g4: a host on linux-2.4.16-ppc / ppc7450 loads and runs lmbench's programs at the table's cycles",
          "[kernel][costs][ppc][scenario]") {
  Scenario sc = load_scenario_text(kG4Lmbench, "g4.toml");
  REQUIRE(sc.hosts.size() == 1u);
  const test::ScenarioRun r = test::run_in_process(sc);
  REQUIRE(r.rc == 0);
  const auto& m = r.res["metrics"];
  // lat_syscall null = entry + exit (getppid's body is not charged): 280 cycles = 0.382 us.
  CHECK(m["lmbench.lat_syscall_us"].get<double>() == Approx(usec(g4_syscall_round_trip())).epsilon(0.05));
  const double ctx = g4_cyc(CostId::context_switch) + g4_cyc(CostId::wakeup) / 2;
  CHECK(m["lmbench.lat_ctx_us"].get<double>() == Approx(usec(ctx)).epsilon(0.10));
  const double pipe = 4 * g4_syscall_round_trip() + 2 * (g4_cyc(CostId::wakeup) + g4_cyc(CostId::context_switch)) +
                      4 * (g4_cyc(CostId::pipe_rw) + g4_cyc(CostId::copy_user_cached, 1));
  CHECK(m["lmbench.lat_pipe_us"].get<double>() == Approx(usec(pipe)).epsilon(0.10));
}

}  // namespace kernel_costs_ppc7450_test
