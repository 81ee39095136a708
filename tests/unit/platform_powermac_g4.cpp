// The powermac-g4 platform as built (platforms/powermac_g4.*, models/chipset/uninorth.*): its entry
// (slots, parameters, describe tree, checks), the GMAC at the onboard position on UniNorth's internal
// PCI bus (BAR in that bridge's window, M66EN and RXDMA_BLANK's clock from the bus), its INTA# as
// OpenPIC source 41 delivered as irq 41 and level-triggered, and DMA through UniNorth with times and
// counts computed from the models' rules and the platform's parameters.
#include "core/registry.h"
#include "core/sim_context.h"
#include "e7500_test_bench.h"
#include "models/chipset/uninorth.h"
#include "models/nic/gem/gem.h"
#include "drivers-sim/kernel/costs.h"
#include "drivers-sim/kernel/profiles.h"
#include "platforms/chipset_host.h"
#include "platforms/powermac_g4.h"
#include "tests/unit/nic_e1000_bench.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace platform_powermac_g4_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

const PlatformEntry& g4_entry() {
  auto* e = Registry<PlatformEntry>::instance().find(kPowerMacG4Name);
  REQUIRE(e);
  return *e;
}

ChipsetBoardSpec g4(std::vector<std::pair<std::string, ParamValue>> overrides = {}) {
  ParamValues v(powermac_g4_param_schema());
  for (auto& [k, x] : overrides) v.set(k, x);
  return powermac_g4_board(v);
}

HostConfig g4_host_config(std::vector<std::pair<std::string, ParamValue>> set) {
  HostConfig hc;
  hc.name = "alpha";
  hc.platform = kPowerMacG4Name;
  hc.params = ParamValues(g4_entry().params);
  for (auto& [k, v] : set) hc.params.set(k, v);
  return hc;
}

bool g4_has_problem(const std::vector<ParamProblem>& ps, const std::string& key, const std::string& text) {
  for (auto& p : ps)
    if (p.key == key && p.message.find(text) != std::string::npos) return true;
  return false;
}

/// The host with the GMAC model at its onboard position and a link partner.
struct G4 {
  HostBench<ChipsetHost> b;
  std::unique_ptr<gem::Gmac> nic;
  bench::FakePeer peer{"peer"};
  std::unique_ptr<EthLink> link;
  std::vector<unsigned> vec;
  explicit G4(const ChipsetBoardSpec& s, const std::string& slot = "onboard-gmac") : b(s, "g4") {
    gem::GemParams p;
    p.clock_ppm = 0;
    nic = std::make_unique<gem::Gmac>("g4_eth0", p);
    vec = b.host->attach(slot, *nic);
    link = std::make_unique<EthLink>("link", 1000, 2.0, *nic, peer);
  }
};

}  // namespace

TEST_CASE("powermac-g4 is registered: slots, sourced parameters and a describe tree of UniNorth's buses",
          "[platform][powermac]") {
  const PlatformEntry& e = g4_entry();
  for (auto& p : e.params) CHECK_FALSE(p.source.empty());
  std::vector<std::string> slots;
  for (auto& s : e.slots) slots.push_back(s.name);
  CHECK(slots == std::vector<std::string>{"onboard-gmac", "slot1", "slot2", "slot3", "slot4"});
  CHECK(e.slots[0].onboard);
  CHECK(e.slots[0].onboard_devices == std::vector<std::string>{"GMAC"});
  ParamValues v(e.params);
  CHECK(v.s("cpu_profile") == "ppc7450");
  CHECK(v.s("kernel_profile") == kPowerMacKernelProfile);
  CHECK(v.r("cpu_mhz") == 733.0);
  const std::string d = e.describe(v);
  INFO(d);
  for (const char* want :
       {"1 × Motorola MPC7450 733 MHz, big-endian, on a 133 MHz 64-bit MPX bus (MaxBus, 1067 MB/s)",
        "SDRAM: 256 MB PC133, 1 channel (not interleaved), 64-bit, 1067 MB/s, 32-byte lines",
        "pci-internal (port_f4)", "UniNorth internal PCI host bridge, pci@f4000000 (pci_f4)",
        "internal PCI bus: PCI 66 MHz, 32-bit, peak 267 MB/s (M66EN high", "cache line 32 B, latency timer 16",
        "slot onboard-gmac: built-in Ethernet", "/pci@f4000000/ethernet@f", "OpenPIC source 41 (level) = irq 41",
        "pci-slots (port_f2)", "PCI slot bus: PCI 33 MHz, 64-bit, peak 267 MB/s", "slot slot4"})
    CHECK(d.find(want) != std::string::npos);
  // The profile lines as the PCs show them: the kernel profile and the CPU's cost table by name.
  CHECK(d.find("kernel: linux-2.4.16-ppc (Linux 2.4.16 ppc, HZ 100, no NAPI") != std::string::npos);
  CHECK(d.find("cpu: ppc7450 (") != std::string::npos);
  CHECK(d.find("cost table linux-2.4-ppc7450") != std::string::npos);
  CHECK(d.find("profiles:") == std::string::npos);
  CHECK(d.find("software half") == std::string::npos);
  ParamValues v33(e.params);
  v33.set("internal_pci_mhz", int64_t{33});
  CHECK(e.describe(v33).find("internal PCI bus: PCI 33 MHz, 32-bit, peak 133 MB/s (M66EN low") != std::string::npos);
}

