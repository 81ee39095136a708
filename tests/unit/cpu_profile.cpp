// The CPU time profile (Cpu::profile named by Kernel::cpu_time): on a fake host, a
// process, an interrupt handler, a softirq and the HZ tick burn cost entries, untagged cycles and
// MMIO stalls. Per CPU the contexts sum to the wall time and the entries of each level to that
// level's busy time, to the picosecond; a run that differs only in one cost entry differs in that
// entry's row by exactly calls × the extra cycles, and in no other busy row.
#include "core/cpu_report.h"
#include "drivers-sim/kernel/cpu_time.h"
#include "platforms/host_software.h"
#include "tests/unit/forked_run.h"
#include "tests/unit/kernel_fake_host.h"
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <sstream>

// This file's own names, apart from the other files of a unity batch.
namespace cpu_profile_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

constexpr int kCalls = 200;               // process loop iterations
constexpr int kIrqs = 20;                 // device interrupts, 50 µs apart
constexpr uint64_t kReg = 0xfe0000c0;     // a register of a device nobody named
const sc_time kProfileRun = ms(25);              // three HZ ticks at HZ=100

/// The bench: returns the profile of CPU 0 after kProfileRun. `extra_tcp_cycles` is added to
/// tcp_v4_rcv's cycles per call in the (process-wide) cost profile before the kernel is built.
CpuTimeProfile run_bench(double extra_tcp_cycles, const std::function<void(Kernel&, const CpuTimeProfile&)>& check = {}) {
  if (extra_tcp_cycles != 0) {
    // Only ever in a forked child (one SystemC run per process): a test-only cost profile change.
    auto& prof = const_cast<CostProfile&>(cost_profile("linux-2.4.20-p4xeon"));
    prof.entries[static_cast<size_t>(CostId::tcp_v4_rcv)].cycles_per_call += extra_tcp_cycles;
  }
  FakeHost hw;
  Kernel k(hw, bench_params(1, true));
  k.request_irq(0x41, [&](unsigned) -> Task<void> {
    co_await mmio_read32(kReg);  // ICR-like read: the CPU stalls 750 ns (FakeMch)
    co_await k.cost(CostId::netif_rx);
    k.raise_softirq(TASKLET_SOFTIRQ);
  }, SA_SHIRQ, "eth1");
  k.open_softirq(TASKLET_SOFTIRQ, [&](unsigned) -> Task<void> { co_await k.cost(CostId::ip_rcv); });
  auto worker = [&]() -> Task<void> {
    for (int i = 0; i < kCalls; ++i) {
      co_await k.cost(CostId::tcp_v4_rcv);
      co_await k.cost(CostId::csum_partial, 1460);
      co_await cpu_work(500);          // untagged
      co_await mmio_write32(kReg, 1);  // posted write: 60 ns stall
    }
  };
  k.spawn_process("worker", 0, worker());
  for (int i = 0; i < kIrqs; ++i) k.cpu(0).apic_message(0x41, us(10 + 50 * i));
  sc_core::sc_start(kProfileRun);
  const CpuTimeProfile p = k.cpu_time(0);
  if (check) check(k, p);
  return p;
}

std::map<std::string, uint64_t> rows_of(const CpuTimeProfile& p) {
  std::map<std::string, uint64_t> m;
  for (auto& r : p.rows) m[std::string(level_name(r.level)) + "|" + r.context + "|" + r.what] += r.time.value();
  m["idle|halted"] = p.halted.value();
  m["idle|waking"] = p.waking.value();
  return m;
}

/// Run the bench in a forked child (SystemC runs once per process) and return its rows.
std::map<std::string, uint64_t> rows_in_child(double extra_tcp_cycles) {
  const std::string text = run_in_child([&] {
    std::ostringstream os;
    for (auto& [key, ps] : rows_of(run_bench(extra_tcp_cycles))) os << key << "\t" << ps << "\n";
    return os.str();
  });
  std::map<std::string, uint64_t> m;
  std::istringstream is(text);
  for (std::string line; std::getline(is, line);) {
    auto tab = line.find('\t');
    m[line.substr(0, tab)] = std::stoull(line.substr(tab + 1));
  }
  return m;
}

}  // namespace

