// Burn chains and the CPU's run-ahead over them (Cpu::burn_chain, Cpu::run_ahead;
// "software run to completion"): a chain of costs gives the same completion times, interrupt
// acceptance times, journey marks, profile cells, busy times and counters as awaiting each cost
// in turn, to the picosecond, with interrupts arriving mid-burn, exactly at a burn boundary and
// 1 ps either side of one, a HZ tick, a softirq on top, IRQs disabled for part of the work, and
// another SystemC process (a bus master) whose events limit the look-ahead. Each way runs in a
// forked child (SystemC runs once per process); the parent compares the two transcripts.
#include "drivers-sim/kernel/cpu_time.h"
#include "drivers-sim/kernel/irqflags.h"
#include "tests/unit/forked_run.h"
#include "tests/unit/kernel_fake_host.h"
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace cpu_burn_chain_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

enum class Way { PerCost, Chain, ChainNoRunAhead };

constexpr int kLoops = 60;
const sc_time kRun = ms(12);  // one HZ tick at HZ=100 (10 ms)

/// Another initiator: an SC_METHOD that wakes every `period` (its events are pending activity
/// that bounds the CPU's look-ahead) and every 7th wake raises vector 0x51 at the CPU at once.
struct Master : sc_core::sc_module {
  sc_core::sc_event ev;
  sc_time period;
  Cpu* cpu = nullptr;
  unsigned wakes = 0;
  SC_HAS_PROCESS(Master);
  Master(sc_core::sc_module_name n, const sc_time& p) : sc_module(n), period(p) {
    SC_METHOD(tick);
    sensitive << ev;
    dont_initialize();
  }
  void start(const sc_time& first) { ev.notify(first); }
  void tick() {
    if (++wakes % 7 == 0 && cpu) cpu->apic_message(0x51, SC_ZERO_TIME);
    ev.notify(period);
  }
};

/// The bench run one way; returns its transcript (one "key\tvalue" per line).
std::string run_bench(Way way) {
  FakeHost hw;
  Kernel k(hw, bench_params(1, true));
  Cpu& cpu = k.cpu(0);
  Master master("master", ns(2900));
  master.cpu = &cpu;
  std::ostringstream out;
  // (A list built outside the coroutines: GCC 12 rejects a braced list inside a co_await.)
  auto L = [](auto... b) { return std::vector<CpuBurn>{CpuBurn(b)...}; };
  auto burns = [&](std::vector<CpuBurn> list) -> Task<void> {
    if (way == Way::PerCost) {
      for (const CpuBurn& b : list) co_await b;
    } else {
      CpuBurnChain chain;
      for (const CpuBurn& b : list)
        if (!chain.add(b)) {
          co_await chain;
          chain.add(b);
        }
      co_await chain;
    }
  };
  k.request_irq(0x41, [&](unsigned) -> Task<void> {
    out << "irq41\t" << now().value() << "\t" << k.current_irq()->arrived.value() << "\n";
    co_await burns(L(k.cost(CostId::netif_rx), k.cost(CostId::skb_alloc)));
    k.raise_softirq(TASKLET_SOFTIRQ);
  }, SA_SHIRQ, "eth1");
  k.request_irq(0x51, [&](unsigned) -> Task<void> {
    out << "irq51\t" << now().value() << "\n";
    co_await burns(L(k.cost(CostId::apic_eoi)));
  }, SA_SHIRQ, "eth2");
  k.open_softirq(TASKLET_SOFTIRQ, [&](unsigned) -> Task<void> {
    co_await burns(L(k.cost(CostId::ip_rcv), k.cost(CostId::tcp_v4_rcv), k.cost(CostId::csum_partial, 64),
                    k.cost(CostId::tcp_ack), k.cost(CostId::skb_free)));
    out << "softirq\t" << now().value() << "\n";
  });
  auto worker = [&]() -> Task<void> {
    for (int i = 0; i < kLoops; ++i) {
      const JourneyId j = sim().journeys.begin("chain", now(), "loop", "alpha.cpu0");
      k.mark(j, "TCP tx");
      // Eleven costs: more than a CpuBurnChain holds (8), so the chain is awaited in two parts.
      co_await burns(L(k.cost(CostId::tcp_sendmsg), k.cost(CostId::copy_user_cached, 1448),
                      k.cost(CostId::skb_alloc), k.cost(CostId::tcp_transmit_skb), k.cost(CostId::ip_output),
                      CpuBurn{SC_ZERO_TIME}, k.cost(CostId::dev_queue_xmit), k.cost(CostId::skb_free),
                      CpuBurn{cpu.cycles(333)}, k.cost(CostId::tcp_ack), k.cost(CostId::skb_free),
                      k.cost(CostId::ip_rcv)));
      if (i % 4 == 3) {  // a chain with IRQs off: not preemptible, interrupts wait for its end
        const bool was = local_irq_save();
        co_await burns(L(k.cost(CostId::tcp_recvmsg), k.cost(CostId::copy_user_uncached, 512)));
        local_irq_restore(was);
      }
      sim().journeys.finish(j, now());
      out << "loop\t" << i << "\t" << now().value() << "\n";
    }
  };
  k.spawn_process("worker", 0, worker());
  // Device interrupts: mid-burn, then exactly at the first chain's second boundary and 1 ps either
  // side of its third (the first chain starts after the context switch, with nothing before it).
  const sc_time cs = cpu.cycles(k.cost_cycles(CostId::context_switch));
  const sc_time b2 = cs + cpu.cycles(k.cost_cycles(CostId::tcp_sendmsg)) +
                     cpu.cycles(k.cost_cycles(CostId::copy_user_cached, 1448));
  const sc_time b3 = b2 + cpu.cycles(k.cost_cycles(CostId::skb_alloc));
  cpu.apic_message(0x41, b2);
  cpu.apic_message(0x41, b3 - sc_time(1, sc_core::SC_PS) + us(40));
  cpu.apic_message(0x41, b3 + sc_time(1, sc_core::SC_PS) + us(90));
  for (int i = 0; i < 30; ++i) cpu.apic_message(0x41, us(150) + us(31.7) * i);
  master.start(us(700));
  if (way == Way::Chain) Cpu::run_for(kRun);
  else sc_core::sc_start(kRun);  // no horizon: no run-ahead (as NICSIM_RUNAHEAD=0)

  for (const Journey& j : sim().journeys.finished())
    for (const JourneyMark& m : j.marks) out << "mark\t" << m.t.value() << "\t" << m.stage << "\t" << m.cause << "\n";
  for (const CpuProfileCell& c : cpu.profile())
    out << "cell\t" << level_name(c.level) << "\t" << c.ctx << "\t" << what_name(c.what) << "\t" << c.time.value() << "\n";
  for (auto l : {ExecLevel::Process, ExecLevel::Softirq, ExecLevel::Hardirq})
    out << "busy\t" << level_name(l) << "\t" << cpu.busy(l).value() << "\n";
  out << "idle\t" << cpu.idle_time().value() << "\n";
  for (const char* c : {"busy_process_ns", "busy_softirq_ns", "busy_hardirq_ns", "idle_ns"})
    out << "counter\t" << c << "\t" << sim().counters.get(std::string("alpha.cpu0.") + c) << "\n";
  out << "irqs\t" << k.irq_count(0, 0x41) << "\t" << k.irq_count(0, 0x51) << "\n";
  // Not compared: how many boundaries were passed without an event (checked on its own below).
  out << "#runahead\t" << Cpu::runahead_boundaries() << "\n";
  return out.str();
}