TEST_CASE("powermac-g4 check: the internal bus runs 33 or 66 MHz, 32 or 64 bits, cpu_mhz within ppc7450's range",
          "[platform][powermac]") {
  const PlatformEntry& e = g4_entry();
  CHECK(g4_has_problem(e.check(g4_host_config({{"internal_pci_mhz", ParamValue(int64_t{50})}})), "hosts.alpha.internal_pci_mhz",
                    "use 33 or 66"));
  CHECK(g4_has_problem(e.check(g4_host_config({{"internal_pci_bits", ParamValue(int64_t{48})}})),
                    "hosts.alpha.internal_pci_bits", "use 32 or 64"));
  for (auto& p : e.check(g4_host_config({}))) {
    INFO(p.key << ": " << p.message);
    CHECK_FALSE(p.key == "hosts.alpha.internal_pci_mhz");
    CHECK_FALSE(p.key == "hosts.alpha.cpu_mhz");
  }
}

TEST_CASE("powermac-g4: the GMAC on the 66 MHz internal bus senses M66EN and counts 66.67 MHz, its BAR is in the "
          "internal bridge's window and a CPU read of it crosses UniNorth", "[platform][powermac]") {
  G4 g(g4());
  REQUIRE(g.vec == std::vector<unsigned>{kPowerMacGmacIrq});
  const ChipsetBoardSpec& s = g.b.host->spec();
  CHECK(g.nic->bar(0) >= s.mmio_base);  // bridge 0 segment A: the first window
  CHECK(g.nic->bar(0) + gem::gmac_info().bar_size <= s.mmio_base + s.segment_window_bytes);
  CHECK(g.b.host->slot_bus("onboard-gmac").find("internal PCI bus") != std::string::npos);
  CHECK(g.b.host->sharing("onboard-gmac", "slot1").level == SlotSharing::Level::north_bridge);
  const PciSegment& seg = g.b.host->bridge(0).segment(0);
  uint32_t bif = 0;
  sc_time t_read;
  g.b.run([&](TestCpu& c) {
    sc_core::wait(us(1));
    t_read = c.access(false, g.nic->bar(0) + gem::GREG_BIFCFG, bif);
  });
  CHECK(seg.mode().mhz == 66);
  CHECK_FALSE(seg.mode().pcix);
  CHECK((bif & gem::GM_BIF_CFG_M66EN) != 0u);  // gmac.h's reading, the model's default
  CHECK(std::abs(g.nic->pci_clock().nominal_hz() - 200e6 / 3) < 1.0);
  INFO("CPU MMIO read of a GMAC register: " << to_ns(t_read) << " ns");
  // Lower bound from the path: the request and the completion each cross the on-die port, and the
  // bridge spends outbound_request_clocks + completion_return_clocks of the bus clock.
  const HubLink& port = g.b.host->link(0);
  const PcixBridgeParams& bp = g.b.host->spec().bridges[0].bridge;
  CHECK(t_read > port.wire_time(0) + port.wire_time(4) + seg.clocks(bp.outbound_request_clocks + bp.completion_return_clocks));
  // research seeds §1.1 parameter table: PIO read to UniNorth's internal PCI 0.3-1.0 µs [EST]
  CHECK(to_us(t_read) >= 0.3);
  CHECK(to_us(t_read) <= 1.0);
}

