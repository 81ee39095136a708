// Fast mode's DMA (docs/fast-mode.md, models/bus/dma_engine.h): a request's first (and partial last) burst
// through the bus models, the middle ones as debug transport through PCI-X segment -> P64H2 -> hub
// link -> MCH -> DRAM, taking the first burst's time scaled by bytes. On the P4DPR-6GM+ chipset without a driver:
// two DmaEngine devices on PCI-X segment B, one built in exact mode and one in fast mode, doing the
// same transfers one after the other on an idle bus; and the fallback on a path without debug
// transport. Also the fidelity setting's parsing (core/fidelity.h) and the scenario key's errors.
#include "core/fidelity.h"
#include "core/sim_context.h"
#include "e7500_test_bench.h"
#include "models/bus/dma_engine.h"
#include "platforms/scenario.h"
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace bus_dma_fast_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {

/// A DmaEngine with the 8254x's burst rule (at most the burst size, never across 4 KB) on an
/// initiator socket, and a helper that runs one transfer from a process.
struct EngineCore : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<EngineCore> init{"init"};
  std::unique_ptr<DmaEngine> dma;

  EngineCore(sc_core::sc_module_name n, size_t write_burst, size_t read_burst) : sc_module(n) {
    dma = std::make_unique<DmaEngine>(init, name(), "nicsim/test", [write_burst, read_burst](bool w, uint64_t a, size_t left) {
      size_t n = std::min({left, w ? write_burst : read_burst, size_t(4096 - (a & 4095))});
      return DmaBurst{n, w ? PciCommand::MemWrite : PciCommand::MemReadMultiple};
    });
  }
  /// Submit a transfer of `bytes` at `addr` (write: `data`), wait for its completion; returns its
  /// duration from submission and (reads) the bytes read.
  sc_time transfer(bool write, uint64_t addr, const std::vector<uint8_t>& data, size_t bytes,
                   std::vector<uint8_t>* got = nullptr) {
    sc_core::sc_event done;
    auto r = dma->request();
    r->write = write;
    r->addr = addr;
    if (write)
      r->buf = data;
    else
      r->buf.resize(bytes);
    r->what = write ? "test write" : "test read";
    r->done = [&done, got](DmaRequest& q) {
      if (got) *got = q.buf;
      done.notify(SC_ZERO_TIME);
    };
    const sc_time t0 = now();
    dma->submit(std::move(r));
    sc_core::wait(done);
    return now() - t0;
  }
};

/// EngineCore as a 64-bit PCI-X 133 device (no registers, no interrupts).
struct EngineDev : EngineCore, PciDevice {
  tlm_utils::simple_target_socket<EngineDev> tgt{"tgt"};
  sc_core::sc_port<irq_if> irq{"irq"};
  PciDeviceInfo inf;
  uint64_t bar0 = 0;

  EngineDev(sc_core::sc_module_name n, size_t write_burst, size_t read_burst) : EngineCore(n, write_burst, read_burst) {
    inf.name = "engine";
    inf.width_bits = 64;
    inf.pcix_capable = true;
    inf.max_mhz = 133;
    tgt.register_b_transport(this, &EngineDev::b_target);
  }
  void b_target(tlm::tlm_generic_payload& t, sc_time&) { t.set_response_status(tlm::TLM_OK_RESPONSE); }
  const PciDeviceInfo& info() const override { return inf; }
  tlm::tlm_target_socket<>& pci_target() override { return tgt; }
  tlm::tlm_initiator_socket<>& dma_initiator() override { return init; }
  sc_core::sc_port<irq_if>& irq_out(unsigned) override { return irq; }
  void set_bar(unsigned, uint64_t base) override { bar0 = base; }
  uint64_t bar(unsigned) const override { return bar0; }
};

std::vector<uint8_t> pattern(size_t n, unsigned seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 7 + seed);
  return v;
}

}  // namespace

TEST_CASE("fidelity: names and parsing", "[fidelity]") {
  CHECK(parse_fidelity("exact") == Fidelity::Exact);
  CHECK(parse_fidelity("fast") == Fidelity::Fast);
  CHECK_FALSE(parse_fidelity("Fast"));
  CHECK_FALSE(parse_fidelity(""));
  CHECK_FALSE(parse_fidelity("quick"));
  CHECK(std::string(fidelity_name(Fidelity::Exact)) == "exact");
  CHECK(std::string(fidelity_name(Fidelity::Fast)) == "fast");
  CHECK(run_fidelity() == Fidelity::Exact);  // the default
}