TEST_CASE("cpu profile: contexts sum to the wall time and each level's entries to its busy time, exactly",
          "[cpu][kernel]") {
  run_bench(0, [](Kernel& k, const CpuTimeProfile& p) {
  REQUIRE(p.wall == kProfileRun);
  // Contexts (busy per level + halted + waking) partition the run to the picosecond.
  CHECK(p.busy[0] + p.busy[1] + p.busy[2] + p.halted + p.waking == p.wall);
  CHECK(p.halted + p.waking == k.cpu(0).idle_time());
  sc_time by_level[3];
  for (auto& r : p.rows) by_level[static_cast<int>(r.level)] += r.time;
  for (int l = 0; l < 3; ++l) {
    INFO(level_name(static_cast<ExecLevel>(l)));
    CHECK(by_level[l] == p.busy[l]);
    CHECK(p.busy[l] == k.cpu(0).busy(static_cast<ExecLevel>(l)));
  }
  auto rows = rows_of(p);
  auto row = [&](const std::string& key) {
    INFO(key);
    REQUIRE(rows.count(key));
    return sc_time(static_cast<double>(rows.at(key)), sc_core::SC_PS);
  };
  // A burn's time is its cycles, whatever preempts it; a stall is the chipset's delay.
  const Cpu& c = k.cpu(0);
  CHECK(row("process|process worker|tcp_v4_rcv") == kCalls * c.cycles(k.cost_cycles(CostId::tcp_v4_rcv)));
  CHECK(row("process|process worker|csum_partial") == kCalls * c.cycles(k.cost_cycles(CostId::csum_partial, 1460)));
  CHECK(row("process|process worker|(untagged)") == kCalls * c.cycles(500));
  CHECK(row("process|process worker|MMIO write 0xfe0000c0") == kCalls * ns(60));
  CHECK(row("hardirq|hardirq eth1|MMIO read 0xfe0000c0") == kIrqs * ns(750));
  CHECK(row("hardirq|hardirq eth1|netif_rx") == kIrqs * c.cycles(k.cost_cycles(CostId::netif_rx)));
  CHECK(row("hardirq|hardirq eth1|irq_entry") == kIrqs * c.cycles(k.cost_cycles(CostId::irq_entry)));
  CHECK(row("softirq|softirq TASKLET|ip_rcv") == kIrqs * c.cycles(k.cost_cycles(CostId::ip_rcv)));
  CHECK(rows.count("softirq|softirq do_softirq|softirq_entry"));
  // The HZ tick: the PIT on the timekeeping CPU, the local APIC timer, TIMER_BH.
  CHECK(rows.count("hardirq|hardirq timer|timer_interrupt"));
  CHECK(rows.count("hardirq|hardirq LOC|local_timer"));
  CHECK(rows.count("softirq|softirq HI (TIMER_BH)|run_timer_list"));
  CHECK(p.halted > SC_ZERO_TIME);  // the worker finished early
  // Sorted largest first.
  for (size_t i = 1; i < p.rows.size(); ++i) CHECK(p.rows[i - 1].time >= p.rows[i].time);

  // The same in result.json's form, and what explain --cpu prints of it.
  nlohmann::json prof = {{"alpha", cpu_profile_json(k, 0)}};
  CHECK(cpu_profile_problems(prof).empty());
  CHECK(prof["alpha"]["cpu0"]["wall_ps"].get<uint64_t>() == kProfileRun.value());
  const std::string text = format_cpu_profile(prof, 5);
  INFO(text);
  CHECK(text.find("alpha.cpu0") != std::string::npos);
  CHECK(text.find("Flat profile") != std::string::npos);
  CHECK(text.find("process worker") != std::string::npos);
  CHECK(text.find("idle (halted)") != std::string::npos);
  CHECK(text.find("more entries") != std::string::npos);  // top 5 of more
  // A planted imbalance is reported.
  prof["alpha"]["cpu0"]["entries"][0]["ps"] = prof["alpha"]["cpu0"]["entries"][0]["ps"].get<uint64_t>() + 1;
  CHECK(cpu_profile_problems(prof).size() == 1);
  });
}

TEST_CASE("cpu profile: a run that differs only in one cost entry differs in that entry's row and no other busy row",
          "[cpu][kernel]") {
  const double extra = 1000;  // cycles per tcp_v4_rcv call
  const auto a = rows_in_child(0);
  const auto b = rows_in_child(extra);
  const std::string key = "process|process worker|tcp_v4_rcv";
  REQUIRE(a.count(key));
  REQUIRE(b.count(key));
  // 2000 MHz: one cycle is 500 ps exactly.
  CHECK(b.at(key) - a.at(key) == static_cast<uint64_t>(kCalls * extra * 500));
  for (auto& [k, ps] : a) {
    if (k == key || k.rfind("idle|", 0) == 0) continue;
    INFO(k);
    REQUIRE(b.count(k));
    CHECK(b.at(k) == ps);
  }
  for (auto& [k, ps] : b) {
    INFO(k);
    CHECK(a.count(k));
  }
  // The idle time pays for it.
  CHECK(a.at("idle|halted") + a.at("idle|waking") - b.at("idle|halted") - b.at("idle|waking") ==
        static_cast<uint64_t>(kCalls * extra * 500));
}