TEST_CASE("powermac-g4: a CPU read of a register on the 33 MHz slot bus, KeyLargo's and so the OpenPIC's, takes "
          "what linux-2.4-ppc7450 charges per OpenPIC register read", "[platform][powermac][ppc]") {
  // The cost table charges 2.4.16's OpenPIC accesses (IACK, mask, EOI) as cycles in irq_entry /
  // apic_eoi (drivers-sim/kernel/costs_linux_2_4_ppc7450.cpp); the OpenPIC is in KeyLargo on the PCI
  // bus behind the f2000000 bridge. A register read of a device on that bus through the platform's
  // own models must take what the table charges per read: 503 cycles at 733 MHz (686 ns).
  G4 g(g4(), "slot1");
  uint32_t v = 0;
  sc_time t_read;
  g.b.run([&](TestCpu& c) {
    sc_core::wait(us(1));
    t_read = c.access(false, g.nic->bar(0) + gem::GREG_BIFCFG, v);
  });
  INFO("CPU MMIO read on the slot bus: " << to_ns(t_read) << " ns");
  CHECK(to_ns(t_read) == Approx(503.0 / 733 * 1000).epsilon(0.02));
}

TEST_CASE("powermac-g4: a CPU line fill from SDRAM takes what linux-2.4-ppc7450's out-of-cache copy rate assumes",
          "[platform][powermac][ppc]") {
  // copy_user_uncached (drivers-sim/kernel/costs_linux_2_4_ppc7450.cpp): __copy_tofrom_user's dcbt of
  // line n+1 before the loads of line n keeps two 32-byte line fills in flight, so a line takes
  // (L + W) / 2, L the fill of the next line in an open SDRAM row through the platform's models (the
  // MPX bus, UniNorth, PC133), W the line's cache-resident work (copy_user_cached's per-byte cycles).
  HostBench<ChipsetHost> b(g4(), "g4");
  std::vector<sc_time> fills;
  b.run([&](TestCpu& c) {
    sc_core::wait(us(1));
    for (uint64_t a : {0x100000ull, 0x100020ull, 0x180040ull}) {  // a first line, the next, another row
      tlm::tlm_response_status st = tlm::TLM_INCOMPLETE_RESPONSE;
      const sc_time d = c.line_read(a, 32, &st);
      REQUIRE(st == tlm::TLM_OK_RESPONSE);
      fills.push_back(d);
      sc_core::wait(d + us(1));
    }
  });
  REQUIRE(fills.size() == 3u);
  INFO("line fills " << to_ns(fills[0]) << " / " << to_ns(fills[1]) << " / " << to_ns(fills[2]) << " ns");
  CHECK(fills[1] < fills[0]);  // the open row
  CHECK(fills[2] > fills[0]);  // another row: precharge first
  const CostProfile& g = cost_profile("linux-2.4-ppc7450");
  const double w_ns = g.at(CostId::copy_user_cached).cycles_per_byte * 32 / g.ref_mhz * 1000;
  const double line_ns = (to_ns(fills[1]) + w_ns) / 2;
  const double table_ns = g.at(CostId::copy_user_uncached).cycles_per_byte * 32 / g.ref_mhz * 1000;
  INFO("a line per " << line_ns << " ns, the table's " << table_ns << " ns");
  CHECK(table_ns == Approx(line_ns).epsilon(0.02));
}

TEST_CASE("powermac-g4: internal_pci_mhz = 33 clears M66EN and halves the GMAC's clock", "[platform][powermac]") {
  G4 g(g4({{"internal_pci_mhz", ParamValue(int64_t{33})}}));
  uint32_t bif = 0;
  g.b.run([&](TestCpu& c) {
    sc_core::wait(us(1));
    (void)c.access(false, g.nic->bar(0) + gem::GREG_BIFCFG, bif);
  });
  CHECK((bif & gem::GM_BIF_CFG_M66EN) == 0u);
  CHECK(std::abs(g.nic->pci_clock().nominal_hz() - 100e6 / 3) < 1.0);
}