/// Run the bench one way in a forked child and return its transcript (an exception in the
/// bench is a line of the transcript, so the comparison shows it).
std::string run_forked(Way way) {
  return run_in_child([way] {
    try {
      return run_bench(way);
    } catch (const std::exception& e) {
      return std::string("error\t") + e.what() + "\n";
    }
  });
}

/// The transcript without its "#" lines, and the value of "#runahead".
std::pair<std::string, uint64_t> split(const std::string& t) {
  std::istringstream is(t);
  std::string kept;
  uint64_t ra = 0;
  for (std::string line; std::getline(is, line);) {
    if (line.rfind("#runahead\t", 0) == 0) ra = std::stoull(line.substr(10));
    else if (line[0] != '#') kept += line + "\n";
  }
  return {kept, ra};
}

}  // namespace

TEST_CASE("cpu burn chain: same times, marks, profile and counters as one burn per cost, with and without run-ahead",
          "[cpu][kernel]") {
  const auto [per_cost, ra0] = split(run_forked(Way::PerCost));
  const auto [chain, ra1] = split(run_forked(Way::Chain));
  const auto [chain_off, ra2] = split(run_forked(Way::ChainNoRunAhead));
  REQUIRE(per_cost.find("error") == std::string::npos);
  CHECK(per_cost.find("loop\t59\t") != std::string::npos);  // the whole work ran
  CHECK(per_cost.find("irq51") != std::string::npos);       // the other master's interrupts were taken
  CHECK(per_cost.find("CPU wait") != std::string::npos);    // chains were split by interrupts
  CHECK(chain == per_cost);
  CHECK(chain_off == per_cost);
  // Run-ahead happened (boundaries passed without an event) only where it was allowed.
  CHECK(ra0 == 0);
  CHECK(ra1 > 0);
  CHECK(ra2 == 0);
}

}  // namespace cpu_burn_chain_test