TEST_CASE("cpu profile: the gap between two profiles is sorted by cycles per packet", "[cpu]") {
  auto cpu = [](uint64_t tcp_ps, uint64_t copy_ps) {
    return nlohmann::json{{"mhz", 2000.0},
                          {"wall_ps", 10'000'000},
                          {"packets", 10},
                          {"levels", {{"hardirq", 0}, {"softirq", tcp_ps}, {"process", copy_ps}, {"idle", 10'000'000 - tcp_ps - copy_ps}}},
                          {"contexts", nlohmann::json::array()},
                          {"entries",
                           {{{"symbol", "tcp_v4_rcv"}, {"kind", "cost"}, {"context", "softirq NET_RX"}, {"level", "softirq"}, {"ps", tcp_ps}},
                            {{"symbol", "copy_user_uncached"}, {"kind", "cost"}, {"context", "process netserver"}, {"level", "process"}, {"ps", copy_ps}}}}};
  };
  nlohmann::json a = {{"beta", {{"cpu0", cpu(1'000'000, 2'000'000)}}}};
  nlohmann::json b = {{"beta", {{"cpu0", cpu(1'500'000, 2'100'000)}}}};
  auto rows = cpu_gap(a, b);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].symbol == "tcp_v4_rcv");
  CHECK(rows[0].delta == Approx(100.0));  // 500,000 ps at 2 GHz = 1,000 cycles over 10 packets
  CHECK(rows[1].symbol == "copy_user_uncached");
  CHECK(rows[1].delta == Approx(20.0));
  CHECK(format_cpu_gap(a, b, "A", "B").find("tcp_v4_rcv") != std::string::npos);
}

namespace {
// A result.json with one host "beta" (one CPU at 2000 MHz, 0.1 s, 1000 packets) whose hardirq eth1
// context spends `isr_ps` in `MMIO read eth1+0x00c0` and 1 ms in irq_entry, and took `eth1_irqs`
// eth1 and 100 timer interrupts.
nlohmann::json fake_run(uint64_t isr_ps, uint64_t eth1_irqs) {
  const uint64_t wall = 100'000'000'000, soft = 20'000'000'000, proc = 10'000'000'000, entry = 1'000'000'000;
  const uint64_t hard = isr_ps + entry;
  nlohmann::json cpu = {
      {"mhz", 2000.0},
      {"wall_ps", wall},
      {"packets", 1000},
      {"levels", {{"hardirq", hard}, {"softirq", soft}, {"process", proc}, {"idle", wall - hard - soft - proc}}},
      {"contexts",
       {{{"context", "hardirq eth1"}, {"level", "hardirq"}, {"ps", hard}},
        {{"context", "softirq NET_RX"}, {"level", "softirq"}, {"ps", soft}},
        {{"context", "process netserver"}, {"level", "process"}, {"ps", proc}},
        {{"context", "idle (halted)"}, {"level", "idle"}, {"ps", wall - hard - soft - proc}}}},
      {"entries",
       {{{"symbol", "tcp_v4_rcv"}, {"kind", "cost"}, {"context", "softirq NET_RX"}, {"level", "softirq"}, {"ps", soft}},
        {{"symbol", "copy_user_uncached"}, {"kind", "cost"}, {"context", "process netserver"}, {"level", "process"}, {"ps", proc}},
        {{"symbol", "MMIO read eth1+0x00c0"}, {"kind", "stall"}, {"context", "hardirq eth1"}, {"level", "hardirq"}, {"ps", isr_ps}},
        {{"symbol", "irq_entry"}, {"kind", "cost"}, {"context", "hardirq eth1"}, {"level", "hardirq"}, {"ps", entry}}}}};
  return {{"cpu_profile", {{"beta", {{"cpu0", cpu}}}}},
          {"counters", {{"beta.interrupts.CPU0.eth1", eth1_irqs}, {"beta.interrupts.CPU0.timer", 100}, {"beta.netstat.Tcp.InSegs", 1000}}}};
}
}  // namespace

