// CPU model: preemption order, exact burn splitting, softirq on irq_exit, MMIO stalls, level
// EOI re-delivery, utilisation accounting. Expected times are computed from the cost table and
// the rules in models/cpu/cpu.h and drivers-sim/kernel/kernel.h, never copied from a run.
#include "kernel_fake_host.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace cpu_preemption_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {
// Duration of cost `id` on `k`'s CPU 0.
}  // namespace

TEST_CASE("cpu: hardirq preempts softirq preempts process, burns split exactly", "[cpu]") {
  FakeHost hw;
  Kernel k(hw, bench_params());
  Cpu& cpu = k.cpu(0);
  const double W = 200000, HA = 2000, HB = 1000, S = 20000;  // cycles
  const sc_time t_a = us(10), t_b = us(15);
  sc_time p_end, hb_start, sirq_start, sirq_end;

  k.request_irq(0x41, [&](unsigned) -> Task<void> {
    co_await cpu_work(HA);
    k.raise_softirq(TASKLET_SOFTIRQ);
  }, SA_SHIRQ, "ethA");
  k.request_irq(0x51, [&](unsigned) -> Task<void> {
    hb_start = now();
    co_await cpu_work(HB);
  }, SA_SHIRQ, "ethB");
  k.open_softirq(TASKLET_SOFTIRQ, [&](unsigned) -> Task<void> {
    sirq_start = now();
    co_await cpu_work(S);
    sirq_end = now();
  });
  auto pmain = [&]() -> Task<void> {  // a named closure: it must outlive its coroutine
    co_await cpu_work(W);
    p_end = now();
  };
  k.spawn_process("P", 0, pmain());
  cpu.apic_message(0x41, t_a);
  cpu.apic_message(0x51, t_b);
  sc_core::sc_start(us(200));

  const sc_time entry = C(k, CostId::irq_entry), eoi = C(k, CostId::apic_eoi), ret = C(k, CostId::irq_return);
  const sc_time cs = C(k, CostId::context_switch), sentry = C(k, CostId::softirq_entry);
  // A: entry, handler, EOI (level), then do_softirq (entry + action) on top of A.
  CHECK(sirq_start == t_a + entry + cpu.cycles(HA) + eoi + sentry);
  // B arrives while the softirq burns with IRQs on: accepted at once.
  CHECK(hb_start == t_b + entry);
  const sc_time b_total = entry + cpu.cycles(HB) + eoi + ret;
  CHECK(sirq_end == sirq_start + cpu.cycles(S) + b_total);
  const sc_time a_total = entry + cpu.cycles(HA) + eoi + ret;
  const sc_time s_total = sentry + cpu.cycles(S);
  // The process's burn is split once and finishes exactly late by everything that ran above it.
  CHECK(p_end == cs + cpu.cycles(W) + a_total + s_total + b_total);
  // CPU time is conserved per level.
  CHECK(cpu.busy(ExecLevel::Process) == cs + cpu.cycles(W));
  CHECK(cpu.busy(ExecLevel::Hardirq) == a_total + b_total);
  CHECK(cpu.busy(ExecLevel::Softirq) == s_total);
  CHECK(cpu.idle_time() == us(200) - p_end);
  CHECK(cpu.utilisation(ExecLevel::Softirq) == Approx(s_total.to_seconds() / 200e-6).epsilon(1e-12));
  CHECK(sim().counters.get("alpha.cpu0.busy_process_ns") == static_cast<uint64_t>((cs + cpu.cycles(W)).value() / 1000));
  CHECK(k.irq_count(0, 0x41) == 1);
  CHECK(sim().counters.get("alpha.interrupts.CPU0.ethB") == 1);
}

TEST_CASE("cpu: an interrupt waits for an MMIO stall, stall times come from the target", "[cpu]") {
  FakeHost hw;
  hw.mch.read_delay = ns(800);
  hw.mch.write_delay = ns(60);
  hw.mch.regs[0xf0000010] = 0xdeadbeef;
  Kernel k(hw, bench_params());
  Cpu& cpu = k.cpu(0);
  uint32_t got = 0;
  sc_time t0, t_read, t_write, h_start;
  IrqStamp stamp;
  k.request_irq(0x41, [&](unsigned) -> Task<void> {
    h_start = now();
    stamp = *k.current_irq();
    co_return;
  }, 0, "eth1");
  auto pmain = [&]() -> Task<void> {
    t0 = now();
    got = co_await mmio_read32(0xf0000010);
    t_read = now();
    co_await mmio_write32(0xf0000014, 7);
    t_write = now();
  };
  k.spawn_process("P", 0, pmain());
  const sc_time cs = C(k, CostId::context_switch);
  cpu.apic_message(0x41, cs + ns(300));  // arrives in the middle of the read stall
  sc_core::sc_start(us(20));

  CHECK(t0 == cs);
  CHECK(got == 0xdeadbeef);
  // The read stall ends at t0 + 800 ns; the interrupt is taken only then (instruction boundary),
  // so the process continues after the whole interrupt.
  const sc_time irq_total = C(k, CostId::irq_entry) + C(k, CostId::apic_eoi) + C(k, CostId::irq_return);
  CHECK(h_start == t0 + ns(800) + C(k, CostId::irq_entry));
  CHECK(stamp.arrived == cs + ns(300));
  CHECK(stamp.accepted == t0 + ns(800));
  CHECK(stamp.wait_cause == "MMIO stall: process P");
  CHECK(t_read == t0 + ns(800) + irq_total);
  CHECK(t_write == t_read + ns(60));
  REQUIRE(hw.mch.log.size() == 2);
  CHECK(hw.mch.log[1].write);
  CHECK(hw.mch.log[1].t == t_read);
  CHECK(hw.mch.regs[0xf0000014] == 7);
  CHECK(cpu.busy(ExecLevel::Process) == cs + ns(860));
}