TEST_CASE("powermac-g4: a GMAC TX_ALL reaches the CPU as irq 41, level-triggered: again at the EOI while asserted, "
          "not after a read of GREG_STAT clears it", "[platform][powermac][irq]") {
  G4 g(g4());
  constexpr uint64_t kRing = 0x100000, kBuf = 0x200000;
  const EthFrame f = bench::make_frame({0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E}, 200, 1);
  g.b.host->mem_write(kBuf, f.bytes.data(), f.bytes.size());
  uint8_t d[16] = {};
  const uint64_t ctrl = gem::TXDCTRL_SOF | gem::TXDCTRL_EOF | f.bytes.size();
  for (int i = 0; i < 8; ++i) d[i] = uint8_t(ctrl >> (8 * i)), d[8 + i] = uint8_t(kBuf >> (8 * i));
  g.b.host->mem_write(kRing, d, 16);
  size_t before_eoi = 0, after_eoi = 0;
  uint32_t stat = 0;
  g.b.run([&](TestCpu& c) {
    auto w = [&](uint32_t off, uint32_t v) { (void)c.access(true, g.nic->bar(0) + off, v); };
    sc_core::wait(us(1));
    w(gem::GREG_CFG, gem::GREG_CFG_IBURST | (31u << 1) | (31u << 6));
    w(gem::TXDMA_DBHI, 0);
    w(gem::TXDMA_DBLOW, uint32_t(kRing));
    w(gem::TXDMA_CFG, (0x7ffu << 10) | gem::TXDMA_CFG_ENABLE);  // 32 entries
    w(gem::MAC_TXCFG, gem::MAC_TXCFG_ENAB);
    w(gem::GREG_IMASK, ~gem::GREG_STAT_TXALL);
    w(gem::TXDMA_KICK, 1);
    sc_core::wait(us(40));
    before_eoi = c.irqs.size();
    g.b.host->eoi_in().eoi(kPowerMacGmacIrq, SC_ZERO_TIME);  // still asserted: delivered again
    sc_core::wait(us(5));
    after_eoi = c.irqs.size();
    (void)c.access(false, g.nic->bar(0) + gem::GREG_STAT, stat);  // read-to-clear deasserts the line
    g.b.host->eoi_in().eoi(kPowerMacGmacIrq, SC_ZERO_TIME);
    sc_core::wait(us(5));
  });
  CHECK((stat & gem::GREG_STAT_TXALL) != 0u);
  CHECK(before_eoi == 1u);
  CHECK(after_eoi == 2u);
  REQUIRE(g.b.cpu->irqs.size() == 2u);
  CHECK(g.b.cpu->irqs[0].first == kPowerMacGmacIrq);
  CHECK(g.b.cpu->irqs[1].first == kPowerMacGmacIrq);
  CHECK(g.peer.rx.size() == 1u);
}

TEST_CASE("powermac-g4: slot cards are OpenPIC sources of the slot bus's bridge, numbered by source, distinct from 41",
          "[platform][powermac][irq]") {
  HostBench<ChipsetHost> b(g4(), "s");
  std::vector<unsigned> v1, v4;
  b.add("slot1", master(64, false, 33), &v1);
  b.add("slot4", master(64, false, 33), &v4);
  CHECK(v1 == std::vector<unsigned>{56});
  CHECK(v4 == std::vector<unsigned>{59});
  CHECK(b.host->slot_bus("slot1").find("PCI slot bus") != std::string::npos);
  CHECK(b.host->sharing("slot1", "slot4").level == SlotSharing::Level::segment);
}