TEST_CASE("cpu summary: names the interrupt rates of both runs and the hardirq entry that differs", "[cpu][explain]") {
  const nlohmann::json a = fake_run(2'000'000'000, 800), b = fake_run(8'000'000'000, 8100);
  REQUIRE(cpu_profile_problems(a["cpu_profile"]).empty());
  REQUIRE(cpu_profile_problems(b["cpu_profile"]).empty());
  auto s = cpu_gap_summary(a, b);
  REQUIRE(s.size() == 1);
  const CpuSummaryHost& h = s[0];
  CHECK(h.host == "beta");
  // Interrupts over 0.1 s: 8,000/s vs 81,000/s; the timer did not move and is not named.
  REQUIRE(h.irqs.size() == 1);
  CHECK(h.irqs[0].label == "eth1");
  CHECK(h.irqs[0].a_per_s == Approx(8000));
  CHECK(h.irqs[0].b_per_s == Approx(81000));
  // Busy: (2 + 1 + 20 + 10) ms = 33 ms of 100 ms = 66,000,000 cycles / 1000 pkts; B has 6 ms more.
  CHECK(h.a_per_pkt == Approx(66000));
  CHECK(h.b_per_pkt == Approx(78000));
  CHECK(h.a_busy_pct == Approx(33));
  CHECK(h.b_busy_pct == Approx(39));
  REQUIRE(h.contexts.size() == 1);
  CHECK(h.contexts[0].context == "hardirq eth1");
  CHECK(h.contexts[0].delta == Approx(12000));
  REQUIRE(h.contexts[0].entries.size() == 1);
  CHECK(h.contexts[0].entries[0].symbol == "MMIO read eth1+0x00c0");
  REQUIRE(h.levels.size() == 1);
  CHECK(h.levels[0].first == "hardirq");
  CHECK_FALSE(h.no_difference);
  const std::string& t = h.text;
  INFO(t);
  CHECK(t.find("8,000 vs 81,000 eth1 interrupts/s") != std::string::npos);
  CHECK(t.find("66.0 k vs 78.0 k cycles (+12.0 k = +6.00 µs at 2000 MHz)") != std::string::npos);
  CHECK(t.find("mostly hardirq eth1 (+12.0 k: MMIO read eth1+0x00c0 +12.0 k)") != std::string::npos);
  CHECK(t.find("Busy 33% vs 39%") != std::string::npos);
  CHECK(t.find("timer") == std::string::npos);
  CHECK(t.find("irq_entry") == std::string::npos);  // the same in both runs
  CHECK(t.find("tcp_v4_rcv") == std::string::npos);
  CHECK(format_cpu_gap_summary(s) == t + "\n");
  const nlohmann::json j = cpu_gap_summary_json(s);
  CHECK(j[0]["interrupts_per_s"][0]["label"] == "eth1");
  CHECK(j[0]["contexts"][0]["entries"][0]["symbol"] == "MMIO read eth1+0x00c0");
  CHECK(j[0]["text"] == t);
  // Reversed, the signs turn.
  auto r = cpu_gap_summary(b, a);
  REQUIRE(r.size() == 1);
  CHECK(r[0].text.find("81,000 vs 8,000 eth1 interrupts/s") != std::string::npos);
  CHECK(r[0].text.find("-12.0 k = -6.00 µs") != std::string::npos);
}

TEST_CASE("cpu summary: two runs with the same profile and interrupts say there is no difference", "[cpu][explain]") {
  const nlohmann::json a = fake_run(2'000'000'000, 800);
  auto s = cpu_gap_summary(a, a);
  REQUIRE(s.size() == 1);
  CHECK(s[0].no_difference);
  CHECK(s[0].irqs.empty());
  CHECK(s[0].contexts.empty());
  INFO(s[0].text);
  CHECK(s[0].text.find("no difference in CPU per packet (66.0 k cycles in both)") != std::string::npos);
  CHECK(s[0].text.find("8,000 eth1 interrupts/s") != std::string::npos);
  // Only the interrupt count differs: the rates are named, the CPU per packet unchanged.
  auto o = cpu_gap_summary(a, fake_run(2'000'000'000, 1600));
  REQUIRE(o.size() == 1);
  CHECK_FALSE(o[0].no_difference);
  CHECK(o[0].text.find("8,000 vs 16,000 eth1 interrupts/s") != std::string::npos);
  // No profile at all: said so.
  CHECK(format_cpu_gap_summary(cpu_gap_summary(nlohmann::json::object(), nlohmann::json::object())).find("no host") !=
        std::string::npos);
}

}  // namespace cpu_profile_test