TEST_CASE("cpu: level line still asserted at EOI is re-delivered, IF=0 during irq_return delays it", "[cpu]") {
  FakeHost hw;
  hw.ioapic.vector = 0x41;
  hw.ioapic.msg_delay = ns(100);
  hw.mch.write_delay = ns(60);
  // Writing the device's (fake) interrupt-clear register deasserts its INTx# line.
  hw.mch.on_write = [&](uint64_t a, uint32_t) {
    if (a == 0xf00000c0) hw.ioapic.set_level(false);
  };
  KernelParams kp = bench_params();
  kp.halt_exit_latency = us(1);
  Kernel k(hw, kp);
  int calls = 0;
  std::vector<sc_time> starts;
  std::vector<IrqStamp> stamps;
  k.request_irq(0x41, [&](unsigned) -> Task<void> {
    ++calls;
    starts.push_back(now());
    stamps.push_back(*k.current_irq());
    if (calls == 2) co_await mmio_write32(0xf00000c0, 1);
  }, SA_SHIRQ, "eth1");

  struct Stim : sc_core::sc_module {
    SC_HAS_PROCESS(Stim);
    FakeIoApic* io;
    Stim(sc_core::sc_module_name n, FakeIoApic* i) : sc_module(n), io(i) { SC_THREAD(run); }
    void run() {
      wait(us(5));
      io->set_level(true);
    }
  } stim("stim", &hw.ioapic);
  sc_core::sc_start(us(30));

  const sc_time entry = C(k, CostId::irq_entry), eoi = C(k, CostId::apic_eoi), ret = C(k, CostId::irq_return);
  // 1st: arrives 5.1 us at a halted CPU: HLT exit 1 us.
  const sc_time acc1 = us(5) + ns(100) + us(1);
  REQUIRE(calls == 2);
  CHECK(stamps[0].arrived == us(5) + ns(100));
  CHECK(stamps[0].accepted == acc1);
  CHECK(stamps[0].wait_cause == "CPU halted");
  CHECK(starts[0] == acc1 + entry);
  const sc_time eoi1 = acc1 + entry + eoi;
  // EOI with the line still asserted: the I/OxAPIC re-sends; it arrives during irq_return (IF=0).
  CHECK(stamps[1].arrived == eoi1 + ns(100));
  CHECK(stamps[1].accepted == eoi1 + ret);
  CHECK(stamps[1].wait_cause == "IRQs disabled: hardirq eth1");
  CHECK(starts[1] == eoi1 + ret + entry);
  REQUIRE(hw.ioapic.eois.size() == 2);
  CHECK(hw.ioapic.eois[0] == eoi1);
  CHECK(hw.ioapic.eois[1] == starts[1] + ns(60) + eoi);
  CHECK(hw.ioapic.sends.size() == 2);  // the line was deasserted before the 2nd EOI
  CHECK(k.irq_count(0, 0x41) == 2);
}

TEST_CASE("cpu: HZ tick accounting (timer + LOC) on an idle CPU", "[cpu]") {
  FakeHost hw;
  KernelParams kp = bench_params(1, true);
  Kernel k(hw, kp);
  Cpu& cpu = k.cpu(0);
  const sc_time period = tick_period(100);
  const sc_time end = period * 100 + ms(1);
  sc_core::sc_start(end);
  const sc_time entry = C(k, CostId::irq_entry), eoi = C(k, CostId::apic_eoi), ret = C(k, CostId::irq_return);
  // Per tick: LOC (vector 0xef, higher class) first, then IRQ0 with TIMER_BH in HI_SOFTIRQ.
  const sc_time hard = 2 * (entry + eoi + ret) + C(k, CostId::local_timer) + C(k, CostId::timer_interrupt);
  const sc_time soft = C(k, CostId::softirq_entry) + C(k, CostId::run_timer_list);
  CHECK(k.jiffies() == 100);
  CHECK(k.irq_count(0, LOCAL_TIMER_VECTOR) == 100);
  CHECK(sim().counters.get("alpha.interrupts.CPU0.timer") == 100);
  CHECK(cpu.busy(ExecLevel::Hardirq) == 100 * hard);
  CHECK(cpu.busy(ExecLevel::Softirq) == 100 * soft);
  CHECK(cpu.busy(ExecLevel::Process) == SC_ZERO_TIME);
  CHECK(cpu.idle_time() == end - 100 * (hard + soft));
  CHECK(k.context_switches(0) == 0);
}

}  // namespace cpu_preemption_test