TEST_CASE("powermac-g4: a DMA write on the internal bus is posted at the bus's own pace, long bursts run at its "
          "burst rate, not the on-die port's", "[platform][powermac][dma]") {
  // A 32-bit PCI 66 master at the GMAC's position: the write is posted by the host bridge, so the
  // master is released when its tenure ends: arbitration (the idle bus is not yet parked on it:
  // arbitration_clocks) + the phases of pci_burst_clocks for the segment's burst spec.
  HostBench<ChipsetHost> b(g4(), "w");
  PciDmaMaster& m = b.add("onboard-gmac", master(32, false, 66));
  PciSegment& seg = b.host->bridge(0).segment(0);
  PciDmaMaster::Stats one, stream;
  b.run([&](TestCpu&) {
    sc_core::wait(us(1));
    PciDmaMaster::Job j;
    j.write = true;
    j.addr = 16 << 20;
    j.bytes = 128;
    one = run_job(m, j);
    sc_core::wait(us(5));
    j.bytes = 2048;
    j.count = 32;
    j.region_bytes = 1 << 20;
    stream = run_job(m, j);
  });
  const PciBurstTiming t128 = seg.burst_clocks(seg.burst_spec(0, PciCommand::MemWrite, 16 << 20, 128, true));
  const sc_time expect = seg.clocks(seg.params().arbitration_clocks + t128.phases.front().total());
  INFO("128 B posted write: " << to_ns(one.min_latency) << " ns, rule " << to_ns(expect) << " ns");
  // The master starts on the next bus clock edge: up to one clock after the rule.
  CHECK(one.min_latency >= expect);
  CHECK(one.min_latency < expect + seg.clock_period());
  const PciBurstTiming t2k = seg.burst_clocks(seg.burst_spec(0, PciCommand::MemWrite, 16 << 20, 2048, true));
  unsigned clocks = 0;
  for (auto& ph : t2k.phases) clocks += ph.total();
  const double rule_mbs = mb_per_s(2048.0, seg.clocks(clocks));
  const double port_mbs = b.host->link(0).payload_mb_per_s();
  INFO("2 KB writes: " << stream.mb_per_s() << " MB/s, bus rule " << rule_mbs << " MB/s, PCI 32/66 peak "
                       << pci_peak_mb_per_s(32, 66) << ", on-die port " << port_mbs);
  CHECK(port_mbs > pci_peak_mb_per_s(32, 66));  // the port is not the limit
  CHECK(stream.mb_per_s() <= rule_mbs * 1.001);
  CHECK(stream.mb_per_s() >= rule_mbs * 0.95);
}

TEST_CASE("powermac-g4: a Memory Read is a delayed transaction per uninorth_mr_fetch_bytes, a Read Multiple one "
          "fetch of uninorth_mrm_prefetch_bytes; the fetch goes through the port and SDRAM", "[platform][powermac][dma]") {
  // Three hosts in one simulation: MR with 32-byte fetches, MRM, MR with 256-byte fetches. The
  // first host's CPU drives all three masters; the others idle.
  HostBench<ChipsetHost> a(g4(), "ra"), c(g4(), "rc");
  HostBench<ChipsetHost> d(g4({{"uninorth_mr_fetch_bytes", ParamValue(int64_t{256})}}), "rd");
  PciDmaMaster& ma = a.add("onboard-gmac", master(32, false, 66));
  PciDmaMaster& mc = c.add("onboard-gmac", master(32, false, 66));
  PciDmaMaster& md = d.add("onboard-gmac", master(32, false, 66));
  for (auto* h : {&c, &d}) h->cpu->body = [](TestCpu&) { sc_core::wait(sc_core::sc_time(1, sc_core::SC_SEC)); };
  sc_time lat_mr, lat_mrm, lat_mr256;
  auto job = [](PciCommand cmd) { return dma_job(false, 16 << 20, 256, 4, cmd); };  // line-aligned
  a.run([&](TestCpu&) {
    sc_core::wait(us(1));
    lat_mr = run_job(ma, job(PciCommand::MemRead)).min_latency;
    lat_mrm = run_job(mc, job(PciCommand::MemReadMultiple)).min_latency;
    lat_mr256 = run_job(md, job(PciCommand::MemRead)).min_latency;
  });
  auto& k = sim().counters;
  CHECK(k.get("ra.pci_f4.segA.delayed_reads") == 4u * 256 / 32);  // one delayed read per 32-byte line
  CHECK(k.get("ra.pci_f4.segA.prefetch_discarded_bytes") == 0u);
  CHECK(k.get("rc.pci_f4.segA.delayed_reads") == 4u);
  CHECK(k.get("rc.pci_f4.segA.prefetch_discarded_bytes") == 4u * (512 - 256));
  CHECK(k.get("rd.pci_f4.segA.delayed_reads") == 4u);
  CHECK(k.get("rd.pci_f4.segA.prefetch_discarded_bytes") == 0u);
  // Each line's fetch: the bridge's request and return clocks, the port down and up, UniNorth's
  // inbound decode, an SDRAM line read (a page hit still needs tCL + 4 beats): a lower bound per
  // 32-byte delayed read that the 256-byte Memory Read (8 of them, one after the other) cannot beat.
  const ChipsetBoardSpec s = g4();
  const PciSegment& seg = a.host->bridge(0).segment(0);
  const sc_time sdram = sec(1.0 / (s.dram.clock_mhz * 1e6));
  const sc_time per_line = seg.clocks(s.bridges[0].bridge.inbound_request_clocks + s.bridges[0].bridge.completion_return_clocks) +
                           ns(2 * s.bridges[0].link.crossing_ns + s.north.inbound_decode_ns) +
                           sdram * (s.dram.tCL_clocks + 4);
  INFO("256 B by Memory Read: " << to_ns(lat_mr) << " ns (8 × at least " << to_ns(per_line) << " ns); by Read Multiple "
                                << to_ns(lat_mrm) << " ns; by Memory Read with 256-byte fetches " << to_ns(lat_mr256) << " ns");
  CHECK(lat_mr >= per_line * 8);
  CHECK(lat_mrm < lat_mr);      // one fetch of 512 B instead of eight of 32
  CHECK(lat_mr256 < lat_mr);
}