TEST_CASE("fidelity: the scenario key and its default and --set and the error naming file and line and key and values", "[fidelity]") {
  const std::string base = "name = \"t\"\n"
                           "[hosts.a]\nplatform = \"supermicro-p4dpr-6gm+\"\n"
                           "[workload]\ntype = \"busbench\"\nhost = \"a\"\nslot = \"pcix\"\n";
  CHECK(load_scenario_text(base, "t.toml").fidelity == Fidelity::Exact);
  CHECK(load_scenario_text(base, "t.toml").to_json()["fidelity"] == "exact");
  CHECK(load_scenario_text("fidelity = \"fast\"\n" + base, "t.toml").fidelity == Fidelity::Fast);
  CHECK(load_scenario_text(base, "t.toml", {"fidelity=fast"}).fidelity == Fidelity::Fast);
  CHECK(load_scenario_text("fidelity = \"fast\"\n" + base, "t.toml", {"fidelity=exact"}).fidelity == Fidelity::Exact);
  try {
    (void)load_scenario_text("seed = 2\nfidelity = \"quick\"\n" + base, "t.toml");
    FAIL("an unknown fidelity must be refused");
  } catch (const ScenarioError& e) {
    const std::string w = e.what();
    INFO(w);
    CHECK(e.file == "t.toml");
    CHECK(e.line == 2);
    CHECK(e.key == "fidelity");
    CHECK(w.find("'quick'") != std::string::npos);
    CHECK(w.find("exact or fast") != std::string::npos);
  }
  CHECK_THROWS_AS(load_scenario_text("fidelity = 1\n" + base, "t.toml"), ScenarioError);
  try {
    (void)load_scenario_text(base, "t.toml", {"fidelity=slow"});
    FAIL("an unknown fidelity from --set must be refused");
  } catch (const ScenarioError& e) {
    CHECK(e.file == "--set");
    CHECK(e.key == "fidelity");
  }
}

TEST_CASE("fast DMA: a 1518-byte write and a 1514-byte read land the same bytes - within 2 % of the exact bursts warm - the cold bias is the first arbitration repeated", "[bus][dma][fidelity]") {
  Bench b(with_second_pcix_slot(p4dpr()));
  set_run_fidelity(Fidelity::Exact);
  EngineDev ex("ex", 256, 512);
  set_run_fidelity(Fidelity::Fast);
  EngineDev fa("fa", 256, 512);
  set_run_fidelity(Fidelity::Exact);
  b.host->attach("pcix", ex);
  b.host->attach("pcix2", fa);
  CHECK_FALSE(ex.dma->fast());
  CHECK(fa.dma->fast());
  std::vector<std::pair<uint64_t, size_t>> snooped;
  b.host->set_dma_write_observer([&snooped](uint64_t a, size_t n) { snooped.push_back({a, n}); });
  const auto wdata = pattern(1518, 1), rdata = pattern(1514, 5);
  b.host->mem_write(0x300000, rdata.data(), rdata.size());
  b.host->mem_write(0x400000, rdata.data(), rdata.size());
  sc_time w_ex, w_fa, r_ex, r_fa, c_ex, c_fa;
  std::vector<uint8_t> got_ex, got_fa;
  const std::vector<uint8_t> small(64, 0xAB);
  b.run([&](TestCpu&) {
    // Cold: the bus is parked on another agent, so the first burst arbitrates.
    c_ex = ex.transfer(true, 0x100000, wdata, wdata.size());
    sc_core::wait(us(10));
    c_fa = fa.transfer(true, 0x200000, wdata, wdata.size());
    sc_core::wait(us(10));
    // Warm: a small write first parks the bus on the master, as in a steady transfer.
    ex.transfer(true, 0x500000, small, small.size());
    w_ex = ex.transfer(true, 0x100000, wdata, wdata.size());
    sc_core::wait(us(10));
    fa.transfer(true, 0x600000, small, small.size());
    w_fa = fa.transfer(true, 0x200000, wdata, wdata.size());
    sc_core::wait(us(10));
    r_ex = ex.transfer(false, 0x300000, {}, rdata.size(), &got_ex);
    sc_core::wait(us(10));
    r_fa = fa.transfer(false, 0x400000, {}, rdata.size(), &got_fa);
  });
  // The same bytes: written to DRAM, read back to the device.
  std::vector<uint8_t> m1(wdata.size()), m2(wdata.size());
  b.host->mem_read(0x100000, m1.data(), m1.size());
  b.host->mem_read(0x200000, m2.data(), m2.size());
  CHECK(m1 == wdata);
  CHECK(m2 == wdata);
  CHECK(got_ex == rdata);
  CHECK(got_fa == rdata);
  // Exact: every burst on the bus (5 writes of 256 B and one of 238, reads of 512, 512 and 490 B);
  // fast: the first and the partial last of each, the middle ones by debug transport.
  CHECK(ex.dma->bursts() == 6 + 1 + 6 + 3);
  CHECK(ex.dma->extrapolated_bytes() == 0);
  CHECK(fa.dma->bursts() == 2 + 1 + 2 + 2);
  CHECK(fa.dma->extrapolated_bytes() == 2 * 4 * 256 + 512);
  // The CPUs' caches were told about every byte the fast device wrote (snoop of the debug write).
  size_t fast_snooped = 0;
  for (auto& [a, n] : snooped)
    if (a >= 0x200000 && a < 0x200000 + 1518) fast_snooped += n;
  CHECK(fast_snooped == 2 * 1518);
  // The time: the middle bursts take the first one's, against every burst timed. Warm (the bus
  // parked on the master, as in a steady transfer) they are alike: within 2 %. Cold, the first
  // burst's arbitration (arbitration_clocks on an idle bus parked elsewhere) is counted again for
  // each of the 4 middle bursts, which exact mode issues parked: fast mode's known bias, exactly
  // 4 x arbitration_clocks here (80 ns at PCI-X 100 MHz on 2220 ns, +3.6 %).
  const PciSegment& seg = b.host->bridge().segment(1);
  INFO("write warm exact " << to_ns(w_ex) << " ns, fast " << to_ns(w_fa) << " ns; cold exact " << to_ns(c_ex)
                           << " ns, fast " << to_ns(c_fa) << " ns; read exact " << to_ns(r_ex) << " ns, fast "
                           << to_ns(r_fa) << " ns");
  CHECK(std::fabs(w_fa / w_ex - 1.0) < 0.02);
  CHECK(std::fabs(r_fa / r_ex - 1.0) < 0.02);
  CHECK(c_ex == w_ex + seg.clocks(seg.params().arbitration_clocks));
  CHECK(c_fa == c_ex + seg.clocks(4 * seg.params().arbitration_clocks));
}