TEST_CASE("powermac-g4: uninorth_pci_reads: delayed retries at once, wait-states holds the master to PCI's 16 "
          "clocks, streams a fetch that comes in time and retries one that does not", "[platform][powermac][dma]") {
  // Three hosts in one simulation, each 256 B by Memory Read (eight 32-byte fetches): as shipped
  // (delayed), wait-states (the modelled SDRAM path, 19-23 clocks after FRAME#, misses the 16: every
  // line is held, then retried), and a test variant whose limit (64 clocks) the fetch meets.
  const auto ws = std::vector<std::pair<std::string, ParamValue>>{{"uninorth_pci_reads", ParamValue(std::string("wait-states"))}};
  ChipsetBoardSpec in_time = g4(ws);
  in_time.bridges[0].bridge.target_initial_latency_clocks = 64;
  CHECK(g4().bridges[0].bridge.target_initial_latency_clocks == 0.0);
  CHECK(g4(ws).bridges[0].bridge.target_initial_latency_clocks == 16.0);
  HostBench<ChipsetHost> a(g4(), "wa"), c(g4(ws), "wc"), d(in_time, "wd");
  PciDmaMaster& ma = a.add("onboard-gmac", master(32, false, 66));
  PciDmaMaster& mc = c.add("onboard-gmac", master(32, false, 66));
  PciDmaMaster& md = d.add("onboard-gmac", master(32, false, 66));
  for (auto* h : {&c, &d}) h->cpu->body = [](TestCpu&) { sc_core::wait(sc_core::sc_time(1, sc_core::SC_SEC)); };
  const PciDmaMaster::Job j = dma_job(false, 16 << 20, 256, 1, PciCommand::MemRead);
  sc_time lat_a, lat_c, lat_d;
  a.run([&](TestCpu&) {
    sc_core::wait(us(1));
    lat_a = run_job(ma, j).max_latency;
    lat_c = run_job(mc, j).max_latency;
    lat_d = run_job(md, j).max_latency;
  });
  auto& k = sim().counters;
  CHECK(k.get("wa.pci_f4.segA.delayed_reads") == 8u);
  CHECK(k.get("wc.pci_f4.segA.delayed_reads") == 8u);
  CHECK(k.get("wc.pci_f4.segA.wait_state_reads") == 0u);
  CHECK(k.get("wd.pci_f4.segA.wait_state_reads") == 8u);
  CHECK(k.get("wd.pci_f4.segA.delayed_reads") == 0u);
  CHECK(k.get("wd.pci_f4.segA.delayed_transaction_retries") == 0u);
  INFO("256 B by Memory Read: " << to_ns(lat_a) << " ns delayed, " << to_ns(lat_c) << " ns held to 16 clocks then "
                                << "retried, " << to_ns(lat_d) << " ns streamed with wait states");
  // Held, then retried: the hold costs bus time the immediate Retry does not; streamed: one tenure
  // per line with no retry tenures or intervals.
  CHECK(lat_c > lat_a);
  CHECK(lat_d < lat_a);
  const PciSegment& seg = a.host->bridge(0).segment(0);
  CHECK(lat_d >= seg.clocks(8.0 * (1 + 8)));  // at least an address and 8 data phases per line
}

}  // namespace platform_powermac_g4_test