namespace {
/// A memory with blocking transport only (no debug transport).
struct PlainMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<PlainMemory> sock{"sock"};
  std::vector<uint8_t> mem = std::vector<uint8_t>(1 << 16, 0);
  explicit PlainMemory(sc_core::sc_module_name n) : sc_module(n) { sock.register_b_transport(this, &PlainMemory::b); }
  void b(tlm::tlm_generic_payload& t, sc_time& d) {
    std::copy_n(t.get_data_ptr(), t.get_data_length(), mem.begin() + static_cast<long>(t.get_address()));
    d += ns(100);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};
struct Runner : sc_core::sc_module {
  std::function<void()> body;
  explicit Runner(sc_core::sc_module_name n) : sc_module(n) {
    SC_HAS_PROCESS(Runner);
    SC_THREAD(run);
  }
  void run() { body(); }
};
}  // namespace

TEST_CASE("fast DMA: a path without debug transport gets the exact bursts", "[bus][dma][fidelity]") {
  set_run_fidelity(Fidelity::Fast);
  EngineCore dev("dev", 256, 512);
  set_run_fidelity(Fidelity::Exact);
  PlainMemory mem("mem");
  dev.init.bind(mem.sock);
  Runner r("runner");
  const auto data = pattern(1000, 3);
  sc_time t;
  r.body = [&] { t = dev.transfer(true, 0x100, data, data.size()); };
  sc_core::sc_start();
  CHECK(dev.dma->fast());
  CHECK(dev.dma->bursts() == 4);  // 256 + 256 + 256 + 232, each through b_transport
  CHECK(dev.dma->extrapolated_bytes() == 0);
  CHECK(t == ns(400));
  CHECK(std::equal(data.begin(), data.end(), mem.mem.begin() + 0x100));
}

TEST_CASE("DMA engine: completed requests kept for reuse stay bounded when a device allocates its own "
          "(bug: every tg3 and GMAC request was kept with its buffer, gigabytes over a 10 s stream)",
          "[bus][dma]") {
  EngineCore dev("dev", 256, 512);
  PlainMemory mem("mem");
  dev.init.bind(mem.sock);
  Runner r("runner");
  constexpr size_t kKept = 1024;  // kMaxSpare, models/bus/dma_engine.cpp
  constexpr size_t kRequests = 3 * kKept;
  size_t done = 0;
  r.body = [&] {
    for (size_t i = 0; i < kRequests; ++i) {
      auto q = std::make_unique<DmaRequest>();  // not dev.dma->request()
      q->write = true;
      q->addr = 0x100;
      q->buf.assign(64, uint8_t(i));
      q->done = [&done](DmaRequest&) { ++done; };
      dev.dma->submit(std::move(q));
    }
  };
  sc_core::sc_start();
  CHECK(done == kRequests);
  // request() hands out the kept ones (emptied, their buffers' capacity kept), then new ones.
  std::vector<std::unique_ptr<DmaRequest>> taken;
  size_t reused = 0;
  for (;;) {
    taken.push_back(dev.dma->request());
    if (taken.back()->buf.capacity() < 64) break;
    CHECK(taken.back()->buf.empty());
    ++reused;
  }
  CHECK(reused == kKept);
}

}  // namespace bus_dma_fast_test
